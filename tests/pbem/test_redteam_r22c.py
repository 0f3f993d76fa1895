"""Red team, round 22c: the attacks that got through after the CL-V9/U5/U6/T6/S8/S6
fixes, each as a test that fails on the code before its fix.

1. [CL-V10] The timeout bot's tie-breaks came from the seq of the decision it plays:
   every line the host places before it (a hand-over it applies now or later, an
   upgrade, a timeout of another seat first) shifted that seq, so the host chose
   among the bot's equally good moves — a chance outcome of the host's choosing,
   while ``verify`` said every line was the bot's own.
2. [CL-S9] ``timeout --inbox`` (and the mail agent) spared every seat with a move
   file naming it in the inbox, whatever the file: one forged or stale file kept a
   silent seat from its timeout for ever (nothing is applied when no one is timed
   out, so the file never left).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
from pathlib import Path
from typing import Any

import pytest
from pbem_mail import Table, legal_of, move_file, to_act

from core.deadlines import Handed, TimedOut
from core.seats import Joined
from core.upgrade import Upgraded

PLACED = (TimedOut, Handed, Upgraded)
"""The lines the host places (core.table_events.PLACED, spelled here so this file
runs on the code before it too, and fails there)."""

T0 = 1_800_000_000


def _same_tokens(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Restarts ``secrets.token_hex`` and key making on a counter: each table built after
    it draws the same game id, seed, salt, entropies and keys (the host's key is in the
    chained definition, so in the genesis)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    import cli.keys

    def reset() -> None:
        fresh = iter(range(10**9))
        monkeypatch.setattr(
            secrets, "token_hex", lambda n=32: hashlib.sha256(f"r22c-{next(fresh)}".encode()).hexdigest()[: 2 * n])
        monkeypatch.setattr(cli.keys, "new_private_key", lambda: Ed25519PrivateKey.from_private_bytes(
            hashlib.sha256(f"r22c-key-{next(fresh)}".encode()).digest()))
    return reset


def _events(t: Table) -> list[Any]:
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    svc = GameService(SqliteStore(t.host.db))
    with contextlib.closing(svc.store):
        return list(svc.load(t.gid).events)


def _dealt(t: Table) -> list[Any]:
    """The game's own lines: neither placed lines nor joins (whose keys differ per table)."""
    return [e for e in _events(t) if type(e) not in PLACED and type(e) is not Joined]


def _handover_file(t: Table, name: str, bot: bool, out: Path) -> Path:
    """``name``'s signed hand-over (to the bot, or back) made at the game as it is now."""
    from cli.keys import load_key
    from events.service import GameService
    from events.sqlite_store import SqliteStore
    from events.statements import encode, signed_handover

    svc = GameService(SqliteStore(t.host.db))
    with contextlib.closing(svc.store):
        lo = svc.load(t.gid)
        head = lo.records[lo.version - 1].hash
        ho = signed_handover(load_key(t.players[name].key()), t.gid, name, lo.version, head, bot)
    out.write_bytes(encode(ho))
    return out


def _time_out_to_the_end(t: Table) -> None:
    """The host times out every seat as its deadline passes (policy forfeit): the bot
    plays both seats to the end."""
    for k in range(12):
        if not json.loads(t.host.ok("show", t.gid, "--json"))["to_act"]:
            return
        t.host.ok("timeout", t.gid, "--now", str(T0 + k * 7200))
    raise AssertionError("the game never ended")


# -- 1. a placed line chooses none of the timeout bot's moves [CL-V10] ------------------
@pytest.mark.parametrize("game", ["point-city", "card-city", "5x5-city"])
def test_a_placed_line_before_a_timeout_does_not_choose_the_bots_moves(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game: str) -> None:
    """Two tables, the same game (ids, seeds, salts, entropies), both forfeited seat by
    seat to the timeout bot.  In the second the host first applies bob's hand-over to
    the bot and back (lines it applies when it likes).  The bot plays both games alike,
    and verify proves each."""
    reset = _same_tokens(monkeypatch)
    tables = []
    for tag in ("plain", "placed"):
        reset()
        t = Table(tmp_path / tag, game, ["alice", "bob"], "--deadline", "1h", "--on-timeout", "forfeit")
        t.join_all()
        tables.append(t)
    plain, placed = tables
    assert plain.gid == placed.gid and _dealt(plain) == _dealt(placed)
    assert json.loads(plain.host.ok("show", plain.gid, "--json")) == json.loads(placed.host.ok("show", placed.gid, "--json"))
    for bot in (True, False):
        _handover_file(placed, "bob", bot, placed.inbox / f"ho-{bot}.json")
        placed.host.ok("inbox", str(placed.inbox))
    assert [type(e) for e in _events(placed)[-2:]] == [Handed, Handed]
    for t in tables:
        _time_out_to_the_end(t)
    assert _dealt(plain) == _dealt(placed)
    for t in tables:
        assert "deal proven" in t.host.ok("verify", t.gid)
        for name, party in t.players.items():
            view = t.root / f"view-{name}.jsonl"
            t.host.ok("export", t.gid, "--as", name, "-o", str(view), "--force")
            code, out, err = party.run("verify", str(view))
            assert code == 0 and "deal proven" in out, f"{name}: {out}{err}"


# -- 2. a file that would be refused shields no seat from its timeout [CL-S9] -----------
def _to_act_bob(t: Table) -> None:
    """Alice plays (her signed moves) until bob must act."""
    for _ in range(20):
        if "bob" in to_act(t):
            return
        assert "alice" in to_act(t)
        move_file(t, "alice", [legal_of(t, "alice")[0]], t.inbox / "a.json")
        t.host.ok("inbox", str(t.inbox))
    raise AssertionError("bob never came to act")


@pytest.mark.parametrize("kind", ["forged", "stale", "genuine"])
def test_a_file_the_host_would_refuse_does_not_stop_a_timeout(tmp_path: Path, kind: str) -> None:
    """[CL-S9] ``timeout --inbox`` spares a seat whose move waits in the inbox.  Bob is
    silent; a file naming him that the host would refuse — signed by alice's key, made at
    an older position — waits
    there.  Bob is timed out all the same.  (The control: his genuine move spares him.)"""
    t = Table(tmp_path, "point-city", ["alice", "bob"], "--deadline", "1h", "--on-timeout", "bot")
    t.join_all()
    stale_at = tmp_path / "early.json"
    if kind == "stale":
        _to_act_bob(t)
        move_file(t, "bob", [legal_of(t, "bob")[0]], stale_at)
        move_file(t, "bob", [legal_of(t, "bob")[0]], t.inbox / "b.json")
        t.host.ok("inbox", str(t.inbox))
    _to_act_bob(t)
    bogus = t.inbox / "bogus.json"
    if kind == "forged":
        move_file(t, "bob", [legal_of(t, "bob")[0]], bogus, key="alice")
    elif kind == "stale":
        stale_at.rename(bogus)
    else:
        move_file(t, "bob", [legal_of(t, "bob")[0]], bogus)
    before = len(_events(t))
    for k in range(3):
        t.host.run("timeout", t.gid, "--now", str(T0 + k * 7200), "--inbox", str(t.inbox))
    lines = _events(t)[before:]
    if kind == "genuine":
        # the control: bob's genuine move waits there, so bob is spared (it waits for the inbox)
        assert not any(type(e) is TimedOut for e in lines) and bogus.exists()
        return
    assert any(type(e) is TimedOut and e.seat == 1 for e in lines), f"bob was never timed out ({kind} file)"
