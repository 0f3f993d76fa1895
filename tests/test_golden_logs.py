"""Golden logs: complete games kept under tests/ must still verify and replay to
the same final scores (regenerate only for an intended, recorded rules change)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import registry
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


SCHEME1 = GOLDEN / "scheme1"
EXPECTED_SCHEME1 = json.loads((SCHEME1 / "expected.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED_SCHEME1))
def test_golden_logs_of_secret_scheme_1_still_verify(name: str) -> None:
    """The golden logs as they were before issue 22 (chance and nonces from the seed
    alone, no ``secrets`` in their definition): still verified, under the scheme
    their chained definition records [CL-V6], to the same scores."""
    with (SCHEME1 / f"{name}.jsonl").open() as handle:
        log = read(handle, name)
    assert log.header.definition.secrets == 1
    verdict = verify(log)
    assert verdict.ok, verdict.message(name)
    game, _, states = fold_log(log)
    result = game.result(states[-1])
    assert result is not None
    assert list(result.scores) == EXPECTED_SCHEME1[name]["scores"]
    assert list(result.winners) == EXPECTED_SCHEME1[name]["winners"]


OLDER = {  # logs of rules versions this citylog no longer plays, with their recorded scores
    "point-city-two-players.pc-1": ("pc-1", (54, 35)),
    "point-city-solo-level-3.pc-1": ("pc-1", (47,)),
}

KEPT = {  # logs of older rules versions the game still verifies by [PL-17], with their scores
    "point-city-two-players.pc-2": ("pc-2", (35, 35)),
    "point-city-solo-level-3.pc-2": ("pc-2", (36,)),
}


@pytest.mark.parametrize("name", sorted(OLDER))
def test_a_log_of_older_rules_stays_readable_but_is_not_vouched_for(name: str) -> None:
    """The fold never validates, so a game recorded before a rules change (here Point
    City's repriced card list, PL-15) still replays to its end and its recorded scores;
    verify says it cannot vouch for it instead of calling it tampered."""
    rules, scores = OLDER[name]
    with (GOLDEN / "older" / f"{name}.jsonl").open() as handle:
        log = read(handle, name)
    assert log.header.definition.rules_version == rules
    verdict = verify(log)
    assert not verdict.ok
    assert f"recorded under rules {rules}" in verdict.message(name) and "not vouch" in verdict.message(name)
    game, events, states = fold_log(log)
    assert game.spec.rules_version != rules
    assert len(states) == len(events) and game.to_act(states[-1]) == ()
    assert tuple(events[-1].scores) == scores
    # show and log agree: the result is the recorded one (the log is the truth), and a
    # breakdown that today's card list prices differently says so
    result = game.result(states[-1])
    assert result is not None and tuple(result.scores) == scores
    assert tuple(result.winners) == tuple(events[-1].winners)
    assert any("under an older card list" in b.title for b in result.breakdowns)


@pytest.mark.parametrize("name", sorted(KEPT))
def test_a_log_of_kept_older_rules_replays_and_verifies_under_its_own_version(name: str) -> None:
    """Point City pc-2 (before PL-17's Ingenuity count) is verified by its own rules
    (``Game.for_rules``): every decision re-made as pc-2 made it, to its scores."""
    rules, scores = KEPT[name]
    with (GOLDEN / "older" / f"{name}.jsonl").open() as handle:
        log = read(handle, name)
    assert log.header.definition.rules_version == rules
    verdict = verify(log)
    assert verdict.ok, verdict.message(name)
    assert "every event legal" in verdict.message(name)
    game, events, states = fold_log(log)
    assert game.spec.rules_version == rules != registry.get(log.header.definition.game).spec.rules_version
    assert len(states) == len(events) and game.to_act(states[-1]) == ()
    result = game.result(states[-1])
    assert result is not None and tuple(result.scores) == tuple(events[-1].scores) == scores
    assert tuple(result.winners) == tuple(events[-1].winners)
