"""Issue 10: every way to cheat by mail is refused with a one-line reason, an
exit code, and an untouched database (or, for files, a failed ``verify``)."""

from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path

import msgspec
import pytest
from pbem_mail import Table, dump, legal_of, move_file, to_act

from core.card_city.game import GAME as CARD_CITY
from core.chance import SALTED, game_secret
from core.rng import Rng, deal_seed
from events.service import GameService
from events.signing import load_private_pem, new_private_key, public_hex, sign
from events.statements import MOVE_FORMAT, seat_secret, signed_move
from tests.helpers.pbem import join_seats
from events.sqlite_store import SqliteStore
from replay.logfile import LogFile
from replay.sources import export
from replay.verify import verify


@pytest.fixture()
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Table:
    """A joined two-player table, the same every run: the host's seed and the
    joins' entropy come from a counter, not the OS (with fresh entropy about one
    deal in 55 leaves the first player a single legal split, and the tests that
    alter or replace a move need two)."""
    counter = iter(range(1_000_000))
    monkeypatch.setattr(
        secrets, "token_hex", lambda n=32: hashlib.sha256(f"attacks-{next(counter)}".encode()).hexdigest()[: 2 * n]
    )
    # [CL-S7] a join's entropy derives from its player's key, made fresh each run: a
    # table is set again (another seed from the counter) until the deal leaves two
    for attempt in range(8):
        t = Table(tmp_path / f"table{attempt}", "card-city", ["alice", "bob"])
        t.join_all()
        if len(legal_of(t, to_act(t)[0])) >= 2:
            break
    assert len(legal_of(t, to_act(t)[0])) >= 2, "this table's first player needs two legal commands"
    return t


def canon(data: object) -> str:
    """A statement edited and written back in its one spelling (so the check past
    the canonical form is the one attacked)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def refused(table: Table, *args: str, code: int = 2) -> str:
    before = dump(table.host.db)
    rc, out, err = table.host.run(*args)
    assert rc == code, f"{args}: exit {rc}: {err}{out}"
    assert err.count("\n") == 1 and err.startswith("citylog: "), err
    assert dump(table.host.db) == before, "a refused request changed the database"
    return err


def test_keys_are_private_and_never_overwritten(table: Table) -> None:
    key = table.host.home / "keys" / "host.key"
    assert key.stat().st_mode & 0o777 == 0o600
    code, _, err = table.host.run("key", "new", "host")
    assert code == 2 and "never overwritten" in err


def test_a_move_signed_by_another_player_is_a_forgery(table: Table, tmp_path: Path) -> None:
    first = to_act(table)[0]
    other = "bob" if first == "alice" else "alice"
    forged = move_file(table, first, [legal_of(table, first)[0]], tmp_path / "forged.json", key=other)
    err = refused(table, "apply", str(forged))
    assert f"does not verify against {first}'s key" in err


def test_an_altered_move_file_is_refused(table: Table, tmp_path: Path) -> None:
    first = to_act(table)[0]
    options = legal_of(table, first)
    f = move_file(table, first, [options[0]], tmp_path / "m.json")
    data = json.loads(f.read_text())
    data["commands"] = [options[-1]]
    f.write_text(canon(data))
    assert "does not verify" in refused(table, "apply", str(f))


def test_a_move_signed_with_a_key_that_did_not_join_is_refused(table: Table, tmp_path: Path) -> None:
    first = to_act(table)[0]
    party = table.players[first]
    party.ok("key", "new", "spare")
    key = party.home / "keys" / "spare.key"
    out = tmp_path / "wrong-key.json"
    table.host.ok("move", table.gid, "--as", first, legal_of(table, first)[0], "--out", str(out), "--key", str(key))
    assert "does not verify" in refused(table, "apply", str(out))


def test_an_unsigned_move_or_a_direct_move_is_refused(table: Table, tmp_path: Path) -> None:
    first = to_act(table)[0]
    f = move_file(table, first, [legal_of(table, first)[0]], tmp_path / "m.json")
    data = json.loads(f.read_text())
    data["signature"] = ""
    f.write_text(canon(data))
    assert "not signed" in refused(table, "apply", str(f))
    assert "played by email" in refused(table, "move", table.gid, "--as", first, legal_of(table, first)[0])


def test_a_move_applied_twice_is_a_replay(table: Table, tmp_path: Path) -> None:
    first = to_act(table)[0]
    f = move_file(table, first, [legal_of(table, first)[0]], tmp_path / "m.json")
    table.host.ok("apply", str(f))
    err = refused(table, "apply", str(f))
    assert "already applied" in err


def test_a_join_applied_twice_is_refused(table: Table) -> None:
    applied = table.inbox / "applied" / f"{table.gid}-join-alice.json"
    assert "already joined" in refused(table, "apply", str(applied))


def test_a_stale_move_is_refused_naming_the_positions(table: Table, tmp_path: Path) -> None:
    first = to_act(table)[0]
    options = legal_of(table, first)
    early = move_file(table, first, [options[0]], tmp_path / "early.json")
    # a second move at the position, made on purpose [CL-S17]: the host applies one, the other is stale
    table.host.ok("apply", str(move_file(table, first, [options[-1]], tmp_path / "now.json", replace=True)))
    err = refused(table, "apply", str(early))
    assert "stale move" in err


def _sealed_view(table: Table, tmp_path: Path, name: str = "alice") -> Path:
    out = tmp_path / f"{name}.jsonl"
    table.host.ok("export", table.gid, "--as", name, "-o", str(out))
    return out


def test_a_cut_off_export_fails_its_seal(table: Table, tmp_path: Path) -> None:
    first = to_act(table)[0]
    table.host.ok("apply", str(move_file(table, first, [legal_of(table, first)[0]], tmp_path / "m.json")))
    view = _sealed_view(table, tmp_path)
    assert "valid" in table.players["alice"].ok("verify", str(view))
    lines = view.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-1]) + "\n")
    code, out, err = table.players["alice"].run("verify", str(cut))
    assert code == 1 and "seal does not match" in out + err, out + err


@pytest.mark.parametrize("field", ["view", "game_id", "definition", "seal"])
def test_a_swapped_header_is_detected(table: Table, tmp_path: Path, field: str) -> None:
    view = _sealed_view(table, tmp_path)
    lines = view.read_text().splitlines()
    header = json.loads(lines[0])
    if field == "view":
        header["view"] = "bob"
    elif field == "game_id":
        header["game_id"] = "0000beef"
    elif field == "definition":
        header["definition"]["players"] = ["bob", "alice"]
    else:
        header["seal"] = None
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    code, out, err = table.players["alice"].run("verify", str(bad))
    assert code == 1, out + err
    assert len((out + err).strip().splitlines()) == 1


def test_a_guessable_seed_gives_nothing_away(tmp_path: Path) -> None:
    t = Table(tmp_path, "card-city", ["alice", "bob"], "--seed", "s1")
    t.join_all()
    view = tmp_path / "alice.jsonl"
    t.host.ok("export", t.gid, "--as", "alice", "-o", str(view))
    header = json.loads(view.read_text().splitlines()[0])
    assert header["seed"] is None and header["salt"] is None
    commitment = header["definition"]["seed_commitment"]
    # the old unsalted commitment fell to a dictionary; the salted one does not
    guesses = ["s1", "s2", "seed", "1", "test", "x"]
    assert all(hashlib.sha256(b"citylog-seed-v1:" + g.encode()).hexdigest() != commitment for g in guesses)
    # even the right seed does not give the deal: chance comes from H(H(salt, seed),
    # every player's entropy) [CL-V6], and the salt is the host's until the reveal
    events = [json.loads(line) for line in t.host.ok("log", t.gid, "--json").splitlines()]
    # [CL-S7] a game of committed entropy: the joins commit, the reveal lines carry the entropy
    assert all(e["event"]["entropy"] == "" for e in events if e["type"] == "seat.joined")
    entropies = [e["event"]["entropy"] for e in events if e["type"] == "seat.revealed"]
    assert len(entropies) == 2 and all(len(x) == 32 for x in entropies)
    draw = next(e for e in events if e["type"] == "cc.drawn")
    state = CARD_CITY.apply(None, CARD_CITY.create(["alice", "bob"], {}))
    unsalted = CARD_CITY.chance(state, Rng.derive(deal_seed("s1", entropies), draw["seq"]))
    assert list(unsalted.cards) != draw["event"]["cards"]
    salt = SqliteStore(t.host.db).get_game(t.gid).salt
    secret = game_secret("s1", salt, SALTED)
    dealt = CARD_CITY.chance(state, Rng.derive(deal_seed(secret, entropies), draw["seq"]))
    assert list(dealt.cards) == draw["event"]["cards"]
    assert deal_seed(secret, entropies) != deal_seed(secret, entropies[::-1])


def test_a_non_pbem_game_gets_the_salted_commitment_too(tmp_path: Path) -> None:
    t = Table(tmp_path, "card-city", ["alice", "bob"])
    gid = json.loads(t.host.ok("new", "card-city", "--players", "ann,bob", "--seed", "s1", "--json"))["game_id"]
    full = tmp_path / "full.jsonl"
    t.host.ok("export", gid, "-o", str(full))
    header = json.loads(full.read_text().splitlines()[0])
    assert header["salt"] and header["definition"]["seed_commitment"] != hashlib.sha256(b"citylog-seed-v1:s1").hexdigest()
    assert "valid" in t.host.ok("verify", str(full))
    code, _, err = t.host.run("export", gid, "-o", str(full))
    assert code == 2 and "not overwritten" in err


def test_the_host_cannot_pass_off_a_move_as_a_players(table: Table, tmp_path: Path) -> None:
    """A dishonest host re-signs a player's move line with a key of its own: verify
    names the line; the host has no player's private key."""
    first = to_act(table)[0]
    table.host.ok("apply", str(move_file(table, first, [legal_of(table, first)[0]], tmp_path / "m.json")))
    full = tmp_path / "full.jsonl"
    table.host.ok("export", table.gid, "-o", str(full))
    assert "valid" in table.host.ok("verify", str(full))
    lines = [json.loads(x) for x in full.read_text().splitlines()]
    moved = next(x for x in lines[1:] if x.get("signed") and x["signed"]["format"] == MOVE_FORMAT)
    host_key = load_private_pem((table.host.home / "keys" / "host.key").read_bytes(), "host.key")
    statement = dict(moved["signed"], public_key=public_hex(host_key), signature="")
    statement["signature"] = sign(host_key, "move", {k: v for k, v in statement.items() if k != "signature"})
    moved["signed"] = statement
    bad = tmp_path / "forged-log.jsonl"
    bad.write_text("\n".join(json.dumps(x, separators=(",", ":"), ensure_ascii=False) for x in lines) + "\n")
    code, out, err = table.host.run("verify", str(bad))
    assert code == 1 and "not signed by" in out + err and len((out + err).strip().splitlines()) == 1


def test_hostile_keys_invitations_and_joins_are_refused(table: Table, tmp_path: Path) -> None:
    junk = tmp_path / "junk.key"
    junk.write_text("-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n")
    first = to_act(table)[0]
    err = refused(table, "move", table.gid, "--as", first, legal_of(table, first)[0], "--out",
                  str(tmp_path / "x.json"), "--key", str(junk))
    assert "not an unencrypted PEM private key" in err
    # an invitation whose host signature does not match is not answered
    table.host.ok("invite", table.gid, "--as", "alice", "-o", str(tmp_path / "inv.json"))
    inv = json.loads((tmp_path / "inv.json").read_text())
    inv["definition"]["players"] = ["alice", "mallory"]
    (tmp_path / "inv.json").write_text(canon(inv))
    code, _, err = table.players["alice"].run("join", str(tmp_path / "inv.json"), "--as", "alice")
    assert code == 2 and "not signed by the host" in err
    # an invitation handed to the host, and a join for a game that does not exist
    assert "citylog join" in refused(table, "apply", str(tmp_path / "inv.json"))
    joined = json.loads((table.inbox / "applied" / f"{table.gid}-join-bob.json").read_text())
    joined["game_id"] = "feedface"
    (tmp_path / "j.json").write_text(canon(joined))
    assert "feedface" in refused(table, "apply", str(tmp_path / "j.json"))


def test_a_host_who_deals_from_another_seed_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host commits to one seed and runs a citylog that secretly deals from another:
    the finished view, with the committed seed revealed, fails to prove the deal."""
    store = SqliteStore(tmp_path / "rig.db")
    svc = GameService(store)
    players = ["alice", "bob"]
    gid = svc.create("card-city", players, seed="committed", host_key=public_hex(new_private_key()))
    monkeypatch.setattr("core.chance.deal_seed", lambda seed, entropies: deal_seed("rigged", entropies))
    keys = [new_private_key() for _ in players]
    genesis = store.get_game(gid).genesis
    rec = store.get_game(gid)
    join_seats(svc, gid, [(keys[i], p, f"{i:032x}", seat_secret(rec.seed or "", rec.salt, genesis, i))
                          for i, p in enumerate(players)])
    while True:
        loaded = svc.load(gid)
        actors = CARD_CITY.to_act(loaded.state)
        if not actors:
            break
        seat = actors[0]
        cmd = CARD_CITY.format_command(next(iter(CARD_CITY.legal(loaded.state, seat))))
        svc.submit_move(signed_move(keys[seat], gid, players[seat], loaded.version, loaded.head_hash, (cmd,)))
    monkeypatch.undo()  # the players' citylog is an honest one (the chance source is shared)
    view = export(svc, gid, "alice")
    assert view.header.seed == "committed"
    verdict = verify(view, sealed=False)
    assert not verdict.ok and verdict.seq == 6  # the first draw, after creation, two joins and two reveals
    assert "chance outcome differs" in verdict.reason or "digest does not match" in verdict.reason, verdict
    lied = LogFile(msgspec.structs.replace(view.header, seed="rigged"), view.lines)
    assert "seed commitment" in verify(lied, sealed=False).reason
