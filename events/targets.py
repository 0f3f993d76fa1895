"""What a store target names: a file path or a ``postgresql://`` URL, and the default one.

A leaf of the store layer (it imports only the store's errors), so the
backends and :mod:`events.backends` can all read it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from events.store import StoreError

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
PG_SCHEMES = ("postgresql://", "postgres://")


def is_url(target: str | os.PathLike[str]) -> bool:
    """Whether ``target`` is a store URL (``scheme://…``) rather than a file path.

    >>> is_url("postgresql://u@db/citylog"), is_url("games/citylog.db"), is_url("c:/x.db")
    (True, False, False)
    """
    return bool(_URL.match(os.fspath(target)))


def default_db_target() -> str:
    """``$CITYLOG_DB`` (a path or a ``postgresql://`` URL), else
    ``$XDG_DATA_HOME/citylog/citylog.db``, else ``~/.local/share/citylog/citylog.db``."""
    explicit = os.environ.get("CITYLOG_DB")
    if explicit:
        return explicit if is_url(explicit) else str(Path(explicit).expanduser())
    data_home = os.environ.get("XDG_DATA_HOME")
    base = Path(data_home).expanduser() if data_home else Path.home() / ".local" / "share"
    return str(base / "citylog" / "citylog.db")


def default_db_path() -> Path:
    """:func:`default_db_target` as a path (for SQLite callers)."""
    target = default_db_target()
    if is_url(target):
        raise StoreError(f"CITYLOG_DB is a URL ({redact_url(target)}), not a file path")
    return Path(target)


def redact_url(url: str) -> str:
    """``url`` without its password, for messages.

    >>> redact_url("postgresql://ann:hunter2@db:5432/citylog")
    'postgresql://ann:***@db:5432/citylog'
    """
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)
