"""Real mail servers on loopback for the mail tests: SMTP (aiosmtpd) and IMAP (dovecot).

    with mail_servers(["alice", "bob"]) as ms:      # NoMailServer when they cannot start
        ms.smtp_port, ms.smtps_port                 # STARTTLS / implicit TLS, AUTH PLAIN LOGIN
        ms.imap_port, ms.imaps_port                 # STARTTLS / implicit TLS, passwd-file users
        ms.cafile, ms.users["alice"].password, ms.maildir("alice")

* SMTP is aiosmtpd in this process (two controllers on 127.0.0.1: one that
  requires STARTTLS before AUTH, one speaking TLS from the first byte); each
  accepted message is delivered, as sent, into the Maildir of every recipient
  whose address is ``USER@citylog.test`` (any other recipient: 550).  AUTH is
  required and checked against the same users and passwords.
* IMAP is Debian's dovecot (``/usr/sbin/dovecot``, package dovecot-imapd) run
  from a configuration written into a fresh temporary directory, listening on
  127.0.0.1 only, as a non-root user: when we are root, it is started with
  ``runuser`` as ``nobody`` (the Maildirs, its run and state directories belong
  to that user), as :mod:`tests.helpers.pg_server` starts PostgreSQL.  Plain
  text login is refused until TLS is up (``ssl = required``).
* One throwaway CA (EC P-256, made with ``cryptography``) signs the server
  certificate for ``localhost`` and ``127.0.0.1``; clients trust ``ms.cafile``.

Both listen on free ports picked at start.  Stopping dovecot that fails is never
silent: it is killed, with a warning, and :class:`MailServersLeftRunning` if it
still runs.  ``no_mail_server(reason)`` skips locally and fails under ``CI=true``.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import os
import pwd
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DOMAIN = "citylog.test"
DOVECOT_CANDIDATES = ("/usr/sbin/dovecot",)


class NoMailServer(Exception):
    """The mail servers could not be started here; the message says why."""


class MailServersLeftRunning(RuntimeError):
    """The throwaway dovecot could not be stopped, not even by a kill."""


@dataclass(frozen=True)
class TestUser:
    __test__ = False  # not a pytest test class
    name: str
    password: str

    @property
    def address(self) -> str:
        return f"{self.name}@{DOMAIN}"


@dataclass
class MailServers:
    host: str
    smtp_port: int
    smtps_port: int
    imap_port: int
    imaps_port: int
    cafile: str
    root: Path
    users: dict[str, TestUser]
    dovecot_pid: int | None = None
    start_seconds: dict[str, float] = field(default_factory=dict)

    def maildir(self, user: str) -> Path:
        return self.root / "users" / user / "Maildir"


# -- certificates ------------------------------------------------------------------
def make_ca(common_name: str) -> tuple[Any, Any]:
    """A self-signed CA: (private key, certificate)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                     content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return key, cert


def make_server_cert(ca_key: Any, ca_cert: Any, hostnames: Sequence[str] = ("localhost",),
                     ips: Sequence[str] = ("127.0.0.1",)) -> tuple[bytes, bytes]:
    """(certificate PEM, key PEM) for a server, signed by the CA."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    sans: list[x509.GeneralName] = [x509.DNSName(h) for h in hostnames]
    sans += [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostnames[0])]))
        .issuer_name(ca_cert.subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


def write_ca(path: Path, common_name: str = "citylog other test CA") -> Path:
    """Write a fresh CA certificate (that signed nothing here) to ``path``: a cafile
    that must not make the test servers trusted."""
    from cryptography.hazmat.primitives import serialization

    _, cert = make_ca(common_name)
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path


# -- SMTP: aiosmtpd, delivering into Maildirs --------------------------------------
def deliver(maildir: Path, raw: bytes, owner: tuple[int, int] | None) -> Path:
    """Maildir delivery: write into tmp/, then rename into new/ (the file owned by
    ``owner`` when given, so that the IMAP server's user can rename it)."""
    name = f"{time.time_ns()}.P{os.getpid()}Q{next(_counter)}.citylog-test"
    tmp = maildir / "tmp" / name
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        if owner is not None:
            os.fchown(fd, *owner)
        os.write(fd, raw)
        os.fsync(fd)
    finally:
        os.close(fd)
    final = maildir / "new" / name
    os.rename(tmp, final)
    return final


def _count() -> Iterator[int]:
    n = 0
    while True:
        n += 1
        yield n


_counter = _count()


class _Deliver:
    """aiosmtpd handler: local recipients only; DATA lands in each one's Maildir."""

    def __init__(self, servers: MailServers, owner: tuple[int, int] | None) -> None:
        self.servers = servers
        self.owner = owner
        self.delivered: list[tuple[str, Path]] = []

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: Any) -> str:
        local, _, domain = address.rpartition("@")
        if domain.lower() != DOMAIN or local.lower() not in self.servers.users:
            return f"550 5.1.1 no such user here: {address}"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        assert isinstance(raw, bytes)
        for address in envelope.rcpt_tos:
            user = address.rpartition("@")[0].lower()
            path = deliver(self.servers.maildir(user), raw, self.owner)
            self.delivered.append((user, path))
        return "250 Message accepted for delivery"


def _implicit_tls_controller() -> type:
    from aiosmtpd.controller import Controller

    class ImplicitTlsController(Controller):  # type: ignore[misc]
        """SMTPS: aiosmtpd cannot tell that the session is TLS from the first byte, so
        AUTH must be allowed "without TLS" — and its warning about that is silenced."""

        def factory(self) -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                return super().factory()

    return ImplicitTlsController


def _authenticator(users: dict[str, TestUser]) -> Callable[..., Any]:
    from aiosmtpd.smtp import AuthResult, LoginPassword

    def check(server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> Any:
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        login = auth_data.login.decode("utf-8", "replace")
        user = users.get(login.rpartition("@")[0] if "@" in login else login)
        ok = user is not None and auth_data.password.decode("utf-8", "replace") == user.password
        return AuthResult(success=ok, handled=False)

    return check


# -- IMAP: dovecot as a non-root user ----------------------------------------------
def _dovecot() -> str:
    for candidate in (shutil.which("dovecot"), *DOVECOT_CANDIDATES):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise NoMailServer("dovecot not found (install Debian's dovecot-imapd: bash .ci/setup)")


def _server_user() -> pwd.struct_passwd | None:
    if os.geteuid() != 0:
        return None
    if shutil.which("runuser") is None:
        raise NoMailServer("running as root and runuser is missing (util-linux: bash .ci/setup)")
    for name in ("nobody",):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise NoMailServer("running as root and no non-root user (nobody) to run dovecot")


def _as(user: pwd.struct_passwd | None, argv: list[str]) -> list[str]:
    return ["runuser", "-u", user.pw_name, "--", *argv] if user is not None else argv


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


DOVECOT_CONF = """\
# A throwaway dovecot for citylog's tests (tests/helpers/mail_servers.py).
instance_name = citylog-test-{imaps_port}
base_dir = {base}/run
state_dir = {base}/state
log_path = {base}/dovecot.log
info_log_path = {base}/dovecot.log
protocols = imap
listen = 127.0.0.1
default_internal_user = {user}
default_internal_group = {group}
default_login_user = {user}
first_valid_uid = {uid}
first_valid_gid = {gid}
mail_uid = {uid}
mail_gid = {gid}
ssl = required
ssl_cert = <{base}/server.pem
ssl_key = <{base}/server.key
ssl_min_protocol = TLSv1.2
disable_plaintext_auth = yes
auth_mechanisms = plain login
auth_failure_delay = 0
hostname = localhost
mail_location = maildir:~/Maildir
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%n {base}/passwd
}}
userdb {{
  driver = passwd-file
  args = username_format=%n {base}/passwd
  default_fields = uid={uid} gid={gid} home={root}/users/%n
}}
namespace inbox {{
  inbox = yes
  separator = /
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap_port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps_port}
    ssl = yes
  }}
}}
service pop3-login {{
  chroot =
}}
service submission-login {{
  chroot =
}}
service imap-urlauth-login {{
  chroot =
}}
service anvil {{
  chroot =
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
service ipc {{
  chroot =
}}
service old-stats {{
  chroot =
}}
service director {{
  chroot =
}}
service aggregator {{
  chroot =
}}
service auth-worker {{
  user = {user}
}}
"""


def _wait_for_greeting(port: int, context: ssl.SSLContext, deadline: float, alive: Callable[[], bool]) -> None:
    last = ""
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as raw:
                with context.wrap_socket(raw, server_hostname="localhost") as tls:
                    if tls.recv(200).startswith(b"* OK"):
                        return
        except OSError as exc:
            last = str(exc)
        if not alive():
            break
        time.sleep(0.02)
    raise NoMailServer(f"dovecot did not greet on 127.0.0.1:{port} ({last})")


def stop_dovecot(base: Path, dovecot_stop: Callable[[], None]) -> None:
    """Stop the dovecot of ``base`` with ``dovecot_stop``; if that fails, kill it.

    A failed stop is never silent: the master (``run/master.pid``) is killed and a
    warning says why; if it still runs, :class:`MailServersLeftRunning`."""
    try:
        dovecot_stop()
        return
    except (NoMailServer, subprocess.TimeoutExpired) as exc:
        why = str(exc)
    pid = _master_pid(base)
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            _kill(pid)
        for _ in range(100):
            if not _alive(pid):
                break
            _pause()
        if _alive(pid):
            raise MailServersLeftRunning(f"dovecot (pid {pid}, {base}) still runs after its stop failed ({why}) and a kill")
    message = f"dovecot stop failed ({why}); the server (pid {pid}) was killed"
    sys.stderr.write(f"WARNING: {message}\n")
    warnings.warn(message, RuntimeWarning, stacklevel=2)


def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)


def _pause() -> None:
    time.sleep(0.05)


def _master_pid(base: Path) -> int | None:
    try:
        first = (base / "run" / "master.pid").read_text().strip()
    except OSError:
        return None
    return int(first) if first.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie (not our child: dovecot daemonizes) counts as gone
    with contextlib.suppress(OSError):
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return False
    return True


def _tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace").strip()[-600:]
    except OSError:
        return ""


DEFAULT_USERS = ("alice", "bob", "carol")


@contextlib.contextmanager
def mail_servers(names: Sequence[str] = DEFAULT_USERS) -> Iterator[MailServers]:
    """Start SMTP and IMAP on loopback for ``names`` (passwords ``NAME-pw-…``);
    stop both and delete everything after."""
    started_at = time.monotonic()
    dovecot = _dovecot()
    try:
        import aiosmtpd  # noqa: F401
    except ImportError:
        raise NoMailServer("aiosmtpd is not installed (pip install -e '.[test]')") from None
    user = _server_user()
    uid, gid = (user.pw_uid, user.pw_gid) if user is not None else (os.getuid(), os.getgid())
    owner = (uid, gid) if user is not None else None
    group = _group_name(gid)
    base = Path(tempfile.mkdtemp(prefix="clmail-", dir="/tmp"))
    base.chmod(0o755)
    users = {n: TestUser(n, f"{n}-pw-{os.urandom(4).hex()}") for n in names}
    controllers: list[Any] = []
    proc: subprocess.Popen[bytes] | None = None
    log: Any = None
    try:
        # certificates
        from cryptography.hazmat.primitives import serialization

        ca_key, ca_cert = make_ca("citylog test CA")
        cert_pem, key_pem = make_server_cert(ca_key, ca_cert)
        cafile = base / "ca.pem"
        cafile.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
        (base / "server.pem").write_bytes(cert_pem)
        (base / "server.key").write_bytes(key_pem)
        (base / "server.key").chmod(0o600)
        t_certs = time.monotonic()
        # Maildirs
        for n in names:
            for sub in ("cur", "new", "tmp"):
                (base / "users" / n / "Maildir" / sub).mkdir(parents=True, mode=0o700)
        for d in ("run", "state"):
            (base / d).mkdir(mode=0o700)
        (base / "passwd").write_text("".join(f"{u.name}:{{PLAIN}}{u.password}::::::\n" for u in users.values()))
        (base / "passwd").chmod(0o600)
        servers = MailServers(host="127.0.0.1", smtp_port=0, smtps_port=0, imap_port=0, imaps_port=0,
                              cafile=str(cafile), root=base, users=users)
        # SMTP
        from aiosmtpd.controller import Controller

        _ImplicitTlsController = _implicit_tls_controller()

        server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        server_ctx.load_cert_chain(base / "server.pem", base / "server.key")
        handler = _Deliver(servers, owner)
        auth = _authenticator(users)
        common = dict(hostname="127.0.0.1", server_hostname="localhost", authenticator=auth, auth_required=True,
                      data_size_limit=64 * 1024 * 1024)
        for attempt in range(3):
            try:
                servers.smtp_port = _free_port()
                c = Controller(handler, port=servers.smtp_port, tls_context=server_ctx, require_starttls=True,
                               **common)
                c.start()
                controllers.append(c)
                break
            except (OSError, RuntimeError):
                if attempt == 2:
                    raise
        for attempt in range(3):
            try:
                servers.smtps_port = _free_port()
                # implicit TLS: aiosmtpd cannot tell the session is encrypted, so AUTH is allowed without STARTTLS
                logging.getLogger("mail.log").setLevel(logging.ERROR)
                c = _ImplicitTlsController(handler, port=servers.smtps_port, ssl_context=server_ctx,
                                           auth_require_tls=False, **common)
                c.start()
                controllers.append(c)
                break
            except (OSError, RuntimeError):
                if attempt == 2:
                    raise
        t_smtp = time.monotonic()
        # IMAP
        if user is not None:
            for path in [base, *base.rglob("*")]:
                if path != cafile:
                    os.lchown(path, uid, gid)
        client_ctx = ssl.create_default_context(cafile=str(cafile))
        for attempt in range(3):
            servers.imap_port, servers.imaps_port = _free_port(), _free_port()
            (base / "dovecot.conf").write_text(DOVECOT_CONF.format(
                base=base, root=base, user=user.pw_name if user else pwd.getpwuid(uid).pw_name, group=group,
                uid=uid, gid=gid, imap_port=servers.imap_port, imaps_port=servers.imaps_port))
            if user is not None:
                os.lchown(base / "dovecot.conf", uid, gid)
            with contextlib.suppress(FileNotFoundError):
                (base / "run" / "master.pid").unlink()
            log = open(base / "dovecot.out", "wb")  # noqa: SIM115 - closed in the teardown
            proc = subprocess.Popen(_as(user, [dovecot, "-F", "-c", str(base / "dovecot.conf")]), cwd=base,
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
            if _wait_for_start(base, proc):
                break
            outcome = f"exit {proc.returncode}: {_tail(base / 'dovecot.out')} {_tail(base / 'dovecot.log')}"
            proc, _ = None, log.close()
            if "in use" in outcome and attempt < 2:
                continue
            raise NoMailServer(f"dovecot did not start ({outcome})")
        assert proc is not None
        servers.dovecot_pid = _master_pid(base)
        _wait_for_greeting(servers.imaps_port, client_ctx, time.monotonic() + 15, lambda: proc.poll() is None)
        t_imap = time.monotonic()
        servers.start_seconds = {"certificates": t_certs - started_at, "smtp": t_smtp - t_certs,
                                 "imap": t_imap - t_smtp, "total": t_imap - started_at}
        yield servers
    finally:
        try:
            for c in controllers:
                try:
                    c.stop()
                except Exception as exc:  # noqa: BLE001 - reported, and dovecot is still stopped
                    message = f"the SMTP server on port {c.port} did not stop cleanly: {type(exc).__name__}: {exc}"
                    sys.stderr.write(f"WARNING: {message}\n")
                    warnings.warn(message, RuntimeWarning, stacklevel=2)
            if proc is not None:
                running = proc
                try:
                    stop_dovecot(base, lambda: _terminate(running, base))
                finally:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        running.wait(timeout=5)  # runuser, once dovecot is gone
            if log is not None:
                log.close()
        finally:
            shutil.rmtree(base, ignore_errors=True)


def _wait_for_start(base: Path, proc: subprocess.Popen[bytes]) -> bool:
    """Until dovecot's master has written its pid (True) or has exited (False)."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if _master_pid(base) is not None:
            return True
        time.sleep(0.01)
    return proc.poll() is None


def _terminate(proc: subprocess.Popen[bytes], base: Path) -> None:
    """SIGTERM to dovecot's master (not to runuser: it would SIGKILL dovecot after 2 s
    and leave it unreaped), then wait until runuser (or dovecot) has exited."""
    pid = _master_pid(base) or proc.pid
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    try:
        code = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        raise NoMailServer(f"dovecot (pid {pid}) still ran 10 s after SIGTERM") from None
    if code not in (0, -signal.SIGTERM, 128 + signal.SIGTERM):
        raise NoMailServer(f"dovecot exited with {code} when stopped: {_tail(base / 'dovecot.out')}")


def _group_name(gid: int) -> str:
    import grp

    return grp.getgrgid(gid).gr_name


def no_mail_server(reason: str) -> None:
    """Skip (locally) or fail (CI=true: the mail tests must run there)."""
    import pytest

    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"CI must run the mail server tests, but the servers could not be started: {reason}")
    pytest.skip(f"no mail servers: {reason}")
