"""Red team, round 22b: lines the host alone places, and the rules they are judged by.

1. **Placed lines choose no draw** [CL-V9].  A rules upgrade, a timeout, a
   hand-over the host applies or holds back: each shifted the seq of every later
   chance event, and chance was derived from the seq, so by placing one such line
   (or padding with upgrades) the host picked among several deals and every
   ``verify`` said "deal proven".  Law: inserting a placed line never changes any
   chance outcome (hypothesis, every game); through the CLI, a game with a
   hand-over and a take-back deals as its twin without them.
2. **Upgrades only go forward** [CL-U5]: a downgrade (and so pc-3 → pc-2 → pc-3
   padding) is refused by ``citylog upgrade`` and failed by ``verify``.
3. **The rules in effect judge a signed game's lines** [CL-U6]: ``check_signed``
   re-derived a bot's decision after an upgrade by the definition's rules.
4. **Stale and re-used hand-overs** [CL-T5, CL-T6]: a hand-over kept back and
   applied after its seat moved on (after the player took the seat back, say) is
   refused by the host's citylog and failed by every ``verify``; a used one is
   never used again (keyed by its decoded signature).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import secrets
from pathlib import Path
from typing import Any
from unittest import mock

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pbem_mail import Table

from core import chance, deadlines, registry
from core.bots import BotRegistry
from core.deadlines import Handed, TimedOut
from core.engine import CHANCE, checked_step, random_bot
from core.point_city.game import GAME, GAME_PC2, PointCityPc2
from core.rng import Rng, seed_commitment
from core.seats import Joined
from core.upgrade import Upgraded
from events.envelope import GameDefinition
from events.seeds import chance_source_of

PLAYERS = ("ann", "bob", "cy", "dee")
PLACED = (TimedOut, Handed, Upgraded)
"""The lines the host places (core.table_events.PLACED, spelled here so this file runs on
the code before it too, and fails there)."""


# -- 1. the law: a placed line changes no draw [CL-V9] ----------------------------------
def _placed_line(kind: int, seat: int) -> Any:
    """A placed line of each kind (its content is no matter to the draws)."""
    return (TimedOut(seat, 1, "00" * 32, 0, 3600, "bot", "00" * 64), Handed(seat, kind % 2 == 0),
            Upgraded("pc-2", "pc-3"))[kind % 3]


def _deal(name: str, n: int, seed: str, pbem: bool, insert_at: int | None, kind: int,
          limit: int = 60) -> list[Any]:
    """A game of ``name`` played by random bots, chance drawn as the writer and verify
    draw it (:func:`events.seeds.chance_source_of`), a placed line inserted before
    decision ``insert_at``; the events that are not placed lines.  The bots' choices
    come from the decision's index, so both games make the same choices as long as
    they are dealt alike."""
    game = registry.get(name)
    salt = chance.repeatable_salt(seed)
    definition = GameDefinition(
        game=name, rules_version=game.spec.rules_version, options={}, players=PLAYERS[:n],
        seed_commitment=seed_commitment(seed, salt), table=False, host_key="ab" * 32 if pbem else "",
        secrets=chance.CURRENT)
    events: list[Any] = [game.create(list(PLAYERS[:n]), {})]
    if pbem:
        events += [Joined(s, f"{s:02x}" * 32, hashlib.sha256(f"{seed}/{s}".encode()).hexdigest()) for s in range(n)]
    state = game.fold(events)
    for k in range(limit):
        actors = game.to_act(state)
        if not actors:
            break
        if k == insert_at:
            events.append(_placed_line(kind, actors[0] if actors[0] != CHANCE else 0))
            state = game.apply(state, events[-1])
        seq = len(events) + 1
        if actors == (CHANCE,):
            rng = chance_source_of(definition, seed, salt, (), events).rng(seq)
            assert rng is not None
            seat, command = CHANCE, game.chance(state, rng)
        else:
            seat = actors[0]
            command = random_bot(game, state, seat, Rng.derive("law-bots", k))
        produced, state = checked_step(game, state, seat, command)
        events += produced
    return [e for e in events if type(e) not in PLACED]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(registry.names()), players=st.integers(1, 4), seed=st.integers(0, 10**6),
       pbem=st.booleans(), at=st.integers(0, 40), kind=st.integers(0, 5))
def test_law_inserting_a_placed_line_changes_no_draw(
        name: str, players: int, seed: int, pbem: bool, at: int, kind: int) -> None:
    spec = registry.get(name).spec
    n = max(spec.min_players, min(players, spec.max_players))
    plain = _deal(name, n, f"law-{seed}", pbem, None, kind)
    placed = _deal(name, n, f"law-{seed}", pbem, at, kind)
    assert placed == plain


def test_a_log_without_placed_lines_draws_at_its_seqs() -> None:
    """A game with no placed line is dealt exactly as before (golden hashes unchanged)."""
    source = chance.ChanceSource("s1")
    a, b = source.rng(17), Rng.derive("s1", 17)
    assert a is not None and [a.below(1000) for _ in range(8)] == [b.below(1000) for _ in range(8)]


def _same_tokens(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A function that restarts ``secrets.token_hex`` on a counter: each table built
    after it draws the same game id, seed, salt and entropies."""
    from events import statements
    from events.signing import public_hex

    def reset() -> None:
        fresh = iter(range(10**9))
        monkeypatch.setattr(
            secrets, "token_hex", lambda n=32: hashlib.sha256(f"r22b-{next(fresh)}".encode()).hexdigest()[: 2 * n])
        # committed entropy [CL-S7] derives from each player's key, which every table makes
        # anew: the n-th key seen gets the n-th entropy, in both tables alike
        order: dict[str, int] = {}

        def entropy(key: Any, genesis: str) -> tuple[str, str]:
            n = order.setdefault(public_hex(key), len(order))
            made = hashlib.sha256(f"r22b-entropy-{n}".encode()).hexdigest()  # not the genesis: it names the host key
            return made[:32], made[32:64]
        monkeypatch.setattr(statements, "join_entropy", entropy)
    return reset


def _handover_file(t: Table, name: str, bot: bool, out: Path, at: int | None = None) -> Path:
    """``name``'s signed hand-over (to the bot, or back) made at seq ``at`` (default: now)."""
    from cli.keys import load_key
    from events.service import GameService
    from events.sqlite_store import SqliteStore
    from events.statements import encode, signed_handover

    svc = GameService(SqliteStore(t.host.db))
    with contextlib.closing(svc.store):
        lo = svc.load(t.gid)
        seq = lo.version if at is None else at
        head = lo.records[seq - 1].hash if seq else lo.record.genesis
    ho = signed_handover(load_key(t.players[name].key()), t.gid, name, seq, head, bot)
    out.write_bytes(encode(ho))
    return out


def _events(t: Table) -> list[Any]:
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    svc = GameService(SqliteStore(t.host.db))
    with contextlib.closing(svc.store):
        return list(svc.load(t.gid).events)


def _play_alike(t: Table, rounds: int) -> None:
    rng = random.Random(22)
    for _ in range(rounds):
        if not t.round_trip(rng):
            return


def _dealt(t: Table) -> list[Any]:
    """The game's own lines: neither placed lines nor joins (whose keys differ per table)."""
    return [e for e in _events(t) if type(e) not in PLACED and type(e) is not Joined]


def test_a_hand_over_and_back_does_not_change_the_deal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """[CL-V9] Two tables, the same game (ids, seeds, salts, entropies): in the second bob
    hands his seat to the bot and takes it back while alice is to move — two lines the
    host applies when it likes.  Both are dealt alike from there, and verify proves
    each deal."""
    reset = _same_tokens(monkeypatch)
    tables = []
    for tag in ("plain", "placed"):
        reset()
        t = Table(tmp_path / tag, "point-city", ["alice", "bob"])
        t.join_all()
        tables.append(t)
    plain, placed = tables
    assert plain.gid == placed.gid and _dealt(plain) == _dealt(placed)
    start = len(_dealt(placed))
    assert "alice" in json.loads(placed.host.ok("show", placed.gid, "--json"))["to_act"]
    _handover_file(placed, "bob", True, placed.inbox / "away.json")
    placed.host.ok("inbox", str(placed.inbox))
    _handover_file(placed, "bob", False, placed.inbox / "back.json")
    placed.host.ok("inbox", str(placed.inbox))
    assert [type(e) for e in _events(placed)[-2:]] == [Handed, Handed]
    _play_alike(plain, 8)
    _play_alike(placed, 8)
    a, b = _dealt(plain), _dealt(placed)
    n = min(len(a), len(b))
    draws = [e for e in b[start:n] if (GAME.command_of(e) or (None,))[0] == CHANCE]
    assert draws, "no draw after the placed lines: the test proves nothing"
    assert a[:n] == b[:n]
    for t in tables:
        assert "deal proven" in t.host.ok("verify", t.gid)


# -- 2. upgrades only go forward [CL-U5] --------------------------------------------------
def _store_game(db: Path, seed: str = "u5") -> str:
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    svc = GameService(SqliteStore(db))
    with contextlib.closing(svc.store):
        gid = svc.create("point-city", ["ann", "bob"], seed=seed, salt=chance.repeatable_salt(seed))
        lo = svc.load(gid)
        for _ in range(6):  # a few decisions, so an upgrade line lands mid-game
            seat = lo.game.to_act(lo.state)[0]
            svc.submit(gid, seat, next(lo.game.legal(lo.state, seat)))
            lo = svc.load(gid)
    return gid


def _append(db: Path, gid: str, *events: Any) -> None:
    from events.codec import to_item
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    svc = GameService(SqliteStore(db))
    with contextlib.closing(svc.store), svc.store.transaction():
        svc.store.append(gid, svc.store.version(gid), [to_item(e) for e in events])


@pytest.mark.parametrize("lines", [
    [Upgraded("pc-3", "pc-2")],
    [Upgraded("pc-3", "pc-2"), Upgraded("pc-2", "pc-3")],
], ids=["downgrade", "padding"])
def test_a_downgrade_line_fails_verify(tmp_path: Path, lines: list[Upgraded]) -> None:
    from tests.cli.clirun import run

    db = tmp_path / "c.db"
    gid = _store_game(db)
    seq = json.loads(run(db, "show", gid, "--json")[1])["seq"] + 1
    _append(db, gid, *lines)
    code, out, _ = run(db, "verify", gid)
    assert code == 1 and f":{seq + 1}: " in out and "only goes to newer rules [CL-U5]" in out, out


def test_citylog_upgrade_never_goes_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A citylog whose current rules are older than the game's refuses to 'upgrade' it."""
    from tests.cli.clirun import dump, run

    db = tmp_path / "c.db"
    gid = _store_game(db)
    real = registry.get
    monkeypatch.setattr(registry, "get", lambda name: GAME_PC2 if name == "point-city" else real(name))
    untouched = dump(db)
    for args in (("upgrade", gid, "--check"), ("upgrade", gid)):
        code, out, err = run(db, *args)
        assert code == 1 and "[CL-U5]" in out and len((out + err).strip().splitlines()) == 1, out + err
    assert dump(db) == untouched


# -- 3. the rules in effect judge a signed game's lines [CL-U6] ---------------------------
def _last_legal(game: Any, state: Any, seat: int, rng: Rng) -> Any:
    """A timeout bot unlike pc-3's: the first legal command pc-3's bot would not play."""
    theirs = GAME.bots["greedy"](GAME, state, seat, rng)
    return next(c for c in game.legal(state, seat) if c != theirs)


def test_a_bots_decision_after_an_upgrade_is_checked_by_the_new_rules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game by email recorded under pc-2, upgraded to pc-3; then bob hands his seat to
    the bot, which plays his turn under pc-3.  The two rules' timeout bots decide
    differently here (pc-2's stands in for any older rules the upgrade admits: it
    re-checks the decisions recorded, not the ones to come), so a check by the
    definition's rules fails the honest game; by the rules in effect it passes."""
    real = registry.get
    with monkeypatch.context() as m:
        m.setattr(registry, "get", lambda name: GAME_PC2 if name == "point-city" else real(name))
        t = Table(tmp_path, "point-city", ["alice", "bob"])
    t.join_all()
    monkeypatch.setattr(PointCityPc2, "bots", BotRegistry({"random": random_bot, "greedy": _last_legal}))
    rng = random.Random(3)
    for _ in range(2):
        assert t.round_trip(rng)
    assert "upgraded from pc-2 to pc-3" in t.host.ok("upgrade", t.gid)
    for _ in range(6):
        if "bob" in json.loads(t.host.ok("show", t.gid, "--json"))["to_act"]:
            break
        assert t.round_trip(rng)
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    svc = GameService(SqliteStore(t.host.db))
    with contextlib.closing(svc.store):
        lo = svc.load(t.gid)
        assert lo.game is GAME and 1 in lo.game.to_act(lo.state)
        seq = lo.version + 2
        index = deadlines.decision_index(GAME, lo.events, 1)  # the bot's stream [CL-V10]
        old = deadlines.bot_command(GAME_PC2, lo.state, 1, lo.record.genesis, index)
        new = deadlines.bot_command(GAME, lo.state, 1, lo.record.genesis, index)
    assert old != new, "the two rules' bots agree here: the test proves nothing"
    _handover_file(t, "bob", True, t.inbox / "away.json")
    t.host.ok("inbox", str(t.inbox))
    events = _events(t)
    assert type(events[seq - 2]) is Handed and GAME.command_of(events[seq - 1]) == (1, new)
    for name, party in t.players.items():
        view = tmp_path / f"view-{name}.jsonl"
        t.host.ok("export", t.gid, "--as", name, "-o", str(view), "--force")
        code, out, err = party.run("verify", str(view))
        assert code == 0, f"{name}: {out}{err}"
    assert "valid" in t.host.ok("verify", t.gid)


# -- 4. stale and re-used hand-overs [CL-T5, CL-T6] ---------------------------------------
def _force_handover(t: Table, path: Path) -> None:
    """The host applies the hand-over in ``path`` with its own citylog's checks of
    position and re-use answering yes (its own database, its own code)."""
    from events import admission
    from events.service import GameService
    from events.sqlite_store import SqliteStore
    from events.statements import HandOver

    ho = msgspec.json.decode(path.read_bytes(), type=HandOver)
    svc = GameService(SqliteStore(t.host.db))
    with contextlib.closing(svc.store), \
            mock.patch.object(admission.deadlines, "handover_stale", lambda *a: None, create=True), \
            mock.patch.object(admission.Admission, "_already_used", lambda *a: False):
        svc.hand_over(ho)


def _verdicts(t: Table) -> dict[str, tuple[int, str]]:
    out: dict[str, tuple[int, str]] = {}
    for name, party in t.players.items():
        path = t.root / f"view-{name}.jsonl"
        t.host.ok("export", t.gid, "--as", name, "-o", str(path), "--force")
        code, stdout, stderr = party.run("verify", str(path))
        out[name] = (code, stdout + stderr)
    code, stdout, stderr = t.host.run("verify", t.gid)
    out["host"] = (code, stdout + stderr)
    return out


@pytest.fixture()
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Table:
    _same_tokens(monkeypatch)()
    t = Table(tmp_path, "point-city", ["alice", "bob"])
    t.join_all()
    assert "alice" in json.loads(t.host.ok("show", t.gid, "--json"))["to_act"]
    return t


def test_a_hand_over_kept_back_cannot_be_applied_after_the_seat_moved_on(table: Table) -> None:
    """bob signs a hand-over to the bot (A) that the host keeps back; he then hands his
    seat over (B) and takes it back (C).  A, made on this chain and never used, would
    hand his seat to the bot again, against his latest word."""
    t = table
    kept = _handover_file(t, "bob", True, t.root / "kept.json", at=len(_events(t)) - 1)
    _handover_file(t, "bob", True, t.inbox / "b.json")
    t.host.ok("inbox", str(t.inbox))
    _handover_file(t, "bob", False, t.inbox / "c.json")
    t.host.ok("inbox", str(t.inbox))
    from tests.cli.clirun import dump

    untouched = dump(t.host.db)
    (t.inbox / "kept.json").write_bytes(kept.read_bytes())
    code, out, err = t.host.run("inbox", str(t.inbox))
    assert code == 2 and "stale hand-over" in out and "[CL-T6]" in out, out + err
    assert dump(t.host.db) == untouched
    # the host forces it in: every verify fails it, at its line
    _force_handover(t, kept)
    for who, (code, text) in _verdicts(t).items():
        assert code == 1 and "[CL-T6]" in text and "kept back" in text, f"{who}: {text}"


def test_a_take_back_made_while_the_bot_plays_on_still_applies(table: Table) -> None:
    """The honest side of [CL-T6]: bob hands his seat over, then signs a take-back; the
    bot plays his turn (after alice's move) before the host reads it.  The bot's move
    is not bob's seat moving on: the take-back applies, and every verify accepts."""
    t = table
    _handover_file(t, "bob", True, t.inbox / "away.json")
    t.host.ok("inbox", str(t.inbox))
    back = _handover_file(t, "bob", False, t.root / "back.json")
    before = len(_events(t))
    rng = random.Random(22)
    for _ in range(10):  # alice moves till her turn ends; the bot plays bob's turn at once
        if any((GAME.command_of(e) or (None,))[0] == 1 for e in _events(t)[before:]):
            break
        assert t.round_trip(rng)
    else:
        raise AssertionError("the bot did not play bob's turn")
    (t.inbox / "back.json").write_bytes(back.read_bytes())
    out = t.host.ok("inbox", str(t.inbox))
    assert "applied" in out and type(_events(t)[-1]) is Handed and not _events(t)[-1].bot
    for who, (code, text) in _verdicts(t).items():
        assert code == 0, f"{who}: {text}"


def test_a_used_hand_over_is_never_used_again(table: Table) -> None:
    """bob hands his seat over (A) and takes it back (B); A again is a replay: refused by
    the inbox, and failed by every verify when the host forces it in (keyed by its
    decoded signature, so no other spelling of it passes)."""
    t = table
    away = _handover_file(t, "bob", True, t.root / "a.json")
    (t.inbox / "a.json").write_bytes(away.read_bytes())
    t.host.ok("inbox", str(t.inbox))
    _handover_file(t, "bob", False, t.inbox / "b.json")
    t.host.ok("inbox", str(t.inbox))
    (t.inbox / "again.json").write_bytes(away.read_bytes())
    code, out, _ = t.host.run("inbox", str(t.inbox))
    assert "already recorded" in out or ("refused" in out and code == 2), out
    _force_handover(t, away)
    for who, (code, text) in _verdicts(t).items():
        assert code == 1 and "used again" in text, f"{who}: {text}"


# -- 5. the host key a player trusts [CL-S8] -----------------------------------------------
def test_join_shows_the_host_key_and_pins_the_one_given(tmp_path: Path) -> None:
    """Anyone can sign an invitation with a key of their own; the first to arrive is not
    trusted for arriving first.  ``join`` shows the host key it would trust, and with
    ``--host-key`` refuses an invitation signed by another key."""
    from tests.helpers.pbem import Party

    t = Table(tmp_path / "real", "point-city", ["alice", "bob"])
    real = t.invite()["alice"]
    host_key = json.loads(real.read_text())["definition"]["host_key"]
    eve = Table(tmp_path / "eve", "point-city", ["alice", "bob"])
    forged = eve.invite()["alice"]
    alice: Party = t.players["alice"]
    out_dir = tmp_path / "joins"
    out_dir.mkdir()
    code, out, err = alice.run("join", str(forged), "--as", "alice", "--host-key", host_key, "-o", str(out_dir))
    assert code == 2 and "[CL-S8]" in err and len(err.strip().splitlines()) == 1, out + err
    assert not list(out_dir.iterdir())
    code, out, err = alice.run("join", str(real), "--as", "alice", "--host-key", host_key.upper(), "-o", str(out_dir))
    assert code == 0 and host_key in out and "as you gave it" in out, out + err
    code, out, err = alice.run("join", str(forged), "--as", "alice", "-o", str(tmp_path / "eve-join.json"))
    eves = json.loads(forged.read_text())["definition"]["host_key"]
    assert code == 0 and eves in out and "compare it" in out, out + err  # shown, for her to compare
    code, _, err = alice.run("join", str(real), "--as", "alice", "--host-key", "zz", "-o", str(tmp_path / "x.json"))
    assert code == 2 and "[CL-S8]" in err
