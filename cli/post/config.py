"""The per-data-directory mail configuration, ``<datadir>/mail.toml``.

Written by ``citylog mail setup``, read with :mod:`tomllib`; the format (README
"Play by real email")::

    address = "alice@example.org"        # this party's address (From of what it sends)
    name = "Alice"                       # optional display name
    inbound = "maildir:Mail/citylog"     # or "mbox:PATH", or "imap" (the [imap] table)
    outbound = "eml:outgoing-mail"       # or "sendmail:COMMAND", or "smtp" (the [smtp] table)
    html = false                         # host: attach each view's HTML replay page too

    [imap]
    host = "imap.example.org"
    port = 993
    user = "alice@example.org"
    folder = "INBOX"
    tls = "ssl"                          # or "starttls"
    cafile = ""                          # optional: a CA bundle instead of the system store
    password_env = "CITYLOG_IMAP_PASSWORD"   # or password_command = "pass show mail/imap"

    [smtp]
    host = "smtp.example.org"
    port = 587
    user = "alice@example.org"
    security = "starttls"                # or "ssl"
    cafile = ""
    password_env = "CITYLOG_SMTP_PASSWORD"

A relative PATH or FOLDER is relative to the data directory.  No password is
ever written here by ``mail setup``: it comes from ``password_env``,
``password_command`` or ``~/.netrc`` (``cli.post.credentials``).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from events.service import ServiceError

CONFIG_NAME = "mail.toml"
MAX_CONFIG = 64 * 1024
INBOUND_KINDS = ("maildir", "mbox", "imap")
OUTBOUND_KINDS = ("sendmail", "eml", "smtp")
IMAP_KEYS = ("host", "port", "user", "folder", "tls", "cafile", "password_env", "password_command")
SMTP_KEYS = ("host", "port", "user", "security", "cafile", "password_env", "password_command")


@dataclass(frozen=True)
class MailConfig:
    address: str
    inbound: str
    outbound: str
    name: str = ""
    html: bool = False
    """Host: attach each view's HTML replay page (``export --format html``) too."""
    imap: dict[str, Any] = field(default_factory=dict)
    smtp: dict[str, Any] = field(default_factory=dict)
    home: Path = Path(".")
    """The data directory the file is in (relative paths are relative to it)."""

    @property
    def inbound_kind(self) -> str:
        return self.inbound.partition(":")[0]

    @property
    def outbound_kind(self) -> str:
        return self.outbound.partition(":")[0]

    def path_of(self, spec: str) -> Path:
        """The PATH of ``kind:PATH``, relative to the data directory."""
        raw = Path(os.path.expanduser(spec.partition(":")[2]))
        return raw if raw.is_absolute() else self.home / raw

    def sender(self) -> str:
        from email.utils import formataddr

        return formataddr((self.name, self.address)) if self.name else self.address


def home_of(db: str | None) -> Path:
    """The data directory of the store ``db``: the folder of its SQLite file
    (where ``keys`` is: :func:`cli.context.keys_folder`)."""
    from cli.context import keys_folder

    return keys_folder(db).parent


def config_path(home: Path) -> Path:
    return home / CONFIG_NAME


def load(home: Path) -> MailConfig:
    """The configuration of the data directory ``home``; one-line errors."""
    path = config_path(home)
    if not path.is_file():
        raise ServiceError(f"no mail set-up in {home} (run 'citylog mail setup --address ADDR ...')")
    data = path.read_bytes()[: MAX_CONFIG + 1]
    if len(data) > MAX_CONFIG:
        raise ServiceError(f"{path}: longer than {MAX_CONFIG} bytes")
    try:
        raw = tomllib.loads(data.decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ServiceError(f"{path}: not TOML ({exc})") from None
    return from_dict(raw, home, str(path))


def from_dict(raw: dict[str, Any], home: Path, where: str = "mail config") -> MailConfig:
    unknown = sorted(set(raw) - {"address", "name", "inbound", "outbound", "html", "imap", "smtp"})
    if unknown:
        raise ServiceError(f"{where}: unknown key {unknown[0]!r}")
    if not isinstance(raw.get("html", False), bool):
        raise ServiceError(f"{where}: 'html' is true or false")
    for key in ("address", "inbound", "outbound"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise ServiceError(f"{where}: '{key}' is missing (a string)")
    cfg = MailConfig(
        address=raw["address"], inbound=raw["inbound"], outbound=raw["outbound"], name=str(raw.get("name", "")),
        html=bool(raw.get("html", False)), imap=dict(raw.get("imap", {})), smtp=dict(raw.get("smtp", {})), home=home,
    )
    check(cfg, where)
    return cfg


def check(cfg: MailConfig, where: str = "mail config") -> None:
    if "@" not in cfg.address or any(c in cfg.address for c in " <>\r\n,"):
        raise ServiceError(f"{where}: address {cfg.address!r} is not an email address")
    if cfg.inbound_kind not in INBOUND_KINDS:
        raise ServiceError(f"{where}: inbound must be maildir:PATH, mbox:PATH or imap, not {cfg.inbound!r}")
    if cfg.outbound_kind not in OUTBOUND_KINDS:
        raise ServiceError(f"{where}: outbound must be sendmail:COMMAND, eml:FOLDER or smtp, not {cfg.outbound!r}")
    for spec, kinds in ((cfg.inbound, ("maildir", "mbox")), (cfg.outbound, ("sendmail", "eml"))):
        if spec.partition(":")[0] in kinds and not spec.partition(":")[2]:
            raise ServiceError(f"{where}: {spec!r} needs a path or command after ':'")
    for table, keys, needed in ((cfg.imap, IMAP_KEYS, cfg.inbound_kind == "imap"),
                                (cfg.smtp, SMTP_KEYS, cfg.outbound_kind == "smtp")):
        extra = sorted(set(table) - set(keys) - {"password"})
        if extra:
            raise ServiceError(f"{where}: unknown key {extra[0]!r} in a server table")
        if needed and not table.get("host"):
            raise ServiceError(f"{where}: the server table needs a host")


def dumps(cfg: MailConfig) -> str:
    """The TOML text of ``cfg`` (strings and integers only)."""
    lines = [f"address = {_q(cfg.address)}"]
    if cfg.name:
        lines.append(f"name = {_q(cfg.name)}")
    lines += [f"inbound = {_q(cfg.inbound)}", f"outbound = {_q(cfg.outbound)}"]
    if cfg.html:
        lines.append("html = true")
    for title, table in (("imap", cfg.imap), ("smtp", cfg.smtp)):
        if table:
            lines += ["", f"[{title}]"]
            for key, value in table.items():
                lines.append(f"{key} = {value}" if isinstance(value, int) else f"{key} = {_q(str(value))}")
    return "\n".join(lines) + "\n"


def _q(text: str) -> str:
    """A TOML basic string."""
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out) + '"'


def save(cfg: MailConfig, force: bool = False) -> Path:
    path = config_path(cfg.home)
    if path.exists() and not force:
        raise ServiceError(f"{path} exists; not overwritten (use --force)")
    cfg.home.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(dumps(cfg))
    os.replace(tmp, path)
    return path
