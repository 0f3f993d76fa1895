"""Mail over the network: IMAP in (:class:`ImapInbound`), SMTP out (:class:`SmtpOutbound`).

Standard library only (``imaplib``, ``smtplib``, ``ssl``).  TLS is never
optional and never unverified: the server's certificate is checked against
``cafile`` when one is given (and then against that file only), else against
the system's trust store, and its name against ``host``.  Every connection has
a timeout, and every SMTP send a total deadline (:data:`SEND_DEADLINE`).  A
password is passed in (see :mod:`cli.post.credentials`) and is never written
anywhere.

IMAP, what "handled" means: :meth:`ImapInbound.done` sets ``\\Seen`` and the
keyword ``$CitylogDone`` on the message and then moves it into the folder
``citylog-done`` (created when missing; ``done_folder=None`` leaves it where it
is).  :meth:`ImapInbound.fetch` yields only messages of the folder that are
neither deleted nor carry ``$CitylogDone``, so a message whose move failed after
its flag was set is still never fetched again; a server that accepts no
keywords relies on the move alone.  Keys are ``UIDVALIDITY:UID`` of the folder.

Size: before a message is read its ``RFC822.SIZE`` is asked; one over
``max_bytes`` is never fetched (it stays in the folder, unhandled, and is listed
in :attr:`ImapInbound.oversize`) — unless ``on_oversize="truncate"``: then its
first ``max_bytes + 1`` octets are yielded, for a caller that refuses a message
longer than ``max_bytes`` from its headers (and replies, and marks it done).  The
fetch itself always asks for at most ``max_bytes + 1`` octets
(``BODY.PEEK[]<0.N>``), and a server that sends a bigger literal anyway is cut off.

Errors are :class:`MailError` (an environment failure: exit code 4 in the CLI),
with :class:`MailAuthError` for a refused login and :class:`MailTlsError` for a
certificate that is not trusted or a server that offers no TLS.
"""

from __future__ import annotations

import imaplib
import re
import smtplib
import socket
import ssl
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

from events.store import EnvironmentFailure

DEFAULT_TIMEOUT = 30.0
SEND_DEADLINE = 300.0
"""Seconds one SMTP send may take in all (connection, TLS, login and the message):
``timeout`` bounds each socket operation only, so a server that answers a byte at a
time held a send — and the mail agent's ledger lock, taken around it — for ever."""
DEFAULT_MAX_BYTES = 8 << 20  # = cli.post.transport.MAX_MESSAGE (m24t's), not imported: this module stands alone
DONE_KEYWORD = "$CitylogDone"
DONE_FOLDER = "citylog-done"
_LITERAL_SLACK = 64 * 1024  # a FETCH response's literal may exceed the asked octets by this much (headers, framing)


class MailError(EnvironmentFailure):
    """The mail server could not be reached, refused us, or broke the protocol."""


class MailAuthError(MailError):
    """The server refused the user name or password."""


class MailTlsError(MailError):
    """No trusted TLS: the certificate failed verification, or the server offers no TLS."""


def tls_context(cafile: str | None) -> ssl.SSLContext:
    """A client context that verifies certificate and host name (TLS 1.2 or later);
    ``cafile``: trust only the CA certificates in that file."""
    try:
        ctx = ssl.create_default_context(cafile=cafile)
    except (OSError, ssl.SSLError) as exc:
        raise MailTlsError(f"cafile {cafile}: {exc}") from None
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    return ctx


def _describe(host: str, port: int, exc: BaseException) -> MailError:
    if isinstance(exc, ssl.SSLCertVerificationError):
        return MailTlsError(f"{host}:{port}: the server's TLS certificate is not trusted ({exc.verify_message})")
    if isinstance(exc, ssl.SSLError):
        return MailTlsError(f"{host}:{port}: TLS failed ({exc.reason or exc})")
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return MailError(f"{host}:{port}: timed out")
    if isinstance(exc, ConnectionRefusedError):
        return MailError(f"{host}:{port}: connection refused")
    if isinstance(exc, MailError):
        return exc
    return MailError(f"{host}:{port}: {type(exc).__name__}: {exc}")


def _quote(mailbox: str) -> str:
    if not mailbox or not mailbox.isascii() or any(c in mailbox for c in "\r\n\0"):
        raise MailError(f"IMAP folder name {mailbox!r}: only plain ASCII names are supported")
    return '"' + mailbox.replace("\\", "\\\\").replace('"', '\\"') + '"'


_FETCH_UID = re.compile(rb"\bUID (\d+)")
_FETCH_SIZE = re.compile(rb"\bRFC822\.SIZE (\d+)")


class ImapInbound:
    """Messages of one IMAP folder (see the module's docstring for what is fetched and
    what :meth:`done` does).  One connection, opened on first use, reopened once when it
    broke; :meth:`close` (or ``with``) logs out."""

    def __init__(self, host: str, port: int, user: str, password: str, folder: str = "INBOX",
                 tls: Literal["ssl", "starttls"] = "ssl", cafile: str | None = None, *,
                 timeout: float = DEFAULT_TIMEOUT, max_bytes: int = DEFAULT_MAX_BYTES,
                 done_folder: str | None = DONE_FOLDER,
                 on_oversize: Literal["skip", "truncate"] = "skip") -> None:
        if on_oversize not in ("skip", "truncate"):
            raise MailError(f"on_oversize must be 'skip' or 'truncate', not {on_oversize!r}")
        self.on_oversize = on_oversize
        if tls not in ("ssl", "starttls"):
            raise MailError(f"IMAP tls must be 'ssl' or 'starttls', not {tls!r}")
        self.host, self.port, self.user, self.folder = host, port, user, folder
        self.tls, self.cafile, self.timeout, self.max_bytes = tls, cafile, timeout, max_bytes
        self.done_folder = done_folder
        self._password = password
        self._conn: imaplib.IMAP4 | None = None
        self._validity = ""
        self._keywords = True
        self._caps: set[str] = set()
        self._done_folder_ready = False
        self.oversize: list[tuple[str, int]] = []
        """(key, RFC822.SIZE) of the messages the last :meth:`fetch` left unread: over ``max_bytes``."""

    @classmethod
    def from_section(cls, section: Mapping[str, Any], password: str, **kw: Any) -> ImapInbound:
        """From a config's ``[imap]`` table: host, port (993), user, folder (INBOX), tls
        (ssl), cafile."""
        tls = section.get("tls", "ssl")
        return cls(str(section["host"]), int(section.get("port", 993 if tls == "ssl" else 143)), str(section["user"]),
                   password, str(section.get("folder", "INBOX")), tls, section.get("cafile"), **kw)

    # -- connection ------------------------------------------------------------------
    def __enter__(self) -> ImapInbound:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.logout()
            except (imaplib.IMAP4.error, OSError):
                pass

    def _open(self) -> imaplib.IMAP4:
        if self._conn is not None:
            return self._conn
        ctx = tls_context(self.cafile)
        conn: imaplib.IMAP4 | None = None
        try:
            if self.tls == "ssl":
                conn = _IMAP4_SSL(self.host, self.port, ssl_context=ctx, timeout=self.timeout)
            else:
                conn = _IMAP4(self.host, self.port, timeout=self.timeout)
            conn.literal_limit = self.max_bytes + _LITERAL_SLACK
            if self.tls == "starttls":
                if "STARTTLS" not in conn.capabilities:
                    raise MailTlsError(f"{self.host}:{self.port}: the IMAP server offers no STARTTLS")
                conn.starttls(ssl_context=ctx)
            if not (self.user + self._password).isascii():
                raise MailAuthError(f"{self.host}:{self.port}: IMAP user names and passwords must be ASCII here "
                                    f"(imaplib's LOGIN)")
            try:
                conn.login(self.user, self._password)
            except imaplib.IMAP4.error as exc:
                raise MailAuthError(f"{self.host}:{self.port}: IMAP login as {self.user!r} refused "
                                    f"({_text(exc)})") from None
            typ, data = conn.capability()  # after login: servers announce MOVE, UIDPLUS... only now
            self._caps = {c.upper() for c in data[0].decode("ascii", "replace").split()} if typ == "OK" and data else set()
            typ, data = conn.select(_quote(self.folder))
            if typ != "OK":
                raise MailError(f"{self.host}:{self.port}: no IMAP folder {self.folder!r} ({_text(data)})")
            validity = conn.untagged_responses.get("UIDVALIDITY", [b""])[-1]
            self._validity = validity.decode("ascii", "replace") if isinstance(validity, bytes) else str(validity)
            flags = b" ".join(x for x in conn.untagged_responses.get("PERMANENTFLAGS", []) if isinstance(x, bytes))
            self._keywords = b"\\*" in flags or DONE_KEYWORD.encode() in flags
        except BaseException as exc:
            if conn is not None:
                try:
                    conn.shutdown()
                except OSError:
                    pass
            if isinstance(exc, (OSError, imaplib.IMAP4.error, MailError)):
                raise _describe(self.host, self.port, exc) from None
            raise
        self._conn = conn
        return conn

    def _call(self, what: str, fn: Callable[[imaplib.IMAP4], tuple[str, list[Any]]], retry: bool = True) -> list[Any]:
        """Run one command; on a broken connection reopen it and try once more."""
        try:
            typ, data = fn(self._open())
        except (imaplib.IMAP4.abort, OSError) as exc:
            broken, self._conn = self._conn, None
            if broken is not None:
                try:
                    broken.shutdown()
                except OSError:
                    pass
            if retry and not isinstance(exc, ssl.SSLCertVerificationError):
                return self._call(what, fn, retry=False)
            raise _describe(self.host, self.port, exc) from None
        except imaplib.IMAP4.error as exc:
            raise MailError(f"{self.host}:{self.port}: IMAP {what} failed ({_text(exc)})") from None
        if typ != "OK":
            raise MailError(f"{self.host}:{self.port}: IMAP {what} refused ({_text(data)})")
        return data

    # -- Inbound ---------------------------------------------------------------------
    def fetch(self) -> Iterator[tuple[str, bytes]]:
        """Every message of the folder not yet handled, oldest first; those over
        ``max_bytes`` are not read (see :attr:`oversize`)."""
        self.oversize = []
        self._open()  # learns whether the folder takes keywords
        criteria = f"UNDELETED UNKEYWORD {DONE_KEYWORD}" if self._keywords else "UNDELETED"
        data = self._call("SEARCH", lambda c: c.uid("SEARCH", criteria))
        uids = sorted({int(u) for line in data if isinstance(line, bytes) for u in line.split()})
        for start in range(0, len(uids), 500):
            batch = uids[start:start + 500]
            sizes = self._sizes(batch)
            for uid in batch:
                key = f"{self._validity}:{uid}"
                size = sizes.get(uid)
                if size is None:
                    continue  # expunged meanwhile
                if size > self.max_bytes:
                    self.oversize.append((key, size))
                    if self.on_oversize == "skip":
                        continue
                raw = self._body(uid)
                if raw is None:
                    continue
                if len(raw) > self.max_bytes:
                    if size <= self.max_bytes:
                        self.oversize.append((key, len(raw)))  # its RFC822.SIZE understated it
                    if self.on_oversize == "skip":
                        continue
                yield key, raw

    def _sizes(self, uids: Sequence[int]) -> dict[int, int]:
        ids = ",".join(str(u) for u in uids)
        data = self._call("FETCH RFC822.SIZE", lambda c: c.uid("FETCH", ids, "(RFC822.SIZE)"))
        sizes: dict[int, int] = {}
        for item in data:
            line = item[0] if isinstance(item, tuple) else item
            if not isinstance(line, bytes):
                continue
            uid, size = _FETCH_UID.search(line), _FETCH_SIZE.search(line)
            if uid and size:
                sizes[int(uid.group(1))] = int(size.group(1))
        return sizes

    def _body(self, uid: int) -> bytes | None:
        data = self._call("FETCH", lambda c: c.uid("FETCH", str(uid), f"(BODY.PEEK[]<0.{self.max_bytes + 1}>)"))
        for item in data:
            if isinstance(item, tuple) and len(item) >= 2 and isinstance(item[1], bytes):
                found = _FETCH_UID.search(item[0])
                if found is None or int(found.group(1)) == uid:
                    return item[1]
        return None

    def done(self, key: str) -> None:
        """Mark ``key`` handled: ``\\Seen`` and ``$CitylogDone``, then moved to the done folder."""
        validity, _, uid = key.rpartition(":")
        if not uid.isdigit():
            raise MailError(f"not an IMAP message key: {key!r}")
        self._open()
        if validity != self._validity:
            raise MailError(f"{self.folder}: its UIDVALIDITY changed ({validity} -> {self._validity}); "
                            f"message {key} can no longer be named")
        flags = f"(\\Seen {DONE_KEYWORD})" if self._keywords else "(\\Seen)"
        self._call("STORE", lambda c: c.uid("STORE", uid, "+FLAGS.SILENT", flags))
        if self.done_folder is None or self.done_folder == self.folder:
            return
        self._ensure_done_folder()
        target = _quote(self.done_folder)
        self._open()
        caps = self._caps
        if "MOVE" in caps:
            self._call("MOVE", lambda c: c.uid("MOVE", uid, target))
        elif "UIDPLUS" in caps:
            self._call("COPY", lambda c: c.uid("COPY", uid, target))
            self._call("STORE", lambda c: c.uid("STORE", uid, "+FLAGS.SILENT", "(\\Deleted)"))
            self._call("EXPUNGE", lambda c: c.uid("EXPUNGE", uid))
        # else: without MOVE or UIDPLUS an expunge could remove other messages; the flags suffice

    def _ensure_done_folder(self) -> None:
        if self._done_folder_ready or self.done_folder is None:
            return
        name = _quote(self.done_folder)
        typ, data = self._open().list('""', name)
        if typ == "OK" and not any(isinstance(x, bytes) and x for x in data):
            typ, data = self._open().create(name)
            if typ != "OK" and b"ALREADYEXISTS" not in b" ".join(x for x in data if isinstance(x, bytes)):
                raise MailError(f"{self.host}:{self.port}: cannot create IMAP folder {self.done_folder!r} "
                                f"({_text(data)})")
        self._done_folder_ready = True


class _Bounded:
    """Refuse a server literal over ``literal_limit`` octets before reading it (imaplib
    would read whatever size the server announces).  A mix-in, not a wrapped method:
    a closure over the connection would make a reference cycle, and a dropped
    connection would then stay open until the cyclic garbage collector ran."""

    literal_limit = DEFAULT_MAX_BYTES + _LITERAL_SLACK

    def read(self, size: int) -> bytes:
        if size > self.literal_limit:
            raise imaplib.IMAP4.abort(f"the server sent a literal of {size} octets, over the limit of "
                                      f"{self.literal_limit}")
        return super().read(size)  # type: ignore[misc]


class _IMAP4(_Bounded, imaplib.IMAP4):
    pass


class _IMAP4_SSL(_Bounded, imaplib.IMAP4_SSL):
    pass


def _text(obj: object) -> str:
    if isinstance(obj, imaplib.IMAP4.error) and obj.args:
        obj = obj.args[0]
    if isinstance(obj, list):
        obj = b" ".join(x for x in obj if isinstance(x, bytes))
    if isinstance(obj, bytes):
        obj = obj.decode("utf-8", "replace")
    return str(obj)[:300]


class SmtpOutbound:
    """Mail sent through an SMTP server that requires TLS (STARTTLS or implicit TLS)
    and, when ``user`` is given, AUTH.  One connection, opened on first send, reopened
    once when it broke; :meth:`close` (or ``with``) quits."""

    def __init__(self, host: str, port: int, user: str | None, password: str | None,
                 security: Literal["starttls", "ssl"] = "starttls", cafile: str | None = None, *,
                 timeout: float = DEFAULT_TIMEOUT, local_hostname: str | None = None) -> None:
        if security not in ("starttls", "ssl"):
            raise MailError(f"SMTP security must be 'starttls' or 'ssl', not {security!r}")
        self.host, self.port, self.user, self.security = host, port, user, security
        self.cafile, self.timeout, self.local_hostname = cafile, timeout, local_hostname
        self._password = password
        self._conn: smtplib.SMTP | None = None
        self._watch: _Deadline | None = None

    @classmethod
    def from_section(cls, section: Mapping[str, Any], password: str | None, **kw: Any) -> SmtpOutbound:
        """From a config's ``[smtp]`` table: host, port (587, 465 for ssl), user,
        security (starttls), cafile."""
        security = section.get("security", "starttls")
        user = section.get("user")
        return cls(str(section["host"]), int(section.get("port", 465 if security == "ssl" else 587)),
                   None if user is None else str(user), password, security, section.get("cafile"), **kw)

    def __enter__(self) -> SmtpOutbound:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.quit()
            except (smtplib.SMTPException, OSError):
                conn.close()

    def _open(self) -> smtplib.SMTP:
        if self._conn is not None:
            return self._conn
        ctx = tls_context(self.cafile)
        conn: smtplib.SMTP | None = None
        try:
            if self.security == "ssl":
                conn = smtplib.SMTP_SSL(local_hostname=self.local_hostname, timeout=self.timeout, context=ctx)
            else:
                conn = smtplib.SMTP(local_hostname=self.local_hostname, timeout=self.timeout)
            if self._watch is not None:
                self._watch.conn = conn  # its socket is shut when the send's deadline passes
            conn._host = self.host  # type: ignore[attr-defined]  # what connect() would set: TLS checks this name
            code, message = conn.connect(self.host, self.port)
            if code != 220:  # (what the constructor checks when it connects)
                raise smtplib.SMTPConnectError(code, message)
            conn.ehlo()
            if self.security != "ssl":
                if not conn.has_extn("starttls"):
                    raise MailTlsError(f"{self.host}:{self.port}: the SMTP server offers no STARTTLS")
                conn.starttls(context=ctx)
                conn.ehlo()
            if self.user is not None:
                if not (self.user + (self._password or "")).isascii():
                    raise MailAuthError(f"{self.host}:{self.port}: SMTP user names and passwords must be ASCII here")
                try:
                    conn.login(self.user, self._password or "")
                except smtplib.SMTPAuthenticationError as exc:
                    raise MailAuthError(f"{self.host}:{self.port}: SMTP login as {self.user!r} refused "
                                        f"({exc.smtp_code} {_text(exc.smtp_error)})") from None
                except smtplib.SMTPNotSupportedError:
                    raise MailError(f"{self.host}:{self.port}: the SMTP server offers no AUTH") from None
        except BaseException as exc:
            if conn is not None:
                conn.close()
            if isinstance(exc, (OSError, smtplib.SMTPException, MailError)):
                raise _describe(self.host, self.port, exc) from None
            raise
        self._conn = conn
        return conn

    def send(self, raw: bytes, to: Sequence[str], sender: str) -> None:
        """Send ``raw`` (RFC 5322 bytes, CRLF line ends) to every address of ``to``.
        A recipient the server refuses is a :class:`MailError` naming it (the others
        may have been accepted: a message is safe to send twice, its Message-ID is
        fixed).  The whole send, a connection opened for it included, ends within
        :data:`SEND_DEADLINE` seconds (a MailError: timed out)."""
        if not to:
            raise MailError("no recipients")
        deadline = _Deadline(SEND_DEADLINE)
        self._watch = deadline
        try:
            self._send(raw, to, sender)
        except MailError:
            if deadline.expired:
                self._drop()
                raise MailError(f"{self.host}:{self.port}: the send took more than {deadline.seconds:g} s in all "
                                "(timed out)") from None
            raise
        finally:
            deadline.stop()
            self._watch = None

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def _send(self, raw: bytes, to: Sequence[str], sender: str) -> None:
        for attempt in (1, 2):
            conn = self._open()
            if self._watch is not None:
                self._watch.conn = conn
            options = []
            if not raw.isascii():
                if not conn.has_extn("8bitmime"):
                    raise MailError(f"{self.host}:{self.port}: the message is 8-bit and the server has no 8BITMIME")
                options.append("BODY=8BITMIME")
            try:
                refused = conn.sendmail(sender, list(to), raw, mail_options=options)
            except smtplib.SMTPServerDisconnected as exc:
                self._conn = None
                if attempt == 1:
                    continue
                raise _describe(self.host, self.port, exc) from None
            except smtplib.SMTPRecipientsRefused as exc:
                raise MailError(f"{self.host}:{self.port}: every recipient refused: {_refusals(exc.recipients)}") from None
            except smtplib.SMTPResponseException as exc:
                raise MailError(f"{self.host}:{self.port}: SMTP refused the message "
                                f"({exc.smtp_code} {_text(exc.smtp_error)})") from None
            except (smtplib.SMTPException, OSError) as exc:
                self._conn = None
                raise _describe(self.host, self.port, exc) from None
            if refused:
                raise MailError(f"{self.host}:{self.port}: recipients refused: {_refusals(refused)}")
            return


class _Deadline:
    """A total deadline for one send: when ``seconds`` pass before :meth:`stop`, the
    socket of ``conn`` (the connection in use, set as it is made) is shut, so the
    operation blocked on it fails at once, whatever each operation's own timeout."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.conn: smtplib.SMTP | None = None
        self.expired = False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="smtp-send-deadline", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        if self._done.wait(self.seconds):
            return
        self.expired = True
        while True:  # (a socket being made when it passed is shut as soon as it is there)
            sock = getattr(self.conn, "sock", None)
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            if self._done.wait(0.1):
                return

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


def _refusals(refused: Mapping[str, tuple[int, bytes]]) -> str:
    return "; ".join(f"{addr} ({code} {_text(msg)})" for addr, (code, msg) in refused.items())
