"""A position as plain data — a *scene* — for every renderer (SVG, HTML, TUI).

Each game describes a position once (``core/<game>/scene.py``), built from a
state a seat may see: :func:`scene_of` folds the referee's state through
``game.view`` before the game's builder sees it, so hidden information never
reaches a scene.  A scene is panels (titled grids of cells with coordinates,
kind, colour, label and marks), status lines and scores so far; renderers keep
each game's look through the cells' kinds and colours, not through drawing code
of their own.

Marks a renderer should show: ``last`` (changed by the last decision),
``hidden`` (a card or tile the viewer may not see), ``target`` (where the next
decision may place something), ``active`` (whose turn).

>>> a = Scene("t", panels=(Panel("p", 1, 2, (Cell(0, 0, "R", "#fff", "R"),)),))
>>> b = Scene("t", panels=(Panel("p", 1, 2, (Cell(0, 0, "R", "#fff", "R"), Cell(0, 1, "C", "#00f", "C"))),))
>>> [c.marks for c in mark_changes(a, b).panels[0].cells]
[(), ('last',)]
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace


class Cell(msgspec.Struct, frozen=True):
    row: int
    col: int
    kind: str
    """The game's own code (``R``, ``Fe``, ``card``, ``empty``…)."""
    colour: str
    """A fill colour, ``#rrggbb``."""
    label: str = ""
    """Short text on the cell (a few characters; ``\n`` separates lines)."""
    marks: tuple[str, ...] = ()
    detail: str = ""
    """A longer description (a tooltip)."""
    ink: str = "#111111"
    """The label's colour."""


class Panel(msgspec.Struct, frozen=True):
    """A titled grid: a city, a board, a market, or a row of cards."""

    title: str
    rows: int
    cols: int
    cells: tuple[Cell, ...] = ()
    """Cells at their game coordinates: grid row ``cell.row - top``, column ``cell.col - left``."""
    row_labels: tuple[str, ...] = ()
    col_labels: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    """Lines under the grid (coins, hand, tokens…)."""
    marks: tuple[str, ...] = ()
    """``active``: the panel of the seat to act; ``you``: the viewer's own."""
    cell_width: int = 1
    """Cells are this many squares wide (Point City's cards carry more text)."""
    top: int = 0
    left: int = 0
    """The game coordinates of the grid's top-left square (a Card City frame moves)."""


class Scene(msgspec.Struct, frozen=True):
    title: str
    status: tuple[str, ...] = ()
    panels: tuple[Panel, ...] = ()
    scores: tuple[tuple[str, int], ...] = ()
    """Scores so far (or final), player by player."""
    caption: str = ""
    """The last event, described."""
    legend: tuple[tuple[str, str], ...] = ()
    """What the colours mean: ``(colour, text)`` pairs."""


def mark_changes(before: Scene | None, after: Scene) -> Scene:
    """``after`` with the cells the last decision changed marked ``last``."""
    if before is None:
        return after
    old = {
        (p.title, c.row, c.col): (c.kind, c.label, c.colour)
        for p in before.panels
        for c in p.cells
    }
    titles = {p.title for p in before.panels}
    panels = []
    for p in after.panels:
        if p.title not in titles:  # a panel that just appeared (a new offer): no marks
            panels.append(p)
            continue
        cells = tuple(
            replace(c, marks=(*c.marks, "last"))
            if old.get((p.title, c.row, c.col)) != (c.kind, c.label, c.colour) and c.kind != "empty"
            else c
            for c in p.cells
        )
        panels.append(replace(p, cells=cells))
    return replace(after, panels=tuple(panels))


def scene_of(game: Any, state: Any, seat: int | None, caption: str = "") -> Scene:
    """The scene of ``state`` as ``seat`` may see it (None: the referee sees all)."""
    seen = state if seat is None else game.view(state, seat)
    scene: Scene = game.scene(seen, seat)
    return replace(scene, caption=caption) if caption else scene


def decision_start(game: Any, events: list[Any], seq: int) -> int:
    """The seq of the first event of the decision holding event ``seq``."""
    i = seq - 1
    while i > 0 and game.command_of(events[i]) is None:
        i -= 1
    return i + 1


def scene_at(
    game: Any,
    events: list[Any],
    states: list[Any],
    seq: int,
    seat: int | None,
    players: Any,
    cache: dict[int, Scene] | None = None,
) -> Scene:
    """The scene after event ``seq`` (1-based), the last decision's cells marked.

    ``states[i]`` is the state after ``events[i]``.  ``cache`` (index -> unmarked
    scene, for one seat) saves rebuilding scenes when drawing every step.
    """
    cache = {} if cache is None else cache

    def plain(i: int) -> Scene:
        if i not in cache:
            cache[i] = scene_of(game, states[i], seat)
        return cache[i]

    start = decision_start(game, events, seq)
    before = plain(start - 2) if start >= 2 else None
    event = events[seq - 1] if seat is None else game.redact(events[seq - 1], seat)
    caption = f"#{seq} {game.describe(event, players)}"
    return mark_changes(before, replace(plain(seq - 1), caption=caption))
