"""Deadlines and abandonment in play by email (issue 24 item 3) [CL-T1]–[CL-T5].

The honest path (a timeout the host signs, the bot playing from the seat's own
view, hand-overs through the inbox) and the attacks on it: a host that writes
timeouts into its own database unsigned, against the policy, before the
deadline by its own clock, with a clock going back, for a seat that was not
pending, or with a bot command the bot would not make — each fails some
player's ``verify`` (the host's export is sealed by its real key, as a cheating
host would do).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from cli.keys import load_key
from core import deadlines, registry
from core.deadlines import Handed, TimedOut
from events.backends import open_store
from events.codec import to_item
from events.deadlines import apply_due, due, mark, reminders
from events.envelope import GameDefinition, canonical_definition, genesis_hash
from events.refusals import ServiceError
from events.service import GameService
from events.signing import sign
from tests.pbem.pbem_mail import Table

HOUR = 3600
T0 = 1_800_000_000
"""The host's claimed clock in these tests (epoch seconds, after any real mark)."""


# -- pure rules ------------------------------------------------------------------


def test_a_deadline_is_a_number_and_a_unit() -> None:
    assert deadlines.parse_deadline("3d") == 3 * 86400
    assert deadlines.parse_deadline("12h") == 12 * HOUR
    assert deadlines.parse_deadline("1w") == 7 * 86400
    for bad in ("", "3", "d", "0d", "3 d x", "-1h", "3D", "59s", "400d", "1.5h"):
        with pytest.raises(ValueError):
            deadlines.parse_deadline(bad)
    assert deadlines.format_deadline(3 * 86400) == "3d"


def test_a_timeout_line_says_how_long_the_seat_waited_in_days_hours_minutes() -> None:
    """A host's clock rarely gives a whole unit: 4 days and a second read as such, not 345601s."""
    line = TimedOut(seat=1, seq=42, head="0" * 64, since=1000, at=1000 + 4 * 86400 + 1, action="bot", signature="")
    text = deadlines.describe(line, ["alice", "bob"])
    assert text is not None and "bob's decision at seq 42 timed out after 4d 1s (host's clock)" in text
    late = TimedOut(seat=0, seq=7, head="0" * 64, since=0, at=3 * 86400 + 3600 + 3 * 60 + 41, action="forfeit",
                    signature="")
    assert "after 3d 1h 3m 41s" in (deadlines.describe(late, ["alice", "bob"]) or "")


@pytest.mark.parametrize("name", ["card-city", "5x5-city", "point-city"])
def test_every_game_declares_its_policies_and_refuses_skip_naming_why(name: str) -> None:
    """[CL-T3] No game can skip every decision; the refusal cites the ruling."""
    spec = registry.get(name).spec
    assert spec.timeouts == ("bot", "forfeit")
    for policy in ("bot", "forfeit"):
        assert deadlines.policy_problem(spec, policy) is None
    why = deadlines.policy_problem(spec, "skip")
    assert why is not None and "cannot honour --on-timeout skip" in why and "[CL-T3]" in why
    assert "\n" not in why
    assert "no timeout policy" in (deadlines.policy_problem(spec, "wait") or "")


def test_the_deadline_is_chained_and_other_games_keep_their_genesis() -> None:
    base = GameDefinition("point-city", "pc-3", {}, ("a", "b"), "c0", host_key="ab" * 32, secrets=2)
    timed = msgspec.structs.replace(base, deadline=3 * 86400, on_timeout="bot")
    assert b"deadline" not in canonical_definition(base) and b"on_timeout" not in canonical_definition(base)
    assert genesis_hash(timed) != genesis_hash(base)
    assert genesis_hash(msgspec.structs.replace(timed, on_timeout="forfeit")) != genesis_hash(timed)


# -- the CLI's refusals ------------------------------------------------------------


def test_new_refuses_a_policy_the_game_cannot_honour_in_one_line(tmp_path: Path) -> None:
    from tests.helpers.pbem import Party

    host = Party(tmp_path, "host")
    host.ok("key", "new", "host")
    code, out, err = host.run("new", "card-city", "--players", "a,b", "--pbem", "--deadline", "3d", "--on-timeout", "skip")
    assert code == 2 and "cannot honour --on-timeout skip" in err and "[CL-T3]" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = host.run("new", "card-city", "--players", "a,b", "--deadline", "3d", "--on-timeout", "bot")
    assert code == 2 and "--pbem" in err
    code, _, err = host.run("new", "card-city", "--players", "a,b", "--pbem", "--deadline", "3d")
    assert code == 2 and "go together" in err
    code, _, err = host.run("new", "card-city", "--players", "a,b", "--pbem", "--deadline", "3x", "--on-timeout", "bot")
    assert code == 2 and "--deadline" in err
    store = open_store(str(host.db))
    try:
        assert store.list_games() == []  # nothing was created
    finally:
        store.close()


# -- both stores ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_both_stores_keep_the_deadline_and_the_hosts_clock(kind: str, tmp_path: Path,
                                                           request: pytest.FixtureRequest) -> None:
    """The definition's deadline reads back from the games row; the host's clock keeps
    each line's first time and goes with a deleted game."""
    from events.signing import new_private_key, public_hex

    target = str(request.getfixturevalue("pg_url")) if kind == "postgresql" else str(tmp_path / "s.db")
    svc = GameService(open_store(target))
    try:
        gid = svc.create("point-city", ["a", "b"], host_key=public_hex(new_private_key()),
                         deadline=2 * HOUR, on_timeout="forfeit")
        rec = svc.store.get_game(gid)
        assert (rec.deadline, rec.on_timeout) == (2 * HOUR, "forfeit")
        assert (rec.definition.deadline, rec.definition.on_timeout) == (2 * HOUR, "forfeit")
        assert svc.store.list_games()[0].deadline == 2 * HOUR
        svc.store.mark_time(gid, 1, T0)
        svc.store.mark_time(gid, 1, T0 + 99)  # the first time stays
        assert svc.store.times(gid) == {1: T0}
        with pytest.raises(ServiceError, match="played by email"):
            svc.create("point-city", ["a", "b"], deadline=HOUR, on_timeout="bot")
        svc.delete(gid)
        assert svc.store.times(gid) == {}
    finally:
        svc.store.close()


# -- a game by email with a deadline ---------------------------------------------------


class Host:
    """The host's own service on its database, and its key (a cheating host has both)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.svc = GameService(open_store(str(table.host.db)))
        self.key = load_key(table.host.key("host"))
        self.gid = table.gid

    @property
    def t0(self) -> int:
        """When the host's clock says the game's last line was written (noting it now if not yet)."""
        mark(self.svc, self.gid, T0)
        return self.svc.store.times(self.gid)[self.svc.store.version(self.gid)]

    def sign(self, body: dict[str, Any]) -> str:
        return sign(self.key, "timeout", body)

    def loaded(self) -> Any:
        return self.svc.load(self.gid)

    def timed_out(self, seat: int, since: int, at: int, action: str | None = None, signer: Any = None,
                  seq: int | None = None) -> TimedOut:
        lo = self.loaded()
        seq = lo.version if seq is None else seq
        e = TimedOut(seat, seq, lo.records[seq - 1].hash, since, at, action or lo.record.on_timeout, "")
        return msgspec.structs.replace(e, signature=(signer or self.sign)(deadlines.body(e)))

    def write(self, *events: Any) -> None:
        """Lines the host writes straight into its own database (no check at all)."""
        lo = self.loaded()
        self.svc.store.append(self.gid, lo.version, [to_item(e) for e in events])
        self.svc.repository.forget([self.gid])

    def close(self) -> None:
        self.svc.store.close()


def table_with_deadline(root: Path, game: str = "point-city", policy: str = "bot") -> Table:
    t = Table(root, game, ["alice", "bob"], "--deadline", "1h", "--on-timeout", policy)
    t.join_all()
    return t


def verdicts(t: Table) -> dict[str, tuple[int, str]]:
    """Every party's verify of what it would receive now: each player's sealed view, the host's game."""
    out: dict[str, tuple[int, str]] = {}
    for name, party in t.players.items():
        path = t.root / f"view-{name}.jsonl"
        t.host.ok("export", t.gid, "--as", name, "-o", str(path), "--force")
        code, stdout, stderr = party.run("verify", str(path))
        out[name] = (code, stdout + stderr)
    code, stdout, stderr = t.host.run("verify", t.gid)
    out["host"] = (code, stdout + stderr)
    return out


def bob_to_act(host: Host) -> None:
    """Play alice's turns (her signed moves) until bob, in Point City, must act."""
    lo = host.loaded()
    game = lo.game
    for _ in range(20):
        if 1 in game.to_act(lo.state):
            return
        legal = json.loads(host.table.host.ok("legal", host.gid, "--as", "alice", "--json"))["legal"]
        path = host.table.inbox / "m.json"
        host.table.host.ok("move", host.gid, "--as", "alice", legal[0], "--out", str(path), "--force",
                           "--key", str(host.table.players["alice"].key()))
        host.table.host.ok("inbox", str(host.table.inbox))
        host.svc.repository.forget([host.gid])
        lo = host.loaded()
    raise AssertionError("bob never came to act")


@pytest.fixture
def pc(tmp_path: Path) -> Any:
    t = table_with_deadline(tmp_path)
    host = Host(t)
    bob_to_act(host)
    yield host
    host.close()


def test_due_and_reminders_follow_the_hosts_clock(pc: Host) -> None:
    """[CL-T1] Nothing is due before the deadline; a reminder comes in the window before it."""
    svc, gid = pc.svc, pc.gid
    version = svc.store.version(gid)
    T0 = pc.t0
    assert due(svc, gid, T0 + HOUR - 1) == []
    assert [r.player for r in reminders(svc, gid, T0 + HOUR - 600, 900)] == ["bob"]
    assert reminders(svc, gid, T0, 60) == []
    [d] = due(svc, gid, T0 + HOUR)
    assert (d.player, d.seq, d.since, d.deadline_at, d.policy) == ("bob", version, T0, T0 + HOUR, "bot")
    assert due(svc, gid, T0 + HOUR, answered={"bob"}) == []


def test_an_honest_timeout_is_signed_the_bot_plays_and_every_view_verifies(pc: Host) -> None:
    """[CL-T1, CL-T2] The timeout line names the seat, its position, the claimed times and
    the action; bob's decision is the bot's from bob's view; every party's verify accepts."""
    svc, gid = pc.svc, pc.gid
    version = svc.store.version(gid)
    T0 = pc.t0
    with pytest.raises(ServiceError, match="has not passed"):
        svc.timeout(gid, 1, version, T0, T0 + 10, pc.sign)
    with pytest.raises(ServiceError, match="no decision pending"):
        svc.timeout(gid, 0, version, T0, T0 + HOUR, pc.sign)
    written = apply_due(svc, gid, T0 + HOUR, pc.sign)
    lo = pc.loaded()
    timed = lo.events[version]
    assert type(timed) is TimedOut
    assert (timed.seat, timed.seq, timed.since, timed.at, timed.action) == (1, version, T0, T0 + HOUR, "bot")
    assert timed.head == lo.records[version - 1].hash
    seat, command = lo.game.command_of(lo.events[version + 1])
    before = lo.game.fold(lo.events[:version])
    assert seat == 1 and command == deadlines.bot_command(lo.game, before, 1, lo.record.genesis, deadlines.decision_index(lo.game, lo.events[:version], 1))
    assert written[0].seq == version + 1
    assert "timed out" in pc.table.host.ok("log", gid)
    for who, (code, text) in verdicts(pc.table).items():
        assert code == 0, f"{who}: {text}"


def test_the_bot_decides_from_the_seats_view_not_the_referees_state(pc: Host) -> None:
    """[CL-T2] Same view, same choice: a state differing only in what bob cannot see
    gives the same command (so bob's verify, which has only his view, re-derives it)."""
    lo = pc.loaded()
    game, state, genesis = lo.game, lo.state, lo.record.genesis
    seen = game.view(state, 1)
    assert deadlines.bot_command(game, seen, 1, genesis, 99) == deadlines.bot_command(game, state, 1, genesis, 99)


def _attacked(host: Host, why: str, who: tuple[str, ...] = ("bob", "host")) -> None:
    results = verdicts(host.table)
    for name in who:
        code, text = results[name]
        assert code == 1 and why in text, f"{name}'s verify: {text}"


def test_a_timeout_not_signed_by_the_host_fails_every_verify(pc: Host) -> None:
    """[CL-T1] The attack: a timeout signed with another key (or none)."""
    lo = pc.loaded()
    other = load_key(pc.table.players["alice"].key())
    e = pc.timed_out(1, pc.t0, pc.t0 + HOUR, signer=lambda body: sign(other, "timeout", body))
    command = deadlines.bot_command(lo.game, lo.state, 1, lo.record.genesis, deadlines.decision_index(lo.game, lo.events, 1))
    pc.write(e, *lo.game.decide(lo.state, 1, command))
    _attacked(pc, "not signed by the host's key", ("alice", "bob", "host"))


def test_a_timeout_contrary_to_the_policy_fails_verify(pc: Host) -> None:
    """[CL-T1] A bot-policy game's timeout that says forfeit (the bot then plays bob to the end)."""
    lo = pc.loaded()
    e = pc.timed_out(1, pc.t0, pc.t0 + HOUR, action="forfeit")
    command = deadlines.bot_command(lo.game, lo.state, 1, lo.record.genesis, deadlines.decision_index(lo.game, lo.events, 1))
    pc.write(e, *lo.game.decide(lo.state, 1, command))
    _attacked(pc, "the game's policy is 'bot'", ("alice", "bob", "host"))


def test_a_bot_command_other_than_the_bots_fails_the_seats_verify(pc: Host) -> None:
    """[CL-T2] The host times bob out and plays a move of its choosing for him."""
    lo = pc.loaded()
    game, state = lo.game, lo.state
    bots = deadlines.bot_command(game, state, 1, lo.record.genesis, deadlines.decision_index(lo.game, lo.events, 1))
    other = next(c for c in game.legal(state, 1) if c != bots)
    pc.write(pc.timed_out(1, pc.t0, pc.t0 + HOUR), *game.decide(state, 1, other))
    _attacked(pc, "is not the one the bot makes", ("bob", "host"))


def test_a_timeout_before_the_deadline_by_the_hosts_own_claim_fails_verify(pc: Host) -> None:
    lo = pc.loaded()
    command = deadlines.bot_command(lo.game, lo.state, 1, lo.record.genesis, deadlines.decision_index(lo.game, lo.events, 1))
    pc.write(pc.timed_out(1, pc.t0, pc.t0 + HOUR - 1), *lo.game.decide(lo.state, 1, command))
    _attacked(pc, "has not passed by the claimed clock", ("alice", "bob", "host"))


def test_a_timeout_of_a_seat_that_was_not_pending_fails_verify(pc: Host) -> None:
    """[CL-T1] Alice answered (bob is to act): a timeout of alice is a forgery."""
    lo = pc.loaded()
    assert lo.game.to_act(lo.state) == (1,)
    pc.write(pc.timed_out(0, pc.t0, pc.t0 + HOUR))
    _attacked(pc, "alice has no decision pending", ("alice", "bob", "host"))


def test_a_timeout_not_followed_by_the_bots_decision_fails_verify(pc: Host) -> None:
    pc.write(pc.timed_out(1, pc.t0, pc.t0 + HOUR))
    _attacked(pc, "not followed by the bot's decision", ("alice", "bob", "host"))


def test_a_claimed_clock_that_goes_back_fails_verify(pc: Host) -> None:
    """[CL-T1] The clock is the host's word, but its word must hold together."""
    svc, gid = pc.svc, pc.gid
    T0 = pc.t0
    apply_due(svc, gid, T0 + 5 * HOUR, pc.sign)
    bob_to_act(pc)
    lo = pc.loaded()
    command = deadlines.bot_command(lo.game, lo.state, 1, lo.record.genesis, deadlines.decision_index(lo.game, lo.events, 1))
    pc.write(pc.timed_out(1, T0 + HOUR, T0 + 2 * HOUR), *lo.game.decide(lo.state, 1, command))
    _attacked(pc, "the claimed clock goes back", ("alice", "bob", "host"))


def test_a_decision_of_a_silent_seat_without_a_timeout_still_fails(pc: Host) -> None:
    """[CL-S3] Without a timeout line a bot's move for bob is the host playing his seat."""
    lo = pc.loaded()
    command = deadlines.bot_command(lo.game, lo.state, 1, lo.record.genesis, deadlines.decision_index(lo.game, lo.events, 1))
    pc.write(*lo.game.decide(lo.state, 1, command))
    _attacked(pc, "without bob's signed move file", ("bob", "host"))


def test_the_clock_is_the_hosts_word_a_claimed_late_clock_passes(pc: Host) -> None:
    """Not protected (docs/trust.md): the host may claim any time it likes.  Timing
    bob out the moment he is to act, claiming an hour has passed, verifies — what
    verify holds is only that the claims fit together and the deadline."""
    lo = pc.loaded()
    command = deadlines.bot_command(lo.game, lo.state, 1, lo.record.genesis, deadlines.decision_index(lo.game, lo.events, 1))
    pc.write(pc.timed_out(1, pc.t0, pc.t0 + HOUR), *lo.game.decide(lo.state, 1, command))
    for who, (code, text) in verdicts(pc.table).items():
        assert code == 0 and "1 timeout signed by the host (its clock is its word)" in text, f"{who}: {text}"


def test_a_timeout_line_in_a_game_not_played_by_email_fails_verify(tmp_path: Path) -> None:
    svc = GameService(open_store(str(tmp_path / "n.db")))
    try:
        gid = svc.create("point-city", ["a", "b"], seed="s1")
        lo = svc.load(gid)
        e = TimedOut(1, lo.version, lo.head_hash, 0, HOUR, "bot", "00" * 64)
        svc.store.append(gid, lo.version, [to_item(e)])
    finally:
        svc.store.close()
    from tests.helpers.pbem import Party

    party = Party(tmp_path, "x")
    party.db = tmp_path / "n.db"
    code, out, err = party.run("verify", gid)
    assert code == 1 and "not played by email" in out + err


def test_timeout_cli_applies_what_is_due_and_says_when_nothing_is(pc: Host) -> None:
    host, gid = pc.table.host, pc.gid
    T0 = pc.t0
    pc.svc.store.close()
    assert "no deadline has passed" in host.ok("timeout", gid, "--now", str(T0 + 60))
    out = host.ok("timeout", gid, "--now", str(T0 + HOUR))
    assert "timed out" in out or "seq" in out
    pc.svc = GameService(open_store(str(pc.table.host.db)))
    assert any(type(e) is TimedOut for e in pc.loaded().events)
    code, _, err = host.run("timeout", gid, "--now", "-5")
    assert code == 2


# -- hand-over ---------------------------------------------------------------------


def _handover(t: Table, name: str, to: str, key_of: str | None = None) -> Path:
    path = t.inbox / f"{name}-{to}-{random.random()}.json"
    view = t.root / f"ho-view-{name}.jsonl"
    t.host.ok("export", t.gid, "--as", name, "-o", str(view), "--force")
    party = t.players[key_of or name]
    party.ok("handover", str(view), "--as", name, "--to", to, "-o", str(path), "--key", str(party.key()))
    return path


def test_a_player_hands_her_seat_to_the_bot_and_back_through_the_inbox(pc: Host) -> None:
    """[CL-T5] bob hands his seat over: the bot plays his pending turn at once; he takes it back."""
    t = pc.table
    before = pc.svc.store.version(pc.gid)
    path = _handover(t, "bob", "bot")
    raw = path.read_bytes()
    out = t.host.ok("inbox", str(t.inbox))
    assert "applied" in out
    pc.svc.repository.forget([pc.gid])
    lo = pc.loaded()
    assert type(lo.events[before]) is Handed and lo.events[before].bot
    assert lo.game.command_of(lo.events[before + 1])[0] == 1  # the bot played bob's turn
    assert 1 in deadlines.bot_seats(lo.events)
    for who, (code, text) in verdicts(t).items():
        assert code == 0, f"{who}: {text}"
    # the very file again is a replay, refused
    (t.inbox / "again.json").write_bytes(raw)
    code, out, _ = t.host.run("inbox", str(t.inbox))
    assert "refused" in out or "already recorded" in out
    # bob takes his seat back; a second take-back changes nothing and is refused
    t.host.ok("inbox", str(t.inbox))
    back = _handover(t, "bob", "me")
    t.host.ok("inbox", str(t.inbox))
    assert not back.exists()
    pc.svc.repository.forget([pc.gid])
    assert 1 not in deadlines.bot_seats(pc.loaded().events)
    _handover(t, "bob", "me")
    code, out, _ = t.host.run("inbox", str(t.inbox))
    assert code == 2 and "nothing to take back" in out
    for who, (code, text) in verdicts(t).items():
        assert code == 0, f"{who}: {text}"


def test_a_hand_over_signed_with_another_key_is_refused(pc: Host) -> None:
    t = pc.table
    snapshot = pc.svc.store.version(pc.gid)
    _handover(t, "bob", "bot", key_of="alice")
    code, out, _ = t.host.run("inbox", str(t.inbox))
    assert code == 2 and "does not verify against bob's key" in out
    assert pc.svc.store.version(pc.gid) == snapshot


def test_a_hand_over_the_host_writes_without_the_players_file_fails_verify(pc: Host) -> None:
    """[CL-T5] A host handing bob's seat to the bot on its own."""
    lo = pc.loaded()
    command = deadlines.bot_command(lo.game, lo.state, 1, lo.record.genesis, deadlines.decision_index(lo.game, lo.events, 1))
    pc.write(Handed(1, True), *lo.game.decide(lo.state, 1, command))
    _attacked(pc, "without bob's signed hand-over file", ("alice", "bob", "host"))


def test_a_forfeited_seat_is_the_bots_to_the_end(tmp_path: Path) -> None:
    """[CL-T4] forfeit: one timeout, then the bot plays bob's every decision; he cannot take it back."""
    t = table_with_deadline(tmp_path, "point-city", "forfeit")
    host = Host(t)
    try:
        bob_to_act(host)
        T0 = host.t0
        apply_due(host.svc, host.gid, T0 + HOUR, host.sign)
        lo = host.loaded()
        assert 1 in deadlines.forfeited(lo.events)
        assert 1 not in lo.game.to_act(lo.state)  # bob never waits again
        assert "forfeits" in t.host.ok("log", host.gid)
        _handover(t, "bob", "me")
        code, out, _ = t.host.run("inbox", str(t.inbox))
        assert code == 2 and "[CL-T4]" in out
        for who, (code, text) in verdicts(t).items():
            assert code == 0, f"{who}: {text}"
    finally:
        host.close()


# -- whole games -------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("game", ["point-city", "card-city", "5x5-city"])
def test_a_silent_seat_times_out_and_the_bot_finishes_the_game(tmp_path: Path, game: str) -> None:
    """The issue's 'done when': bob never answers; each of his decisions times out after
    its deadline (a reminder first); the bot plays it; the game ends; every final view
    verifies and proves the deal."""
    t = table_with_deadline(tmp_path, game, "bot")
    rng = random.Random(24)
    now = T0
    timeouts = reminded = 0
    svc = GameService(open_store(str(t.host.db)))
    try:
        for _ in range(3000):
            t.host.ok("outbox", t.gid, str(t.outbox))
            if t.finals_written():
                break
            fresh = [v for v in t.fresh_views() if v.stem.endswith("-alice")]
            if fresh:
                view = fresh[-1]
                legal = json.loads(t.players["alice"].ok("legal", str(view), "--as", "alice", "--json"))["legal"]
                t.players["alice"].ok("move", str(view), "--as", "alice", rng.choice(legal), "--out", str(t.inbox))
                t.host.ok("inbox", str(t.inbox))
                now += 60
                svc.repository.forget([t.gid])
                mark(svc, t.gid, now)
                continue
            svc.repository.forget([t.gid])
            reminded += bool(reminders(svc, t.gid, now, HOUR))
            now += HOUR
            t.host.ok("timeout", t.gid, "--now", str(now), "--inbox", str(t.inbox))
            timeouts += 1
        else:
            raise AssertionError("the game did not end")
    finally:
        svc.store.close()
    assert timeouts > 0 and reminded > 0
    for name, party in t.players.items():
        [final] = t.outbox.glob(f"{t.gid}-final-{name}.jsonl")
        text = party.ok("verify", str(final))
        assert "deal proven" in text, text
    assert "deal proven" in t.host.ok("verify", t.gid)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["card-city", "5x5-city"])
def test_a_seat_handed_to_the_bot_is_played_to_the_end_in_a_three_seat_game(tmp_path: Path, game: str) -> None:
    """[CL-T5] bob hands his seat to the bot before the first move; he is never sent a
    view to answer; alice and carol play; every final view verifies and proves the deal."""
    t = Table(tmp_path, game, ["alice", "bob", "carol"], "--deadline", "1h", "--on-timeout", "bot")
    t.join_all()
    rng = random.Random(5)
    t.host.ok("export", t.gid, "--as", "bob", "-o", str(tmp_path / "bob.jsonl"))
    t.players["bob"].ok("handover", str(tmp_path / "bob.jsonl"), "--as", "bob", "--to", "bot", "-o", str(t.inbox))
    assert "applied" in t.host.ok("inbox", str(t.inbox))
    for _ in range(3000):
        t.host.ok("outbox", t.gid, str(t.outbox))
        if t.finals_written():
            break
        fresh = t.fresh_views()
        assert fresh, "the game stalled"
        for view in fresh:
            name = view.stem.split("-")[-1]
            assert name != "bob", "the bot's seat was sent a view to answer"
            legal = json.loads(t.players[name].ok("legal", str(view), "--as", name, "--json"))["legal"]
            t.players[name].ok("move", str(view), "--as", name, rng.choice(legal), "--out", str(t.inbox))
        t.host.ok("inbox", str(t.inbox))
    else:
        raise AssertionError("the game did not end")
    for name, party in t.players.items():
        [final] = t.outbox.glob(f"{t.gid}-final-{name}.jsonl")
        assert "deal proven" in party.ok("verify", str(final))


HOSTILE = [
    {"seat": -1}, {"seat": 7}, {"seat": -2**40}, {"seq": 0}, {"seq": 10**6}, {"head": "zz"}, {"head": "AB" * 32},
    {"since": 2**53 + 5}, {"at": -1}, {"since": 10, "at": 5}, {"action": ""}, {"action": "skip"},
    {"action": "bot\n"}, {"signature": ""}, {"signature": "00" * 64}, {"signature": "x" * 5000},
]


def test_a_hostile_timeout_line_fails_verify_in_one_line_never_a_crash(pc: Host) -> None:
    """Whatever a timeout line holds, ``verify GAME`` answers exit 1 with one line (never
    exit 3): each hostile line is written into a fork of the game, after its real head."""
    lo = pc.loaded()
    honest = pc.timed_out(1, pc.t0, pc.t0 + HOUR)
    command = deadlines.bot_command(lo.game, lo.state, 1, lo.record.genesis, deadlines.decision_index(lo.game, lo.events, 1))
    bots_move = lo.game.decide(lo.state, 1, command)
    for change in HOSTILE:
        fork = pc.svc.fork(pc.gid, lo.version)
        e = msgspec.structs.replace(honest, **change)
        pc.svc.store.append(fork, lo.version, [to_item(x) for x in (e, *bots_move)])
        code, out, err = pc.table.host.run("verify", fork)
        assert code == 1 and len((out + err).strip().splitlines()) == 1, (change, out + err)
