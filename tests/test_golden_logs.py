"""Golden logs: complete games kept under tests/ must still verify and replay to
the same final scores (regenerate only for an intended, recorded rules change)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.logfile import read
from replay.sources import fold_log
from replay.verify import verify

GOLDEN = Path(__file__).parent / "golden"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_golden_log_replays_to_the_same_scores(name: str) -> None:
    with (GOLDEN / f"{name}.jsonl").open() as handle:
        log = read(handle, name)
    verdict = verify(log)
    assert verdict.ok, verdict.message(name)
    game, _, states = fold_log(log)
    result = game.result(states[-1])
    assert result is not None
    assert list(result.scores) == EXPECTED[name]["scores"]
    assert list(result.winners) == EXPECTED[name]["winners"]
