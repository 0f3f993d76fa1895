"""Issue 22: a signed file is bound to where it is used [CL-S2, CL-S3, CL-S4].

Each test is one attack named in the issue, done as the cheater would: the host
may do anything to its own database (it runs the service's internals to write
what the service would refuse), a player only makes files.  Every one passed
``verify`` before; now it is refused, or some player's ``verify`` fails.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path
from typing import Any

import pytest
from pbem_mail import Table, dump, legal_of, move_file, to_act

from core import registry
from core.engine import checked_step
from core.rng import Rng
from core.seats import Joined
from events import statements
from events.envelope import genesis_hash
from events.service import GameService, chance_source
from events.signing import load_private_pem, new_private_key, public_hex, sign
from events.statements import seat_secret, signed_join, signed_move
from tests.helpers.pbem import join_for, join_seats
from events.sqlite_store import SqliteStore
from replay.sources import export
from replay.verify import verify


def canon(data: object) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


@pytest.fixture()
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Table:
    counter = iter(range(1_000_000))
    monkeypatch.setattr(
        secrets, "token_hex", lambda n=32: hashlib.sha256(f"bind-{next(counter)}".encode()).hexdigest()[: 2 * n]
    )
    return Table(tmp_path, "card-city", ["alice", "bob"])


def _key(party: Any, name: str) -> Any:
    return load_private_pem((party.home / "keys" / f"{name}.key").read_bytes(), name)


# -- seats bound to their invitations [CL-S2] -----------------------------------


def test_a_player_cannot_take_another_seat_with_a_second_key(table: Table, tmp_path: Path) -> None:
    """Bob answers his own invitation, then sends a join for alice's seat signed
    with a second key of his, made from the one invitation he holds: refused;
    alice then joins, and her verify names her own key."""
    table.host.ok("outbox", table.gid, str(table.outbox))
    bob = table.players["bob"]
    bob.ok("join", str(table.outbox / f"{table.gid}-invite-bob.json"), "--as", "bob",
           "-o", str(table.inbox / "bob.json"))
    inv = statements.decode((table.outbox / f"{table.gid}-invite-bob.json").read_bytes(), "inv")
    assert isinstance(inv, statements.Invite)
    second = new_private_key()
    rec_genesis = statements.decode((table.inbox / "bob.json").read_bytes(), "j").genesis  # type: ignore[union-attr]
    for secret in (inv.seat_secret, "00" * 32):
        forged = join_for(2, second, table.gid, rec_genesis, "alice", "ab" * 16, secret)
        (tmp_path / "hijack.json").write_bytes(statements.encode(forged))
        before = dump(table.host.db)
        code, _, err = table.host.run("apply", str(tmp_path / "hijack.json"))
        assert code == 2 and "invitation" in err and err.count("\n") == 1, err
        assert dump(table.host.db) == before
    alice = table.players["alice"]
    alice.ok("join", str(table.outbox / f"{table.gid}-invite-alice.json"), "--as", "alice",
             "-o", str(table.inbox / "alice.json"))
    table.host.ok("inbox", str(table.inbox))
    table.host.ok("outbox", table.gid, str(table.outbox))
    view = sorted(table.outbox.glob(f"{table.gid}-seq*-alice.jsonl"))[-1]
    out = alice.ok("verify", str(view))
    assert f"alice's seat played with your key {public_hex(_key(alice, 'alice'))[:12]}" in out


def test_an_invitation_bound_to_a_key_works_with_that_key_only(table: Table, tmp_path: Path) -> None:
    alice = table.players["alice"]
    alice_pub = alice.ok("key", "show", "alice").strip()
    table.host.ok("invite", table.gid, "--as", "alice", "--player-key", alice_pub, "-o", str(tmp_path / "inv.json"))
    bob = table.players["bob"]
    # bob, holding alice's key-bound invitation, cannot use it with his own key
    code, _, err = bob.run("join", str(tmp_path / "inv.json"), "--as", "alice", "--key", str(bob.home / "keys/bob.key"))
    assert code == 2 and "not yours" in err
    inv = statements.decode((tmp_path / "inv.json").read_bytes(), "inv")
    assert isinstance(inv, statements.Invite)
    forged = join_for(inv.definition.entropy, _key(bob, "bob"), table.gid, genesis_hash(inv.definition), "alice",
                      "cd" * 16, inv.seat_secret)
    (tmp_path / "j.json").write_bytes(statements.encode(forged))
    code, _, err = table.host.run("apply", str(tmp_path / "j.json"))
    assert code == 2 and "invitation" in err
    alice.ok("join", str(tmp_path / "inv.json"), "--as", "alice", "-o", str(tmp_path / "ok.json"))
    table.host.ok("apply", str(tmp_path / "ok.json"))


def test_verify_fails_when_her_seat_was_taken_with_another_key(table: Table, tmp_path: Path) -> None:
    """A cheating host writes alice's join with a key of its own into its database
    (past the service's checks): alice's verify of her own view fails, naming it."""
    svc = GameService(SqliteStore(table.host.db))
    host_key = _key(table.host, "host")
    gid = svc.create("card-city", ["alice", "bob"], host_key=public_hex(host_key))
    rec = svc.store.get_game(gid)
    bob = _key(table.players["bob"], "bob")
    join_seats(svc, gid, [(host_key, "alice", "ee" * 16, seat_secret(rec.seed or "", rec.salt, rec.genesis, 0)),
                          (bob, "bob", "ff" * 16, seat_secret(rec.seed or "", rec.salt, rec.genesis, 1))])
    table.host.ok("export", gid, "--as", "alice", "-o", str(tmp_path / "v.jsonl"))
    alice = table.players["alice"]
    code, out, err = alice.run("verify", str(tmp_path / "v.jsonl"))
    assert code == 1 and "not with your key" in out + err, out + err
    # with no key of hers at hand, the verdict still names the key that played her seat
    code, out, _ = table.players["bob"].run("verify", str(tmp_path / "v.jsonl"))
    assert code == 0 and "alice's seat played with key" in out and "not compared" in out


# -- a join answers the exact genesis [CL-S2] -----------------------------------


def _redeal(svc: GameService, gid: str, joins: list[bytes], seed: str) -> None:
    """The cheating host: deletes the game, re-creates it under the same id with a
    new seed, and writes the players' original join files into it."""
    rec = svc.store.get_game(gid)
    svc.delete(gid)
    svc.create(rec.game, list(rec.players), seed=seed, host_key=rec.host_key, game_id=gid, entropy=rec.entropy)
    new = svc.store.get_game(gid)
    loaded = svc.load(gid)
    events: list[Any] = []
    for raw in joins:
        jf = statements.decode(raw, "join")
        assert isinstance(jf, statements.JoinFile)
        events.append(Joined(seat=list(rec.players).index(jf.player), public_key=jf.public_key, entropy=jf.entropy))
    more, state = svc._auto(loaded.game, new, loaded.game.fold(loaded.events + events), 2 + len(events),
                            source=chance_source(new, loaded.events + events))
    with svc.store.transaction():
        written = svc._append(new, loaded.game, loaded.version, events + more, state)
        for w, raw in zip(written, joins, strict=False):
            svc.store.add_signed(gid, w.seq, raw)


def test_a_redeal_under_the_same_id_with_the_old_joins_fails_verify(tmp_path: Path) -> None:
    svc = GameService(SqliteStore(tmp_path / "h.db"))
    host = new_private_key()
    players = ["alice", "bob"]
    # a game of the clear-entropy scheme (CL-S7: its joins still verify as before); the
    # same re-deal of a game of committed entropy is the adversary's 'redeal'
    gid = svc.create("card-city", players, seed="fair", host_key=public_hex(host), entropy=1)
    rec = svc.store.get_game(gid)
    keys = [new_private_key() for _ in players]
    joins = []
    for i, p in enumerate(players):
        jf = signed_join(keys[i], gid, rec.genesis, p, f"{i + 1:032x}", seat_secret("fair", rec.salt, rec.genesis, i))
        svc.join(jf)
        joins.append(statements.encode(jf))
    assert verify(export(svc, gid, "alice", lambda b: sign(host, "export", b))).ok
    _redeal(svc, gid, joins, "rigged")
    view = export(svc, gid, "alice", lambda b: sign(host, "export", b))
    verdict = verify(view)
    assert not verdict.ok and verdict.seq == 2 and "another game definition" in verdict.reason, verdict
    assert not verify(export(svc, gid, None), sealed=False).ok


# -- moves bound to their position, used once [CL-S3] ---------------------------


def _play(name: str, seed: int) -> tuple[GameService, str, Any, list[Any]]:
    svc = GameService(SqliteStore(":memory:"))
    players = ["alice", "bob"]
    host = new_private_key()
    gid = svc.create(name, players, seed=f"bind-{seed}", host_key=public_hex(host))
    rec = svc.store.get_game(gid)
    keys = [new_private_key() for _ in players]
    join_seats(svc, gid, [(keys[i], p, f"{seed:016x}{i:016x}", seat_secret(rec.seed or "", rec.salt, rec.genesis, i))
                          for i, p in enumerate(players)])
    return svc, gid, (lambda b: sign(host, "export", b)), keys


def _replay_old_move(upper: bool) -> tuple[GameService, str, Any] | None:
    """Play 5x5 City until alice may make again a command she once made; there
    the cheating host applies her *old* move file (its signature in upper case
    if ``upper``) in place of a new one.  None if no such moment came."""
    name = "5x5-city"
    game = registry.get(name)
    svc, gid, sealer, keys = _play(name, 7)
    rng = Rng.derive("bind", 0, "test")
    applied: dict[str, bytes] = {}
    for _ in range(2000):
        loaded = svc.load(gid)
        actors = game.to_act(loaded.state)
        if not actors:
            return None
        seat = actors[0]
        legal = [game.format_command(c) for c in game.legal(loaded.state, seat)]
        again = [c for c in legal if c in applied] if seat == 0 else []
        if again:
            old = statements.decode(applied[again[0]], "old")
            assert isinstance(old, statements.MoveFile)
            raw = applied[again[0]]
            if upper:
                raw = raw.replace(old.signature.encode(), old.signature.upper().encode())
            rec = loaded.record
            command = game.parse_command(loaded.state, seat, again[0])
            produced, state = checked_step(game, loaded.state, seat, command)
            more, state = svc._auto(game, rec, state, loaded.version + len(produced) + 1,
                                    source=chance_source(rec, loaded.events))
            with svc.store.transaction():
                written = svc._append(rec, game, loaded.version, [*produced, *more], state)
                svc.store.add_signed(gid, written[0].seq, raw)
            return svc, gid, sealer
        cmd = legal[rng.below(len(legal))]
        mv = signed_move(keys[seat], gid, ["alice", "bob"][seat], loaded.version, loaded.head_hash, (cmd,))
        svc.submit_move(mv)
        if seat == 0:
            applied.setdefault(cmd, statements.encode(mv))
    return None


@pytest.mark.parametrize("upper", [True, False], ids=["upper-case signature", "same bytes"])
def test_an_old_move_file_applied_again_fails_verify(upper: bool) -> None:
    found = _replay_old_move(upper)
    assert found is not None, "the game never offered alice a command she had made before"
    svc, gid, sealer = found
    for who in ("alice", "bob", None):
        verdict = verify(export(svc, gid, who, sealer))
        assert not verdict.ok, (who, verdict)
    reason = verify(export(svc, gid, "alice", sealer)).reason
    assert ("lower-case hex" in reason) if upper else ("used again" in reason), reason


def test_the_service_refuses_an_old_move_file_and_any_respelling(table: Table, tmp_path: Path) -> None:
    table.join_all()
    first = to_act(table)[0]
    f = move_file(table, first, [legal_of(table, first)[0]], tmp_path / "m.json")
    data = json.loads(f.read_text())
    spelled = {
        "upper.json": canon(dict(data, signature=data["signature"].upper())),
        "spaces.json": json.dumps(data, sort_keys=True, indent=1),
        "seat.json": canon(dict(data, player=str(["alice", "bob"].index(first)))),
        "extra.json": canon(dict(data, note="hi")),
    }
    for name, text in spelled.items():
        (tmp_path / name).write_text(text)
        before = dump(table.host.db)
        code, _, err = table.host.run("apply", str(tmp_path / name))
        assert code == 2 and err.count("\n") == 1, (name, err)
        assert dump(table.host.db) == before, name
    table.host.ok("apply", str(f))
    code, _, err = table.host.run("apply", str(f))
    assert code == 2 and "already applied" in err


def test_a_move_file_made_on_another_chain_fails_verify(tmp_path: Path) -> None:
    """The host puts on a line a move file whose named hash is not this chain's at
    its seq (a move of another game history): verify names the position."""
    svc, gid, sealer, keys = _play("point-city", 3)
    game = registry.get("point-city")
    loaded = svc.load(gid)
    seat = game.to_act(loaded.state)[0]
    cmd = game.format_command(next(iter(game.legal(loaded.state, seat))))
    svc.submit_move(signed_move(keys[seat], gid, ["alice", "bob"][seat], loaded.version, loaded.head_hash, (cmd,)))
    seq = loaded.version + 1
    elsewhere = signed_move(keys[seat], gid, ["alice", "bob"][seat], loaded.version, "00" * 32, (cmd,))
    conn = svc.store._conn  # type: ignore[attr-defined]
    with svc.store.transaction():
        conn.execute("UPDATE signed SET statement=? WHERE game_id=? AND seq=?",
                     (statements.encode(elsewhere), gid, seq))
    verdict = verify(export(svc, gid, None, sealer))
    assert not verdict.ok and verdict.seq == seq and "another position" in verdict.reason, verdict


# -- a non-canonical file can never frame the host [issue 22, item 5] -----------


def test_whatever_the_host_accepts_keeps_every_export_verifying(table: Table, tmp_path: Path) -> None:
    """A player sends his move in other spellings; whatever the host's apply does
    with them, every later export still verifies (the stored copy is the one
    encoding), so a player cannot frame the host."""
    table.join_all()
    first = to_act(table)[0]
    f = move_file(table, first, [legal_of(table, first)[0]], tmp_path / "m.json")
    data = json.loads(f.read_text())
    for i, text in enumerate([json.dumps(data), json.dumps(data, sort_keys=True, indent=2),
                              canon(dict(data, player=str(["alice", "bob"].index(first)))), canon(data)]):
        (tmp_path / f"v{i}.json").write_text(text)
        table.host.run("apply", str(tmp_path / f"v{i}.json"))
        for who in ("alice", "bob"):
            out = tmp_path / f"v{i}-{who}.jsonl"
            table.host.ok("export", table.gid, "--as", who, "-o", str(out))
            assert "valid" in table.host.ok("verify", str(out))
    assert "valid" in table.host.ok("verify", table.gid)


def test_once_the_seed_is_known_verify_checks_every_seat_proof(tmp_path: Path) -> None:
    """The host writes a join past the service (no invitation behind it): its own
    ``verify GAME``, and every log carrying the seed, names the join."""
    svc = GameService(SqliteStore(tmp_path / "h.db"))
    gid = svc.create("card-city", ["alice", "bob"], host_key=public_hex(new_private_key()), entropy=1)  # clear entropy
    rec = svc.store.get_game(gid)
    svc.join(signed_join(new_private_key(), gid, rec.genesis, "alice", "11" * 16,
                         seat_secret(rec.seed or "", rec.salt, rec.genesis, 0)))
    jf = signed_join(new_private_key(), gid, rec.genesis, "bob", "22" * 16, "33" * 32)  # a guessed secret
    loaded = svc.load(gid)
    events = [Joined(seat=1, public_key=jf.public_key, entropy=jf.entropy)]
    with svc.store.transaction():
        written = svc._append(rec, loaded.game, loaded.version, events, loaded.game.fold(loaded.events + events))
        svc.store.add_signed(gid, written[0].seq, statements.encode(jf))
    verdict = verify(export(svc, gid, None), sealed=False)
    assert not verdict.ok and verdict.seq == 3 and "seat proof" in verdict.reason, verdict
