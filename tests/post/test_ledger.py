"""The agent's ledger, its configuration file and the local transports (issue 24)."""

from __future__ import annotations

import mailbox
import sys
from pathlib import Path

import pytest

from cli.post import config
from cli.post.ledger import Ledger, View
from cli.post.local import EmlFolderOutbound, MaildirInbound, MboxInbound, SendmailOutbound
from cli.post.transport import MAX_FETCH, open_inbound, open_outbound
from events.service import ServiceError
from events.store import EnvironmentFailure


def test_a_message_id_is_queued_once_and_sent_once(tmp_path: Path) -> None:
    led = Ledger(tmp_path)
    with led.transaction():
        assert led.queue("<a@x>", ["b@x"], b"raw", "g", "view", "alice", 4)
        assert not led.queue("<a@x>", ["b@x"], b"other", "g", "view", "alice", 4)
    assert [q.raw for q in led.unsent()] == [b"raw"]
    led.mark_sent("<a@x>")
    assert led.unsent() == [] and led.sent_count("g") == 1 and led.last_sent("g", "alice", "view") == 4


def test_a_rolled_back_transaction_records_nothing(tmp_path: Path) -> None:
    led = Ledger(tmp_path)
    with pytest.raises(KeyboardInterrupt), led.transaction():
        led.mark_handled("<m@x>", "d1", "eve@x", "accepted")
        led.mark_key("new/1")
        raise KeyboardInterrupt
    assert not led.handled("<m@x>", "d1") and not led.key_done("new/1")
    led.close()
    again = Ledger(tmp_path)
    assert not again.handled("<m@x>", "d1")
    again.mark_handled("<m@x>", "d1", "eve@x", "accepted")
    assert again.handled("<m@x>", "d1") and not again.handled("<m@x>", "d2")


def test_latest_view_is_the_newest_and_final_wins(tmp_path: Path) -> None:
    led = Ledger(tmp_path)
    for seq, kind in ((4, "view"), (9, "view"), (20, "final")):
        led.add_view(View("g", "alice", seq, kind, tmp_path / f"v{seq}.jsonl", f"<{seq}@x>", kind == "view"))
    led.add_view(View("g", "bob", 5, "view", tmp_path / "b5.jsonl", "<b5@x>", True))
    latest = {v.player: v for v in led.latest_views()}
    assert latest["alice"].seq == 20 and latest["alice"].kind == "final" and latest["bob"].seq == 5
    assert latest["alice"].path == tmp_path / "v20.jsonl"  # kept relative to the data directory


def test_the_host_address_of_a_game_is_the_first_one(tmp_path: Path) -> None:
    led = Ledger(tmp_path)
    led.set_host("g", "host@x", "k1")
    led.set_host("g", "eve@x", "k2")
    assert led.host("g") == ("host@x", "k1")


def test_config_round_trip_and_no_password_written(tmp_path: Path) -> None:
    cfg = config.MailConfig(address="alice@example.org", inbound="imap", outbound="smtp", name='Al "x" ice',
                            imap={"host": "imap.example.org", "port": 993, "user": "alice", "password_env": "P"},
                            smtp={"host": "smtp.example.org", "port": 587, "security": "starttls"}, home=tmp_path)
    config.save(cfg)
    text = (tmp_path / "mail.toml").read_text()
    assert "password =" not in text
    assert config.load(tmp_path) == cfg
    with pytest.raises(ServiceError, match="exists"):
        config.save(cfg)


@pytest.mark.parametrize(("text", "why"), [
    ('address = "x"\ninbound = "maildir:M"\noutbound = "eml:o"\n', "not an email address"),
    ('address = "a@b"\ninbound = "pop3"\noutbound = "eml:o"\n', "inbound must be"),
    ('address = "a@b"\ninbound = "maildir:"\noutbound = "eml:o"\n', "needs a path"),
    ('address = "a@b"\ninbound = "imap"\noutbound = "eml:o"\n', "needs a host"),
    ('address = "a@b"\ninbound = "maildir:M"\noutbound = "eml:o"\nsecret = 1\n', "unknown key"),
    ('address = [\n', "not TOML"),
])
def test_a_bad_config_is_one_line(tmp_path: Path, text: str, why: str) -> None:
    (tmp_path / "mail.toml").write_text(text)
    with pytest.raises(ServiceError, match=why):
        config.load(tmp_path)


def test_maildir_yields_unhandled_mail_and_done_hides_it(tmp_path: Path) -> None:
    box = mailbox.Maildir(tmp_path / "M", create=True)
    box.add(b"Subject: one\n\nx\n")
    box.add(b"Subject: two\n\ny\n")
    inbound = MaildirInbound(tmp_path / "M")
    got = list(inbound.fetch())
    assert len(got) == 2
    inbound.done(got[0][0])
    assert [raw for _, raw in inbound.fetch()] == [got[1][1]]
    inbound.done(got[0][0])  # twice: harmless


def test_maildir_reads_at_most_the_fetch_limit(tmp_path: Path) -> None:
    inbound = MaildirInbound(tmp_path / "M")
    (tmp_path / "M" / "new" / "big").write_bytes(b"Subject: big\n\n" + b"x" * (MAX_FETCH + 100))
    [(_, raw)] = list(inbound.fetch())
    assert len(raw) == MAX_FETCH


def test_mbox_is_read_only_and_keys_are_stable(tmp_path: Path) -> None:
    box = mailbox.mbox(tmp_path / "box", create=True)
    box.add(b"From: a@x\nSubject: one\n\nx\n")
    box.flush()
    before = (tmp_path / "box").read_bytes()
    first = list(MboxInbound(tmp_path / "box").fetch())
    assert first == list(MboxInbound(tmp_path / "box").fetch()) and len(first) == 1
    assert (tmp_path / "box").read_bytes() == before


def test_eml_folder_writes_each_mail_once(tmp_path: Path) -> None:
    out = EmlFolderOutbound(tmp_path / "o")
    out.send(b"Subject: x\n\ny\n", ["a@x"], "h@x")
    out.send(b"Subject: x\n\ny\n", ["a@x"], "h@x")
    assert len(list((tmp_path / "o").glob("*.eml"))) == 1 and not list((tmp_path / "o").glob(".*"))


def test_sendmail_gets_the_message_and_the_envelope(tmp_path: Path) -> None:
    script = tmp_path / "fake-sendmail"
    script.write_text(f"#!{sys.executable}\nimport sys\nopen({str(tmp_path / 'got')!r}, 'wb').write("
                      "' '.join(sys.argv[1:]).encode() + b'\\n' + sys.stdin.buffer.read())\n")
    script.chmod(0o755)
    SendmailOutbound(str(script)).send(b"Subject: x\n\ny\n", ["a@x", "b@x"], "h@x")
    assert (tmp_path / "got").read_bytes() == b"-i -f h@x -- a@x b@x\nSubject: x\n\ny\n"
    with pytest.raises(EnvironmentFailure, match="failed"):
        SendmailOutbound("false").send(b"x", ["a@x"], "h@x")


def test_the_factory_opens_local_kinds_relative_to_the_data_directory(tmp_path: Path) -> None:
    cfg = config.MailConfig(address="a@b", inbound="maildir:M", outbound="eml:o", home=tmp_path)
    assert isinstance(open_inbound(cfg), MaildirInbound) and (tmp_path / "M" / "new").is_dir()
    assert open_outbound(cfg).folder == tmp_path / "o"  # type: ignore[attr-defined]
