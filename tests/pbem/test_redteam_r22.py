"""Red team, round 22: variants of the known attacks of docs/trust.md that got past
the checks of their time.  Each test plays a game by email through the CLI and
files, the host cheating with its own database and key (it applies what its own
citylog would refuse by answering every proof check yes, as the adversary's
``force_move`` does), and asserts what an honest player's ``verify`` must say.

1. A host that hijacks a seat with a second key of its own hands its player the
   full log (``"view": null``) instead of her view: ``verify --key`` compared her
   key only for a file naming her as its view [CL-S4].
2. A move file's later command is kept back by the host and used rounds later,
   where the seat's decision was another one: only a file's first use was held
   to its position [CL-S3].
3. A game by email whose chained definition says ``table``: the host types in
   every draw, and the finished views passed without the deal proof and without
   the check of the other seats' files [CL-V2, CL-S5].
4. A view of a game going on shows a decision of the view's own seat as a
   redacted line: its payload the command she signed, its digest the host's
   other command; the command was compared with her file only on a visible
   line [CL-S3].
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import secrets
import sqlite3
from pathlib import Path
from unittest import mock

import msgspec
import pytest
from adversary.host_tools import read_log, trusting
from pbem_mail import Table, legal_of, to_act


@pytest.fixture()
def fixed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game id, seed, salt and entropy from a counter: the same game every run."""
    counter = iter(range(10**9))
    monkeypatch.setattr(
        secrets, "token_hex", lambda n=32: hashlib.sha256(f"r22-{next(counter)}".encode()).hexdigest()[: 2 * n]
    )


def _force(t: Table, stored: bytes, commands: list[str]) -> int:
    """The host applies ``commands`` for the file ``stored``'s player at the current
    position (every proof check answering yes), and keeps ``stored`` itself as the
    signed file behind the line.  The seq of the first line it opened."""
    from events.service import GameService
    from events.sqlite_store import SqliteStore
    from events.statements import MoveFile

    svc = GameService(SqliteStore(t.host.db))
    with contextlib.closing(svc.store):
        loaded = svc.load(t.gid)
        body = json.loads(stored)
        body.update(seq=loaded.version, hash=loaded.head_hash, commands=commands, signature="00" * 64)
        with trusting():
            written = svc.submit_move(msgspec.convert(body, MoveFile))
    first = written[0].seq
    with contextlib.closing(sqlite3.connect(t.host.db)) as conn, conn:
        conn.execute("UPDATE signed SET statement = ? WHERE game_id = ? AND seq = ?", (stored, t.gid, first))
    return first


def _play(t: Table, name: str, command: str, folder: Path, tag: str) -> None:
    """``name`` signs ``command`` at the host's position; the host applies it."""
    f = folder / f"{tag}-{name}.json"
    t.host.ok("move", t.gid, "--as", name, command, "--out", str(f), "--key", str(t.players[name].key()))
    t.host.ok("apply", str(f))


def _write_sealed(t: Table, log: object, path: Path) -> Path:
    from events.signing import load_private_pem, sign
    from replay import logfile
    from replay.trust import seal

    key = load_private_pem(t.host.key().read_bytes(), "host.key")
    log.header = seal(log, lambda body: sign(key, "export", body))  # type: ignore[attr-defined]
    with path.open("w", encoding="utf-8") as out:
        logfile.write(log, out)  # type: ignore[arg-type]
    return path


def test_a_full_log_handed_to_a_player_still_says_whose_key_played_her_seat(tmp_path: Path, fixed: None) -> None:
    """[CL-S4] The host keeps alice's join to itself and takes her seat with a key
    of its own (it knows every seat's secret), choosing her entropy too; then it
    sends her the full log rather than her view (or bob's view).  Her ``verify``,
    with ``--key`` or her key store, must not call it valid: her key took no seat
    of this game."""
    from events.signing import load_private_pem
    from events.sqlite_store import SqliteStore
    from events.statements import encode, seat_secret
    from tests.helpers.pbem import join_for

    t = Table(tmp_path, "card-city", ["alice", "bob"])
    invites = t.invite()
    t.players["bob"].ok("join", str(invites["bob"]), "--as", "bob", "-o", str(t.inbox / "bob.json"))
    t.players["alice"].ok("join", str(invites["alice"]), "--as", "alice", "-o", str(tmp_path / "kept-back.json"))
    t.host.ok("key", "new", "shadow")
    shadow = load_private_pem(t.host.key("shadow").read_bytes(), "shadow.key")
    with contextlib.closing(SqliteStore(t.host.db)) as store:
        rec = store.get_game(t.gid)
    seat = rec.players.index("alice")
    chosen_entropy = "ab" * 16  # the host's own: it can try entropies until the deal suits it
    jf = join_for(rec.entropy, shadow, t.gid, rec.genesis, "alice", chosen_entropy,
                  seat_secret(rec.seed, rec.salt, rec.genesis, seat))
    (t.inbox / "alice.json").write_bytes(encode(jf))
    t.host.ok("inbox", str(t.inbox))
    full = tmp_path / f"{t.gid}-alice.jsonl"
    t.host.ok("export", t.gid, "-o", str(full), "--key", str(t.host.key()))
    alice = t.players["alice"]
    for args in (("--key", str(alice.key())), ()):
        code, out, _ = alice.run("verify", str(full), *args)
        assert code == 1, f"verify {' '.join(args)} of a log whose alice seat is not hers: {out}"
        assert "alice" in out and "key" in out, out
    other = tmp_path / f"{t.gid}-bob.jsonl"  # or bob's view, with no key of bob's at her hand
    t.host.ok("export", t.gid, "--as", "bob", "-o", str(other), "--key", str(t.host.key()))
    code, out, _ = alice.run("verify", str(other))
    assert code == 1 and "alice's seat was taken with key" in out, out
    assert t.players["bob"].run("verify", str(other))[0] == 0


def _keep_back_a_build(root: Path, label: str) -> tuple[Table, int] | None:
    """alice's two-build file, its second build kept back and played by the host in
    a later round (None if this game gave no later round where it is legal)."""
    t = Table(root, "card-city", ["alice", "bob"])
    t.join_all()
    rng = random.Random(label)
    folder = root / "moves"
    folder.mkdir()
    kept: tuple[bytes, str] | None = None
    phase_over = False
    for step in range(400):
        acts = to_act(t)
        if not acts:
            return None
        for name in acts:
            legal = legal_of(t, name)
            if name == "alice" and kept is None and sum(c.startswith("build") for c in legal) >= 2:
                builds = [c for c in legal if c.startswith("build")]
                rng.shuffle(builds)
                for first in builds:
                    for second in builds:
                        if second.split()[1] == first.split()[1] or second.split()[2] == first.split()[2]:
                            continue
                        f = folder / f"two-{step}.json"
                        code, _, _ = t.host.run("move", t.gid, "--as", "alice", first, second, "--out", str(f),
                                                "--key", str(t.players["alice"].key()))
                        if code == 0:
                            kept = (f.read_bytes(), second)
                            break
                    if kept:
                        break
                if kept:
                    _force(t, kept[0], [json.loads(kept[0])["commands"][0]])
                    continue
            if name == "alice" and kept is not None:
                if not any(c.startswith("build") for c in legal):
                    phase_over = True
                elif phase_over and kept[1] in legal:
                    return t, _force(t, kept[0], [kept[1]])
                square = kept[1].split()[2]
                # alice answers on her own, never with the build she signed for the file
                legal = [c for c in legal if c != kept[1] and square not in c.split()] or legal
            _play(t, name, rng.choice(legal), folder, f"m{step}")
    return None


def test_a_move_files_later_command_cannot_be_kept_for_a_later_round(tmp_path: Path, fixed: None) -> None:
    """[CL-S3] alice signs two builds of one construction phase in one file; the
    host applies the first, and when she answers the rest of that phase with
    another file, keeps the second build back and plays it for her rounds later,
    without asking her.  Her ``verify`` must name that line."""
    for attempt in range(6):
        got = _keep_back_a_build(tmp_path / f"try{attempt}", f"r{attempt}")
        if got is not None:
            break
    assert got is not None, "no game let the host play the kept-back build in a later round"
    t, used_at = got
    view = t.root / "alice-view.jsonl"
    t.host.ok("export", t.gid, "--as", "alice", "-o", str(view), "--key", str(t.host.key()))
    code, out, _ = t.players["alice"].run("verify", str(view))
    assert code == 1 and f":{used_at + 1}:" in out, out
    code, out, _ = t.host.run("verify", t.gid)
    assert code == 1, out  # the host's own store, checked as the full log it is


def test_a_game_by_email_defined_as_a_table_game_fails_verify(tmp_path: Path, fixed: None) -> None:
    """[CL-V2] citylog never makes a play-by-email game with chance typed in
    (``new --pbem --table`` is refused), but a host can write its definition row
    itself: its invitations, joins and signed moves work as any other, and then
    every draw is the host's.  Her ``join`` must refuse its invitation, and a
    finished view of it must not verify."""
    from core import registry
    from core.engine import CHANCE
    from core.rng import Rng, seed_commitment
    from events import statements
    from events.codec import to_item
    from events.envelope import GameDefinition, genesis_hash
    from events.service import GameService
    from events.signing import load_private_pem, public_hex
    from events.sqlite_store import SqliteStore
    from events.store import GameRecord

    t = Table(tmp_path, "card-city", ["alice", "bob"])
    game = registry.get("card-city")
    seed, salt, gid = "ab" * 16, "cd" * 16, "tabled"
    d = GameDefinition(game=game.spec.name, rules_version=game.spec.rules_version, options={},
                       players=("alice", "bob"), seed_commitment=seed_commitment(seed, salt), table=True,
                       host_key=public_hex(load_private_pem(t.host.key().read_bytes(), "host.key")), secrets=2)
    with contextlib.closing(SqliteStore(t.host.db)) as store, store.transaction():
        store.create_game(GameRecord.of(gid, d, seed=seed, salt=salt))
        store.append(gid, 0, [to_item(game.create(["alice", "bob"], {}, table=True))])
    t.gid = gid
    invites = t.invite()
    code, _, err = t.players["alice"].run("join", str(invites["alice"]), "--as", "alice", "-o", str(tmp_path / "j"))
    assert code == 2 and "table" in err, err  # her citylog will not join it
    for name, path in invites.items():  # but a citylog of before this check did: the attack goes on
        inv = statements.decode(path.read_bytes(), path.name)
        key = load_private_pem(t.players[name].key().read_bytes(), "k")
        jf = statements.signed_join(key, gid, genesis_hash(inv.definition), name, "0" * 31 + str(len(name)),
                                    inv.seat_secret)
        (t.inbox / f"{name}.json").write_bytes(statements.encode(jf))
    t.host.ok("inbox", str(t.inbox))
    rng = random.Random(3)
    folder = tmp_path / "moves"
    folder.mkdir()
    for step in range(3000):
        acts = to_act(t)
        if not acts:
            break
        svc = GameService(SqliteStore(t.host.db))
        with contextlib.closing(svc.store):
            loaded = svc.load(gid)
            if loaded.game.to_act(loaded.state) == (CHANCE,):
                draw = loaded.game.chance(loaded.state, Rng.derive("the host's choice", step))
                with mock.patch.object(GameRecord, "pbem", property(lambda s: False)):
                    svc.submit(gid, CHANCE, draw)
                continue
        for name in acts:
            _play(t, name, rng.choice(legal_of(t, name)), folder, f"m{step}")
    t.host.ok("outbox", gid, str(t.outbox))
    for p in ("alice", "bob"):
        code, out, _ = t.players[p].run("verify", str(t.outbox / f"{gid}-final-{p}.jsonl"))
        assert code == 1 and "table" in out, out


def test_her_own_decision_shown_redacted_in_a_view_is_caught(tmp_path: Path, fixed: None) -> None:
    """[CL-S3] The host plays another build than the one alice signed, under her
    file, and shows her the line redacted: the payload the build she signed, the
    digest (chained) the host's.  A decision of her own is never hidden from her,
    so her ``verify`` must fail there."""
    from core import registry
    from events.codec import encode
    from events.envelope import line_nonce, payload_digest
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    t = Table(tmp_path, "card-city", ["alice", "bob"])
    t.join_all()
    rng = random.Random(5)
    folder = tmp_path / "moves"
    folder.mkdir()
    builds: list[str] = []
    for step in range(200):
        acts = to_act(t)
        builds = [c for c in (legal_of(t, "alice") if "alice" in acts else []) if c.startswith("build")]
        if len(builds) >= 2:
            break
        for name in acts:
            _play(t, name, rng.choice(legal_of(t, name)), folder, f"m{step}")
    assert len(builds) >= 2
    signed, played = builds[0], builds[1]
    f = folder / "alice-signed.json"
    t.host.ok("move", t.gid, "--as", "alice", signed, "--out", str(f), "--key", str(t.players["alice"].key()))
    seq = _force(t, f.read_bytes(), [played])
    view = tmp_path / "view.jsonl"
    t.host.ok("export", t.gid, "--as", "alice", "-o", str(view), "--key", str(t.host.key()))
    code, out, _ = t.players["alice"].run("verify", str(view))
    assert code == 1 and "not the one alice signed" in out, out  # shown as it is: caught
    game = registry.get("card-city")
    svc = GameService(SqliteStore(t.host.db))
    with contextlib.closing(svc.store):
        loaded = svc.load(t.gid)
        seat = loaded.players.index("alice")
        before = game.fold(loaded.events[: seq - 1])
        shown = game.decide(before, seat, game.parse_command(before, seat, signed))[0]
        secret = loaded.record.line_secret
    log = read_log(view)
    line = log.lines[seq - 1]
    log.lines[seq - 1] = msgspec.structs.replace(
        line, payload=msgspec.Raw(encode(shown)), redacted=True, nonce=None,
        digest=payload_digest(bytes(line.payload), line_nonce(secret, seq)),
    )
    forged = _write_sealed(t, log, tmp_path / "forged.jsonl")
    code, out, _ = t.players["alice"].run("verify", str(forged))
    assert code == 1 and f":{seq + 1}:" in out, out


def test_a_take_in_another_order_cannot_frame_the_host(tmp_path: Path, fixed: None) -> None:
    """[CL-S1] Point City's ``take B1 A1`` is its own spelling (formatting its parse
    gives it back) but the event records ``take A1 B1``, and ``verify`` compares the
    signed text with the recorded command: a move file the host accepted would fail
    every later ``verify`` (a player framing the host, or bricking a game he is
    losing).  The host must refuse it with the store as it was; a player's own
    ``move --out`` writes the recorded spelling."""
    from events.signing import load_private_pem
    from events.statements import encode, signed_move
    from pbem_mail import dump

    t = Table(tmp_path, "point-city", ["alice", "bob"])
    t.join_all()
    p = to_act(t)[0]
    take = next(c for c in legal_of(t, p) if c.startswith("take ") and " pay " not in c)
    _, a, b = take.split()
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    svc = GameService(SqliteStore(t.host.db))
    with contextlib.closing(svc.store):
        loaded = svc.load(t.gid)
        seq, head = loaded.version, loaded.head_hash
    key = load_private_pem(t.players[p].key().read_bytes(), "k")
    crafted = tmp_path / "crafted.json"
    crafted.write_bytes(encode(signed_move(key, t.gid, p, seq, head, (f"take {b} {a}",))))
    before = dump(t.host.db)
    code, out, err = t.host.run("apply", str(crafted))
    if code == 0:  # applied: then it must verify, for the host and every player
        assert t.host.run("verify", t.gid)[0] == 0, t.host.run("verify", t.gid)
    assert code == 2 and "recorded as" in err, (code, out, err)
    assert dump(t.host.db) == before
    own = tmp_path / "own.json"
    t.host.ok("move", t.gid, "--as", p, f"take {b} {a}", "--out", str(own), "--key", str(t.players[p].key()))
    assert json.loads(own.read_bytes())["commands"] == [take]
    t.host.ok("apply", str(own))
    t.host.ok("verify", t.gid)


def test_a_move_file_cannot_ask_about_a_draw_its_player_has_not_seen(tmp_path: Path, fixed: None) -> None:
    """[CL-S1, GN-1] 5x5 City's park action B: ``use`` draws two tiles from the
    bag, then the player replaces a board tile with one of them.  A move file
    ``use`` + ``replace T SQ`` is legal only if tile T comes out: the host that
    applies it when T is drawn and refuses it (recording nothing) when not tells
    alice, file by file, whether T is next in the bag, before she has to decide
    whether to use the park at all.  The host's answer must not depend on the
    draw: every such file is refused alike, the store as it was."""
    from core.five_by_five.plans import square_name
    from core.five_by_five.text import tile_name
    from core.five_by_five.tiles import TILES
    from events.service import GameService
    from events.signing import load_private_pem
    from events.sqlite_store import SqliteStore
    from events.statements import encode, signed_move
    from pbem_mail import dump

    t = Table(tmp_path, "5x5-city", ["alice", "bob"], "--option", "sides=BBBBBBBBBB")
    t.join_all()
    rng = random.Random(7)
    folder = tmp_path / "moves"
    folder.mkdir()
    for step in range(600):
        acts = to_act(t)
        assert acts, "the game ended before alice was offered park action B"
        if acts == ["alice"] and "use" in legal_of(t, "alice"):
            break
        for name in acts:
            legal = [c for c in legal_of(t, name) if c != "use"] or legal_of(t, name)
            _play(t, name, rng.choice(legal), folder, f"m{step}")
    svc = GameService(SqliteStore(t.host.db))
    with contextlib.closing(svc.store):
        loaded = svc.load(t.gid)
        seq, head = loaded.version, loaded.head_hash
        seat = loaded.players.index("alice")
        square = next(q for q in range(25) if loaded.state.boards[seat].tiles[q] >= 0)
    key = load_private_pem(t.players["alice"].key().read_bytes(), "k")
    before = dump(t.host.db)
    answers = set()
    for i, tile in enumerate(range(len(TILES))):
        probe = tmp_path / f"probe-{i}.json"
        probe.write_bytes(encode(signed_move(key, t.gid, "alice", seq, head,
                                             ("use", f"replace {tile_name(tile)} {square_name(square)}"))))
        code, out, err = t.host.run("apply", str(probe))
        assert code != 0, f"the host applied 'use' + 'replace {tile_name(tile)}': tile {tile} was drawn"
        assert dump(t.host.db) == before
        answers.add(err.replace(tile_name(tile), "T").replace(str(probe), "FILE"))
    assert len(answers) == 1, answers


SMALL_ORDER_KEY = "01" + "00" * 31
"""The Ed25519 identity point: a "public key" for which the signature below
(R the base point, S = 1) verifies over every message."""
ANY_MESSAGE_SIGNATURE = "58" + "66" * 31 + "01" + "00" * 31


def test_a_key_whose_signature_fits_every_message_cannot_join(tmp_path: Path, fixed: None) -> None:
    """[CL-S3] A player joins with a small-order point as his key: then one
    signature verifies for every statement, and anyone holding a file (a mail
    relay, the host) can forge his moves, which every ``verify`` would call
    signed by him.  The host must refuse such a join, and no signature with
    such a key may verify."""
    from events.signing import verify_signature
    from events.envelope import GameDefinition, genesis_hash
    from events.statements import COMMITTED_JOIN_FORMAT, CommittedJoin, encode, seat_proof
    from pbem_mail import dump

    t = Table(tmp_path, "card-city", ["alice", "bob"])
    invites = t.invite()
    inv = json.loads(invites["bob"].read_bytes())
    genesis = genesis_hash(msgspec.convert(inv["definition"], GameDefinition))
    jf = CommittedJoin(COMMITTED_JOIN_FORMAT, t.gid, genesis, "bob", SMALL_ORDER_KEY, "00" * 32, "", "")
    jf = msgspec.structs.replace(jf, seat_proof=seat_proof(inv["seat_secret"], jf))
    jf = msgspec.structs.replace(jf, signature=ANY_MESSAGE_SIGNATURE)
    (t.inbox / "bob.json").write_bytes(encode(jf))
    before = dump(t.host.db)
    t.host.run("inbox", str(t.inbox))
    assert dump(t.host.db) == before, "the host recorded a join whose key signs every message"
    assert not verify_signature(SMALL_ORDER_KEY, "move", {"any": "thing"}, ANY_MESSAGE_SIGNATURE)


def test_a_game_by_email_of_the_old_secret_scheme_takes_no_header_reseed(
    tmp_path: Path, fixed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """[CL-V7] A host writes its definition with secret scheme 1 (as games before
    issue 22; ``join`` does not look), then puts a reseed of its choosing in its
    row mid-game: the draws from there on are the host's.  The finished views
    of Card City fail already (a hidden chance line after a reseed the chain
    does not bind), but a log whose later draws are all visible said "valid …
    not proven"; a new seed in a game by email is the host's choice, header or
    chain, and must fail every ``verify``."""
    from core import chance

    monkeypatch.setattr(chance, "CURRENT", chance.SEED_ALONE)  # the host's own citylog, as before issue 22
    t = Table(tmp_path, "card-city", ["alice", "bob"])
    monkeypatch.undo()
    t.join_all()
    rng = random.Random(11)
    folder = tmp_path / "moves"
    folder.mkdir()
    for step in range(3000):
        acts = to_act(t)
        if not acts:
            break
        if step == 6:
            with contextlib.closing(sqlite3.connect(t.host.db)) as conn, conn:
                version = conn.execute("SELECT max(seq) FROM events WHERE game_id = ?", (t.gid,)).fetchone()[0]
                conn.execute("UPDATE games SET reseeds = ? WHERE id = ?",
                             (json.dumps([[version + 1, "the host's choice"]]), t.gid))
        for name in acts:
            _play(t, name, rng.choice(legal_of(t, name)), folder, f"m{step}")
    t.host.ok("outbox", t.gid, str(t.outbox))
    for p in ("alice", "bob"):
        code, out, _ = t.players[p].run("verify", str(t.outbox / f"{t.gid}-final-{p}.jsonl"))
        assert code == 1 and "seed" in out, out
