"""One rule-tag style everywhere [GL-2]: every rule cited in what log, explain, verify,
show and refusals print for the golden games is ``[ID]``, and ``citylog rules ID`` knows it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli.rulings import rulings
from core.engine import CHANCE, IllegalCommand, RulesError, checked_decide
from replay.explain import explain_at, try_at
from replay.logfile import read
from replay.sources import fold_log
from replay.verify import verify

GOLDEN = Path(__file__).parent / "golden"
NAMES = sorted(p.stem for p in GOLDEN.glob("*.jsonl"))
ID = r"(?:GN|CC|FC|PC|CL|FL|PL|GL|CB|FB)-[VSTUX]?\d+"
ANY_ID = re.compile(rf"(?<![\w-]){ID}(?![\w-])")
TAG = re.compile(rf"\[({ID})\]")
OLD_SECTIONS = ("Zoning Laws", "Phase 1", "Phase 2", "Phase 3", "Phase 5", "engine", "Game Setup",
                "Placement rules", "Building Plot Card Drawing Phase", "Advanced Rules",
                "Tile Placement phase", "End of Game Scoring")


def _texts(name: str) -> list[str]:
    with (GOLDEN / f"{name}.jsonl").open() as handle:
        log = read(handle, name)
    game, events, states = fold_log(log)
    players = log.header.definition.players
    out = [verify(log).message(name)]
    out += [game.describe(e, players) for e in events]
    step = max(1, len(events) // 150)  # explain: every event of a short game, a sample of a long one
    seqs = sorted(set(range(1, len(events) + 1, step)) | {len(events)})
    out += [explain_at(game, events, players, seq, True) for seq in seqs]
    for seq in seqs[1::7]:
        for text in ("pass", "build R E4"):
            try:
                out.append(try_at(game, events, players, seq, None, text)[1])
            except ValueError as exc:  # not a command of this game, or an automatic step
                out.append(str(exc))
    out += [game.render(states[i], None) for i in range(0, len(states), max(1, len(states) // 20))]
    # refusals: every seat tries a few commands at a few points, legal or not
    for i in range(0, len(states), max(1, len(states) // 10)):
        s = states[i]
        for seat in (CHANCE, *range(len(players))):
            for text in ("pass", "build R E4", "take pair", "flip A1", "place 1 A1", "draw R"):
                try:
                    checked_decide(game, s, seat, game.parse_command(s, max(seat, 0), text))
                except IllegalCommand as exc:
                    out.append(str(exc))
                except RulesError:
                    pass
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_rule_tag_printed_is_an_id_in_brackets_that_rules_knows(name: str) -> None:
    known = rulings()
    texts = _texts(name)
    tagged = 0
    for text in texts:
        bare = ANY_ID.findall(TAG.sub("", text))
        assert bare == [], f"a rule cited without [ID]: {bare} in {text!r}"
        for section in OLD_SECTIONS:
            assert f"[{section}]" not in text, text
        for rid in TAG.findall(text):
            tagged += 1
            assert rid in known, f"citylog rules {rid}: unknown ({text!r})"
    assert tagged > 0


def test_rules_knows_the_book_sections_by_name_too() -> None:
    from typer.testing import CliRunner

    from cli.main import app

    out = CliRunner().invoke(app, ["rules", "Zoning Laws"])
    assert out.exit_code == 0 and out.stdout.startswith("[CB-6]")
    out = CliRunner().invoke(app, ["rules", "cb-2"])
    assert out.exit_code == 0 and "Construction" in out.stdout
    out = CliRunner().invoke(app, ["rules", "CL-V1"])
    assert out.exit_code == 0 and "redacted" in out.stdout
