"""[CL-S17] A player's tools never sign, nor her agent send, two different moves for
one position (game, seat, the view's seq) unless she says so (``--replace-answered``):
two signed moves at one position let a dishonest host apply whichever it likes, and
``verify`` is content with either.  Each test is an attack or a slip (a careless
second ``move``, ``play`` or TUI on an answered view, a file made by other means, two
terminals at once) and fails if it works; the same move again stays harmless."""

from __future__ import annotations

import email
import email.policy
import json
import shutil
from pathlib import Path
from typing import Any

import click.testing
import pytest

from tests.helpers.pbem import cli_command
from tests.post import test_agent_local as agent_tests
from tests.post.test_agent_local import Copy, _to_act

started = agent_tests.started  # the fixtures of a game by mail, shared with test_agent_local
table = agent_tests.table


def _setup(t: Copy) -> tuple[str, Any, dict, list[str]]:
    name = _to_act(t)[0]
    party = t.players[name]
    view = t.view_of(name)
    assert view is not None
    legal = json.loads(party.ok("legal", view["file"], "--as", name, "--json"))["legal"]
    assert len(legal) >= 2, legal
    return name, party, view, legal


def _move_mails(party: Any) -> list[list[str]]:
    """The commands of each move mail the party's agent sent (its outbound folder)."""
    out = []
    for path in sorted(party.outmail.glob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if msg["X-Citylog-Kind"] != "move":
            continue
        for part in msg.iter_attachments():
            out.append(json.loads(part.get_payload(decode=True))["commands"])
    return out


def _files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def _made_elsewhere(t: Copy, party: Any, view: dict, name: str, command: str) -> Path:
    """Her move ``command`` on ``view``, signed with her key by another data directory's
    tools (no record of her moves there): the file it wrote."""
    other = t.root / "other-data-dir"
    other.mkdir()
    r = click.testing.CliRunner().invoke(
        cli_command(), ["--db", str(other / "citylog.db"), "move", view["file"], "--as", name, command,
                        "--out", f"{other}/", "--key", str(party.key(name))])
    assert r.exit_code == 0, r.output
    [made] = _files(other)
    return made


def _refused_in_one_line(code: int, out: str, err: str) -> None:
    assert code == 2, (code, out, err)
    assert "[CL-S17]" in err and "--replace-answered" in err and "apply either" in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_a_second_different_move_at_an_answered_position_is_refused_and_nothing_written(table: Copy) -> None:
    """SLIP (or a host's 'please move again'): she answered seq N, then `move` again
    with another command.  Refused in one line (exit 2): no file, no record, no mail;
    before the first is sent, after, and to another folder (--out) alike."""
    t = table
    name, party, view, legal = _setup(t)
    party.ok("move", t.gid, "--as", name, legal[0])
    outgoing = party.home / "mail" / "outgoing"
    record = party.home / "keys" / "answered.jsonl"
    queued, lines = _files(outgoing), record.read_bytes()
    _refused_in_one_line(*party.run("move", t.gid, "--as", name, legal[1]))  # not synced yet
    assert _files(outgoing) == queued and record.read_bytes() == lines
    party.sync()
    assert _move_mails(party) == [[legal[0]]]
    _refused_in_one_line(*party.run("move", t.gid, "--as", name, legal[1]))  # sent already
    elsewhere = t.root / "elsewhere"
    _refused_in_one_line(*party.run("move", view["file"], "--as", name, legal[1], "--out", f"{elsewhere}/"))
    assert not elsewhere.exists() and _files(outgoing) == [] and record.read_bytes() == lines
    party.sync()
    assert _move_mails(party) == [[legal[0]]], "a second move went out"


def test_the_same_move_again_is_harmless(table: Copy) -> None:
    """The same move at the same position is the same signed file (a signature is
    deterministic): written again without complaint, and sent once."""
    t = table
    name, party, _, legal = _setup(t)
    party.ok("move", t.gid, "--as", name, legal[0])
    party.ok("move", t.gid, "--as", name, legal[0])  # before the sync: the file is there, the same bytes
    party.sync()
    party.ok("move", t.gid, "--as", name, legal[0])  # after: written again, not sent again
    party.sync()
    assert _move_mails(party) == [[legal[0]]]
    lines = (party.home / "keys" / "answered.jsonl").read_text().splitlines()
    assert len(lines) == 1, lines


def test_play_on_an_answered_view_refuses_before_any_choice(table: Copy) -> None:
    """`citylog play GAME --as P` on a view she answered says so at once (exit 2), instead
    of letting her choose a whole turn to refuse it at the end."""
    t = table
    name, party, _, legal = _setup(t)
    party.ok("move", t.gid, "--as", name, legal[0])
    r = click.testing.CliRunner().invoke(cli_command(), ["--db", str(party.db), "play", t.gid, "--as", name],
                                         input="1\n1\n1\nsend\nq\n")
    _refused_in_one_line(r.exit_code, r.stdout, r.stderr)
    assert "nothing to play on this view" in r.stderr, r.stderr
    assert len(_files(party.home / "mail" / "outgoing")) == 1


def test_the_tui_never_writes_a_second_move_at_an_answered_position(table: Copy) -> None:
    """The TUI on a received view (cli/tui/received.py): a move signed by any command
    at this position closes the view ('move already signed'), and its writer refuses."""
    from cli.tui.received import Received
    from events.service import ServiceError
    from replay.sources import open_log

    t = table
    name, party, view, legal = _setup(t)
    elsewhere = t.root / "by-hand"
    party.ok("move", view["file"], "--as", name, legal[0], "--out", f"{elsewhere}/")  # not in the agent's queue
    outgoing = party.home / "mail" / "outgoing"
    outgoing.mkdir(parents=True, exist_ok=True)
    received = Received(open_log(None, view["file"], name), view["file"], name, str(outgoing),  # type: ignore[arg-type]
                        party.home / "keys", queue=True, agent=True)
    assert received.written_before() == party.home / "keys" / "answered.jsonl"
    with pytest.raises(ServiceError, match=r"CL-S17"):
        received.write([legal[1]])
    assert _files(outgoing) == []


def test_the_agent_never_sends_a_second_move_made_by_other_means(table: Copy) -> None:
    """ATTACK (a file made elsewhere: another data directory's tools with her key, a
    script, a copy): a different move at a position her agent sent one at is put in
    its queue.  Not sent; kept in the queue's 'refused'; one line says why."""
    t = table
    name, party, view, legal = _setup(t)
    party.ok("move", t.gid, "--as", name, legal[0])
    party.sync()
    made = _made_elsewhere(t, party, view, name, legal[1])
    outgoing = party.home / "mail" / "outgoing"
    shutil.copy(made, outgoing / "second.json")
    s = party.sync()
    assert _move_mails(party) == [[legal[0]]], "the agent sent a second move at one position"
    assert any("[CL-S17]" in line and "not sent" in line for line in s["lines"]), s["lines"]
    assert [p.read_bytes() for p in _files(outgoing / "refused")] == [made.read_bytes()]
    assert _files(outgoing) == []
    again = party.sync()  # said once: the file is out of the queue
    assert not any("[CL-S17]" in line and "not sent" in line for line in again["lines"]), again["lines"]


def test_a_second_move_at_one_position_goes_only_when_she_says_so(table: Copy) -> None:
    """--replace-answered is her choice, at the risk the refusal names: signed, recorded
    as a replacement, and sent by her agent."""
    t = table
    name, party, _, legal = _setup(t)
    party.ok("move", t.gid, "--as", name, legal[0])
    party.sync()
    party.ok("move", t.gid, "--as", name, legal[1], "--replace-answered")
    party.sync()
    assert sorted(_move_mails(party)) == sorted([[legal[0]], [legal[1]]])
    lines = [json.loads(x) for x in (party.home / "keys" / "answered.jsonl").read_text().splitlines()]
    assert [x["replaces"] for x in lines] == [False, True]


def test_two_terminals_at_once_never_both_sign_at_one_position(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RACE: two `move` runs read the record before either writes (two terminals, the TUI
    and `move`).  The check and the record are one step under the record's lock: the
    other run, coming between this one's read and its write whenever the lock lets it,
    is refused."""
    import fcntl
    import os

    from cli import answered
    from events.service import ServiceError
    from events.statements import MOVE_FORMAT, MoveFile

    def mf(cmd: str) -> MoveFile:
        return MoveFile(MOVE_FORMAT, "G1", "alice", 7, "11" * 32, (cmd,), "cd" * 32, "")

    original = answered.answers_at
    other: list[str] = []

    def racing(folder: Path, *a: Any) -> list[answered.Answer]:
        found = original(folder, *a)
        if other:
            return found
        lock = os.open(folder / "answered.jsonl.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other.append("locked out")
            return found
        finally:
            os.close(lock)
        other.append("ran")
        with answered.held(folder):  # the other terminal, whole, in between
            if answered.check(folder, mf("build B"), False):
                answered.record(folder, mf("build B"), False)
        return found

    monkeypatch.setattr(answered, "answers_at", racing)
    with answered.held(tmp_path):
        if answered.check(tmp_path, mf("build A"), False):
            answered.record(tmp_path, mf("build A"), False)
    monkeypatch.setattr(answered, "answers_at", original)
    assert other == ["locked out"], other
    with pytest.raises(ServiceError, match=r"CL-S17"):
        with answered.held(tmp_path):
            answered.check(tmp_path, mf("build B"), False)
    moves = {tuple(json.loads(x)["commands"]) for x in (tmp_path / "answered.jsonl").read_text().splitlines()}
    assert moves == {("build A",)}, moves


def test_a_move_file_rewritten_after_it_was_read_is_not_kept_as_sent(
        table: Copy, monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent read a queued file, mailed its bytes, then kept *the file as it was
    then on disk* in sent/: a file rewritten between the two (an editor, a second
    `move --force`) was kept as sent though never sent, and what was sent was not kept.
    Now sent/ keeps the bytes that were queued; the rewritten file stays queued."""
    import cli.post.agent_base as agent_base

    t = table
    name, party, _, legal = _setup(t)
    party.ok("move", t.gid, "--as", name, legal[0])
    outgoing = party.home / "mail" / "outgoing"
    [path] = _files(outgoing)
    sent_bytes = path.read_bytes()
    real_step = agent_base.step

    def rewrite(step_name: str) -> None:
        if step_name == "move-queued":
            path.write_bytes(sent_bytes.replace(b'"seq":', b'"seq": '))  # another file, same name
        real_step(step_name)

    monkeypatch.setattr(agent_base, "step", rewrite)
    r = click.testing.CliRunner().invoke(cli_command(), ["--db", str(party.db), "mail", "sync"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert [p.read_bytes() for p in _files(outgoing / "sent")] == [sent_bytes]
    assert [p.read_bytes() for p in _files(outgoing)] == [sent_bytes.replace(b'"seq":', b'"seq": ')]


def test_the_agent_sends_a_move_where_only_an_older_game_with_its_id_was_answered(table: Copy) -> None:
    """NO FALSE REFUSAL (a host restarted, a new game given an old one's id): her record
    holds a move of the old game — another genesis — at this very seq.  A move file
    made elsewhere at the new game's position is sent: the agent reads the game's
    genesis from the view it received, and nothing signed on the old chain lands on
    this one [CL-S17]."""
    from tests.post.test_redteam_second_move import _other_games_line

    t = table
    name, party, view, legal = _setup(t)
    _other_games_line(party, t.gid, view["seq"], name)
    made = _made_elsewhere(t, party, view, name, legal[0])
    (party.home / "mail" / "outgoing").mkdir(parents=True, exist_ok=True)
    shutil.copy(made, party.home / "mail" / "outgoing" / made.name)
    s = party.sync()
    assert _move_mails(party) == [[legal[0]]], s["lines"]
