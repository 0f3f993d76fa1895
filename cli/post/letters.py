"""citylog's mail: composed with deterministic ids on one thread per game, and
parsed safely.

Composing (:func:`compose`): ``Message-ID`` is made from the game, the seq, the
seat and the kind of mail (:func:`message_id`), so the same mail composed twice
(an agent restarted after a crash) is the same mail; ``In-Reply-To`` and
``References`` name the game's thread root ``<citylog.GAME.root@citylog>``; the
subject names the game, the seq and whose move it is; ``X-Citylog-Game``,
``-Seq``, ``-Seat`` and ``-Kind`` say the same to a machine.  These headers are
routing only: nothing in them is trusted (the signed attachments are checked
by the inbox, as any file).

Parsing (:func:`parse`): a message longer than :data:`MAX_MESSAGE` is refused
from its headers alone; at most :data:`MAX_PARTS` parts are looked at; only
``.json`` and ``.jsonl`` attachments of at most :data:`MAX_PART` bytes pass on;
HTML is never rendered nor read; an archive is never opened.
"""

from __future__ import annotations

import email
from collections.abc import Sequence
import email.policy
import hashlib
import re
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import format_datetime, getaddresses, parseaddr
from typing import Any

from cli.post.limits import MAX_MESSAGE

MAX_PARTS = 32
"""A message of more parts than this is refused (a real citylog mail has 2 or 3)."""
MAX_PART = 4 << 20
"""An attachment longer than this (4 MiB) is ignored, named in the reply."""
MAX_HEADER_BYTES = 64 * 1024
KNOWN_SUFFIXES = (".json", ".jsonl")
ARCHIVES = (".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".tar", ".zst")
KINDS = ("invite", "join", "reveal", "view", "final", "move", "handover", "refusal", "reminder")
_ATOM = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _atom(text: str) -> str:
    """``text`` if it can sit in a Message-ID as it is, else a short hash of it."""
    return text if _ATOM.fullmatch(text) else "h" + hashlib.sha256(text.encode()).hexdigest()[:16]


def thread_root(game: str) -> str:
    return f"<citylog.{_atom(game)}.root@citylog>"


def message_id(game: str, seq: int, seat: str, kind: str, extra: str = "") -> str:
    """The one Message-ID of the mail of ``kind`` for ``seat`` at ``seq`` of ``game``.

    >>> message_id("698ee8d1", 4, "alice", "view")
    '<citylog.698ee8d1.seq4.alice.view@citylog>'
    >>> message_id("698ee8d1", 4, "bob smith", "move", "ab12")
    '<citylog.698ee8d1.seq4.h7e50351d7a4c5116.move.ab12@citylog>'
    """
    tail = f".{_atom(extra)}" if extra else ""
    return f"<citylog.{_atom(game)}.seq{seq}.{_atom(seat)}.{kind}{tail}@citylog>"


def subject(game: str, seq: int, kind: str, seat: str, to_move: list[str] | None = None, why: str = "") -> str:
    """The subject line.

    >>> subject("698ee8d1", 4, "view", "alice", ["alice"])
    '[citylog 698ee8d1] seq 4: alice to move'
    >>> subject("698ee8d1", 33, "final", "bob")
    '[citylog 698ee8d1] seq 33: game over'
    """
    head = f"[citylog {game}] seq {seq}: "
    if kind == "view":
        return head + (f"{', '.join(to_move)} to move" if to_move else f"{seat} to move")
    if kind == "final":
        return head + "game over"
    if kind == "invite":
        return f"[citylog {game}] invitation for {seat}"
    if kind == "join":
        return f"[citylog {game}] {seat} joins"
    if kind == "move":
        return head + f"{seat}'s move"
    if kind == "reveal":
        return head + f"{seat} reveals the committed entropy"
    if kind == "handover":
        return head + f"{seat} hands over the seat"
    if kind == "reminder":
        return head + f"reminder: {seat} to move"
    return head + f"refused: {why}"[:200]


@dataclass(frozen=True)
class Attachment:
    filename: str
    data: bytes
    mime: str = "application/json"


def compose(
    *, game: str, seq: int, seat: str, kind: str, sender: str, to: list[str], subject_line: str, body: str,
    attachments: Sequence[Attachment] = (), in_reply_to: str | None = None, extra: str = "", when: Any = None,
) -> tuple[str, bytes]:
    """(Message-ID, raw bytes) of one citylog mail."""
    msg = EmailMessage(policy=email.policy.SMTP)
    mid = message_id(game, seq, seat, kind, extra)
    root = thread_root(game)
    msg["Message-ID"] = mid
    msg["From"] = sender
    msg["To"] = ", ".join(to)
    msg["Subject"] = subject_line
    if when is not None:
        msg["Date"] = format_datetime(when)
    parent = in_reply_to or root
    msg["In-Reply-To"] = parent
    msg["References"] = root if parent == root else f"{root} {parent}"
    msg["X-Citylog-Game"] = game
    msg["X-Citylog-Seq"] = str(seq)
    msg["X-Citylog-Seat"] = seat
    msg["X-Citylog-Kind"] = kind
    msg["Auto-Submitted"] = "auto-generated"
    msg.set_content(body)
    for a in attachments:
        maintype, _, subtype = a.mime.partition("/")
        msg.add_attachment(a.data, maintype=maintype, subtype=subtype, filename=a.filename)
    if msg.is_multipart():  # a boundary from the content, not at random: the same mail is the same bytes
        digest = hashlib.sha256(mid.encode() + body.encode() + b"".join(a.data for a in attachments)).hexdigest()
        msg.set_boundary(f"=_citylog_{digest[:32]}")
    return mid, msg.as_bytes()


@dataclass
class Parsed:
    message_id: str
    sender: str
    """The bare From address: where a reply goes.  Never trusted for anything else."""
    subject: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    """The X-Citylog-* headers (lower-case names without the prefix): routing hints only."""
    files: list[tuple[str, bytes]] = field(default_factory=list)
    """Known attachments (``.json``/``.jsonl``), to be checked as any file is."""
    ignored: list[str] = field(default_factory=list)
    """Why each other part was left unread."""
    refused: str | None = None
    """Why nothing of the message is read (too large, too many parts, nothing citylog's)."""
    citylog: bool = False
    """It says it is citylog's (an X-Citylog header or a citylog attachment): a refusal is answered."""
    auto: bool = False
    """It is an automatic reply or a refusal itself: never answered (no mail loops)."""
    in_reply_to: str = ""
    """The first Message-ID its ``In-Reply-To`` names (a refusal names the mail refused): a hint only."""

    def reason(self) -> str:
        parts = [self.refused] if self.refused else []
        return "; ".join(parts + self.ignored)


def _synthetic_id(raw: bytes) -> str:
    return f"<nomid.{hashlib.sha256(raw).hexdigest()[:32]}@citylog.invalid>"


def _clean_id(value: str | None, raw: bytes) -> str:
    text = " ".join(str(value or "").split())
    m = re.fullmatch(r"<[^<>\s]{1,250}>", text)
    return m.group(0) if m else _synthetic_id(raw)


def _headers_only(raw: bytes) -> EmailMessage:
    head = raw[:MAX_HEADER_BYTES]
    for sep in (b"\r\n\r\n", b"\n\n"):
        at = head.find(sep)
        if at >= 0:
            head = head[: at + len(sep)]
            break
    return email.message_from_bytes(head, policy=email.policy.default)


def _sender(msg: Any) -> str:
    for name in ("Reply-To", "From"):
        try:
            value = msg.get(name)
            pairs = getaddresses([str(value)]) if value else []
        except Exception:  # noqa: BLE001 - a malformed header is no address
            pairs = []
        for _, addr in pairs:
            if "@" in addr and len(addr) <= 254 and not any(c in addr for c in " \r\n<>,"):
                return addr
    return ""


def _base(msg: Any, raw: bytes) -> Parsed:
    def header(name: str) -> str:
        try:
            return " ".join(str(msg.get(name, "") or "").split())[:300]
        except Exception:  # noqa: BLE001
            return ""

    p = Parsed(_clean_id(header("Message-ID"), raw), _sender(msg), header("Subject"))
    parent = re.search(r"<[^<>\s]{1,250}>", header("In-Reply-To"))
    p.in_reply_to = parent.group(0) if parent else ""
    for key in ("Game", "Seq", "Seat", "Kind"):
        value = header(f"X-Citylog-{key}")
        if value:
            p.headers[key.lower()] = value
    p.citylog = bool(p.headers)
    auto = header("Auto-Submitted").lower()
    p.auto = p.headers.get("kind") in ("refusal", "reminder") or (bool(auto) and auto != "no" and not p.headers) \
        or bool(header("X-Failed-Recipients")) or "mailer-daemon" in p.sender.lower()
    return p


def parse(raw: bytes) -> Parsed:
    """What a message carries that citylog may read; never raises on any input."""
    if len(raw) > MAX_MESSAGE:
        p = _base(_headers_only(raw), raw)
        p.refused = f"the message is larger than {MAX_MESSAGE >> 20} MiB (not read)"
        return p
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
    except Exception:  # noqa: BLE001 - any parse failure is a refusal, never a crash
        p = _base(_headers_only(raw), raw)
        p.refused = "the message cannot be parsed"
        return p
    p = _base(msg, raw)
    try:
        _attachments(msg, p)
    except Exception as exc:  # noqa: BLE001 - a hostile structure never stops the agent
        p.files.clear()
        p.refused = f"the message cannot be read ({type(exc).__name__})"
    return p


def _attachments(msg: Any, p: Parsed) -> None:
    count = 0
    html = plain = False
    pages: list[str] = []
    for part in msg.walk():
        count += 1
        if count > MAX_PARTS:
            p.files.clear()
            p.refused = f"the message has more than {MAX_PARTS} parts (not read)"
            return
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        try:
            name = part.get_filename()
        except Exception:  # noqa: BLE001
            name = None
        if not name:
            if ctype == "text/html":
                html = True  # never rendered, never read
            elif ctype == "text/plain":
                plain = True
            continue
        shown = "".join(c if c.isprintable() else "?" for c in str(name))[:80]
        base = shown.replace("\\", "/").rsplit("/", 1)[-1]
        lower = base.lower()
        if lower.endswith(ARCHIVES):
            p.ignored.append(f"attachment {shown}: archives are never opened")
            continue
        if lower.endswith((".html", ".htm")):
            pages.append(f"attachment {shown}: HTML is never read")  # a replay page beside a view: fine
            continue
        if not lower.endswith(KNOWN_SUFFIXES) or not base or base.startswith("."):
            p.ignored.append(f"attachment {shown}: only citylog .json and .jsonl files are read")
            continue
        encoded = part.get_payload(decode=False)
        if isinstance(encoded, str) and len(encoded) > MAX_PART * 4 // 3 + 4096:
            p.ignored.append(f"attachment {shown}: larger than {MAX_PART >> 20} MiB")
            continue
        data = part.get_payload(decode=True) or b""
        if len(data) > MAX_PART:
            p.ignored.append(f"attachment {shown}: larger than {MAX_PART >> 20} MiB")
            continue
        p.files.append((base, data))
    if p.files:
        p.citylog = True
    else:
        p.ignored += pages
    if not p.files and not p.refused:
        why = "no citylog attachment (.json or .jsonl)"
        if html and not plain:
            why += "; an HTML-only mail is never read"
        p.refused = why


def addresses(text: str) -> list[str]:
    return [a for _, a in getaddresses([text]) if a]


def bare(address: str) -> str:
    return parseaddr(address)[1] or address
