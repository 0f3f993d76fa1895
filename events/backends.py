"""Opening a store: the backend a target names (SQLite file or PostgreSQL URL).

Its own module, apart from the :class:`~events.store.EventStore` protocol, so
the protocol and the records import no backend (``import events.envelope`` or
``events.store`` loads neither SQLite's module nor psycopg), and each backend
is imported only when opened: a command that never touches PostgreSQL never
imports psycopg.
"""

from __future__ import annotations

import os
from typing import Literal

from events.store import EventStore, StoreError
from events.targets import PG_SCHEMES, default_db_target, is_url, redact_url

def open_store(
    target: str | os.PathLike[str] | None = None,
    *,
    durability: Literal["full", "normal"] = "full",
    readonly: bool = False,
) -> EventStore:
    """The store at ``target``: a ``postgresql://`` URL opens :class:`PgStore`,
    anything else that is not a URL is a SQLite file.  A URL of another scheme
    is refused (it never becomes a file named ``mysql:``).

    ``readonly``: open for reading only; a missing SQLite file is then an empty
    store and nothing is created.
    """
    where = default_db_target() if target is None else os.fspath(target)
    if not where.strip():
        raise StoreError("the database path is empty (--db or CITYLOG_DB)")
    if is_url(where):
        if not where.startswith(PG_SCHEMES):
            raise StoreError(
                f"unsupported store URL {redact_url(where)!r}: use a file path or postgresql://…"
            )
        from events.pg_store import PgStore

        return PgStore(where, readonly=readonly)
    from events.sqlite_store import SqliteStore

    return SqliteStore(where, durability=durability, readonly=readonly)
