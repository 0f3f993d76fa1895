"""Red team round 7, on 37d7e34 (a refusal from the host's address re-opened a turn) and
f4706bb (--watch retries a pass the machine failed).  Each test states an attack and
fails if it works.  The law [CL-S17]: an unsigned refusal never gives a turn back (a
second signed move at one position would let a cheating host apply either); every
move file she sent is kept; a ledger that cannot record a send sends nothing."""

from __future__ import annotations

import email
import email.policy
import hashlib
import json
import random
from email.message import EmailMessage
from typing import Any

import pytest

from cli.post import letters
from tests.post import test_agent_local as agent_tests
from tests.post.test_agent_local import Copy, _move_mail, _to_act

started = agent_tests.started  # the fixtures of a game by mail, shared with test_agent_local
table = agent_tests.table



def _refusal(t: Copy, name: str, move_mid: str, sender: str = "host@example.test", n: int = 0) -> bytes:
    """An unsigned refusal, as anyone can write it (From is not authenticated)."""
    m = EmailMessage()
    m["From"] = sender
    m["To"] = t.players[name].address
    m["Message-ID"] = f"<fake-refusal-{n}@example.test>"
    m["In-Reply-To"] = move_mid
    m["Subject"] = f"[citylog {t.gid}] refused: your move was lost in transit, please move again"
    m["X-Citylog-Game"] = t.gid
    m["X-Citylog-Kind"] = "refusal"
    m.set_content("lost")
    return m.as_bytes()


def _mid(raw: bytes) -> str:
    return email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"]


def _commands_of(t: Copy, name: str) -> list[tuple[int, list[str]]]:
    """(seq, commands) of each move file of ``name`` the host applied (from its own export)."""
    out = t.host.ok("export", t.gid, "--out", str(t.root / "host-export.jsonl"), "--force")
    del out
    found = []
    for line in (t.root / "host-export.jsonl").read_text().splitlines()[1:]:
        d = json.loads(line)
        s = d.get("signed") or {}
        if s.get("player") == name and str(s.get("format", "")).startswith("citylog-move"):
            found.append((s["seq"], s["commands"]))
    return found


def test_a_host_refusal_never_gives_the_turn_back_and_both_moves_are_kept(table: Copy) -> None:
    """ATTACK 1 (cheating host, or anyone who can spoof the host's From and knows the
    move's Message-ID): an unsigned refusal of her move m1, so that she signs m2 at the
    same position and the host applies whichever it likes.  [CL-S17] Her agent says
    the host claims a refusal and warns, but never lists the turn as hers again; a
    second move at the position is refused (exit 2, nothing written); if she makes it
    anyway (--replace-answered), the files of both stay in sent/ (her evidence)."""
    t = table
    name = _to_act(t)[0]
    party = t.players[name]
    view = t.view_of(name)
    seq = view["seq"]
    legal = json.loads(party.ok("legal", view["file"], "--as", name, "--json"))["legal"]
    m1 = _move_mail(t, name, legal[0])  # intercepted by the host, not applied yet
    party.deliver(_refusal(t, name, _mid(m1)), "fake-refusal")
    s = party.sync()
    assert s["turns"] == [], s
    said = "\n".join(s["lines"])
    assert f"{name}: the host says it refused your move at seq {seq}" in said and "[CL-S17]" in said, said
    assert "lets a dishonest host apply either" in said and "your turn" not in said, said
    code, _, err = party.run("move", t.gid, "--as", name, legal[1])  # she tries a second move
    assert code == 2 and "[CL-S17]" in err and "--replace-answered" in err, err
    party.ok("move", t.gid, "--as", name, legal[1], "--replace-answered")  # and makes it all the same
    party.sync()
    sent = sorted((party.home / "mail" / "outgoing" / "sent").glob("*.json"))
    kept = sorted(json.loads(p.read_bytes())["commands"] for p in sent)
    assert kept == sorted([[legal[0]], [legal[1]]]), kept


def _moved(t: Copy, name: str) -> set[tuple[str, str, int]]:
    from cli.post.ledger import Ledger

    led = Ledger(t.players[name].home)
    try:
        return led.answered_moves()
    finally:
        led.close()


def _queued_unsent(t: Copy, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The party to act, her move queued by one pass whose send was left out: unsent."""
    import cli.post.agent as agent_module

    name = _to_act(t)[0]
    party = t.players[name]
    legal = json.loads(party.ok("legal", t.view_of(name)["file"], "--as", name, "--json"))["legal"]
    party.ok("move", t.gid, "--as", name, legal[0])
    real_flush = agent_module.Agent.flush
    monkeypatch.setattr(agent_module.Agent, "flush", lambda self: None)
    party.sync()
    monkeypatch.setattr(agent_module.Agent, "flush", real_flush)
    return party


def _watch_five_passes(party: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[list[bytes], list[float]]:
    """``mail sync --watch --interval 60`` for five passes: (the mails sent, the waits)."""
    import click.testing

    import cli.mailcmd
    import cli.post.local as local
    from tests.helpers.pbem import cli_command

    class Enough(BaseException):
        pass

    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 5:
            raise Enough()

    sends: list[bytes] = []
    real_send = local.EmlFolderOutbound.send

    def counting(self, raw, to, sender):  # type: ignore[no-untyped-def]
        sends.append(raw)
        return real_send(self, raw, to, sender)

    monkeypatch.setattr(cli.mailcmd.time, "sleep", sleep)
    monkeypatch.setattr(local.EmlFolderOutbound, "send", counting)
    with pytest.raises(Enough):
        click.testing.CliRunner().invoke(cli_command(), ["--db", str(party.db), "mail", "sync", "--watch",
                                                         "--interval", "60"], catch_exceptions=False)
    return sends, slept


def test_watch_never_sends_a_mail_its_ledger_cannot_record(table: Copy, monkeypatch) -> None:
    """ATTACK 3 (f4706bb): a mail is sent, then its 'sent' mark cannot be committed (a
    lock held past BUSY_TIMEOUT, a full disk, a read-only ledger): --watch retried for
    ever, and every pass sent the same mail again.  Now the send happens inside the
    transaction that records it: a ledger that cannot record it sends nothing."""
    import sqlite3

    import cli.post.ledger as ledger_module

    party = _queued_unsent(table, monkeypatch)
    monkeypatch.setattr(ledger_module, "BUSY_TIMEOUT", 0.05)
    other = sqlite3.connect(party.home / ledger_module.LEDGER_NAME, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # a permanent lock (a stuck process, a backup tool)
    try:
        sends, slept = _watch_five_passes(party, monkeypatch)
    finally:
        other.execute("ROLLBACK")
        other.close()
    mids = [_mid(raw) for raw in sends]
    assert len(mids) <= 1, f"MAIL BOMB: {len(mids)} sends of {set(mids)} in {len(slept)} passes"


@pytest.mark.parametrize("game", ["5x5-city"])  # its moves are public: a co-player holds her move file
def test_a_co_player_cannot_reopen_an_applied_turn(tmp_path, game) -> None:  # type: ignore[no-untyped-def]
    """ATTACK 2 (moves public, as in 5x5 City): bob reads alice's applied move file in his own
    view, derives its Message-ID, spoofs the host's From: alice's agent says it is her
    turn again at a position she has already played."""
    from tests.helpers.mail_parties import MailTable
    from events import statements

    t = MailTable(tmp_path, game=game)
    for _ in range(4):
        t.carry()
        for p in t.players.values():
            p.sync()
        t.carry()
        t.host.sync()
    rng = random.Random(7)
    found = None
    for _ in range(40):
        t.carry()
        for p in t.players.values():
            p.sync()
        for victim in t.players:
            v = t.view_of(victim)
            if v is None or v["kind"] == "final":
                continue
            for other in t.players:
                ov = t.view_of(other)
                if other == victim or ov is None:
                    continue
                for line in open(ov["file"]).read().splitlines()[1:]:
                    s = json.loads(line).get("signed") or {}
                    if s.get("player") == victim and s.get("seq") == v["seq"] and "commands" in s:
                        found = (victim, v["seq"], s)
        if found:
            break
        t.players_turn(rng)
        t.carry()
        t.host.sync()
    assert found, "no position where her applied move shows in another's view while she waits"
    victim, seq, signed = found
    party = t.players[victim]
    assert party.sync()["turns"] == []  # she waits: 'your move ... is sent; waiting for the host'
    data = statements.encode(statements.decode(json.dumps(signed, separators=(",", ":"), sort_keys=True).encode(), "x"))
    mid = letters.message_id(t.gid, seq, victim, "move", hashlib.sha256(data).hexdigest()[:10])
    party.deliver(_refusal(t, victim, mid, n=3), "spoofed")
    s = party.sync()
    said = [x for x in s['lines'] if 'turn' in x or 'refused' in x]
    if s["turns"]:
        # the consequence with an honest host: she signs a second move at seq; the host
        # refuses it (stale), its genuine refusal 'refuses' that one too: still her turn
        legal = json.loads(party.ok("legal", t.view_of(victim)["file"], "--as", victim, "--json"))["legal"]
        other_cmd = next(c for c in legal if c not in signed["commands"])
        party.ok("move", t.gid, "--as", victim, other_cmd)
        party.sync()
        t.carry()
        h = t.host.sync()
        t.carry()
        again = party.sync()
        said += [f"host: refused={h['refused']} applied={h['applied']} {h['lines']}", f"{victim} signed {other_cmd}"] + \
            [x for x in again["lines"] if "turn" in x or "refused" in x] + [f"turns after: {again['turns']}"]
        # play on: does the honest host apply her second (stale-view) move later?
        rng2 = random.Random(1)
        for _ in range(3):
            t.carry()
            for n, pp in t.players.items():
                if n != victim:
                    for _turn in pp.sync()["turns"]:
                        lg = json.loads(pp.ok("legal", t.view_of(n)["file"], "--as", n, "--json"))["legal"]
                        pp.ok("move", t.gid, "--as", n, rng2.choice(lg))
                    pp.sync()
            t.carry()
            h = t.host.sync()
            said.append(f"host later: {h['applied']} applied {[x for x in h['lines'] if victim in x or 'held' in x]}")
        applied_at = [c for c in _commands_of(t, victim) if c[0] == seq]
        said.append(f"host log: {victim}'s move files made at seq {seq}: {applied_at}")
    assert s["turns"] == [], (f"REOPENED by a co-player: {victim}'s applied move at seq {seq} {signed['commands']} "
                              f"is now 'refused'; her agent says: {said}")


def test_an_honest_partial_refusal_of_an_applied_move_does_not_reopen_the_turn(table: Copy) -> None:
    """ATTACK 4 (no cheater at all, or anyone on the mail path): her move mail arrives with
    one more part the host does not read (a relay's disclaimer or scan report as a named
    attachment).  The host APPLIES the move and replies with a refusal naming the ignored
    part, In-Reply-To her move mail: her agent takes it for a refusal of the move."""
    t = table
    name = _to_act(t)[0]
    party = t.players[name]
    view = t.view_of(name)
    raw = _move_mail(t, name)
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    msg.add_attachment(b"scanned: clean", maintype="text", subtype="plain", filename="scan-report.txt")
    t.host.deliver(msg.as_bytes(), "with-footer")
    h = t.host.sync()
    assert h["applied"] == 1 and h["refused"] == 1, h
    t.carry()
    s = party.sync()
    reopened = [x for x in s["lines"] if "again" in x or "your turn" in x]
    assert s["turns"] == [] and not reopened, (f"her APPLIED move at seq {view['seq']} is shown refused and her "
                                               f"turn re-opened: {reopened} (turns {s['turns']})")


def test_a_full_ledger_never_sends_one_mail_pass_after_pass(table: Copy, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Red team round 8 [CL-S17]: a full disk fails the COMMIT that records a send *after*
    the mail left (simulated: SQLITE_FULL at that COMMIT).  The pass then fails, and each
    failed pass in a row waits twice as long: the mail goes out at most once a pass,
    ever more rarely, never every interval."""
    import sqlite3

    import cli.post.ledger as ledger_module

    party = _queued_unsent(table, monkeypatch)

    class FullConn:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self._c, self._dirty = conn, False

        def execute(self, sql: str, *a: Any) -> Any:
            if sql.startswith("UPDATE outbox SET sent"):
                self._dirty = True
            if sql == "COMMIT" and self._dirty:
                self._dirty = False
                raise sqlite3.OperationalError("database or disk is full")
            if sql == "ROLLBACK":
                self._dirty = False
            return self._c.execute(sql, *a)

        def __getattr__(self, k: str) -> Any:
            return getattr(self._c, k)

    real_init = ledger_module.Ledger.__init__

    def init(self: Any, home: Any) -> None:
        real_init(self, home)
        self.conn = FullConn(self.conn)

    monkeypatch.setattr(ledger_module.Ledger, "__init__", init)
    sends, slept = _watch_five_passes(party, monkeypatch)
    assert len(sends) <= len(slept), (sends, slept)
    assert slept == [60.0, 120.0, 240.0, 480.0, 600.0], f"{len(sends)} sends in {len(slept)} passes, waits {slept}"


def test_mail_status_never_says_your_turn_at_an_answered_position(table: Copy) -> None:
    """Red team round 8 [CL-S17]: every 'your turn' uses the check `mail sync` uses."""
    t = table
    name = _to_act(t)[0]
    party = t.players[name]
    legal = json.loads(party.ok("legal", t.view_of(name)["file"], "--as", name, "--json"))["legal"]
    out = party.ok("mail", "status")
    assert "your turn" in out, out  # (the check can fail: before her move it is her turn)
    party.ok("move", t.gid, "--as", name, legal[0])
    assert party.sync()["turns"] == []
    out = party.ok("mail", "status")
    assert "your turn" not in out and "your move is sent" in out, out
    views = json.loads(party.ok("mail", "status", "--json"))["views"]
    assert [v["answered"] for v in views if v["player"] == name] == [True], views


def test_watch_interval_is_a_finite_number_of_seconds(table: Copy) -> None:
    """`--interval nan` passed the '> 0' check and crashed the loop in time.sleep."""
    party = table.players[_to_act(table)[0]]
    for bad in ("nan", "inf", "0", "-1", "86401"):
        code, out, err = party.run("mail", "sync", "--watch", "--interval", bad)
        assert code == 2 and "--interval must be" in err + out and "Traceback" not in err, (bad, code, out, err)


def test_watch_backs_off_when_its_lock_file_cannot_be_opened(table: Copy, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Red team round 9: the pass lock (`<datadir>/.citylog-mail.lock`) cannot be opened (a
    directory in its place here; no permission, a read-only disk alike).  That was a
    ServiceError, which ended `--watch` for good at its first pass; it is the machine, not
    the input: the agent backs off as for any environment failure (exit 4 without --watch)."""
    import cli.post.agent as agent_module

    party = table.players[_to_act(table)[0]]
    (party.home / agent_module.SYNC_LOCK).unlink(missing_ok=True)
    (party.home / agent_module.SYNC_LOCK).mkdir()
    sends, slept = _watch_five_passes(party, monkeypatch)
    assert slept == [60.0, 120.0, 240.0, 480.0, 600.0] and sends == [], (sends, slept)
    code, out, err = party.run("mail", "sync")
    assert code == 4 and "cannot open the lock" in err, (code, out, err)
