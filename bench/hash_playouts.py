"""Fingerprints of what the engines decide, to show a speed-up changed nothing.

    python bench/hash_playouts.py            # run on two checkouts and compare

For each game, hashes (sha256 over msgspec JSON, chained):

* 60 seeded random playouts as the search plays them (:func:`core.mcts.playout`,
  1–4 players, options varied): every event each step produced and the final
  state;
* 12 seeded greedy games (:func:`core.autoplay.play_game`, 1–4 players): the
  event log and the final state;
* Card City and Point City: the command an MCTS bot (60 playouts) chooses at
  every sixth player decision of 4 seeded two-player random games.

Equal lines on two checkouts: the same events, states and choices.  Not a
test: it prints and asserts nothing (bench/RESULTS.md, fourth pass).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgspec  # noqa: E402

from core import registry  # noqa: E402
from core.autoplay import play_game  # noqa: E402
from core.engine import CHANCE  # noqa: E402
from core.mcts import Budget, mcts_bot, playout  # noqa: E402
from core.rng import Rng  # noqa: E402

_encode = msgspec.json.Encoder().encode
SEATS = ["a", "b", "c", "d"]


def digest(value: Any) -> bytes:
    return hashlib.sha256(_encode(value)).hexdigest().encode()


def recorded_playout(game: Any, state: Any, rng: Rng) -> tuple[list[Any], Any]:
    """:func:`playout` with every step's events kept (the same calls, the same draws)."""
    events: list[Any] = []
    with stepping(game, events.extend):
        final = playout(game, state, rng)
    return events, final


@contextmanager
def stepping(game: Any, seen: Any) -> Iterator[None]:
    """Every step a playout takes passes its events to ``seen``: ``game.step`` and the
    search model's ``random_step`` / ``chance_step`` (where the engine has them),
    each shadowed by an instance attribute for the while; a step inside another
    (a model's default hook steps the rules) is the outer one's, seen once."""
    depth = 0

    def wrap(method: Any) -> Any:
        def seeing(*args: Any) -> Any:
            nonlocal depth
            depth += 1
            try:
                produced, after = method(*args)
            finally:
                depth -= 1
            if depth == 0:
                seen(produced)
            return produced, after

        return seeing

    model = game.search
    shadowed = [(game, "step")] + [(model, n) for n in ("random_step", "chance_step") if hasattr(model, n)]
    for owner, name in shadowed:
        setattr(owner, name, wrap(getattr(owner, name)))
    try:
        yield
    finally:
        for owner, name in shadowed:
            delattr(owner, name)


def options_for(name: str, k: int, players: int) -> dict[str, str]:
    if name == "card-city":
        return {"decentralization": "yes" if k % 3 == 0 else "no", "parking-meters": "yes" if k % 5 < 2 else "no"}
    if name == "point-city" and players == 1:
        return {"solo-level": str(k % 3 + 1)}
    return {}


def fingerprints(name: str) -> dict[str, str]:
    game = registry.get(name)
    out: dict[str, str] = {}
    acc, n = hashlib.sha256(), 0
    for k in range(60):
        players = SEATS[: k % 4 + 1]
        start = game.apply(None, game.create(players, options_for(name, k, len(players))))
        events, final = recorded_playout(game, start, Rng(f"ident/{name}/{k}".encode()))
        n += len(events)
        acc.update(digest(events))
        acc.update(digest(final))
    out["playouts"] = f"{acc.hexdigest()} ({n} events)"
    acc = hashlib.sha256()
    for k in range(12):
        players = SEATS[: k % 4 + 1]
        final, events = play_game(game, players, f"ident-greedy/{k}", ["greedy"] * len(players))
        acc.update(digest(events))
        acc.update(digest(final))
    out["greedy"] = acc.hexdigest()
    if name in ("card-city", "point-city"):
        acc = hashlib.sha256()
        bot = mcts_bot(Budget(playouts=60))
        for k in range(4):
            decisions: list[tuple[Any, int]] = []
            play_game(game, ["a", "b"], f"ident-m/{k}", ["random", "random"],
                      hook=lambda before, seat, _c, _e: decisions.append((before, seat)))
            mine = [(s, seat) for s, seat in decisions if seat != CHANCE]
            for i, (s, seat) in enumerate(mine):
                if i % 6 == 2:
                    acc.update(digest(bot(game, game.view(s, seat), seat, Rng(f"m/{k}/{i}".encode()))))
        out["mcts"] = acc.hexdigest()
    return out


def main() -> None:
    for name in ("card-city", "point-city", "5x5-city"):
        for kind, value in fingerprints(name).items():
            print(f"{name} {kind} {value}", flush=True)


if __name__ == "__main__":
    main()
