"""A game and its forks as a tree (PGN's variations): ``citylog tree``.

:func:`fork_tree` finds the root of a game's lineage and every fork below it;
:func:`render_tree` draws it with box characters.  Children are ordered by fork
point, then id, so the picture is stable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from events.store import GameNotFound, GameRecord


class Node(msgspec.Struct, frozen=True):
    id: str
    fork_at: int | None
    """The parent's seq this fork was taken after (None for the root)."""
    seed: str
    """``same seed``, or the new seed the fork plays its chance from."""
    events: int
    summary: str
    """``over: alice 15, bob 9; won: alice`` or ``active``."""
    children: tuple[Node, ...] = ()


def fork_tree(
    game_id: str,
    games: Sequence[tuple[GameRecord, int]],
    summary: Callable[[GameRecord], str],
) -> Node:
    """The tree holding ``game_id``: from its oldest ancestor in ``games`` down."""
    by_id = {g.id: (g, n) for g, n in games}
    if game_id not in by_id:
        raise LookupError(game_id)
    root = game_id
    seen = {root}
    while (parent := by_id[root][0].parent) is not None and parent in by_id and parent not in seen:
        root = parent
        seen.add(root)
    children: dict[str, list[GameRecord]] = {}
    for g, _ in games:
        if g.parent is not None:
            children.setdefault(g.parent, []).append(g)

    def build(gid: str, path: frozenset[str]) -> Node:
        g, n = by_id[gid]
        kids = sorted(children.get(gid, ()), key=lambda c: (c.fork_at or 0, c.id))
        if gid == root:
            seed = "root"
        elif g.fork_at is not None and g.reseeds and g.reseeds[-1][0] == g.fork_at + 1:
            seed = f"seed {g.reseeds[-1][1]}"
        else:
            seed = "same seed"
        return Node(
            g.id,
            g.fork_at,
            seed,
            n,
            summary(g),
            tuple(build(k.id, path | {k.id}) for k in kids if k.id not in path),
        )

    return build(root, frozenset({root}))


def game_tree(service: Any, game_id: str) -> Node:
    """The fork tree holding ``game_id`` in ``service``'s store, with each game's result."""
    from replay.record import result_text

    def summary(record: GameRecord) -> str:
        loaded = service.load(record.id)
        if loaded.game.to_act(loaded.state):
            return "active"
        return "over: " + result_text(loaded.game, loaded.state, loaded.players)

    try:
        return fork_tree(game_id, service.store.list_games_with_counts(), summary)
    except LookupError:
        raise GameNotFound(game_id) from None


def flatten(node: Node, mark: str | None = None) -> list[tuple[str, str]]:
    """(game id, its line of :func:`render_tree`) in drawing order."""
    ids: list[str] = []

    def walk(n: Node) -> None:
        ids.append(n.id)
        for c in n.children:
            walk(c)

    walk(node)
    return list(zip(ids, render_tree(node, mark), strict=True))


def render_tree(node: Node, mark: str | None = None) -> list[str]:
    """Lines of the tree; ``mark`` (a game id) gets a ``◀``."""

    def label(n: Node) -> str:
        at = f"at {n.fork_at}: " if n.fork_at is not None else ""
        here = "  ◀" if n.id == mark else ""
        return f"{at}{n.id}  {n.seed}  {n.events} events  {n.summary}{here}"

    lines = [label(node)]

    def walk(n: Node, prefix: str) -> None:
        for i, child in enumerate(n.children):
            last = i == len(n.children) - 1
            lines.append(prefix + ("└─ " if last else "├─ ") + label(child))
            walk(child, prefix + ("   " if last else "│  "))

    walk(node, "")
    return lines
