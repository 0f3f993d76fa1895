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
from hypothesis import given, settings
from hypothesis import strategies as st
from pbem_mail import Party, Table, dump, legal_of, move_file, to_act

from cli import inbox, mail
from core import registry
from core.rng import Rng
from events.service import GameService
from events.signing import new_private_key, private_pem, public_hex
from events.statements import seat_secret, signed_move
from tests.helpers.pbem import join_seats
from events.sqlite_store import SqliteStore
from replay.sources import stored_log
from replay.verify import verify

GAMES = registry.available()
FEWER = settings(max_examples=max(2, settings().max_examples // 6), deadline=None)
"""A whole signed game per example: a sixth of the profile's examples."""
ROOT = Path(mail.__file__).resolve().parents[1]
"""The checkout whose citylog is under test (the subprocesses run the same code)."""


def _valid(party: Party, ref: str) -> str:
    code, out, err = party.run("verify", ref)
    assert code == 0 and "valid" in out, f"verify {ref}: {err}{out}"
    return out


def play_signed(db: Path | str, name: str, n: int, seed: int, stop: int | None = None) -> tuple[GameService, str]:
    """An honest play-by-email game through the one write path: every seat joins
    with a signed join file, every move is a signed move file; played to its end,
    or ``stop`` moves.  The host key is kept beside a file database (keys/host.key)."""
    game = registry.get(name)
    players = [f"p{i}" for i in range(n)]
    svc = GameService(SqliteStore(str(db)))
    host = new_private_key()
    if str(db) != ":memory:":
        keys_dir = Path(db).parent / "keys"
        keys_dir.mkdir(parents=True, exist_ok=True)
        (keys_dir / "host.key").write_bytes(private_pem(host))
        (keys_dir / "host.pub").write_text(public_hex(host) + "\n")
    gid = svc.create(name, players, seed=f"files-{seed}", host_key=public_hex(host))
    rec = svc.store.get_game(gid)
    keys = [new_private_key() for _ in players]
    join_seats(svc, gid, [(keys[i], p, f"{seed:032x}"[-32:], seat_secret(rec.seed or "", rec.salt, rec.genesis, i))
                          for i, p in enumerate(players)])
    rng = Rng.derive(f"files-{seed}", 0, "test")
    for _ in range(5000 if stop is None else stop):
        loaded = svc.load(gid)
        actors = game.to_act(loaded.state)
        if not actors:
            break
        seat = actors[rng.below(len(actors))]
        legal = list(game.legal(loaded.state, seat))
        command = game.format_command(legal[rng.below(len(legal))])
        svc.submit_move(signed_move(keys[seat], gid, players[seat], loaded.version, loaded.head_hash, (command,)))
    return svc, gid


@pytest.mark.parametrize("name", GAMES)
@FEWER
@given(n=st.integers(2, 4), seed=st.integers(0, 10**6), stop=st.one_of(st.none(), st.integers(0, 60)))
def test_verify_game_passes_on_every_honest_pbem_game(name: str, n: int, seed: int, stop: int | None) -> None:
    """The law: the host's own database verifies at every point of every honest
    play-by-email game (on main: "a join without its signed join file")."""
    svc, gid = play_signed(":memory:", name, n, seed, stop)
    verdict = verify(stored_log(svc, gid), sealed=False)  # as "verify GAME": the store is not an export
    assert verdict.ok, verdict.message(gid)
    assert "signed by their players" in verdict.reason


@pytest.mark.parametrize("game", GAMES)
def test_verify_game_passes_on_an_honest_pbem_game_played_by_files(tmp_path: Path, game: str) -> None:
    table = Table(tmp_path, game, ["ann", "bob"])
    table.join_all()
    rng = random.Random(game)
    for _ in range(2):
        if not table.round_trip(rng):
            break
    out = _valid(table.host, table.gid)  # on main: "a join without its signed join file"
    assert "signed by their players" in out


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Party, str]:
    """One honest play-by-email game of Card City played to its end, with a note and a tag."""
    host = Party(tmp_path_factory.mktemp("finished"), "host")
    svc, gid = play_signed(host.db, "card-city", 2, 7)
    assert svc.load(gid).record.status == "over"
    svc.store.close()
    host.ok("note", gid, "--at", "3", "a note beside the chain")
    host.ok("tag", gid, "club")
    return host, gid


def test_verify_game_passes_on_a_finished_pbem_game(finished: tuple[Party, str]) -> None:
    host, gid = finished
    out = _valid(host, gid)
    assert "deal proven" in out


def test_a_copied_pbem_game_still_verifies_with_its_notes_and_tags(finished: tuple[Party, str], tmp_path: Path) -> None:
    host, gid = finished
    copy = Party(tmp_path, "copy")
    copy.home.joinpath("keys").symlink_to(host.home / "keys")  # the host's own keys
    report = json.loads(host.ok("copy", "--from", str(host.db), "--to", str(copy.db), "--json"))
    assert report["copied"] == [gid]
    _valid(copy, gid)  # on main: the signed files stayed behind
    assert "a note beside the chain" in copy.ok("note", gid)
    assert gid in copy.ok("list", "--tag", "club")
    export = tmp_path / "copy.jsonl"
    copy.ok("export", gid, "-o", str(export))
    _valid(copy, str(export))
    again = json.loads(host.ok("copy", "--from", str(host.db), "--to", str(copy.db), "--json"))
    assert again["skipped"] == [gid] and again["side_rows"] == 0  # idempotent
    assert copy.ok("note", gid).count("a note beside the chain") == 1


def test_an_imported_pbem_game_still_verifies(finished: tuple[Party, str], tmp_path: Path) -> None:
    host, gid = finished
    full = tmp_path / "full.jsonl"
    host.ok("export", gid, "-o", str(full))
    other = Party(tmp_path, "other")
    other.home.joinpath("keys").symlink_to(host.home / "keys")
    assert other.ok("import", str(full)).strip() == gid  # the id its signed files and seal name
    _valid(other, gid)  # on main: a new id, and every signed file named the old one
    export = tmp_path / "again.jsonl"
    other.ok("export", gid, "-o", str(export))
    _valid(other, str(export))
    before = dump(other.db)
    code, _, err = other.run("import", str(full))
    assert code == 2 and "already in this database" in err and len(err.splitlines()) == 1
    assert dump(other.db) == before


def _edit_game_row(db: Path, sql: str, *args: object) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(sql, args)


@pytest.mark.parametrize("salt", ["zz" * 16, "5a" * 15 + "5", "5A" * 16, "5a" * 17, ""])
def test_a_bad_stored_salt_is_one_line_never_a_crash(finished: tuple[Party, str], tmp_path: Path, salt: str) -> None:
    host, gid = finished
    copy = Party(tmp_path, "salt")
    host.ok("copy", "--from", str(host.db), "--to", str(copy.db))
    _edit_game_row(copy.db, "UPDATE games SET salt = ? WHERE id = ?", salt, gid)
    code, out, err = copy.run("verify", gid)
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
    real = inbox.apply_file

    def taken(svc, st):  # type: ignore[no-untyped-def]
        written = real(svc, st)
        join.rename(tmp_path / "elsewhere.json")  # the other run's move
        return written

    monkeypatch.setattr(inbox, "apply_file", taken)
    code, out, err = table.host.run("inbox", str(table.inbox))
    assert code == 0, err + out
    assert dump(table.host.db) == before
    assert not (table.inbox / "applied" / join.name).exists()


def test_a_failed_commit_puts_the_file_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The other half: the file was moved inside the transaction, the commit
    fails — nothing is recorded and the file is back in the inbox, not in applied/."""
    import contextlib

    from events.sqlite_store import SqliteStore as Store
    from events.store import EnvironmentFailure

    table = Table(tmp_path, "card-city", ["ann", "bob"])
    table.host.ok("outbox", table.gid, str(table.outbox))
    join = table.inbox / f"{table.gid}-join-ann.json"
    table.players["ann"].ok("join", str(table.outbox / f"{table.gid}-invite-ann.json"), "--as", "ann", "-o", str(join))
    before = dump(table.host.db)
    real = Store.transaction

    @contextlib.contextmanager
    def failing(self):  # type: ignore[no-untyped-def]
        with real(self) as store:
            yield store
            if self._depth == 1 and not join.exists():  # the outermost block, the file already moved
                raise EnvironmentFailure("disk full at commit")

    monkeypatch.setattr(Store, "transaction", failing)
    code, out, err = table.host.run("inbox", str(table.inbox))
    assert code == 4 and "disk full" in err, err + out
    assert dump(table.host.db) == before
    assert join.exists() and not (table.inbox / "applied" / join.name).exists()


def test_a_refused_file_does_not_stop_the_others(tmp_path: Path) -> None:
    table = Table(tmp_path, "card-city", ["ann", "bob"])
    table.join_all()
    first = to_act(table)[0]
    good = move_file(table, first, [legal_of(table, first)[0]], table.inbox / "b-good.json")
    bad = json.loads(good.read_text())
    bad["commands"] = ["not a command"]
    (table.inbox / "a-bad.json").write_text(json.dumps(bad))
    code, out, _ = table.host.run("inbox", str(table.inbox))
    assert code == 2
    assert "a-bad.json: refused" in out and "b-good.json: applied" in out
    assert (table.inbox / "refused" / "a-bad.json").exists() and (table.inbox / "applied" / "b-good.json").exists()


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
    assert len(applied) == 6 and not (shared / "refused").exists()
    for gid in gids:
        assert "valid" in tables[0].host.ok("verify", gid)
    assert not list(shared.glob("*.json"))
