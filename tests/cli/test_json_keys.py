"""Issue 26, item 8: every command's ``--json`` follows one key convention
(:data:`cli.output.JSON_KEYS`), and a refusal under ``--json`` is JSON too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli.output import JSON_KEYS
from tests.cli.clirun import dump, ok, run

SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
SYNONYMS = {"id", "gid", "game_name", "at", "version", "seat", "seats", "name", "user", "gameid"}
"""Other names for what JSON_KEYS names once (``rules`` and ``key`` objects aside)."""


def keys_of(value: object) -> set[str]:
    """Every key of a JSON value's objects, at any depth but inside a game's own
    data (``state``, ``event``: the fold's and the event's field names)."""
    out: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            if k not in ("state", "event", "breakdowns", "options"):
                out |= keys_of(v)
    elif isinstance(value, list):
        for v in value:
            out |= keys_of(v)
    return out


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """One Card City game (alice by hand, bob a bot) and a folder for files."""
    folder = tmp_path_factory.mktemp("json-keys")
    db = folder / "c.db"
    gid = json.loads(ok(db, "new", "card-city", "--players", "alice,bob", "--seed", "k1", "--bots", "bob=greedy",
                        "--json"))["game_id"]
    return db, gid, folder


def commands(gid: str, folder: Path, first: str) -> list[list[str]]:
    """Every command that prints JSON about one game (each with ``--json``)."""
    return [
        ["show", gid], ["show", gid, "--as", "alice"], ["log", gid], ["list"], ["legal", gid, "--as", "alice"],
        ["explain", gid, "--at", "2"], ["explain", gid, "--at", "2", "--try", first],
        ["hint", gid, "--as", "alice", "--budget", "8"], ["note", gid, "--at", "2", "why?"], ["note", gid],
        ["tag", gid, "club"], ["untag", gid, "club"], ["tree", gid],
        ["export", gid, "-o", str(folder / f"{gid}.jsonl"), "--force"],
        ["picture", gid, "-o", str(folder / f"{gid}.svg"), "--force"], ["verify", gid],
        ["move", gid, "--as", "alice", first], ["fork", gid, "--at", "2"], ["autoplay", gid],
        ["import", str(folder / f"{gid}.jsonl"), "--again"], ["diff", gid, gid],
    ]


def test_every_commands_json_follows_one_key_convention(played: tuple[Path, str, Path]) -> None:
    db, gid, folder = played
    seen: set[str] = set()
    first = json.loads(ok(db, "show", gid, "--as", "alice", "--json"))["legal"][0]
    for args in commands(gid, folder, first):
        code, out, err = run(db, *args, "--json")
        assert code in (0, 1), f"{args}: {err}"
        lines = out.splitlines()
        assert lines, f"{args} printed no JSON"
        for line in lines:
            obj = json.loads(line)
            assert isinstance(obj, dict), args
            keys = keys_of(obj)
            seen |= keys
            assert all(SNAKE.match(k) for k in keys), (args, keys)
            assert not keys & SYNONYMS, (args, keys & SYNONYMS)
            if args[0] == "diff":
                assert obj["game_ids"] == [gid, gid]
            elif args[0] != "list":  # every object about one game names it, as game_id
                assert "game_id" in obj, (args, sorted(obj))
                if args[0] not in ("fork", "import"):  # those name the new game
                    assert obj["game_id"] == gid, args
            if "player" in obj and obj["player"] is not None:
                assert obj["player"] in ("alice", "bob"), args
    assert set(JSON_KEYS) <= seen  # each key of the convention is used, under that name


@pytest.mark.parametrize(
    "args",
    [["show", "nope"], ["move", "{gid}", "--as", "alice", "build Q Z9"], ["fork", "{gid}", "--at", "999"],
     ["show", "{gid}", "--bogus"], ["legal", "{gid}", "--as", "zed"]],
)
def test_a_refusal_under_json_is_one_json_object_with_the_same_exit_code(
    played: tuple[Path, str, Path], args: list[str]
) -> None:
    db, gid, _ = played
    args = [a.format(gid=gid) for a in args]
    before = dump(db)
    plain_code, _, plain_err = run(db, *args)
    code, out, err = run(db, *args, "--json")
    assert code == plain_code == 2 and out == "" and dump(db) == before
    (line,) = err.splitlines()
    obj = json.loads(line)
    assert obj == {"error": plain_err.strip(), "exit_code": 2}
