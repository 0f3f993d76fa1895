"""A fake fourth game through the CLI's generic paths (issue 27, item 2).

``tests/helpers/fake_game.py`` is written against the engine contract alone and
registered for these tests only (the registry's table, patched): ``new``,
``show``, ``log``, ``move``, ``legal``, ``explain``, ``autoplay``, ``verify``,
``export`` (JSON Lines, the text record, HTML), ``picture`` and ``import``, ``fork``,
``diff``, ``simulate``, ``demo``, ``hint`` and the results' verdict work on it
as on the three real games, knowing nothing of it but its contract and its
declared facts (``GameSpec``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from core import registry
from tests.cli.clirun import dump, ok, run
from tests.helpers import fake_game

NAME = fake_game.NAME


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The fake game in the registry, for one test."""
    monkeypatch.setitem(registry._MODULES, NAME, "tests.helpers.fake_game")
    yield


def new(db: Path, *extra: str) -> str:
    out = ok(db, "new", NAME, "--players", "ann,bob", "--seed", "s1", "--json", *extra)
    return str(json.loads(out)["game_id"])


def test_the_registry_lists_it() -> None:
    assert NAME in registry.available() and registry.get(NAME) is fake_game.GAME
    assert NAME in registry.kinds()


def test_new_show_log_move_and_legal(db: Path) -> None:
    gid = new(db)
    shown = json.loads(ok(db, "show", gid, "--json"))
    assert shown["game"] == NAME and shown["to_act"] == ["ann"] and shown["players"] == ["ann", "bob"]
    assert "round 1 of 2" in ok(db, "show", gid)
    lines = [json.loads(x) for x in ok(db, "log", gid, "--json").splitlines()]
    assert [x["type"] for x in lines] == ["np.created", "np.rolled"]
    assert "the die shows" in ok(db, "log", gid)
    legal = ok(db, "legal", gid, "--as", "ann")
    assert "pick 1" in legal and "pick 3" in legal
    ok(db, "move", gid, "--as", "ann", "pick 2")
    before = dump(db)
    code, _, err = run(db, "move", gid, "--as", "bob", "pick 7")
    assert code == 2 and "[NP-1]" in err and "Traceback" not in err and dump(db) == before
    code, _, err = run(db, "move", gid, "--as", "ann", "pick 1")
    assert code == 2 and "not ann's turn" in err and dump(db) == before
    code, _, err = run(db, "move", gid, "--as", "bob", "jump")
    assert code == 2 and "pick N" in err and dump(db) == before
    ok(db, "move", gid, "--as", "bob", "pick 1")
    types = [json.loads(x)["type"] for x in ok(db, "log", gid, "--json").splitlines()]
    assert types[-3:] == ["np.picked", "np.round_ended", "np.rolled"]  # the automatic step, then chance
    assert "bob picks 1" in ok(db, "explain", gid, "--at", "4")


def test_autoplay_verify_export_import_fork_and_diff(db: Path, tmp_path: Path) -> None:
    gid = new(db, "--option", "rounds=3")
    done = json.loads(ok(db, "autoplay", gid, "--bots", "random", "--json"))
    assert "verdict" in done and len(done["scores"]) == 2
    shown = ok(db, "show", gid)
    assert ("wins with" in shown or "tie" in shown) and "picks" in shown  # the breakdown and the verdict
    assert "valid" in ok(db, "verify", gid)
    path = tmp_path / "g.jsonl"
    ok(db, "export", gid, "-o", str(path))
    assert "valid" in ok(db, "verify", str(path))
    imported = json.loads(ok(db, "import", str(path), "--again", "--json"))["game_id"]
    assert json.loads(ok(db, "diff", gid, imported, "--json"))["identical"] is True
    record = tmp_path / "g.txt"
    ok(db, "export", gid, "--format", "text", "-o", str(record))
    again = json.loads(ok(db, "import", str(record), "--again", "--json"))["game_id"]
    assert ok(db, "export", again, "--format", "text") == record.read_text()
    assert "<html" in ok(db, "export", gid, "--format", "html").lower()
    assert "<svg" in ok(db, "picture", gid, "--at", "3")  # a game without a scene: its text [core.scene]
    fork = json.loads(ok(db, "fork", gid, "--at", "3", "--seed", "other", "--json"))["game_id"]
    assert len(ok(db, "log", fork, "--json").splitlines()) >= 3
    ok(db, "autoplay", fork, "--bots", "random")
    assert "valid" in ok(db, "verify", fork)
    forked = tmp_path / "f.jsonl"
    ok(db, "export", fork, "-o", str(forked))
    assert "valid" in ok(db, "verify", str(forked))  # the reseeded chance re-derived


def test_a_tie_names_the_declared_tie_break(db: Path) -> None:
    gid = new(db, "--option", "rounds=1")
    ok(db, "move", gid, "--as", "ann", "pick 1")
    ok(db, "move", gid, "--as", "bob", "pick 1")
    text = ok(db, "show", gid)
    rolled = json.loads(ok(db, "log", gid, "--json").splitlines()[1])
    if rolled["event"]["value"] == 1:  # both picks equal to the roll: still tied on the one key
        assert "share the win" in text and "still tied on picks equal to the roll" in text
    else:
        assert "share the win" in text and "[NP-2]" in text


def test_simulate_demo_and_hint(db: Path) -> None:
    out = ok(db, "simulate", NAME, "--players", "2", "--seed", "x", "--games", "3", "--bots", "random,mcts:8",
             "--json")
    assert out.strip()
    assert "wins" in ok(db, "demo", "--game", NAME, "--players", "2") or "tie" in ok(db, "list")
    gid = new(db)
    hinted = json.loads(ok(db, "hint", gid, "--as", "ann", "--budget", "12", "--json"))
    assert hinted["best"].startswith("pick ") and hinted["playouts"] == 12
