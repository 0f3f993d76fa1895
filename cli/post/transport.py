"""How mail comes in and goes out: two small protocols and the factory that
opens them from a :class:`~cli.post.config.MailConfig`.

An :class:`Inbound` yields the messages not yet marked handled, as raw RFC 5322
bytes, never more than :data:`MAX_FETCH` of one message (a longer one is cut
there: :mod:`cli.post.letters` refuses it as too large); ``done`` marks one
handled.  An :class:`Outbound` sends raw bytes.  Local kinds are in
:mod:`cli.post.local`, IMAP and SMTP in :mod:`cli.post.network`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from cli.post.config import MailConfig
from cli.post.limits import MAX_FETCH, MAX_MESSAGE
from events.store import EnvironmentFailure

__all__ = ["MAX_FETCH", "MAX_MESSAGE", "Inbound", "Outbound", "open_inbound", "open_outbound"]


class Inbound(Protocol):
    def fetch(self) -> Iterator[tuple[str, bytes]]:
        """(key, raw RFC 5322 bytes) of each message not marked handled."""
        ...

    def done(self, key: str) -> None:
        """Mark the message ``key`` handled: it is never fetched again."""
        ...


class Outbound(Protocol):
    def send(self, raw: bytes, to: Sequence[str], sender: str) -> None: ...


def open_inbound(cfg: MailConfig) -> Inbound:
    from cli.post import local

    kind = cfg.inbound_kind
    if kind == "maildir":
        return local.MaildirInbound(cfg.path_of(cfg.inbound))
    if kind == "mbox":
        return local.MboxInbound(cfg.path_of(cfg.inbound))
    network, password_for = _network()
    t = cfg.imap
    return network.ImapInbound(str(t["host"]), int(t.get("port", 993)), str(t.get("user", cfg.address)),
                               password_for(t), str(t.get("folder", "INBOX")), tls=str(t.get("tls", "ssl")),
                               cafile=str(t["cafile"]) if t.get("cafile") else None,
                               max_bytes=MAX_MESSAGE, on_oversize="truncate")  # refused from its headers, with a reply


def open_outbound(cfg: MailConfig) -> Outbound:
    from cli.post import local

    kind = cfg.outbound_kind
    if kind == "eml":
        return local.EmlFolderOutbound(cfg.path_of(cfg.outbound))
    if kind == "sendmail":
        return local.SendmailOutbound(cfg.outbound.partition(":")[2])
    network, password_for = _network()
    t = cfg.smtp
    return network.SmtpOutbound(str(t["host"]), int(t.get("port", 587)), str(t.get("user", cfg.address)),
                                password_for(t), security=str(t.get("security", "starttls")),
                                cafile=str(t["cafile"]) if t.get("cafile") else None)


def _network() -> tuple[Any, Any]:
    """``cli.post.network`` and ``cli.post.credentials.password_for`` (imported when
    a server is configured: a Maildir set-up never loads imaplib or smtplib)."""
    import importlib

    try:
        network = importlib.import_module("cli.post.network")
        password_for = importlib.import_module("cli.post.credentials").password_for
    except ImportError as exc:  # pragma: no cover - a build without the network transports
        raise EnvironmentFailure(f"IMAP/SMTP is not available in this build ({exc})") from None
    return network, password_for
