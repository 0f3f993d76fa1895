"""Issue 22, item 8: the host's side of the mail — the store and the inbox.

* ``verify GAME`` on the host's own database passes on every honest
  play-by-email game, mid-game and finished, and on its ``copy`` and its
  ``import`` (signed files, notes and tags travel with it; an import keeps
  the game id its signed files name).
* ``inbox`` is atomic per file: a file is in ``applied/`` exactly when the
  database recorded it; a failed run leaves the database as it was; two real
  concurrent runs on one folder apply every file exactly once, both exit 0.
* Stored salts and names that are not what they must be are one-line errors.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from pbem_mail import Party, Table, dump, legal_of, move_file, to_act

from cli import mail

GAMES = ["card-city", "5x5-city", "point-city"]
ROOT = Path(__file__).resolve().parents[2]


def _valid(party: Party, ref: str) -> str:
    code, out, err = party.run("verify", ref)
    assert code == 0 and "valid" in out, f"verify {ref}: {err}{out}"
    return out


@pytest.mark.parametrize("game", GAMES)
def test_verify_game_passes_on_an_honest_pbem_game_mid_game(tmp_path: Path, game: str) -> None:
    table = Table(tmp_path, game, ["ann", "bob"])
    table.join_all()
    rng = random.Random(game)
    for _ in range(3):
        if not table.round_trip(rng):
            break
    out = _valid(table.host, table.gid)  # on main: "a join without its signed join file"
    assert "signed by their players" in out


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Table:
    """One honest play-by-email game of Card City played to its end by files."""
    table = Table(tmp_path_factory.mktemp("finished"), "card-city", ["ann", "bob"])
    table.join_all()
    table.play_out(random.Random(7))
    table.host.ok("note", table.gid, "--at", "3", "a note beside the chain")
    table.host.ok("tag", table.gid, "club")
    return table


def test_verify_game_passes_on_a_finished_pbem_game(finished: Table) -> None:
    out = _valid(finished.host, finished.gid)
    assert "deal proven" in out


def test_a_copied_pbem_game_still_verifies_with_its_notes_and_tags(finished: Table, tmp_path: Path) -> None:
    copy = Party(tmp_path, "copy")
    copy.home.joinpath("keys").symlink_to(finished.host.home / "keys")  # the host's own keys
    report = json.loads(finished.host.ok("copy", "--from", str(finished.host.db), "--to", str(copy.db), "--json"))
    assert report["copied"] == [finished.gid]
    _valid(copy, finished.gid)  # on main: the signed files stayed behind
    assert "a note beside the chain" in copy.ok("note", finished.gid)
    assert finished.gid in copy.ok("list", "--tag", "club")
    export = tmp_path / "copy.jsonl"
    copy.ok("export", finished.gid, "-o", str(export))
    _valid(copy, str(export))
    again = json.loads(finished.host.ok("copy", "--from", str(finished.host.db), "--to", str(copy.db), "--json"))
    assert again["skipped"] == [finished.gid] and again["side_rows"] == 0  # idempotent
    assert copy.ok("note", finished.gid).count("a note beside the chain") == 1


def test_an_imported_pbem_game_still_verifies(finished: Table, tmp_path: Path) -> None:
    full = tmp_path / "full.jsonl"
    finished.host.ok("export", finished.gid, "-o", str(full))
    other = Party(tmp_path, "other")
    other.home.joinpath("keys").symlink_to(finished.host.home / "keys")
    gid = other.ok("import", str(full)).strip()
    assert gid == finished.gid  # the id its signed files and seal name
    _valid(other, gid)  # on main: a new id, and every signed file named the old one
    export = tmp_path / "again.jsonl"
    other.ok("export", gid, "-o", str(export))
    _valid(other, str(export))
    before = dump(other.db)
    code, _, err = other.run("import", str(full))
    assert code == 2 and "already in this database" in err and len(err.splitlines()) == 1
    assert dump(other.db) == before


def test_the_text_record_of_a_game_keeps_its_notes_through_import(finished: Table, tmp_path: Path) -> None:
    record = tmp_path / "r.txt"
    finished.host.ok("export", finished.gid, "--format", "text", "-o", str(record))
    other = Party(tmp_path, "rec")
    gid = other.ok("import", str(record)).strip()
    assert "a note beside the chain" in other.ok("note", gid)


def _edit_game_row(db: Path, sql: str, *args: object) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(sql, args)


@pytest.mark.parametrize("salt", ["zz" * 16, "5a" * 15 + "5", "5A" * 16, "5a" * 17, ""])
def test_a_bad_stored_salt_is_one_line_never_a_crash(finished: Table, tmp_path: Path, salt: str) -> None:
    copy = Party(tmp_path, "salt")
    finished.host.ok("copy", "--from", str(finished.host.db), "--to", str(copy.db))
    _edit_game_row(copy.db, "UPDATE games SET salt = ? WHERE id = ?", salt, finished.gid)
    code, out, err = copy.run("verify", finished.gid)
    assert code in (1, 2) and "salt" in err + out and len((err + out).splitlines()) == 1  # on main: exit 3


# -- the inbox ---------------------------------------------------------------------


def test_an_inbox_that_cannot_move_its_files_applies_nothing(tmp_path: Path) -> None:
    table = Table(tmp_path, "card-city", ["ann", "bob"])
    table.host.ok("outbox", table.gid, str(table.outbox))
    for name, party in table.players.items():
        invite = table.outbox / f"{table.gid}-invite-{name}.json"
        party.ok("join", str(invite), "--as", name, "-o", str(table.inbox / f"{table.gid}-join-{name}.json"))
    (table.inbox / "applied").write_text("a file where the folder should be")
    before = dump(table.host.db)
    code, out, err = table.host.run("inbox", str(table.inbox))
    assert code == 2 and "applied" in err and len(err.splitlines()) == 1
    assert dump(table.host.db) == before  # on main: the joins were applied, then it failed
    assert sorted(p.name for p in table.inbox.glob("*.json")) == [
        f"{table.gid}-join-ann.json", f"{table.gid}-join-bob.json"
    ]


def test_a_file_taken_while_it_is_applied_is_rolled_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The law behind 'moved to applied/ in the same step that records it': if
    the move fails, the record is undone — here the file vanishes (another run
    took it) between the apply and the move."""
    table = Table(tmp_path, "card-city", ["ann", "bob"])
    table.host.ok("outbox", table.gid, str(table.outbox))
    invite = table.outbox / f"{table.gid}-invite-ann.json"
    join = table.inbox / f"{table.gid}-join-ann.json"
    table.players["ann"].ok("join", str(invite), "--as", "ann", "-o", str(join))
    before = dump(table.host.db)
    real = mail.apply_file

    def taken(svc, st):  # type: ignore[no-untyped-def]
        written = real(svc, st)
        join.rename(tmp_path / "elsewhere.json")  # the other run's move
        return written

    monkeypatch.setattr(mail, "apply_file", taken)
    code, out, err = table.host.run("inbox", str(table.inbox))
    assert code == 0, err + out
    assert dump(table.host.db) == before
    assert not (table.inbox / "applied" / join.name).exists()


def test_a_file_already_recorded_is_moved_aside_not_applied_twice(tmp_path: Path) -> None:
    table = Table(tmp_path, "card-city", ["ann", "bob"])
    table.join_all()
    first = to_act(table)[0]
    f = move_file(table, first, [legal_of(table, first)[0]], table.inbox / "m.json")
    (tmp_path / "copy.json").write_bytes(f.read_bytes())
    table.host.ok("inbox", str(table.inbox))
    before = dump(table.host.db)
    (tmp_path / "copy.json").rename(table.inbox / "m.json")  # the same file, sent twice
    code, out, _ = table.host.run("inbox", str(table.inbox))
    assert code == 0 and "already recorded" in out
    assert dump(table.host.db) == before
    assert (table.inbox / "applied" / "m.1.json").exists()


def _cli(db: Path, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "cli.main", "--db", str(db), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )


def test_two_concurrent_inbox_runs_apply_every_file_once(tmp_path: Path) -> None:
    """Real processes: both exit 0, every join applied exactly once, nothing
    refused (on main the loser exits 2 with FileNotFoundError)."""
    tables = [Table(tmp_path / f"t{i}", "card-city", ["ann", "bob"]) for i in range(3)]
    host_db = tables[0].host.db
    shared = tmp_path / "shared-inbox"
    shared.mkdir()
    gids = []
    for t in tables:  # three games of one host database, every join in one inbox
        if t is not tables[0]:
            t.host = tables[0].host
            out = t.host.ok("new", "card-city", "--players", "ann,bob", "--pbem", "--json")
            t.gid = json.loads(out)["game_id"]
        gids.append(t.gid)
        t.host.ok("outbox", t.gid, str(t.outbox))
        for name, party in t.players.items():
            invite = t.outbox / f"{t.gid}-invite-{name}.json"
            party.ok("join", str(invite), "--as", name, "-o", str(shared / f"{t.gid}-join-{name}.json"))
    runs = [_cli(host_db, "inbox", str(shared), "--json") for _ in range(2)]
    results = [(r.wait(timeout=300), *r.communicate()) for r in runs]
    for code, out, err in results:
        assert code == 0, f"exit {code}: {err}{out}"
        assert "Traceback" not in err
    outcomes = [json.loads(line) for _, out, _ in results for line in out.splitlines() if line.startswith("{")]
    applied = [o["file"] for o in outcomes if o["outcome"] == "applied" and o["why"] != "already recorded"]
    assert sorted(applied) == sorted(p.name for p in (shared / "applied").iterdir())
    assert len(applied) == 6 and not list((shared / "refused").iterdir())
    for gid in gids:
        assert "valid" in tables[0].host.ok("verify", gid)
    assert not list(shared.glob("*.json"))
