"""Ruling CL-S7: no party can choose its entropy after seeing any other party's.

In a game of committed entropy (every new game by email) each join carries
only a salted commitment to its entropy; once every seat's commitment is
chained, each seat reveals (``citylog-reveal/1``), and chance is dealt only from
revealed entropies that open their commitments.  A host that plays a seat
itself, through a puppet key no player can tell from a real one, sees only
commitments when it joins, and can no longer pick its entropy to choose the deal.

Each test is an attack as the cheater would make it, or a refusal the host's
service makes; every forged log fails ``verify`` with a line naming CL-S7.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
from pbem_mail import Table, dump

from core import chance, registry
from core.rng import deal_seed
from core.seats import Joined, Revealed, entropy_commitment, last_join_seq
from events import statements
from events.codec import encode as encode_event
from events.envelope import chain
from events.service import GameService
from events.signing import load_private_pem, new_private_key, public_hex, sign
from events.sqlite_store import SqliteStore
from events.statements import seat_secret, signed_join, signed_move, signed_reveal
from replay import logfile
from replay.logfile import LogFile
from replay.sources import export
from replay.verify import verify
from tests.helpers.pbem import join_seats

GAMES = registry.names()


def _one_line_refusal(code: int, out: str, err: str) -> str:
    text = (err + out).strip()
    assert code == 2 and len(text.splitlines()) == 1 and "CL-S7" in text, (code, text)
    return text


def _key(path: Path) -> Any:
    return load_private_pem(path.read_bytes(), path.name)


# -- the grinding attack, end to end with the CLI --------------------------------------


def test_a_host_puppet_cannot_grind_its_entropy_after_seeing_the_others(tmp_path: Path) -> None:
    """The host plays carol's seat itself with a key of its own (a puppet no player
    can tell apart).  Before CL-S7 it read alice's and bob's entropy in their joins
    and picked carol's to choose the deal.  Now: the joins show only commitments;
    carol's commitment is chained before any entropy is revealed; a reveal of an
    entropy she picks after seeing the others' is refused with the store unchanged;
    and the host writing it into its own rows anyway fails every player's verify."""
    t = Table(tmp_path, "card-city", ["alice", "bob", "carol"])
    invites = t.invite()
    t.host.ok("key", "new", "carol")  # the puppet's key: the host's own
    puppet = _key(t.host.key("carol"))
    for name in ("alice", "bob"):
        t.players[name].ok("join", str(invites[name]), "--as", name, "-o", str(t.inbox / f"{name}.json"))
    # what the host reads in the honest joins: a commitment, never the entropy
    for name in ("alice", "bob"):
        body = json.loads((t.inbox / f"{name}.json").read_bytes())
        assert body["format"] == statements.COMMITTED_JOIN_FORMAT and "entropy" not in body
        assert len(body["entropy_commitment"]) == 64
    t.host.ok("join", str(invites["carol"]), "--as", "carol", "--key", str(t.host.key("carol")),
              "-o", str(t.inbox / "carol.json"))
    t.host.ok("inbox", str(t.inbox))
    events = [json.loads(x) for x in t.host.ok("log", t.gid, "--json").splitlines()]
    joins = [e for e in events if e["type"] == "seat.joined"]
    assert len(joins) == 3 and all(e["event"]["entropy"] == "" for e in joins)
    assert not [e for e in events if e["type"] == "seat.revealed"]  # nothing dealt, nothing shown
    carol_commitment = joins[2]["event"]["commitment"]
    # the honest seats reveal from the views they received
    t.host.ok("outbox", t.gid, str(t.outbox))
    for name in ("alice", "bob"):
        view = t.outbox / f"{t.gid}-seq4-{name}.jsonl"
        assert name in json.loads(t.players[name].ok("show", str(view), "--json"))["to_reveal"]
        t.players[name].ok("reveal", str(view), "--as", name, "-o", str(t.inbox / f"{name}-reveal.json"))
    t.host.ok("inbox", str(t.inbox))
    shown = [json.loads(x) for x in t.host.ok("log", t.gid, "--json").splitlines()]
    revealed = [e["event"]["entropy"] for e in shown if e["type"] == "seat.revealed"]
    assert len(revealed) == 2
    # the host now knows alice's and bob's entropy and its own secret: it grinds carol's
    rec = SqliteStore(t.host.db).get_game(t.gid)
    secret = chance.game_secret(rec.seed or "", rec.salt, rec.secrets)
    candidates = [hashlib.sha256(f"grind-{k}".encode()).hexdigest()[:32] for k in range(64)]
    chosen = min(candidates, key=lambda e: deal_seed(secret, [*revealed, e]))
    salt = "5a" * 16
    assert entropy_commitment(chosen, salt) != carol_commitment  # the commitment came first
    # made at the position after the last join (seq 4: creation and three joins), signed by the puppet
    after_joins = GameService(SqliteStore(t.host.db)).load(t.gid).records[3].hash
    ground = signed_reveal(puppet, t.gid, rec.genesis, "carol", 4, after_joins, (chosen, salt))
    path = tmp_path / "ground.json"
    path.write_bytes(statements.encode(ground))
    before = dump(t.host.db)
    text = _one_line_refusal(*t.host.run("apply", str(path)))
    assert "does not match" in text and "commitment" in text
    assert dump(t.host.db) == before
    # the host writes the ground reveal into its own rows anyway: every verify fails
    svc = GameService(SqliteStore(t.host.db))
    loaded = svc.load(t.gid)
    forged_event = Revealed(seat=2, entropy=chosen, salt=salt)
    with svc.store.transaction():
        written = svc._append(loaded.record, loaded.game, loaded.version, [forged_event],
                              loaded.game.fold([*loaded.events, forged_event]))
        svc.store.add_signed(t.gid, written[0].seq, statements.encode(ground))
    full = export(svc, t.gid)
    verdict = verify(full, sealed=False)
    assert not verdict.ok and verdict.seq == 7 and "CL-S7" in verdict.reason, verdict
    assert "does not open the commitment" in verdict.reason
    out = tmp_path / "alice-view.jsonl"
    t.host.ok("export", t.gid, "--as", "alice", "-o", str(out), "--key", str(t.host.key()))
    code, o, e = t.players["alice"].run("verify", str(out))
    assert code == 1 and "CL-S7" in o + e, o + e


def test_the_puppets_honest_reveal_is_the_only_one_that_deals(tmp_path: Path) -> None:
    """The same puppet seat, revealing what it committed to: the game deals, and
    every player's final view proves the deal from revealed entropies only."""
    t = Table(tmp_path, "card-city", ["alice", "bob"])
    t.join_all()
    t.play_out(random.Random(4))
    for name, party in t.players.items():
        final = t.outbox / f"{t.gid}-final-{name}.jsonl"
        out = party.ok("verify", str(final))
        assert "deal proven" in out, out
    out = t.host.ok("verify", t.gid)
    assert "deal proven" in out and "each committed before any was revealed" in out, out


# -- each refusal: one line, a ruling id, the store unchanged -------------------------


@pytest.fixture()
def joined(tmp_path: Path) -> Table:
    """A two-seat game by email: both joined, nobody revealed yet."""
    t = Table(tmp_path, "card-city", ["alice", "bob"])
    t.join_all(reveal=False)
    t.host.ok("outbox", t.gid, str(t.outbox))
    return t


def _reveal_file(t: Table, name: str, out: Path, key: Path | None = None) -> Path:
    args = ("--key", str(key)) if key is not None else ()
    t.players[name].ok("reveal", str(t.outbox / f"{t.gid}-seq3-{name}.jsonl"), "--as", name, "-o", str(out), *args)
    return out


def _refused(t: Table, path: Path) -> str:
    before = dump(t.host.db)
    text = _one_line_refusal(*t.host.run("apply", str(path)))
    assert dump(t.host.db) == before
    return text


def test_a_reveal_not_matching_the_commitment_is_refused(joined: Table, tmp_path: Path) -> None:
    t = joined
    rv = statements.decode(_reveal_file(t, "alice", tmp_path / "a.json").read_bytes(), "a")
    assert isinstance(rv, statements.Reveal)
    other = signed_reveal(_key(t.players["alice"].key()), t.gid, rv.genesis, "alice", rv.seq, rv.hash,
                          ("ab" * 16, rv.salt))
    (tmp_path / "other.json").write_bytes(statements.encode(other))
    assert "does not match alice's chained commitment" in _refused(t, tmp_path / "other.json")


def test_a_reveal_signed_with_another_key_is_refused(joined: Table, tmp_path: Path) -> None:
    """Bob makes alice's reveal with his key (he cannot know her entropy, but he
    tries her seat)."""
    t = joined
    t.players["bob"].ok("key", "new", "alice-2")
    out = tmp_path / "x.json"
    t.players["alice"].ok("reveal", str(t.outbox / f"{t.gid}-seq3-alice.jsonl"), "--as", "alice", "-o", str(out))
    rv = statements.decode(out.read_bytes(), "x")
    assert isinstance(rv, statements.Reveal)
    forged = signed_reveal(_key(t.players["bob"].key("alice-2")), t.gid, rv.genesis, "alice", rv.seq, rv.hash,
                           (rv.entropy, rv.salt))
    out.write_bytes(statements.encode(forged))
    assert "signature does not verify against alice's key" in _refused(t, out)


def test_a_replayed_or_second_reveal_is_refused(joined: Table, tmp_path: Path) -> None:
    t = joined
    first = _reveal_file(t, "alice", tmp_path / "a.json")
    t.host.ok("apply", str(first))
    assert "a replay" in _refused(t, first)
    rv = statements.decode(first.read_bytes(), "a")
    assert isinstance(rv, statements.Reveal)
    again = signed_reveal(_key(t.players["alice"].key()), t.gid, rv.genesis, "alice", rv.seq + 1,
                          rv.hash, (rv.entropy, rv.salt))
    (tmp_path / "again.json").write_bytes(statements.encode(again))
    assert "already revealed" in _refused(t, tmp_path / "again.json")
    # her own citylog says so too, before anything is written
    code, out, err = t.players["alice"].run("reveal", str(t.outbox / f"{t.gid}-seq3-alice.jsonl"), "--as", "alice",
                                            "-o", str(tmp_path / "b.json"))
    assert code == 0  # the view she holds is the one after the last join: the same reveal again
    code, out, err = t.host.run("apply", str(tmp_path / "b.json"))
    assert code == 2 and "replay" in err + out


def test_a_reveal_before_every_seat_joined_is_refused(tmp_path: Path) -> None:
    t = Table(tmp_path, "card-city", ["alice", "bob"])
    invites = t.invite()
    t.players["alice"].ok("join", str(invites["alice"]), "--as", "alice", "-o", str(t.inbox / "alice.json"))
    t.host.ok("inbox", str(t.inbox))
    view = tmp_path / "a.jsonl"
    t.host.ok("export", t.gid, "--as", "alice", "-o", str(view), "--key", str(t.host.key()))
    code, out, err = t.players["alice"].run("reveal", str(view), "--as", "alice", "-o", str(tmp_path / "r.json"))
    assert code == 2 and "nothing to reveal yet" in err + out and "CL-S7" in err + out
    rec = SqliteStore(t.host.db).get_game(t.gid)
    loaded = GameService(SqliteStore(t.host.db)).load(t.gid)
    early = signed_reveal(_key(t.players["alice"].key()), t.gid, rec.genesis, "alice", 2, loaded.head_hash)
    (tmp_path / "r.json").write_bytes(statements.encode(early))
    assert "before every seat has joined" in _refused(t, tmp_path / "r.json")


def test_a_move_or_a_clear_join_in_a_game_of_committed_entropy_is_refused(joined: Table, tmp_path: Path) -> None:
    t = joined
    loaded = GameService(SqliteStore(t.host.db)).load(t.gid)
    mv = signed_move(_key(t.players["alice"].key()), t.gid, "alice", loaded.version, loaded.head_hash, ("pass",))
    (tmp_path / "m.json").write_bytes(statements.encode(mv))
    assert "waits for every seat to reveal" in _refused(t, tmp_path / "m.json")
    fresh = Table(tmp_path / "fresh", "card-city", ["alice", "bob"])
    invite = statements.decode(fresh.invite()["alice"].read_bytes(), "inv")
    assert isinstance(invite, statements.Invite) and invite.definition.entropy == chance.COMMITTED_ENTROPY
    clear = signed_join(_key(fresh.players["alice"].key()), fresh.gid, SqliteStore(fresh.host.db).get_game(fresh.gid).genesis,
                        "alice", "cd" * 16, invite.seat_secret)
    (tmp_path / "j.json").write_bytes(statements.encode(clear))
    assert "takes only joins that commit to their entropy" in _refused(fresh, tmp_path / "j.json")


# -- verify fails on every forged variant -----------------------------------------------


def _signed_game(tmp_path: Path, name: str = "card-city", moves: int = 6) -> tuple[GameService, str, list[Any], Any]:
    """An honest game of committed entropy through the service: joined, revealed,
    ``moves`` signed moves played (None: to the end)."""
    svc = GameService(SqliteStore(tmp_path / f"{name}.db"))
    host = new_private_key()
    players = ["ann", "bob"]
    gid = svc.create(name, players, host_key=public_hex(host))
    rec = svc.store.get_game(gid)
    keys = [new_private_key() for _ in players]
    join_seats(svc, gid, [(keys[i], p, f"{i + 3:032x}", seat_secret(rec.seed or "", rec.salt, rec.genesis, i))
                          for i, p in enumerate(players)])
    game = registry.get(name)
    rng = random.Random(name)
    for _ in range(10_000 if moves < 0 else moves):
        loaded = svc.load(gid)
        actors = game.to_act(loaded.state)
        if not actors:
            break
        seat = rng.choice(actors)
        command = game.format_command(rng.choice(list(game.legal(loaded.state, seat))))
        svc.submit_move(signed_move(keys[seat], gid, players[seat], loaded.version, loaded.head_hash, (command,)))
    return svc, gid, keys, host


def _relog(log: LogFile, items: list[tuple[Any, dict[str, Any] | None]]) -> LogFile:
    """The log re-chained (as a host rewriting its own rows would) with ``items``:
    (event, signed statement) from seq 1; the host can seal it again."""
    records = chain(log.lines[0].prev_hash, log.header.game_id or "", [
        (type(e).__struct_config__.tag, encode_event(e)) for e, _ in items
    ], secret=log.line_secret)
    lines = logfile.from_records(log.header, records).lines
    return LogFile(log.header, [msgspec.structs.replace(x, signed=st) for x, (_, st) in zip(lines, items, strict=True)])


def _items(svc: GameService, gid: str) -> tuple[LogFile, list[tuple[Any, dict[str, Any] | None]]]:
    log = export(svc, gid)
    events = svc.load(gid).events
    return log, [(e, x.signed) for e, x in zip(events, log.lines, strict=True)]


def _fails(log: LogFile, *words: str) -> None:
    verdict = verify(log, sealed=False)
    assert not verdict.ok and "CL-S7" in verdict.reason, verdict
    assert all(w in verdict.reason for w in words), verdict


def test_every_forged_variant_fails_verify(tmp_path: Path) -> None:
    svc, gid, keys, _ = _signed_game(tmp_path)
    log, items = _items(svc, gid)
    assert verify(log, sealed=False).ok
    assert verify(_relog(log, items), sealed=False).ok  # re-chaining alone changes nothing
    kinds = [type(e) for e, _ in items]
    reveals = [i for i, k in enumerate(kinds) if k is Revealed]
    joins = [i for i, k in enumerate(kinds) if k is Joined]
    assert joins == [1, 2] and reveals == [3, 4]
    # the reveal line edited (another entropy): its signed file says otherwise
    e, st = items[3]
    edited = [*items[:3], (msgspec.structs.replace(e, entropy="ab" * 16), st), *items[4:]]
    _fails(_relog(log, edited), "differs from")
    # ... and with a re-signed file to match: the entropy does not open the commitment
    assert st is not None
    body = {**st, "entropy": "ab" * 16}
    body.pop("signature")
    body["signature"] = sign(keys[0], "reveal", body)
    resigned = [*items[:3], (msgspec.structs.replace(e, entropy="ab" * 16), body), *items[4:]]
    _fails(_relog(log, resigned), "does not open the commitment")
    # a reveal moved before the last join
    moved = [items[0], items[1], items[3], items[2], *items[4:]]
    _fails(_relog(log, moved), "before every seat has joined")
    # a chance line before the reveals
    first_chance = next(i for i in range(5, len(items)) if svc.load(gid).game.command_of(items[i][0]) is not None)
    early = [*items[:3], items[first_chance], items[3], items[4], *items[5:first_chance], *items[first_chance + 1:]]
    _fails(_relog(log, early), "before every seat had revealed")
    # no reveal at all: the deal starts straight after the joins
    _fails(_relog(log, [*items[:3], *items[5:]]), "before every seat had revealed")
    # a join/2 (entropy in the clear) in a game of committed entropy, re-signed by its player
    j = items[1][0]
    rec = svc.store.get_game(gid)
    clear = signed_join(keys[0], gid, rec.genesis, "ann", "12" * 16, seat_secret(rec.seed or "", rec.salt, rec.genesis, 0))
    old = [items[0], (Joined(0, j.public_key, "12" * 16), json.loads(statements.encode(clear))), *items[2:]]
    _fails(_relog(log, old), "in the clear")


def test_a_reveal_of_another_position_fails_verify(tmp_path: Path) -> None:
    """A reveal must answer the position after the last join (a file made elsewhere,
    or for a chain the host re-created, names another seq and hash)."""
    svc, gid, keys, _ = _signed_game(tmp_path, moves=2)
    log, items = _items(svc, gid)
    e, st = items[4]
    assert st is not None
    body = {**st, "seq": 2, "hash": log.lines[1].hash}
    body.pop("signature")
    body["signature"] = sign(keys[1], "reveal", body)
    _fails(_relog(log, [*items[:4], (e, body), *items[5:]]), "position after the last join")


def test_old_games_keep_their_clear_entropy_scheme(tmp_path: Path) -> None:
    """A game of entropy scheme 1 (join/2, made before CL-S7) keeps its genesis,
    takes no reveal, and deals and verifies exactly as before."""
    svc = GameService(SqliteStore(tmp_path / "old.db"))
    host = new_private_key()
    gid = svc.create("card-city", ["ann", "bob"], host_key=public_hex(host), entropy=1)
    rec = svc.store.get_game(gid)
    assert rec.entropy == 1 and b"entropy" not in __import__("events.envelope", fromlist=["x"]).canonical_definition(
        rec.definition)
    keys = [new_private_key() for _ in range(2)]
    join_seats(svc, gid, [(keys[i], p, f"{i + 1:032x}", seat_secret(rec.seed or "", rec.salt, rec.genesis, i))
                          for i, p in enumerate(["ann", "bob"])])
    loaded = svc.load(gid)
    assert not any(type(e) is Revealed for e in loaded.events)
    assert loaded.game.command_of(loaded.events[3]) is not None  # dealt straight after the joins
    assert encode_event(loaded.events[1]).startswith(b'{"type":"seat.joined","seat":0,"public_key":')
    assert b"commitment" not in encode_event(loaded.events[1])  # the old line's bytes
    assert verify(export(svc, gid), sealed=False).ok
    rv = signed_reveal(keys[0], gid, rec.genesis, "ann", 3, loaded.records[2].hash, ("00" * 16, "11" * 16))
    with pytest.raises(Exception, match="CL-S7"):
        svc.reveal(rv)


# -- honest games of every game prove their deal -----------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_an_honest_game_of_committed_entropy_proves_its_deal_for_every_seat(tmp_path: Path, name: str) -> None:
    svc, gid, _, host = _signed_game(tmp_path, name, moves=-1)
    loaded = svc.load(gid)
    assert not loaded.game.to_act(loaded.state), "the game did not end"
    at = last_join_seq(loaded.events)
    assert [type(e) for e in loaded.events[at:at + 2]] == [Revealed, Revealed]
    full = verify(export(svc, gid), sealed=False)
    assert full.ok and "deal proven" in full.reason and "committed before any was revealed" in full.reason, full
    for who in loaded.players:
        view = export(svc, gid, who, lambda b: sign(host, "export", b))
        verdict = verify(view)
        assert verdict.ok and "deal proven" in verdict.reason, verdict


def test_a_game_waiting_for_reveals_is_never_timed_out_and_never_dealt(tmp_path: Path) -> None:
    """The last seat may withhold its reveal (trust.md, "Not protected"): reveals
    have no deadline, so the host's timeout does nothing, and nothing is dealt."""
    t = Table(tmp_path, "card-city", ["alice", "bob"], "--deadline", "1h", "--on-timeout", "bot")
    t.join_all(reveal=False)
    t.host.ok("outbox", t.gid, str(t.outbox))
    t.players["alice"].ok("reveal", str(t.outbox / f"{t.gid}-seq3-alice.jsonl"), "--as", "alice",
                          "-o", str(t.inbox / "a.json"))
    t.host.ok("inbox", str(t.inbox))
    before = dump(t.host.db)
    out = t.host.ok("timeout", t.gid, "--now", str(2**40))
    assert "no deadline has passed" in out
    assert dump(t.host.db) == before
    shown = json.loads(t.host.ok("show", t.gid, "--json"))
    assert shown["to_reveal"] == ["bob"] and shown["to_act"] == []
    svc = GameService(SqliteStore(t.host.db))
    with pytest.raises(Exception, match="CL-S7"):
        svc.timeout(t.gid, 1, 4, 0, 2**40, lambda body: "00" * 64)
