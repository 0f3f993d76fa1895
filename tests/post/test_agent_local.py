"""The mail agent (issue 24) over Maildirs and .eml folders, no server: hostile
mail, crash safety, and whole games where every party runs only ``mail sync``
and ``move``/``play`` on a game id."""

from __future__ import annotations

import email
import email.policy
import json
import random
import shutil
from email.message import EmailMessage
from pathlib import Path

import click.testing
import pytest

from tests.helpers.mail_parties import MailParty, MailTable
from tests.helpers.pbem import cli_command, dump, with_a_choice

import cli.post.agent as agent_module
import cli.post.agent_base as agent_base


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-seat Card City game by mail: joined, and the seat to act holds her first view."""

    def build(n: int) -> MailTable:
        table = MailTable(tmp_path_factory.mktemp(f"mailgame{n}"))
        (table.root / "gid").write_text(table.gid)
        for _ in range(4):  # invitations out, joins back, the first view out
            table.carry()
            for p in table.players.values():
                p.sync()
            table.carry()
            table.host.sync()
        table.carry()
        for p in table.players.values():
            p.sync()
        assert _to_act(table) and all(table.view_of(n) for n in _to_act(table))
        return table

    return with_a_choice(build, _first_moves).root


def _first_moves(t: MailTable) -> list[str]:
    """The legal commands of the first seat to act, from her view (tests answer it twice)."""
    name = _to_act(t)[0]
    view = t.view_of(name)
    assert view is not None
    return json.loads(t.players[name].ok("legal", view["file"], "--as", name, "--json"))["legal"]


class Copy(MailTable):
    """The started game, copied (every data directory is relative to its own folder)."""

    def __init__(self, src: Path, dst: Path) -> None:  # noqa: D107 - no new game: a copy
        shutil.copytree(src, dst, dirs_exist_ok=True)
        self.root = dst
        self.host = _party(dst, "host")
        self.players = {n: _party(dst, n) for n in ("alice", "bob")}
        self.gid = (dst / "gid").read_text()


def _party(root: Path, name: str) -> MailParty:
    p = MailParty.__new__(MailParty)
    p.name, p.home, p.db = name, root / name, root / name / "citylog.db"
    p.address, p.maildir, p.outmail = f"{name}@example.test", root / name / "Maildir", root / name / "outmail"
    return p


@pytest.fixture
def table(started: Path, tmp_path: Path) -> Copy:
    return Copy(started, tmp_path / "t")


def _to_act(t: MailTable) -> list[str]:
    return json.loads(t.host.ok("show", t.gid, "--json"))["to_act"]


def _move_mail(t: MailTable, name: str, command: str | None = None) -> bytes:
    """``name``'s next move as the mail her agent sends (taken out of her outbound folder)."""
    party = t.players[name]
    view = t.view_of(name)
    assert view is not None
    legal = json.loads(party.ok("legal", view["file"], "--as", name, "--json"))["legal"]
    party.ok("move", t.gid, "--as", name, command or legal[0])
    party.sync()
    [eml] = sorted(party.outmail.glob("*.eml"))
    raw = eml.read_bytes()
    eml.unlink()
    return raw


def _replies(t: MailTable, to: str) -> list[EmailMessage]:
    out = []
    for path in sorted(t.host.outmail.glob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if msg["X-Citylog-Kind"] == "refusal" and to in str(msg["To"]):
            out.append(msg)
    return out


def _hostile(sender: str, parts: list[tuple[str, bytes, str]] = (), mid: str = "<evil@example.test>",
             html: str | None = None, plain: str | None = "here is my move") -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "host@example.test"
    msg["Message-ID"] = mid
    msg["X-Citylog-Game"] = "whatever"
    msg["Subject"] = "[citylog] my move"
    if plain is not None:
        msg.set_content(plain)
    if html is not None:
        msg.add_alternative(html, subtype="html") if plain is not None else msg.set_content(html, subtype="html")
    for name, data, mime in parts:
        main, _, sub = mime.partition("/")
        msg.add_attachment(data, maintype=main, subtype=sub, filename=name)
    return msg.as_bytes()


def _attachment(raw: bytes) -> tuple[str, bytes]:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    [part] = list(msg.iter_attachments())
    return part.get_filename(), part.get_payload(decode=True)


# ------------------------------------------------------------------- the body

def test_a_view_mail_carries_the_position_what_happened_and_the_legal_commands(started: Path) -> None:
    t = Copy(started, started.parent / "body")
    name = _to_act(t)[0]
    mails = sorted((t.host.outmail / "delivered").glob("*.eml"))
    views = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default) for p in mails]
    mine = [m for m in views if m["X-Citylog-Kind"] == "view" and m["X-Citylog-Seat"] == name]
    assert mine, "the host sent the seat to act its view"
    msg = max(mine, key=lambda m: int(m["X-Citylog-Seq"]))  # the newest (before it: the view asking for her reveal)
    assert msg["Subject"].startswith(f"[citylog {t.gid}] seq ") and f"{name}" in msg["Subject"] and "to move" in msg["Subject"]
    body = msg.get_body(("plain",)).get_content()
    legal = json.loads(t.host.ok("legal", t.gid, "--as", name, "--json"))["legal"]
    assert "Card City" in body and "coins" in body  # the table as text
    assert "What happened" in body and "joins" in body
    assert f"Your legal commands ({len(legal)}):" in body and all(f"  {c}" in body for c in legal[:5])
    assert f"citylog play {t.gid} --as {name}" in body
    [(fname, data)] = [(p.get_filename(), p.get_payload(decode=True)) for p in msg.iter_attachments()]
    assert fname.endswith(f"-{name}.jsonl") and b'"seal"' in data


def test_each_players_agent_sends_her_reveal_when_the_view_asks_for_it(started: Path) -> None:
    """[CL-S7] The host's agent sends every seat the view after the last join; each
    player's agent answers it with her signed reveal, which the host applied."""
    t = Copy(started, started.parent / "reveals")
    for name, party in t.players.items():
        sent = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
                for p in sorted((party.outmail / "delivered").glob("*.eml"))]
        reveals = [m for m in sent if m["X-Citylog-Kind"] == "reveal"]
        assert len(reveals) == 1 and reveals[0]["X-Citylog-Seq"] == "3", name
        [(fname, data)] = [(p.get_filename(), p.get_payload(decode=True)) for p in reveals[0].iter_attachments()]
        assert fname.endswith(f"-{name}-reveal.json") and b'"format":"citylog-reveal/1"' in data
    events = [json.loads(x) for x in t.host.ok("log", t.gid, "--json").splitlines()]
    assert [e["type"] for e in events[3:5]] == ["seat.revealed", "seat.revealed"]


# -------------------------------------------------------------- hostile mail

def test_a_spoofed_from_is_harmless_only_the_signature_counts(table: Copy, tmp_path: Path) -> None:
    t = table
    name = _to_act(t)[0]
    genuine = _move_mail(t, name)
    fname, data = _attachment(genuine)
    # a forgery: the move file re-signed with another player's key, sent From the right address
    forged = json.loads(data)
    forged["signature"] = "0" * len(forged["signature"])
    before = dump(t.host.db)
    t.host.deliver(_hostile(t.players[name].address, [(fname, json.dumps(forged).encode(), "application/json")],
                            mid="<forged@example.test>"), "forged")
    s = t.host.sync()
    assert s["refused"] == 1 and s["applied"] == 0
    assert dump(t.host.db) == before, "a forged move changed the host's database"
    [reply] = _replies(t, t.players[name].address)
    assert reply["In-Reply-To"] == "<forged@example.test>"
    assert "signature" in reply.get_body(("plain",)).get_content() or "sign" in reply["Subject"]
    # and the genuine move from a stranger's address is applied: the From is routing only
    fake = _hostile("mallory@elsewhere.test", [(fname, data, "application/json")], mid="<relay@example.test>")
    t.host.deliver(fake, "relayed")
    s = t.host.sync()
    assert s["applied"] == 1, s
    assert dump(t.host.db) != before


def test_a_replayed_message_is_never_applied_twice(table: Copy) -> None:
    t = table
    name = _to_act(t)[0]
    raw = _move_mail(t, name)
    t.host.deliver(raw, "first")
    assert t.host.sync()["applied"] == 1
    after = dump(t.host.db)
    t.host.deliver(raw, "again")
    s = t.host.sync()
    assert s["ignored"] == 1 and s["applied"] == 0 and s["refused"] == 0
    assert dump(t.host.db) == after
    # the same Message-ID and move file, other bytes (a header changed): read, but its
    # move is recorded already and is not applied again
    mid = email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"]
    fname, data = _attachment(raw)
    t.host.deliver(_hostile("eve@example.test", [(fname, data, "application/json")], mid=mid), "samemid")
    t.host.sync()
    assert dump(t.host.db) == after
    assert not list((t.host.maildir / "new").iterdir())


def test_a_guessed_message_id_cannot_make_the_genuine_mail_ignored(table: Copy) -> None:
    """citylog's Message-IDs are deterministic, so anyone can guess the next one:
    a forged mail sent first under it must not make the genuine one ignored."""
    t = table
    name = _to_act(t)[0]
    genuine = _move_mail(t, name)
    mid = email.message_from_bytes(genuine, policy=email.policy.default)["Message-ID"]
    t.host.deliver(_hostile("eve@example.test", [("m.zip", b"PK", "application/zip")], mid=mid), "first")
    assert t.host.sync()["refused"] == 1
    t.host.deliver(genuine, "genuine")
    assert t.host.sync()["applied"] == 1


@pytest.mark.parametrize(("shape", "why"), [
    ("huge", "larger than 8 MiB"),
    ("parts", "more than 32 parts"),
    ("html", "HTML-only"),
    ("zip", "archives are never opened"),
    ("garbage", "not a citylog"),
])
def test_hostile_mail_is_refused_with_a_reply_naming_the_reason(table: Copy, shape: str, why: str) -> None:
    t = table
    sender = "eve@example.test"
    raw = {
        "huge": lambda: _hostile(sender, [("m.json", b"{" + b" " * (9 << 20) + b"}", "application/json")]),
        "parts": lambda: _hostile(sender, [(f"m{i}.json", b"{}", "application/json") for i in range(3000)]),
        "html": lambda: _hostile(sender, html="<p>build R F5</p><script>alert(1)</script>", plain=None),
        "zip": lambda: _hostile(sender, [("move.zip", b"PK\x03\x04" + b"\0" * 4096, "application/zip")]),
        "garbage": lambda: _hostile(sender, [("move.json", b'{"format": "nonsense"}', "application/json")]),
    }[shape]()
    before = dump(t.host.db)
    t.host.deliver(raw, shape)
    s = t.host.sync()
    assert s["refused"] == 1 and s["applied"] == 0
    assert dump(t.host.db) == before
    [reply] = _replies(t, sender)
    text = reply.get_body(("plain",)).get_content()
    assert why in text or why in str(reply["Subject"]), text
    assert reply["In-Reply-To"] == "<evil@example.test>"
    # handled once: the same mail again gets no second reply
    t.host.deliver(raw, shape + "2")
    assert t.host.sync()["ignored"] == 1 and len(_replies(t, sender)) == 1


def test_plain_spam_gets_no_reply(table: Copy) -> None:
    t = table
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Message-ID"], msg["Subject"] = "spam@x.test", "host@example.test", "<s@x>", "win"
    msg.set_content("buy now")
    before = dump(t.host.db)
    t.host.deliver(msg.as_bytes(), "spam")
    assert t.host.sync()["refused"] == 1
    assert dump(t.host.db) == before and _replies(t, "spam@x.test") == []


def test_a_stale_move_is_refused_with_a_reply_and_the_player_is_told(table: Copy) -> None:
    t = table
    name = _to_act(t)[0]
    party = t.players[name]
    view = t.view_of(name)
    legal = json.loads(party.ok("legal", view["file"], "--as", name, "--json"))["legal"]
    assert len(legal) > 1
    party.ok("move", t.gid, "--as", name, legal[0])
    party.sync()
    t.carry()
    assert t.host.sync()["applied"] == 1
    # a second answer to the same (now old) view, made on purpose [CL-S17]: stale, refused, answered
    party.ok("move", t.gid, "--as", name, legal[1], "--replace-answered")
    party.sync()
    t.carry()
    before = dump(t.host.db)
    s = t.host.sync()
    assert s["refused"] == 1 and s["applied"] == 0, s
    assert dump(t.host.db) == before
    [reply] = _replies(t, party.address)
    assert "stale" in reply.get_body(("plain",)).get_content()
    # refused by the inbox (not from the mail's headers): the reply still names the game and the seq
    assert reply["X-Citylog-Game"] == t.gid and reply["X-Citylog-Seq"] == str(view["seq"]), reply["Subject"]
    assert reply["Subject"].startswith(f"[citylog {t.gid}] seq {view['seq']}: refused: stale: "), reply["Subject"]
    t.carry()
    assert "the host refused a mail" in party.ok("mail", "sync")


def _tampered(raw: bytes) -> bytes:
    """A move mail whose attachment's signature was changed on the way (same headers)."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    [part] = list(msg.iter_attachments())
    data = json.loads(part.get_payload(decode=True))
    data["signature"] = ("0" if data["signature"][0] != "0" else "1") + data["signature"][1:]
    part.set_content(json.dumps(data).encode(), maintype="application", subtype="json",
                     filename=part.get_filename())
    return msg.as_bytes()


def test_a_refused_move_is_said_but_never_gives_the_turn_back(table: Copy) -> None:
    """The host refuses a move and sends no new view (the one she holds is still current):
    her agent says so beside 'sent; waiting for the host', but never lists the turn as
    hers again — a refusal is not signed, and a second move at one position would let
    a cheating host apply either [CL-S17].  The refusal names the game and the seq of
    the move it refuses; the same move sent again is applied."""
    t = table
    name = _to_act(t)[0]
    party = t.players[name]
    view = t.view_of(name)
    assert view is not None
    legal = json.loads(party.ok("legal", view["file"], "--as", name, "--json"))["legal"]
    assert len(legal) > 1
    good = _move_mail(t, name, legal[0])
    t.host.deliver(_tampered(good), "tampered")
    s = t.host.sync()
    assert s["refused"] == 1 and s["applied"] == 0, s
    [reply] = _replies(t, party.address)
    assert reply["X-Citylog-Game"] == t.gid and reply["X-Citylog-Seq"] == str(view["seq"]), reply["Subject"]
    t.carry()
    s = party.sync()
    assert s["turns"] == [], s
    said = "\n".join(s["lines"])
    assert f"{name}: the host says it refused your move at seq {view['seq']} of game {t.gid}" in said, said
    assert f"{name}: your move at seq {view['seq']} of game {t.gid} is sent; the host says it refused it (" in said
    assert "[CL-S17]" in said and "your turn" not in said, said
    t.host.deliver(good, "again")  # the same signed move, not tampered with this time
    assert t.host.sync()["applied"] == 1


def test_a_refusal_from_another_address_does_not_give_the_turn_back(table: Copy) -> None:
    """Only a refusal from the game's host address counts (headers are hints: anyone can
    send one naming her move's Message-ID)."""
    t = table
    name = _to_act(t)[0]
    party = t.players[name]
    raw = _move_mail(t, name)
    mid = email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"]
    forged = EmailMessage()
    forged["From"] = "mallory@example.test"
    forged["To"] = party.address
    forged["Message-ID"] = "<forged-refusal@example.test>"
    forged["In-Reply-To"] = mid
    forged["Subject"] = f"[citylog {t.gid}] refused: no"
    forged["X-Citylog-Game"] = t.gid
    forged["X-Citylog-Kind"] = "refusal"
    forged.set_content("refused")
    party.deliver(forged.as_bytes(), "forged")
    s = party.sync()
    assert s["turns"] == [] and not any("refused your move" in line for line in s["lines"]), s


# -------------------------------------------------------------- crash safety

class Killed(BaseException):
    """The agent killed at a step (not an Exception: nothing catches it)."""


HOST_STEPS = ["attachment-written", "handled-recorded", "before-done", "inbox-applied", "mail-sent"]
PLAYER_STEPS = ["handled-recorded", "before-done", "move-queued", "mail-sent"]
UNKILLED_STEPS = {"replay-marked"}
"""Steps no test below kills at: ``replay-marked`` is reached only by a mail read before."""


def test_every_step_is_one_the_crash_tests_reach() -> None:
    """The crash tests patch ``agent_base.step``, and the agent's modules (``agent``,
    ``host_side``, ``player_side``) call it as that attribute: a step imported by name
    (``from cli.post.agent_base import step``) would escape the patch.  And every
    step named in the code is one of the tests' lists (a new step is added to one)."""
    import ast

    named = set()
    for path in sorted(Path(agent_base.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "cli.post.agent_base":
                assert "step" not in {a.name for a in node.names}, f"{path.name} imports step by name"
            if isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Name) and f.id == "step":
                    assert path.name == "agent_base.py", f"{path.name} calls step(), not agent_base.step()"
                if isinstance(f, ast.Attribute) and f.attr == "step" and isinstance(f.value, ast.Name) \
                        and f.value.id == "agent_base":
                    arg = node.args[0]
                    assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), path.name
                    named.add(arg.value)
    assert named == set(HOST_STEPS) | set(PLAYER_STEPS) | UNKILLED_STEPS, named


@pytest.mark.parametrize("at", HOST_STEPS)
def test_a_host_killed_between_steps_loses_nothing_and_applies_nothing_twice(
    table: Copy, started: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: str
) -> None:
    t = table
    name = _to_act(t)[0]
    raw = _move_mail(t, name)
    t.host.deliver(raw, "move")
    events_before = len(t.host.ok("log", t.gid).splitlines())

    def kill(step: str) -> None:
        if step == at:
            raise Killed(step)

    monkeypatch.setattr(agent_base, "step", kill)
    with pytest.raises(Killed):
        click.testing.CliRunner().invoke(cli_command(), ["--db", str(t.host.db), "mail", "sync"],
                                         catch_exceptions=False)
    monkeypatch.setattr(agent_base, "step", lambda step: None)
    for _ in range(2):
        t.host.sync()
    log = t.host.ok("log", t.gid).splitlines()
    assert len(log) > events_before, "the move was lost"
    t.host.deliver(raw, "move-again")
    t.host.sync()
    assert t.host.ok("log", t.gid).splitlines() == log, "applied twice"
    # what the host owes the players went out, and nothing is waiting
    assert json.loads(t.host.ok("mail", "status", "--json"))["unsent"] == 0
    t.carry()
    for p in t.players.values():
        p.sync()
    # every player holds what she would hold had nothing failed
    base = Copy(started, tmp_path / "base")
    base.host.deliver(raw, "move")
    base.host.sync()
    base.carry()
    for p in base.players.values():
        p.sync()
    assert {n: t.view_of(n) and t.view_of(n)["seq"] for n in t.players} == \
        {n: base.view_of(n) and base.view_of(n)["seq"] for n in base.players}


@pytest.mark.parametrize("at", PLAYER_STEPS)
def test_a_player_killed_between_steps_sends_her_move_once(
    table: Copy, monkeypatch: pytest.MonkeyPatch, at: str
) -> None:
    t = table
    name = _to_act(t)[0]
    party = t.players[name]
    view = t.view_of(name)
    legal = json.loads(party.ok("legal", view["file"], "--as", name, "--json"))["legal"]
    party.ok("move", t.gid, "--as", name, legal[0])
    if at in ("handled-recorded", "before-done"):  # a mail to receive at the same time
        party.deliver(_hostile("eve@example.test", [("x.zip", b"PK", "application/zip")], mid="<z@x>"), "z")

    def kill(step: str) -> None:
        if step == at:
            raise Killed(step)

    monkeypatch.setattr(agent_base, "step", kill)
    with pytest.raises(Killed):
        click.testing.CliRunner().invoke(cli_command(), ["--db", str(party.db), "mail", "sync"],
                                         catch_exceptions=False)
    monkeypatch.setattr(agent_base, "step", lambda step: None)
    party.sync()
    party.sync()
    t.carry()
    events_before = len(t.host.ok("log", t.gid).splitlines())
    s = t.host.sync()
    assert s["applied"] == 1, s
    assert len(t.host.ok("log", t.gid).splitlines()) > events_before
    assert not list((party.home / "mail" / "outgoing").glob("*.json")), "the move is still queued"


# ------------------------------------------------------------ whole games

def test_play_by_game_id_queues_the_signed_move(table: Copy) -> None:
    """``citylog play GAME --as PLAYER`` on a player's side opens her latest
    received view and queues the signed move for the agent."""
    t = table
    name = _to_act(t)[0]
    party = t.players[name]
    r = click.testing.CliRunner().invoke(cli_command(), ["--db", str(party.db), "play", t.gid, "--as", name],
                                         input="1\n" * 12 + "send\nq\n")
    assert r.exit_code == 0, r.output
    queued = list((party.home / "mail" / "outgoing").glob("*-move.json"))
    assert len(queued) == 1 and "wrote" in r.output, r.output
    party.sync()
    t.carry()
    assert t.host.sync()["applied"] == 1


def test_host_sync_says_who_must_answer(table: Copy) -> None:
    t = table
    out = t.host.ok("mail", "sync")
    names = _to_act(t)
    assert f"game {t.gid}: waiting for {', '.join(names)}" in out, out
    lines = t.host.ok("mail", "sync", "--json").splitlines()
    assert len(lines) == 1, "under --json one JSON object, nothing else"
    assert json.loads(lines[0])["waiting"] == {t.gid: names}


def test_a_player_is_told_it_is_her_turn(table: Copy) -> None:
    t = table
    name = _to_act(t)[0]
    out = t.players[name].ok("mail", "sync")
    assert f"{name}: your turn in game {t.gid}" in out and f"citylog play {t.gid} --as {name}" in out, out


@pytest.mark.slow
def test_a_whole_card_city_game_by_mail_ends_with_the_deal_proven(tmp_path: Path) -> None:
    """Three data directories (host, alice, bob), each running only ``mail sync``
    and ``move`` on the game id, through Maildirs a postman fills."""
    t = MailTable(tmp_path)
    t.play_out(random.Random(11))
    for name, party in t.players.items():
        view = t.view_of(name)
        assert view is not None and view["kind"] == "final"
        out = party.ok("verify", view["file"])
        assert "deal proven" in out and "signed by their players" in out, out
    assert json.loads(t.host.ok("show", t.gid, "--json"))["to_act"] == []
    assert not list((t.host.home / "mail" / "inbox").glob("*.json")), "every move was handled"
    assert not (t.host.home / "mail" / "inbox" / "refused").exists() or \
        not list((t.host.home / "mail" / "inbox" / "refused").iterdir())


def test_a_silent_seat_is_reminded_then_timed_out_by_the_host_agent(tmp_path: Path) -> None:
    """Deadlines (issue 24 item 3, events.deadlines): the host's ``mail sync``
    sends a reminder before the deadline, then records the timeout and sends the
    next seat its view; the silent player's agent learns it is not her turn."""
    pytest.importorskip("events.deadlines")
    import time

    t = MailTable(tmp_path, options=("--deadline", "1h", "--on-timeout", "bot"))
    for _ in range(3):  # invitations, joins, first view; nobody moves
        t.carry()
        for p in t.players.values():
            p.sync()
        t.carry()
        t.host.sync()
    [silent] = _to_act(t)
    now = time.time()
    out = t.host.ok("mail", "sync", "--now", str(now + 3000))
    assert f"reminded {silent}" in out, out
    assert "reminded" not in t.host.ok("mail", "sync", "--now", str(now + 3100)), "reminded twice"
    t.carry()
    assert "sent a reminder" in t.players[silent].ok("mail", "sync")
    out = t.host.ok("mail", "sync", "--now", str(now + 4000))
    assert "a deadline passed" in out, out
    assert "timed out" in t.host.ok("log", t.gid)
    t.carry()
    told = t.players[silent].ok("mail", "sync")
    assert f"{silent}: your turn" not in told, told
    nxt = _to_act(t)
    assert nxt and silent not in nxt
    for name in nxt:
        assert f"{name}: your turn" in t.players[name].ok("mail", "sync")


def test_two_passes_on_one_data_directory_take_turns(table: Copy, monkeypatch: pytest.MonkeyPatch) -> None:
    import fcntl
    import os

    t = table
    fd = os.open(t.host.home / agent_module.SYNC_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        monkeypatch.setattr(agent_module, "SYNC_WAIT", 0.2)
        code, _, err = t.host.run("mail", "sync")
        assert code == 4 and "another 'citylog mail sync'" in err, err
    finally:
        os.close(fd)
    assert t.host.run("mail", "sync")[0] == 0


def test_with_html_on_a_view_mail_carries_its_replay_page_and_the_player_takes_the_view(table: Copy) -> None:
    t = table
    with (t.host.home / "mail.toml").open("a") as f:
        f.write("html = true\n")
    name = _to_act(t)[0]
    t.host.deliver(_move_mail(t, name), "move")
    assert t.host.sync()["applied"] == 1
    sent = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
            for p in sorted(t.host.outmail.glob("*.eml"))]
    views = [m for m in sent if m["X-Citylog-Kind"] == "view"]
    assert views
    for m in views:
        names = [p.get_filename() for p in m.iter_attachments()]
        assert any(n.endswith(".jsonl") for n in names) and any(n.endswith(".html") for n in names), names
    t.carry()
    for n in {m["X-Citylog-Seat"] for m in views}:
        s = t.players[n].sync()
        assert s["refused"] == 0 and any("received" in line for line in s["lines"]), s
        assert not list(t.players[n].outmail.glob("*.eml")), "the player answered the host's page with a refusal"


def test_a_view_with_a_broken_seal_is_refused_by_the_player(table: Copy) -> None:
    """A view claiming the host's address but not sealed by the game's host key
    is refused: the player's agent stores it not, and her turn stays as it was."""
    t = table
    name = _to_act(t)[0]
    party = t.players[name]
    view = t.view_of(name)
    text = Path(view["file"]).read_text()
    header = json.loads(text.splitlines()[0])
    header["seal"] = ("0" if header["seal"][0] != "0" else "1") + header["seal"][1:]
    forged = "\n".join([json.dumps(header, separators=(",", ":")), *text.splitlines()[1:]]) + "\n"
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Message-ID"] = t.host.address, party.address, "<forged-view@x>"
    msg["X-Citylog-Game"], msg["X-Citylog-Kind"] = t.gid, "view"
    msg.set_content("your turn")
    msg.add_attachment(forged.encode(), maintype="application", subtype="jsonl",
                       filename=f"{t.gid}-seq999-{name}.jsonl")
    party.deliver(msg.as_bytes(), "forged")
    s = party.sync()
    assert s["refused"] == 1 and any("seal" in line for line in s["lines"]), s
    assert t.view_of(name) == view


def test_watch_repeats_the_pass_every_interval(table: Copy, monkeypatch: pytest.MonkeyPatch) -> None:
    import cli.mailcmd

    t = table
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 2:
            raise Killed("enough")

    monkeypatch.setattr(cli.mailcmd.time, "sleep", sleep)
    with pytest.raises(Killed):
        click.testing.CliRunner().invoke(cli_command(), ["--db", str(t.host.db), "mail", "sync", "--watch",
                                                         "--interval", "7", "--json"], catch_exceptions=False)
    assert slept == [7.0, 7.0]
    code, _, err = t.host.run("mail", "sync", "--watch", "--interval", "0")
    assert code == 2 and "--interval" in err


def test_a_locked_ledger_fails_the_pass_and_loses_no_mail(table: Copy, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process holding mail.sqlite's write lock past the wait: the pass fails with
    one line (exit 4, an environment failure), nothing is marked handled, and the next
    pass reads the mail (here a refused one: its reply goes out then)."""
    import sqlite3

    import cli.post.ledger as ledger_module

    t = table
    monkeypatch.setattr(ledger_module, "BUSY_TIMEOUT", 0.2)
    t.host.deliver(_hostile("mallory@example.test", [("evil.exe", b"MZ", "application/octet-stream")]), "evil")
    other = sqlite3.connect(t.host.home / ledger_module.LEDGER_NAME, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        code, out, err = t.host.run("mail", "sync")
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert code == 4 and err.startswith("citylog: environment: ") and "database is locked" in err, (code, out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err + out
    assert not _replies(t, "mallory@example.test")
    s = t.host.sync()
    assert s["received"] == 1 and s["refused"] == 1, s
    assert len(_replies(t, "mallory@example.test")) == 1


def test_watch_goes_on_after_a_pass_the_machine_failed(table: Copy, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pass failing on the machine (a disk error writing a file, a locked database) says
    so in one line and the next pass runs: --watch never stops for good on it."""
    import sqlite3

    import cli.mailcmd

    t = table
    failures: list[BaseException] = [OSError(28, "No space left on device"), sqlite3.OperationalError("database is locked")]
    real = agent_module.Agent.sync

    def sync(self: agent_module.Agent) -> agent_module.Summary:
        if failures:
            raise failures.pop(0)
        return real(self)

    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 3:
            raise Killed("enough")

    monkeypatch.setattr(agent_module.Agent, "sync", sync)
    monkeypatch.setattr(cli.mailcmd.time, "sleep", sleep)
    r = click.testing.CliRunner()
    with pytest.raises(Killed):
        r.invoke(cli_command(), ["--db", str(t.host.db), "mail", "sync", "--watch", "--interval", "5"],
                 catch_exceptions=False)
    assert slept == [5.0, 10.0, 5.0] and not failures  # two failed passes in a row: the second waits twice as long


def test_each_pass_closes_its_transports(table: Copy, monkeypatch: pytest.MonkeyPatch) -> None:
    """An IMAP login or an SMTP session ends with its pass, failed or not (a server counts a
    user's connections: dovecot allows 10 from one address), never left to the collector."""
    import cli.post.transport as transport

    closed: list[str] = []

    class Closing:
        def __init__(self, inner: object, name: str) -> None:
            self.inner, self.name = inner, name

        def __getattr__(self, attr: str) -> object:
            return getattr(self.inner, attr)

        def close(self) -> None:
            closed.append(self.name)

    real_in, real_out = transport.open_inbound, transport.open_outbound
    monkeypatch.setattr(transport, "open_inbound", lambda cfg: Closing(real_in(cfg), "in"))
    monkeypatch.setattr(transport, "open_outbound", lambda cfg: Closing(real_out(cfg), "out"))
    table.host.sync()
    assert sorted(closed) == ["in", "out"]
    monkeypatch.setattr(agent_module.Agent, "sync", lambda self: (_ for _ in ()).throw(OSError(5, "I/O error")))
    code, _, err = table.host.run("mail", "sync")
    assert code != 0 and "I/O error" in err and sorted(closed) == ["in", "in", "out", "out"]


@pytest.mark.parametrize("at", ["attachment-written", "before-done", "inbox-applied", "mail-sent"])
def test_kill_9_of_the_host_agent_loses_nothing_and_applies_nothing_twice(
    table: Copy, started: Path, tmp_path: Path, at: str
) -> None:
    """The issue's words: kill -9 of an agent during sync (a real SIGKILL of a
    real ``citylog mail sync`` process, at each step), then it runs again."""
    import os
    import subprocess
    import sys

    t = table
    raw = _move_mail(t, _to_act(t)[0])
    t.host.deliver(raw, "move")
    before = len(t.host.ok("log", t.gid).splitlines())
    env = {**os.environ, agent_base.KILL_AT: at,
           "PYTHONPATH": os.pathsep.join([str(Path(agent_module.__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "cli.main", "--db", str(t.host.db), "mail", "sync"], env=env,
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == -9, done.stderr
    t.host.sync()
    log = t.host.ok("log", t.gid).splitlines()
    assert len(log) > before
    t.host.deliver(raw, "again")
    t.host.sync()
    assert t.host.ok("log", t.gid).splitlines() == log
    t.carry()
    for p in t.players.values():
        p.sync()
    base = Copy(started, tmp_path / "base")
    base.host.deliver(raw, "move")
    base.host.sync()
    base.carry()
    for p in base.players.values():
        p.sync()
    assert {n: t.view_of(n) and t.view_of(n)["seq"] for n in t.players} == \
        {n: base.view_of(n) and base.view_of(n)["seq"] for n in base.players}


def test_a_player_hands_her_seat_to_the_bot_by_mail(table: Copy) -> None:
    """``citylog handover GAME --as alice --to bot`` on a player's side signs at her
    newest received view and queues it; the host's agent applies it [CL-T5]."""
    pytest.importorskip("events.deadlines")
    t = table
    name = _to_act(t)[0]
    party = t.players[name]
    before = len(t.host.ok("log", t.gid).splitlines())
    out = party.ok("handover", t.gid, "--as", name, "--to", "bot")
    assert "mail/outgoing" in out, out
    assert any("sent handover" in line for line in party.sync()["lines"])
    t.carry()
    s = t.host.sync()
    assert s["applied"] == 1 and s["refused"] == 0, s
    log = t.host.ok("log", t.gid).splitlines()
    assert len(log) > before and name not in _to_act(t)
