"""``export --format text``, ``import`` of a record, ``note`` and ``tree`` through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.clirun import dump, ok, run


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "c.db"


def bot_game(db: Path) -> str:
    out = ok(db, "new", "card-city", "--players", "alice,bob", "--seed", "s1", "--json",
             "--bots", "alice=greedy,bob=greedy")
    return json.loads(out)["game_id"]


def test_notes_survive_a_text_record_round_trip(db: Path, tmp_path: Path) -> None:
    gid = bot_game(db)
    before = ok(db, "export", gid)
    assert "noted at seq 6" in ok(db, "note", gid, "--at", "6", "a bold split")
    ok(db, "note", gid, "--at", "9", "line one\nline two }")
    assert ok(db, "export", gid) == before  # a note never changes the game
    record = tmp_path / "r.txt"
    ok(db, "export", gid, "--format", "text", "-o", str(record))
    text = record.read_text()
    assert "{a bold split}" in text and "{@9 line one\\nline two \\}}" in text
    # bot seats are the importer's to give, never the file's [CL-V5]
    new = json.loads(ok(db, "import", str(record), "--again", "--bots", "greedy", "--json"))["game_id"]
    assert [json.loads(line) for line in ok(db, "note", new, "--json").splitlines()] == [
        {"game_id": new, "seq": 6, "text": "a bold split"},
        {"game_id": new, "seq": 9, "text": "line one\nline two }"},
    ]
    assert ok(db, "export", new, "--format", "text") == text
    assert ok(db, "export", new).splitlines()[1:] == before.splitlines()[1:]  # same hashes
    assert "#6  a bold split" in ok(db, "note", gid)


@pytest.mark.parametrize(
    "args, message",
    [
        (("--at", "0", "x"), "between 1 and"),
        (("--at", "99999", "x"), "between 1 and"),
        (("--at", "3", "   "), "needs some text"),
        (("x",), "give --at SEQ"),
        (("--at", "3"), "--at goes with a note's text"),
    ],
)
def test_bad_notes_are_refused_and_store_nothing(db: Path, args: tuple[str, ...], message: str) -> None:
    gid = bot_game(db)
    before = dump(db)
    code, out, err = run(db, "note", gid, *args)
    assert code == 2 and message in err and "Traceback" not in err + out
    assert dump(db) == before


def test_a_tampered_record_is_refused_and_stores_nothing(db: Path, tmp_path: Path) -> None:
    gid = bot_game(db)
    record = tmp_path / "r.txt"
    text = ok(db, "export", gid, "--format", "text")
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if " alice: build " in line)
    lines[i] = lines[i].rsplit(" ", 1)[0] + " 9,9"
    record.write_text("\n".join(lines) + "\n")
    before = dump(db)
    code, _, err = run(db, "import", str(record))
    assert code == 2 and f"r.txt:{i + 1}: [" in err
    assert dump(db) == before
    record.write_bytes(b"\xff\xfe[Format")
    code, _, err = run(db, "import", str(record))
    assert code == 2 and "not a text file" in err


def test_text_export_of_a_player_view_is_refused(db: Path) -> None:
    gid = bot_game(db)
    code, _, err = run(db, "export", gid, "--as", "alice", "--format", "text")
    assert code == 2 and "referee's whole game" in err
    code, _, err = run(db, "export", gid, "--format", "pgn")
    assert code == 2 and "--format is jsonl, text or html" in err


def test_tree_shows_forks_where_they_branch_with_seed_and_result(db: Path) -> None:
    gid = bot_game(db)
    a = json.loads(ok(db, "fork", gid, "--at", "25", "--seed", "other", "--json"))["game_id"]
    b = json.loads(ok(db, "fork", gid, "--at", "44", "--json"))["game_id"]
    # a's seq 26 is its chained reseed [CL-V7], so its later events (and draws) move:
    # fork it at its first decision boundary from 62 on
    tries = ((n, run(db, "fork", a, "--at", str(n), "--json")) for n in range(62, 120))
    at, (_, out, _) = next((n, r) for n, r in tries if r[0] == 0)
    c = json.loads(out)["game_id"]
    lines = ok(db, "tree", c).splitlines()
    assert lines[0].startswith(f"{gid}  root  ") and "over: alice" in lines[0]
    assert lines[1].startswith(f"├─ at 25: {a}  seed other  ")
    assert lines[2].startswith(f"│  └─ at {at}: {c}  same seed  ") and lines[2].endswith("◀")
    assert lines[3].startswith(f"└─ at 44: {b}  same seed  ")
    tree = json.loads(ok(db, "tree", gid, "--json"))
    assert [f["game_id"] for f in tree["forks"]] == [a, b]
    assert tree["forks"][0]["forks"][0]["fork_at"] == at
    code, _, err = run(db, "tree", "nope")
    assert code == 2 and "no game 'nope'" in err


def test_picture_and_file_conversions(db: Path, tmp_path: Path) -> None:
    gid = bot_game(db)
    svg = ok(db, "picture", gid, "--at", "10")
    assert svg.startswith("<svg ") and "last: #10 " in svg
    assert ok(db, "picture", gid, "--at", "10", "--as", "alice") != svg
    view = tmp_path / "alice.jsonl"
    ok(db, "export", gid, "--as", "alice", "-o", str(view))
    assert ok(db, "picture", str(view), "--at", "10") == ok(db, "picture", gid, "--at", "10", "--as", "alice")
    out = tmp_path / "p.svg"
    assert "wrote" in ok(db, "picture", gid, "-o", str(out)) and out.read_text().startswith("<svg ")
    # a file converts to the other formats as it is
    record = tmp_path / "r.txt"
    ok(db, "export", gid, "--format", "text", "-o", str(record))
    assert ok(db, "export", str(record)).splitlines()[1:] == ok(db, "export", gid).splitlines()[1:]
    assert ok(db, "export", str(record), "--format", "text") == record.read_text()
    assert ok(db, "export", str(view), "--format", "html").startswith("<!DOCTYPE html>")
    before = dump(db)
    for args, message in [
        (("picture", gid, "--at", "0"), "--at must be between 1 and"),
        (("picture", gid, "--as", "zed"), "no player 'zed'"),
        (("picture", str(view), "--as", "bob"), "this file is alice's view"),
        (("picture", "nope"), "no game or file 'nope'"),
        (("export", str(view), "--as", "alice"), "--as needs a game id"),
        (("export", str(view), "--format", "text"), "view hides chance"),
    ]:
        code, out_, err = run(db, *args)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (args, err)
    garbage = tmp_path / "g.txt"
    garbage.write_bytes(b"[Format \"citylog-record/1\"]\n[Game \"card-city\"\n\x00\x01")
    code, _, err = run(db, "picture", str(garbage))
    assert code == 2 and "g.txt:2: malformed tag line" in err
    assert dump(db) == before


def test_a_record_edited_on_windows_still_imports(db: Path, tmp_path: Path) -> None:
    """A byte-order mark, CRLF line ends and indentation do not change a record."""
    gid = bot_game(db)
    ok(db, "note", gid, "--at", "6", "mailed")
    text = ok(db, "export", gid, "--format", "text")
    record = tmp_path / "r.txt"
    record.write_bytes(b"\xef\xbb\xbf" + "\r\n".join("  " + line for line in text.splitlines()).encode())
    # bot seats are the importer's to give, never the file's [CL-V5]
    new = json.loads(ok(db, "import", str(record), "--again", "--bots", "greedy", "--json"))["game_id"]
    assert ok(db, "export", new, "--format", "text") == text


def test_a_note_is_bounded(db: Path) -> None:
    gid = bot_game(db)
    code, _, err = run(db, "note", gid, "--at", "2", "x" * 2001)
    assert code == 2 and "at most 2000 characters" in err
    assert "noted" in ok(db, "note", gid, "--at", "2", "x" * 2000)
