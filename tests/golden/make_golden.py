"""Regenerate the golden logs (only when a rules change is intended and recorded).

    python tests/golden/make_golden.py
"""

from __future__ import annotations

import hashlib
import io
import json
import tempfile
from pathlib import Path

from events.service import GameService
from events.sqlite_store import SqliteStore
from replay import logfile
from replay.sources import export

HERE = Path(__file__).parent
GAMES = {
    "card-city-two-players": ("card-city", ["ann", "bob"], "golden-2", {}),
    "card-city-four-players-variants": (
        "card-city",
        ["ann", "bob", "cy", "dee"],
        "golden-4",
        {"decentralization": "yes", "parking-meters": "yes"},
    ),
    "card-city-solo": ("card-city", ["ann"], "golden-1", {}),
    "5x5-city-three-players-advanced": (
        "5x5-city", ["ann", "bob", "cy"], "golden-3", {"advanced": "yes", "sides": "random"}
    ),
    "point-city-two-players": ("point-city", ["ann", "bob"], "golden-2", {}),
    "point-city-solo-level-3": ("point-city", ["ann"], "golden-1", {"solo-level": "3"}),
}


def main() -> None:
    expected = {}
    with tempfile.TemporaryDirectory() as tmp:
        svc = GameService(SqliteStore(Path(tmp) / "g.db"))
        for name, (game, players, seed, options) in GAMES.items():
            gid = svc.create(
                game, players, seed=seed, options=options,
                bots=dict.fromkeys(range(len(players)), "greedy"), game_id=name,
                # a fixed salt (issue 10): regenerating gives the same bytes
                salt=hashlib.sha256(name.encode()).hexdigest()[:32],
            )
            buffer = io.StringIO()
            logfile.write(export(svc, gid), buffer)
            (HERE / f"{name}.jsonl").write_text(buffer.getvalue())
            loaded = svc.load(gid)
            result = loaded.game.result(loaded.state)
            expected[name] = {"scores": list(result.scores), "winners": list(result.winners)}
    (HERE / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")


if __name__ == "__main__":
    main()
