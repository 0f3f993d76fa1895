"""IMAP in and SMTP out (cli/post/network.py) against real servers on loopback:
aiosmtpd for SMTP, Debian's dovecot for IMAP (tests/helpers/mail_servers.py)."""

from __future__ import annotations

import imaplib
import os
import subprocess
import sys
from email.message import EmailMessage
from email.policy import SMTP
from pathlib import Path
from typing import Any

import pytest

from cli.post.network import DONE_FOLDER, DONE_KEYWORD, ImapInbound, MailAuthError, MailError, MailTlsError, SmtpOutbound
from cli.post.transport import Inbound, Outbound
from events.store import EnvironmentFailure
from tests.helpers import mail_servers
from tests.helpers.mail_servers import MailServers, MailServersLeftRunning, NoMailServer, no_mail_server


# -- helpers -----------------------------------------------------------------------
def letter(subject: str, body: str = "hello\n", sender: str = "alice@citylog.test",
           to: str = "bob@citylog.test, carol@citylog.test") -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, subject
    msg["Message-ID"] = f"<{subject.replace(' ', '.')}@citylog>"
    msg.set_content(body)
    return msg.as_bytes(policy=SMTP)


def smtp(ms: MailServers, user: str = "alice", security: str = "starttls", **kw: Any) -> SmtpOutbound:
    port = ms.smtp_port if security == "starttls" else ms.smtps_port
    kw.setdefault("cafile", ms.cafile)
    kw.setdefault("timeout", 10)
    return SmtpOutbound(ms.host, port, user, kw.pop("password", ms.users[user].password), security, **kw)  # type: ignore[arg-type]


def imap(ms: MailServers, user: str, tls: str = "ssl", **kw: Any) -> ImapInbound:
    port = ms.imaps_port if tls == "ssl" else ms.imap_port
    kw.setdefault("cafile", ms.cafile)
    kw.setdefault("timeout", 10)
    return ImapInbound(ms.host, port, user, kw.pop("password", ms.users[user].password), "INBOX", tls, **kw)  # type: ignore[arg-type]


def fetch_all(inbound: ImapInbound) -> list[tuple[str, bytes]]:
    return list(inbound.fetch())


# -- the servers -------------------------------------------------------------------
def test_the_servers_start_fast_and_dovecot_runs_as_a_non_root_user(mail: MailServers) -> None:
    assert mail.start_seconds["total"] < 10, mail.start_seconds  # about 0.7 s here
    assert mail.dovecot_pid is not None
    uids = Path(f"/proc/{mail.dovecot_pid}/status").read_text().split("Uid:")[1].split()
    assert int(uids[0]) != 0 and int(uids[1]) != 0  # real and effective
    assert mail.host == "127.0.0.1"


def test_the_protocols_are_implemented(mail: MailServers) -> None:
    inbound: Inbound = imap(mail, "bob")
    outbound: Outbound = smtp(mail)
    assert callable(inbound.fetch) and callable(inbound.done) and callable(outbound.send)


# -- send, fetch, done ---------------------------------------------------------------
def test_a_letter_sent_to_two_users_reaches_both_and_done_is_never_fetched_again(ms: MailServers) -> None:
    raw = letter("seq 4 bob to move")
    with smtp(ms) as out:
        out.send(raw, ["bob@citylog.test", "carol@citylog.test"], "alice@citylog.test")
    for user in ("bob", "carol"):
        with imap(ms, user) as inbox:
            got = fetch_all(inbox)
            assert [body for _, body in got] == [raw]  # byte for byte
            key = got[0][0]
            inbox.done(key)
            assert fetch_all(inbox) == []  # same connection
        with imap(ms, user) as again:
            assert fetch_all(again) == []  # and a new one
    # handled = \Seen + $CitylogDone, moved into citylog-done
    done_files = list((ms.maildir("bob") / f".{DONE_FOLDER}" / "cur").iterdir())
    assert len(done_files) == 1 and done_files[0].read_bytes() == raw
    assert done_files[0].name.rpartition(":2,")[2].count("S") == 1
    assert not list((ms.maildir("bob") / "new").iterdir()) and not list((ms.maildir("bob") / "cur").iterdir())
    with imap(ms, "alice") as inbox:
        assert fetch_all(inbox) == []  # the sender got nothing


def test_only_unhandled_messages_come_back_in_order(ms: MailServers) -> None:
    with smtp(ms, "carol", security="ssl") as out:  # SMTPS this time
        for n in range(3):
            out.send(letter(f"move {n}"), ["bob@citylog.test"], "carol@citylog.test")
    with imap(ms, "bob", tls="starttls") as inbox:  # IMAP with STARTTLS
        got = fetch_all(inbox)
        assert [b"move %d" % n in body for n, (_, body) in enumerate(got)] == [True] * 3
        inbox.done(got[1][0])
    with imap(ms, "bob") as inbox:
        assert [key for key, _ in inbox.fetch()] == [got[0][0], got[2][0]]


def test_the_keyword_alone_keeps_a_message_from_coming_back(ms: MailServers) -> None:
    """A move that failed after the flags were set (or done_folder=None) still hides the message."""
    with smtp(ms) as out:
        out.send(letter("flag only"), ["dave@citylog.test"], "alice@citylog.test")
    with imap(ms, "dave", done_folder=None) as inbox:
        ((key, _),) = fetch_all(inbox)
        inbox.done(key)
    with imap(ms, "dave") as inbox:
        assert fetch_all(inbox) == []
    conn = imaplib.IMAP4_SSL(ms.host, ms.imaps_port, ssl_context=__import__("ssl").create_default_context(cafile=ms.cafile))
    try:
        conn.login("dave", ms.users["dave"].password)
        conn.select("INBOX")
        _, data = conn.uid("FETCH", "1:*", "(FLAGS)")
        assert DONE_KEYWORD.encode() in data[0] and b"\\Seen" in data[0]  # still in INBOX, flagged
    finally:
        conn.logout()


def test_a_stale_key_is_refused(ms: MailServers) -> None:
    with imap(ms, "bob") as inbox:
        with pytest.raises(MailError, match="UIDVALIDITY changed"):
            inbox.done("1:1")
        with pytest.raises(MailError, match="not an IMAP message key"):
            inbox.done("nonsense")


# -- size limits -------------------------------------------------------------------
def _record_commands(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    seen: list[tuple[str, ...]] = []
    uid = imaplib.IMAP4.uid

    def spy(self: imaplib.IMAP4, command: str, *args: str) -> Any:
        seen.append((command.upper(), *args))
        return uid(self, command, *args)

    monkeypatch.setattr(imaplib.IMAP4, "uid", spy)
    return seen


def test_a_message_over_the_limit_is_never_read(ms: MailServers, monkeypatch: pytest.MonkeyPatch) -> None:
    big, small = letter("huge", ("y" * 70 + "\n") * 200), letter("small")  # ~14 KB and ~0.3 KB
    with smtp(ms) as out:
        out.send(big, ["bob@citylog.test"], "alice@citylog.test")
        out.send(small, ["bob@citylog.test"], "alice@citylog.test")
    seen = _record_commands(monkeypatch)
    with imap(ms, "bob", max_bytes=4096) as inbox:
        got = fetch_all(inbox)
        assert [body for _, body in got] == [small]
        ((big_key, big_size),) = inbox.oversize
        assert big_size >= len(big) - 100
    bodies = [c for c in seen if c[0] == "FETCH" and "BODY" in c[2]]
    assert [c[1] for c in bodies] == [got[0][0].split(":")[1]]  # only the small one's body was asked for
    assert all("<0.4097>" in c[2] for c in bodies)  # and even that one at most limit + 1 octets
    with imap(ms, "bob") as inbox:  # a bigger limit reads it; it was left unhandled
        assert big in [body for _, body in inbox.fetch()]


def test_truncate_yields_no_more_than_the_limit_plus_one(ms: MailServers) -> None:
    """For a caller that refuses a too-long message from its headers (m24t's letters)."""
    big = letter("cut", ("v" * 70 + "\n") * 200)
    with smtp(ms) as out:
        out.send(big, ["bob@citylog.test"], "alice@citylog.test")
    with imap(ms, "bob", max_bytes=4096, on_oversize="truncate") as inbox:
        ((key, raw),) = fetch_all(inbox)
        assert raw == big[:4097] and inbox.oversize == [(key, len(big))]
        inbox.done(key)
        assert fetch_all(inbox) == []


def test_a_server_understating_a_size_still_cannot_push_more_than_the_limit(
        ms: MailServers, monkeypatch: pytest.MonkeyPatch) -> None:
    big = letter("liar", ("z" * 70 + "\n") * 200)
    with smtp(ms) as out:
        out.send(big, ["carol@citylog.test"], "alice@citylog.test")
    monkeypatch.setattr(ImapInbound, "_sizes", lambda self, uids: dict.fromkeys(uids, 10))  # "10 octets"
    with imap(ms, "carol", max_bytes=4096) as inbox:
        assert fetch_all(inbox) == []
        ((_, size),) = inbox.oversize
        assert size == 4097  # the partial fetch stopped at limit + 1


def test_a_literal_over_the_limit_is_refused_before_it_is_read(ms: MailServers, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that ignores the partial fetch and sends a huge literal: cut off, a MailError."""
    with smtp(ms) as out:
        out.send(letter("flood", ("w" * 70 + "\n") * 2000), ["dave@citylog.test"], "alice@citylog.test")
    monkeypatch.setattr("cli.post.network._LITERAL_SLACK", 0)
    monkeypatch.setattr(ImapInbound, "_sizes", lambda self, uids: dict.fromkeys(uids, 10))
    uid = imaplib.IMAP4.uid
    monkeypatch.setattr(imaplib.IMAP4, "uid", lambda self, cmd, *a: uid(self, cmd, *(x.replace("<0.4097>", "") for x in a)))
    with imap(ms, "dave", max_bytes=4096) as inbox:
        with pytest.raises(MailError, match="over the limit"):
            fetch_all(inbox)


# -- refusals ----------------------------------------------------------------------
@pytest.mark.parametrize("tls", ["ssl", "starttls"])
def test_a_wrong_imap_password_is_a_clean_error(mail: MailServers, tls: str) -> None:
    with pytest.raises(MailAuthError, match="IMAP login as 'bob' refused") as caught:
        fetch_all(imap(mail, "bob", tls=tls, password="not-bobs"))
    assert isinstance(caught.value, EnvironmentFailure)  # exit code 4 in the CLI
    assert "not-bobs" not in str(caught.value)


@pytest.mark.parametrize("security", ["starttls", "ssl"])
def test_a_wrong_smtp_password_is_a_clean_error(mail: MailServers, security: str) -> None:
    with pytest.raises(MailAuthError, match="SMTP login as 'alice' refused") as caught:
        smtp(mail, security=security, password="not-alices").send(letter("x"), ["bob@citylog.test"], "alice@citylog.test")
    assert "not-alices" not in str(caught.value)


def test_the_cli_maps_a_mail_error_to_exit_code_4(capsys: pytest.CaptureFixture[str]) -> None:
    import typer

    from cli.errors import guarded

    @guarded
    def command() -> None:
        raise MailAuthError("127.0.0.1:993: IMAP login as 'bob' refused ([AUTHENTICATIONFAILED])")

    with pytest.raises(typer.Exit) as exited:
        command()
    assert exited.value.exit_code == 4
    assert capsys.readouterr().err.startswith("citylog: environment: 127.0.0.1:993: IMAP login as 'bob' refused")


def test_an_unknown_recipient_is_named(ms: MailServers) -> None:
    with smtp(ms) as out:
        with pytest.raises(MailError, match="every recipient refused: zed@citylog.test"):
            out.send(letter("to nobody"), ["zed@citylog.test"], "alice@citylog.test")
        with pytest.raises(MailError, match=r"recipients refused: zed@citylog.test \(550"):
            out.send(letter("half"), ["bob@citylog.test", "zed@citylog.test"], "alice@citylog.test")
        out.send(letter("after"), ["bob@citylog.test"], "alice@citylog.test")  # the connection still works
    with imap(ms, "bob") as inbox:
        assert [b"Subject: half" in b or b"Subject: after" in b for _, b in inbox.fetch()] == [True, True]


@pytest.mark.parametrize("trust", ["another CA", "the system store"])
@pytest.mark.parametrize("which", ["imaps", "imap+starttls", "smtp+starttls", "smtps"])
def test_tls_to_a_server_whose_certificate_is_not_trusted_is_refused(
        mail: MailServers, tmp_path: Path, trust: str, which: str) -> None:
    cafile = str(mail_servers.write_ca(tmp_path / "other.pem")) if trust == "another CA" else None
    with pytest.raises(MailTlsError, match="certificate is not trusted"):
        if which.startswith("imap"):
            fetch_all(imap(mail, "bob", tls="ssl" if which == "imaps" else "starttls", cafile=cafile))
        else:
            smtp(mail, security="starttls" if which == "smtp+starttls" else "ssl", cafile=cafile).send(
                letter("x"), ["bob@citylog.test"], "alice@citylog.test")


def test_a_host_name_the_certificate_does_not_name_is_refused(mail: MailServers) -> None:
    inbound = ImapInbound("127.0.0.2", mail.imaps_port, "bob", "x", cafile=mail.cafile, timeout=5)
    with pytest.raises(MailError):  # not listening there, or (if it were) a name mismatch
        fetch_all(inbound)
    ok = ImapInbound("localhost", mail.imaps_port, "bob", mail.users["bob"].password, cafile=mail.cafile, timeout=5)
    with ok:
        fetch_all(ok)  # the certificate names localhost and 127.0.0.1


def test_a_closed_port_is_a_clean_error(mail: MailServers) -> None:
    with pytest.raises(MailError, match="connection refused"):
        smtp(mail).__class__(mail.host, mail_servers._free_port(), "alice", "x", cafile=mail.cafile,
                             timeout=5).send(b"x", ["bob@citylog.test"], "a@b")


# -- the helper's own contract -------------------------------------------------------
def test_no_mail_server_skips_locally(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no mail servers: dovecot not found"):
        no_mail_server("dovecot not found")


@pytest.mark.parametrize("ci", ["true", "1", "TRUE"])
def test_no_mail_server_fails_under_ci(monkeypatch: pytest.MonkeyPatch, ci: str) -> None:
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception, match="CI must run the mail server tests"):
        no_mail_server("dovecot not found")


def _fake_master(base: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    (base / "run").mkdir(parents=True)
    (base / "run" / "master.pid").write_text(f"{proc.pid}\n")
    return proc


def test_a_failed_stop_kills_dovecot_and_says_so(tmp_path: Path) -> None:
    proc = _fake_master(tmp_path)

    def failing_stop() -> None:
        raise NoMailServer("dovecot (pid 1) still ran 10 s after SIGTERM")

    try:
        with pytest.warns(RuntimeWarning, match="dovecot stop failed .*was killed"):
            mail_servers.stop_dovecot(tmp_path, failing_stop)
        assert proc.wait(timeout=5) == -9
    finally:
        proc.kill()
        proc.wait()


def test_a_dovecot_that_survives_the_kill_fails_loudly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proc = _fake_master(tmp_path)
    monkeypatch.setattr(mail_servers, "_kill", lambda pid: None)
    monkeypatch.setattr(mail_servers, "_pause", lambda: None)

    def failing_stop() -> None:
        raise subprocess.TimeoutExpired("dovecot", 10)

    try:
        with pytest.raises(MailServersLeftRunning, match="still runs after its stop failed"):
            mail_servers.stop_dovecot(tmp_path, failing_stop)
    finally:
        proc.kill()
        proc.wait()


def test_a_stopped_pair_leaves_no_process(mail: MailServers) -> None:
    """A second, short-lived pair (the session's keeps running): after the block no
    dovecot of it runs and its directory is gone."""
    with mail_servers.mail_servers(("erin",)) as other:
        pid, root = other.dovecot_pid, other.root
        assert pid is not None and os.path.exists(f"/proc/{pid}")
        assert other.imaps_port != mail.imaps_port
    assert not os.path.exists(f"/proc/{pid}") and not root.exists()


# -- from a config table, timeouts ---------------------------------------------------
def test_built_from_config_tables_with_the_password_from_the_environment(ms: MailServers) -> None:
    from cli.post.credentials import password_for

    env = {"BOB_PW": ms.users["bob"].password, "ALICE_PW": ms.users["alice"].password}
    smtp_section = {"host": ms.host, "port": ms.smtp_port, "user": "alice", "security": "starttls",
                    "cafile": ms.cafile, "password_env": "ALICE_PW"}
    imap_section = {"host": "localhost", "port": ms.imap_port, "user": "bob", "folder": "INBOX", "tls": "starttls",
                    "cafile": ms.cafile, "password_env": "BOB_PW"}
    with SmtpOutbound.from_section(smtp_section, password_for(smtp_section, env=env)) as out:
        out.send(letter("configured"), ["bob@citylog.test"], "alice@citylog.test")
    with ImapInbound.from_section(imap_section, password_for(imap_section, env=env)) as inbox:
        assert [b"configured" in body for _, body in inbox.fetch()] == [True]


def test_done_while_fetching(ms: MailServers) -> None:
    """The agent marks each message handled as it goes: the rest still arrive."""
    with smtp(ms) as out:
        for n in range(4):
            out.send(letter(f"one by one {n}"), ["carol@citylog.test"], "alice@citylog.test")
    seen = []
    with imap(ms, "carol") as inbox:
        for key, body in inbox.fetch():
            seen.append(body)
            inbox.done(key)
        assert fetch_all(inbox) == []
    assert [b"one by one %d" % n in body for n, body in enumerate(seen)] == [True] * 4
    assert len(list((ms.maildir("carol") / f".{DONE_FOLDER}" / "cur").iterdir())) == 4


@pytest.mark.parametrize("side", ["imap", "smtp"])
def test_a_server_that_never_answers_times_out(side: str) -> None:
    import socket

    with socket.socket() as mute:  # accepts connections (the kernel's backlog), never says a word
        mute.bind(("127.0.0.1", 0))
        mute.listen(4)
        port = mute.getsockname()[1]
        with pytest.raises(MailError, match="timed out"):
            if side == "imap":
                fetch_all(ImapInbound("127.0.0.1", port, "bob", "x", tls="starttls", timeout=0.5))
            else:
                SmtpOutbound("127.0.0.1", port, "bob", "x", timeout=0.5).send(b"x", ["b@c"], "a@b")


def test_a_dropped_inbound_frees_its_connection_without_the_cycle_collector(ms: MailServers) -> None:
    """``mail sync --watch`` opens transports every pass: one not closed must still go
    away when dropped (dovecot allows 10 connections per user and address)."""
    import gc
    import warnings
    import weakref

    inbound = imap(ms, "bob")
    fetch_all(inbound)
    conn = weakref.ref(inbound._conn)  # type: ignore[arg-type]
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)  # the unclosed socket, closed by its finalizer
            del inbound
        assert conn() is None
    finally:
        gc.enable()


def test_a_server_that_answers_a_byte_at_a_time_never_holds_a_send_past_its_deadline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow-drip SMTP server (no mail server needed: a socket on loopback) sends its
    greeting a byte every 0.1 s: each read is within the per-operation timeout, so a
    send without a total deadline took as long as the server liked — holding the mail
    agent's ledger lock, which is taken around a send.  Now a send ends by
    SEND_DEADLINE: a MailError (exit 4), the ledger lock released."""
    import socket
    import threading
    import time

    import cli.post.network as network

    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    greeting = b"220 " + b"s" * 200 + b"\r\n"  # 20 s of greeting
    sent = [0]

    def drip() -> None:
        conn, _ = server.accept()
        with conn:
            for byte in greeting:
                if stop.is_set():
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return
                sent[0] += 1
                time.sleep(0.1)

    thread = threading.Thread(target=drip, daemon=True)
    thread.start()
    monkeypatch.setattr(network, "SEND_DEADLINE", 1.0, raising=False)
    out = SmtpOutbound("127.0.0.1", server.getsockname()[1], None, None, "starttls", timeout=2.0)
    try:
        with pytest.raises(MailError, match="timed out"):
            out.send(letter("slow"), ["bob@citylog.test"], "alice@citylog.test")
        # the send gave up before the server finished its greeting (counted in bytes,
        # not seconds: a busy machine slows the server's drip as much as the client)
        assert sent[0] < len(greeting)
    finally:
        stop.set()
        out.close()
        server.close()
