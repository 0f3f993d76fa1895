"""Composing and parsing citylog's mail (issue 24): deterministic ids on one
thread per game, and a parser that reads only what it may."""

from __future__ import annotations

import email
import email.policy
from datetime import datetime, timezone
from email.message import EmailMessage

import pytest

from cli.post import letters
from cli.post.transport import MAX_MESSAGE

WHEN = datetime(2026, 12, 2, 8, 0, tzinfo=timezone.utc)


def _view_mail(**over: object) -> tuple[str, bytes]:
    args: dict = dict(game="698ee8d1", seq=4, seat="alice", kind="view", sender="host@example.test",
                      to=["alice@example.test"], subject_line=letters.subject("698ee8d1", 4, "view", "alice", ["alice"]),
                      body="the board\n", attachments=[letters.Attachment("698ee8d1-seq4-alice.jsonl", b'{"x": 1}\n',
                                                                          "application/jsonl")], when=WHEN)
    args.update(over)
    return letters.compose(**args)


def test_the_same_mail_composed_twice_is_the_same_bytes_and_id() -> None:
    assert _view_mail() == _view_mail()
    mid, _ = _view_mail()
    assert mid == "<citylog.698ee8d1.seq4.alice.view@citylog>"
    assert _view_mail(seq=5)[0] != mid and _view_mail(seat="bob")[0] != mid and _view_mail(kind="final")[0] != mid


def test_headers_thread_the_game_and_name_seq_and_seat() -> None:
    mid, raw = _view_mail()
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert msg["Message-ID"] == mid
    assert msg["In-Reply-To"] == "<citylog.698ee8d1.root@citylog>" == msg["References"]
    assert msg["Subject"] == "[citylog 698ee8d1] seq 4: alice to move"
    assert (msg["X-Citylog-Game"], msg["X-Citylog-Seq"], msg["X-Citylog-Seat"], msg["X-Citylog-Kind"]) == \
        ("698ee8d1", "4", "alice", "view")
    _, reply = _view_mail(kind="move", in_reply_to=mid)
    r = email.message_from_bytes(reply, policy=email.policy.default)
    assert r["In-Reply-To"] == mid and " ".join(str(r["References"]).split()) == f"<citylog.698ee8d1.root@citylog> {mid}"


def test_a_hostile_game_id_or_name_cannot_break_the_message_id() -> None:
    mid = letters.message_id("a>b@c", 1, "x y\r\nBcc: all", "move")
    assert "\n" not in mid and " " not in mid and mid.count("<") == 1 and mid.count(">") == 1
    assert mid.endswith("@citylog>")


def test_parse_finds_the_attachment_and_the_routing_headers() -> None:
    mid, raw = _view_mail()
    p = letters.parse(raw)
    assert p.refused is None and p.message_id == mid and p.sender == "host@example.test"
    assert p.files == [("698ee8d1-seq4-alice.jsonl", b'{"x": 1}\n')]
    assert p.headers == {"game": "698ee8d1", "seq": "4", "seat": "alice", "kind": "view"}


def _mail(parts: list[tuple[str, bytes, str]], html: str | None = None, plain: str | None = "hi") -> bytes:
    msg = EmailMessage()
    msg["From"] = "eve@example.test"
    msg["To"] = "host@example.test"
    msg["Message-ID"] = "<x1@example.test>"
    msg["X-Citylog-Game"] = "698ee8d1"
    if plain is not None:
        msg.set_content(plain)
    if html is not None:
        if plain is None:
            msg.set_content(html, subtype="html")
        else:
            msg.add_alternative(html, subtype="html")
    for name, data, mime in parts:
        main, _, sub = mime.partition("/")
        msg.add_attachment(data, maintype=main, subtype=sub, filename=name)
    return msg.as_bytes()


def test_a_message_over_the_limit_is_refused_from_its_headers_alone() -> None:
    raw = _mail([]) + b"x" * (MAX_MESSAGE + 10)
    p = letters.parse(raw)
    assert p.refused is not None and "larger than 8 MiB" in p.refused and p.files == []
    assert p.message_id == "<x1@example.test>" and p.sender == "eve@example.test"


def test_thousands_of_parts_are_refused() -> None:
    raw = _mail([(f"m{i}.json", b"{}", "application/json") for i in range(5000)])
    p = letters.parse(raw)
    assert p.refused is not None and "more than 32 parts" in p.refused and p.files == []


def test_an_html_only_mail_is_never_read() -> None:
    p = letters.parse(_mail([], html="<p>build R F5</p><img src='http://x/y'>", plain=None))
    assert p.refused is not None and "HTML-only" in p.refused and p.files == []


def test_archives_and_unknown_kinds_are_left_unread_and_named() -> None:
    bomb = b"PK\x03\x04" + b"\0" * 1000
    p = letters.parse(_mail([("move.zip", bomb, "application/zip"), ("evil.exe", b"MZ", "application/octet-stream"),
                             ("page.html", b"<p>", "text/html")]))
    assert p.files == []
    why = p.reason()
    assert "move.zip: archives are never opened" in why and "evil.exe" in why and "page.html" in why


def test_an_attachment_over_its_limit_is_left_unread() -> None:
    p = letters.parse(_mail([("big.json", b"{" + b" " * (letters.MAX_PART + 1) + b"}", "application/json")]))
    assert p.files == [] and "big.json: larger than 4 MiB" in p.reason()


def test_a_path_in_an_attachment_name_is_dropped() -> None:
    p = letters.parse(_mail([("../../etc/passwd.json", b"{}", "application/json")]))
    assert p.files == [("passwd.json", b"{}")]


@pytest.mark.parametrize("raw", [b"", b"\0\xff" * 100, b"Message-ID: <\n\n", b"Content-Type: multipart/mixed; boundary=\"\n\n--\n",
                                 b"From: =?utf-8?b?////?=\nSubject: \xff\xfe\n\nbody"])
def test_garbage_never_raises(raw: bytes) -> None:
    p = letters.parse(raw)
    assert p.files == [] and p.refused
    assert p.message_id.startswith("<") and p.message_id.endswith(">")


def test_refusals_and_bounces_are_never_answered() -> None:
    _, raw = _view_mail(kind="refusal")
    assert letters.parse(raw).auto
    bounce = b"From: MAILER-DAEMON@example.test\nMessage-ID: <b@x>\nSubject: Undelivered\n\nsorry\n"
    assert letters.parse(bounce).auto
    assert not letters.parse(_view_mail()[1]).auto
