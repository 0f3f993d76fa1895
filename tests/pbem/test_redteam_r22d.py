"""Red team, round 22d (round 5): attacks on commit-then-reveal entropy [CL-S7], the
admission replay memo, held invitations [CL-S10] and the TUI's signed move [CL-S11];
each hole as a test that fails on the code before its fix.

1. [CL-S12] A host that re-runs a game under the same genesis (a backup of its
   database taken before the joins, restored) re-used every honest join file and
   asked the players to reveal again: an honest entropy derives from her key and
   the genesis alone, so the second reveal showed what the first had shown, and
   the host's puppet, joining the re-run last, committed to an entropy ground
   against the revealed ones: a deal of the host's choosing that every ``verify``
   called proven.
2. [CL-S13] The admission replay memo read only the signed rows past the last one
   it had read, and was kept while that row was unchanged: a file whose bytes the
   host put in a row behind the last was admitted again (a replay the check from
   scratch refuses), and a deleted or rewritten row kept being called a replay.
3. [CL-S15] A new game of the clear-entropy scheme (the host writes the definition;
   the service still makes them, for the games made before CL-S7) had every join
   show its entropy to the host: CL-S7 undone by the host's choice, and a
   player's ``join`` answered it.
4. [CL-S16] (round 6) The record of reveals CL-S12 keeps was read, then appended
   to, unlocked: two reveals at once both passed at two positions; and a line
   appended to one a crash had cut read with it as one non-JSON line, skipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from pbem_mail import Table

from core import chance
from core.rng import deal_seed
from events import statements
from events.signing import load_private_pem
from events.sqlite_store import SqliteStore


def _key(path: Path) -> Any:
    return load_private_pem(path.read_bytes(), path.name)


def _backup(src: Path, dst: Path) -> None:
    """A consistent copy of a SQLite database (WAL included)."""
    with contextlib.closing(sqlite3.connect(src)) as a, contextlib.closing(sqlite3.connect(dst)) as b:
        a.backup(b)


def _revealed(t: Table) -> list[str]:
    shown = [json.loads(x) for x in t.host.ok("log", t.gid, "--json").splitlines()]
    return [e["event"]["entropy"] for e in shown if e["type"] == "seat.revealed"]


# -- 1. [CL-S12] a re-run under the same genesis ----------------------------------------


def test_a_host_re_running_the_game_under_the_same_genesis_cannot_grind_its_puppets_entropy(tmp_path: Path) -> None:
    """The host keeps a backup of its database from before the joins.  It plays the
    game to the honest reveals (its puppet carol never reveals), learns alice's and
    bob's entropy, restores the backup — the same game id, seed and salt, so the same
    genesis — replays their join files, and has carol join last with a commitment to
    an entropy it ground against theirs.  Then it asks for the reveals again.  Law
    [CL-S12]: a player opens her commitment of a game (her key, its genesis) at one
    position only; asked at another, her ``reveal`` refuses in one line, and nothing
    is sent (her reveal would hand the deal to whoever joined after it was known)."""
    t = Table(tmp_path, "card-city", ["alice", "bob", "carol"])
    snapshot = tmp_path / "backup.db"
    _backup(t.host.db, snapshot)
    invites = t.invite()
    t.host.ok("key", "new", "carol")  # the puppet: a key of the host's
    puppet = _key(t.host.key("carol"))
    carol_secret = json.loads(invites["carol"].read_bytes())["seat_secret"]
    joins: dict[str, bytes] = {}
    for name in ("alice", "bob"):
        path = t.inbox / f"{name}-join.json"
        t.players[name].ok("join", str(invites[name]), "--as", name, "-o", str(path))
        joins[name] = path.read_bytes()
    t.host.ok("join", str(invites["carol"]), "--as", "carol", "--key", str(t.host.key("carol")),
              "-o", str(t.inbox / "carol-join.json"))
    t.host.ok("inbox", str(t.inbox))
    t.host.ok("outbox", t.gid, str(t.outbox))
    for name in ("alice", "bob"):
        view = t.outbox / f"{t.gid}-seq4-{name}.jsonl"
        t.players[name].ok("reveal", str(view), "--as", name, "-o", str(t.inbox / f"{name}-reveal.json"))
    t.host.ok("inbox", str(t.inbox))
    # asked again at the same position, she makes the same file again (harmless)
    again = tmp_path / "again.json"
    t.players["alice"].ok("reveal", str(t.outbox / f"{t.gid}-seq4-alice.jsonl"), "--as", "alice", "-o", str(again))
    assert again.read_bytes() == (t.inbox / "applied" / "alice-reveal.json").read_bytes()
    known = _revealed(t)
    assert len(known) == 2  # carol withholds: the host has what it needs

    # the re-run: the backup restored, the honest joins replayed, carol's entropy ground
    _backup(snapshot, t.host.db)
    for old in t.outbox.glob("*"):
        old.unlink()
    rec = SqliteStore(t.host.db).get_game(t.gid)
    secret = chance.game_secret(rec.seed or "", rec.salt, rec.secrets)
    candidates = [hashlib.sha256(f"grind-{k}".encode()).hexdigest()[:32] for k in range(64)]
    chosen = min(candidates, key=lambda e: deal_seed(secret, [*known, e]))
    salt = "5a" * 16
    ground = statements.signed_committed_join(puppet, t.gid, rec.genesis, "carol", carol_secret, (chosen, salt))
    rerun = tmp_path / "rerun"
    rerun.mkdir()
    for name, data in joins.items():
        (rerun / f"{name}-join.json").write_bytes(data)
    (rerun / "carol-join.json").write_bytes(statements.encode(ground))
    t.host.ok("inbox", str(rerun))  # the old joins fit: same genesis, same seat secrets
    t.host.ok("outbox", t.gid, str(t.outbox))
    refused = 0
    for name in ("alice", "bob"):
        view = t.outbox / f"{t.gid}-seq4-{name}.jsonl"
        code, out, err = t.players[name].run("reveal", str(view), "--as", name, "-o",
                                             str(rerun / f"{name}-reveal.json"), "--force")
        if code != 0:
            text = (err + out).strip()
            assert code == 2 and len(text.splitlines()) == 1 and "CL-S12" in text, (code, text)
            assert not (rerun / f"{name}-reveal.json").exists()
            refused += 1
    if refused < 2:  # what the host got: its chosen deal, proven to every player
        t.host.ok("inbox", str(rerun))
        from events.service import GameService
        loaded = GameService(SqliteStore(t.host.db)).load(t.gid)
        at = 4
        rv = statements.signed_reveal(puppet, t.gid, rec.genesis, "carol", at, loaded.records[at - 1].hash,
                                      (chosen, salt))
        (rerun / "carol-reveal.json").write_bytes(statements.encode(rv))
        t.host.ok("inbox", str(rerun))
        assert _revealed(t) == [*known, chosen]
        view = t.outbox / "alice-now.jsonl"
        t.host.ok("export", t.gid, "--as", "alice", "-o", str(view), "--key", str(t.host.key()))
        verdict = t.players["alice"].run("verify", str(view))
        raise AssertionError(f"an honest player revealed a known entropy again, at another position: the "
                             f"host chose the deal and alice's verify says {verdict}")


# -- 2. [CL-S13] the admission replay memo equals the check from scratch ------------------


def _service_game(tmp_path: Path, moves: int) -> tuple[Any, str, list[Any], list[Any]]:
    """A game of Card City by email through the service API, ``moves`` signed moves
    in: (service, game id, the seats' keys, the move files applied)."""
    import random

    from core import registry
    from events.service import GameService
    from events.signing import new_private_key, public_hex
    from tests.helpers.pbem import join_seats

    svc = GameService(SqliteStore(tmp_path / "host.db"))
    players = ["alice", "bob"]
    host = new_private_key()
    gid = svc.create("card-city", players, seed="r22d", host_key=public_hex(host))
    rec = svc.store.get_game(gid)
    keys = [new_private_key() for _ in players]
    join_seats(svc, gid, [(keys[i], p, f"{i + 7:032x}", statements.seat_secret(rec.seed or "", rec.salt,
                                                                             rec.genesis, i))
                          for i, p in enumerate(players)])
    game = registry.get("card-city")
    rng = random.Random(5)
    applied = []
    for _ in range(moves):
        mv = _next_move(svc, gid, keys, game, rng)
        svc.submit_move(mv)
        applied.append(mv)
    return svc, gid, keys, applied


def _next_move(svc: Any, gid: str, keys: list[Any], game: Any, rng: Any) -> Any:
    loaded = svc.load(gid)
    seat = game.to_act(loaded.state)[0]
    legal = list(game.legal(loaded.state, seat))
    cmd = game.format_command(legal[rng.randrange(len(legal))])
    return statements.signed_move(keys[seat], gid, loaded.players[seat], loaded.version, loaded.head_hash, (cmd,))


def _decision(admission: Any, mv: Any) -> str:
    try:
        admission.admit_move(mv)
    except Exception as exc:  # noqa: BLE001 - the refusal is the decision
        return f"{type(exc).__name__}: {exc}"
    return "admitted"


def _edit(svc: Any, gid: str, how: str, fresh: bytes) -> None:
    """One edit of the host's signed rows (its own database: anything goes)."""
    conn = svc.store._conn
    rows = svc.store.signed(gid)
    seqs = sorted(rows)
    middle = seqs[len(seqs) // 2]
    free = next(s for s in range(seqs[0], seqs[-1]) if s not in rows)  # a chance line's seq
    with svc.store.transaction():
        if how == "delete a middle row":
            conn.execute("DELETE FROM signed WHERE game_id = ? AND seq = ?", (gid, middle))
        elif how == "a middle row rewritten":
            conn.execute("UPDATE signed SET statement = ? WHERE game_id = ? AND seq = ?", (fresh, gid, middle))
        elif how == "a row inserted behind the last":
            conn.execute("INSERT INTO signed (game_id, seq, statement) VALUES (?, ?, ?)", (gid, free, fresh))
        elif how == "rows re-inserted out of order":
            conn.execute("DELETE FROM signed WHERE game_id = ? AND seq >= ?", (gid, middle))
            for seq in reversed(seqs[seqs.index(middle):]):
                conn.execute("INSERT INTO signed (game_id, seq, statement) VALUES (?, ?, ?)",
                             (gid, seq, fresh if seq == middle else rows[seq]))
        elif how == "the last row replaced under its seq":
            conn.execute("UPDATE signed SET statement = ? WHERE game_id = ? AND seq = ?", (fresh, gid, seqs[-1]))
        else:
            raise AssertionError(how)


EDITS = ["delete a middle row", "a middle row rewritten", "a row inserted behind the last",
         "rows re-inserted out of order", "the last row replaced under its seq"]


@pytest.mark.parametrize("how", EDITS)
def test_law_the_replay_memo_decides_as_the_check_from_scratch_after_any_edit_of_the_signed_rows(
        tmp_path: Path, how: str) -> None:
    """Law [CL-S13]: whatever the host did to its signed rows between two checks, the
    admission a long-lived process keeps (the agent, one inbox run) decides every
    file exactly as a fresh one computing it from scratch: same verdict, same
    reason.  The candidates: every file applied, and a fresh move for the position
    now (which an edit may have planted in the rows, making it a replay)."""
    from core import registry
    from events.admission import Admission
    import random

    svc, gid, keys, applied = _service_game(tmp_path, 8)
    fresh = _next_move(svc, gid, keys, registry.get("card-city"), random.Random(9))
    candidates = [*applied, fresh]
    warm = svc.admission
    for mv in candidates:  # the memo read every row
        _decision(warm, mv)
    _edit(svc, gid, how, statements.encode(fresh))
    for mv in candidates:
        scratch = _decision(Admission(svc.repository), mv)
        assert _decision(warm, mv) == scratch, (how, mv.seq, scratch)


# -- 3. [CL-S15] a new game of the clear scheme: the downgrade ------------------------------


def test_a_player_never_joins_a_game_whose_join_shows_her_entropy_in_the_clear(tmp_path: Path) -> None:
    """CL-S7 protects a game only if its definition says ``entropy: 2``, and the host
    writes the definition: a new game of the old clear scheme (``citylog-join/2``,
    still verified for the games made before) has every join show its entropy to
    the host, whose puppet seat joins last with an entropy ground against them, and
    every ``verify`` calls the deal proven.  Law [CL-S15]: no join citylog makes
    shows its entropy; ``join`` refuses a clear-scheme invitation in one line and
    writes nothing."""
    from events.service import GameService

    t = Table(tmp_path, "card-city", ["alice", "bob"])
    svc = GameService(SqliteStore(t.host.db))  # the host's own code: any definition it likes
    gid = svc.create("card-city", ["alice", "bob"], host_key=svc.store.get_game(t.gid).host_key, entropy=1)
    svc.store.close()
    assert SqliteStore(t.host.db).get_game(gid).entropy == 1
    t.host.ok("outbox", gid, str(t.outbox))
    invite = t.outbox / f"{gid}-invite-alice.json"
    out = tmp_path / "alice-join.json"
    code, o, e = t.players["alice"].run("join", str(invite), "--as", "alice", "-o", str(out))
    text = (e + o).strip()
    assert code == 2 and len(text.splitlines()) == 1 and "CL-S15" in text, (code, text)
    assert not out.exists()


# -- round 6: the record of reveals itself [CL-S16] ---------------------------------------

_GENESIS, _PUBLIC = "ab" * 32, "cd" * 32
_FIRST, _SECOND = (6, "11" * 32), (6, "22" * 32)  # one seq, two heads: a re-run of the joins


def _positions(folder: Path) -> set[tuple[int, str]]:
    from cli.reveals import _lines

    return {(int(str(i["seq"])), str(i["hash"])) for i in _lines(folder / "revealed.jsonl")
            if i.get("genesis") == _GENESIS and i.get("public_key") == _PUBLIC}


def test_two_reveals_at_once_never_both_pass_the_record_at_two_positions(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record was read, then appended to, with nothing between two runs: the mail
    agent and ``citylog reveal`` (or two agents of one data directory) asked at two
    positions at once both read a record without either and both revealed — the
    re-run CL-S12 refuses.  Law [CL-S16]: the check and the record are one step, the
    record locked across both.  Here the other run comes between this run's read and
    its write whenever the lock lets it; then it must be refused."""
    import fcntl

    from cli import reveals
    from events.service import ServiceError

    original = reveals._lines
    other: list[str] = []

    def racing(path: Path) -> list[dict[str, object]]:
        items = original(path)
        if other:
            return items
        lock = os.open(tmp_path / "revealed.jsonl.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other.append("locked out")  # the other run waits for this one: tried after it below
            return items
        finally:
            os.close(lock)
        other.append("ran")
        reveals.record_reveal(tmp_path, "G2", _GENESIS, _PUBLIC, *_SECOND)  # the other run, whole, in between
        return items

    monkeypatch.setattr(reveals, "_lines", racing)
    reveals.record_reveal(tmp_path, "G1", _GENESIS, _PUBLIC, *_FIRST)
    monkeypatch.setattr(reveals, "_lines", original)
    if other == ["locked out"]:
        with pytest.raises(ServiceError, match=r"CL-S12"):
            reveals.record_reveal(tmp_path, "G2", _GENESIS, _PUBLIC, *_SECOND)
    assert _positions(tmp_path) == {_FIRST}, (other, _positions(tmp_path))


def test_a_record_line_cut_by_a_crash_never_swallows_the_next_reveal(tmp_path: Path) -> None:
    """A crash while the record was written leaves its last line cut, with no newline;
    the next reveal's line was appended to it, and the two read as one line that is
    not JSON, skipped: that reveal was not in the record, and a re-run's reveal at
    another position passed.  Law [CL-S16]: every record line is a line of its own."""
    from cli import reveals
    from events.service import ServiceError

    (tmp_path / "revealed.jsonl").write_text('{"genesis": "' + "ef" * 20)  # cut mid-line
    reveals.record_reveal(tmp_path, "G1", _GENESIS, _PUBLIC, *_FIRST)
    with pytest.raises(ServiceError, match=r"CL-S12"):
        reveals.record_reveal(tmp_path, "G2", _GENESIS, _PUBLIC, *_SECOND)
    assert _positions(tmp_path) == {_FIRST}
    reveals.record_reveal(tmp_path, "G1", _GENESIS, _PUBLIC, *_FIRST)  # the same position again: harmless
