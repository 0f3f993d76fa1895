"""The PostgreSQL :class:`~events.store.EventStore` (psycopg 3): several hosts or
worker processes share one store.

Same schema semantics as SQLite, same hash chain, same rows.  An append locks
its game's row (``SELECT … FOR UPDATE``), checks the expected version against
the head kept there, inserts the events and moves the head in one transaction;
the primary key ``(game_id, seq)`` stays the final check.  Every append
notifies channel ``citylog`` with the game id, which :meth:`PgStore.wait`
listens to (``citylog watch``).

Open one with :func:`events.backends.open_store` and a ``postgresql://`` URL; the
tables go in the first schema of the connection's ``search_path``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
from psycopg import errors as pgerr

from events.envelope import Recorded, line_nonces, link, row_line_secret
from events.game_rows import GAME_COLS, INSERT_GAME_COLS, JSON, filter_sql, game_from_row, game_row, scan_rows
from events.side_tables import SideTables
from events.store import (
    Conflict,
    GameExists,
    GameFilter,
    GameNotFound,
    GameRecord,
    NotCitylog,
    Status,
    StoreBusy,
    StoreError,
    StoreUnavailable,
    check_new_game,
    check_status,
)
from events.targets import redact_url

__all__ = ["PG_MIGRATIONS", "PG_SCHEMA_VERSION", "PgStore"]

CHANNEL = "citylog"

PG_MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE games (
            id TEXT PRIMARY KEY,
            game TEXT NOT NULL,
            definition TEXT NOT NULL,
            options TEXT NOT NULL,
            players TEXT NOT NULL,
            bots TEXT NOT NULL,
            rules_version TEXT NOT NULL,
            seed TEXT,
            seed_commitment TEXT NOT NULL,
            table_game INTEGER NOT NULL,
            parent TEXT REFERENCES games (id),
            fork_at BIGINT,
            status TEXT NOT NULL,
            created_at TEXT NOT NULL,
            genesis TEXT NOT NULL,
            reseeds TEXT NOT NULL DEFAULT '[]',
            salted INTEGER NOT NULL DEFAULT 0,
            head_seq BIGINT NOT NULL DEFAULT 0,
            head_hash TEXT NOT NULL,
            winners TEXT NOT NULL DEFAULT '[]',
            salt TEXT,
            host_key TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE signed (
            game_id TEXT NOT NULL REFERENCES games (id),
            seq BIGINT NOT NULL,
            statement BYTEA NOT NULL,
            PRIMARY KEY (game_id, seq)
        );
        CREATE TABLE events (
            game_id TEXT NOT NULL REFERENCES games (id),
            seq BIGINT NOT NULL,
            type TEXT NOT NULL,
            payload BYTEA NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL,
            PRIMARY KEY (game_id, seq)
        );
        CREATE INDEX games_created ON games (created_at, id);
        CREATE INDEX games_game ON games (game, created_at, id);
        CREATE INDEX games_status ON games (status, created_at, id);
        """,
    ),
    (
        2,  # notes (issue 15): comments on a point of a game, outside the hash chain
        """
        CREATE TABLE notes (
            id BIGSERIAL PRIMARY KEY,
            game_id TEXT NOT NULL REFERENCES games (id),
            seq BIGINT NOT NULL,
            text TEXT NOT NULL
        );
        CREATE INDEX notes_game ON notes (game_id, seq, id);
        """,
    ),
    (
        3,  # tags (issue 14): labels outside the hash chain
        """
        CREATE TABLE tags (
            game_id TEXT NOT NULL REFERENCES games (id),
            tag TEXT NOT NULL,
            PRIMARY KEY (game_id, tag)
        );
        CREATE INDEX tags_tag ON tags (tag, game_id);
        """,
    ),
    (
        4,  # analyses (issue 25): citylog analyse's judgements, beside the hash chain
        """
        CREATE TABLE analyses (
            game_id TEXT NOT NULL REFERENCES games (id),
            key TEXT NOT NULL,
            data BYTEA NOT NULL,
            PRIMARY KEY (game_id, key)
        );
        """,
    ),
    (
        5,  # deadlines (issue 24): when the host first saw each line (its clock, outside the chain)
        """
        CREATE TABLE clock (
            game_id TEXT NOT NULL REFERENCES games (id),
            seq BIGINT NOT NULL,
            at BIGINT NOT NULL,
            PRIMARY KEY (game_id, seq)
        );
        """,
    ),
]
"""The PostgreSQL schema's own numbered steps (its version 1 is SQLite's 6)."""
PG_SCHEMA_VERSION = PG_MIGRATIONS[-1][0]
_MIGRATE_LOCK = 0x6369_7479  # pg_advisory_xact_lock key: one process migrates

_SQL_HEAD = "SELECT head_seq, head_hash, seed, salted, salt FROM games WHERE id = %s"
_SQL_LOCK_HEAD = "SELECT head_seq, head_hash, seed, salted, salt FROM games WHERE id = %s FOR UPDATE"
_SQL_WRITE_IF_HEAD = (  # one statement: nothing is written unless the head is still (seq, hash)
    "WITH moved AS (UPDATE games SET head_seq = %s, head_hash = %s "
    "WHERE id = %s AND head_seq = %s AND head_hash = %s RETURNING id, pg_notify(%s, id)), "
    "ins AS (INSERT INTO events (game_id, seq, type, payload, prev_hash, hash) "
    "SELECT m.id, u.* FROM moved m, "
    "unnest(%s::bigint[], %s::text[], %s::bytea[], %s::text[], %s::text[]) AS u RETURNING 1) "
    "SELECT count(*) FROM ins"
)
_SQL_READ = "SELECT seq, type, payload, prev_hash, hash FROM events WHERE game_id = %s"


def _wrap(e: psycopg.Error, what: str) -> StoreError:
    """A psycopg error as the store's: environment failures kept apart."""
    text = f"{what}: {_first_line(e)}"
    if isinstance(e, (pgerr.LockNotAvailable, pgerr.DeadlockDetected, pgerr.QueryCanceled,
                      pgerr.SerializationFailure)):
        return StoreBusy(text)
    if isinstance(e, (psycopg.OperationalError, pgerr.InsufficientResources,
                      pgerr.ReadOnlySqlTransaction)):
        return StoreUnavailable(text)
    return StoreError(text)


class PgStore(SideTables):
    """An :class:`EventStore` on a PostgreSQL server.

    :param url: a libpq URL (``postgresql://user@host/db``, or with
        ``?host=/socket/dir``); ``options=-csearch_path=…`` picks a schema.
    :param readonly: every transaction is read-only.
    :param busy_timeout: seconds to wait for another writer's row lock before
        :class:`StoreBusy` (``lock_timeout``).

    One connection, used from one thread.  Commits are durable as the server
    is configured (``synchronous_commit``).
    """

    _mark = "%s"  # SQL parameter marker (events.side_tables)

    def __init__(self, url: str, *, readonly: bool = False, busy_timeout: float = 10.0,
                 connect_timeout: int = 10) -> None:
        self.url = url
        self.location = redact_url(url)
        self.readonly = readonly
        self._secrets: dict[str, str | None] = {}
        """game id -> the seed that salts its digests (a game's seed never changes)."""
        self._heads: dict[str, tuple[int, str]] = {}
        """game id -> the head this connection last saw (the append's fast path)."""
        self._listener: psycopg.Connection[Any] | None = None
        try:
            self._conn = psycopg.connect(url, autocommit=True, connect_timeout=connect_timeout)
        except psycopg.OperationalError as e:  # no server, refused, timed out
            raise StoreUnavailable(f"cannot connect to {self.location}: {_first_line(e)}") from e
        except Exception as e:  # a malformed URL is the user's input
            raise StoreError(f"cannot connect to {self.location}: {_first_line(e)}") from e
        try:
            self._conn.execute(f"SET lock_timeout = {int(busy_timeout * 1000)}")
            self._migrate()
            if readonly:
                self._conn.execute("SET default_transaction_read_only = on")
        except BaseException as e:
            self._conn.close()
            if isinstance(e, psycopg.Error):
                raise _wrap(e, f"cannot open {self.location}") from e
            raise

    # -- lifecycle -----------------------------------------------------------
    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        self._conn.close()

    def __enter__(self) -> PgStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def schema_version(self) -> int:
        row = self._conn.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'"
        ).fetchone() if self._has_meta() else None
        if not row:
            return 0
        try:
            return int(row[0])
        except (TypeError, ValueError):
            raise NotCitylog(f"{self.location}: schema version {row[0]!r} is not a number") from None

    def _has_meta(self) -> bool:
        row = self._conn.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()
        return bool(row and row[0])

    def _migrate(self) -> None:
        if self._has_meta() and self.schema_version() == PG_SCHEMA_VERSION:
            return
        with self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATE_LOCK,))
            if not self._has_meta():
                tables = self._conn.execute(
                    "SELECT count(*) FROM information_schema.tables "
                    "WHERE table_schema = current_schema() AND table_name IN ('games', 'events')"
                ).fetchone()
                if tables and tables[0]:
                    raise NotCitylog(
                        f"{self.location} has games/events tables but is not citylog's; left untouched"
                    )
                self._conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            current = self.schema_version()
            if current > PG_SCHEMA_VERSION:
                raise StoreError(
                    f"{self.location} has schema version {current}; this citylog knows "
                    f"up to {PG_SCHEMA_VERSION} (upgrade citylog)"
                )
            for version, step in PG_MIGRATIONS:
                if version <= current:
                    continue
                self._conn.execute(step)
                self._conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema_version', %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (str(version),),
                )

    # -- transactions --------------------------------------------------------
    @contextlib.contextmanager
    def transaction(self) -> Iterator[PgStore]:
        """All store calls inside happen atomically; nested blocks are savepoints.
        psycopg errors come out as :class:`StoreError`."""
        try:
            with self._conn.transaction():
                yield self
        except BaseException as e:
            self._heads.clear()  # what this connection wrote since may be rolled back
            if isinstance(e, psycopg.Error):
                raise _wrap(e, self.location) from e
            raise

    # -- games ---------------------------------------------------------------
    def create_game(self, rec: GameRecord) -> None:
        check_new_game(rec)
        row = game_row(rec)
        self._secrets.pop(rec.id, None)
        self._heads.pop(rec.id, None)
        with self.transaction():
            conn = self._conn
            if conn.execute("SELECT 1 FROM games WHERE id = %s", (rec.id,)).fetchone():
                raise GameExists(rec.id)
            if rec.parent is not None and not self._exists(rec.parent):
                raise GameNotFound(rec.parent)
            marks = ", ".join(["%s"] * len(row))
            try:
                with conn.transaction():
                    conn.execute(f"INSERT INTO games ({INSERT_GAME_COLS}) VALUES ({marks})", row)
            except pgerr.UniqueViolation:
                raise GameExists(rec.id) from None

    def _exists(self, game_id: str) -> bool:
        return self._conn.execute("SELECT 1 FROM games WHERE id = %s", (game_id,)).fetchone() is not None

    def get_game(self, game_id: str) -> GameRecord:
        row = self._conn.execute(f"SELECT {GAME_COLS} FROM games WHERE id = %s", (game_id,)).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return game_from_row(row)

    def list_games(self) -> list[GameRecord]:
        return [g for g, _ in self.list_games_with_counts()]

    def list_games_with_counts(
        self, where: GameFilter | None = None
    ) -> list[tuple[GameRecord, int]]:
        cols = ", ".join(f"g.{c.strip()}" for c in GAME_COLS.split(","))
        sql, args = filter_sql(where, "%s", "g.players::jsonb ? %s")
        cur = self._conn.execute(f"SELECT {cols}, g.head_seq FROM games g{sql}", args)
        return scan_rows(cur)[0]

    def damaged_games(self) -> list[str]:
        """One line per row of ``games`` that cannot be read, naming the game."""
        cols = ", ".join(f"g.{c.strip()}" for c in GAME_COLS.split(","))
        return scan_rows(self._conn.execute(f"SELECT {cols}, g.head_seq FROM games g"))[1]

    def integrity_problem(self) -> str | None:
        """PostgreSQL checks its own pages (checksums, WAL); nothing more to ask here."""
        return None

    def set_status(self, game_id: str, status: Status, winners: Sequence[str] = ()) -> None:
        check_status(status)
        with self.transaction():
            cur = self._conn.execute(
                "UPDATE games SET status = %s, winners = %s WHERE id = %s",
                (status, JSON.encode(tuple(winners)).decode(), game_id),
            )
            if cur.rowcount == 0:
                raise GameNotFound(game_id)

    # -- events --------------------------------------------------------------
    def version(self, game_id: str) -> int:
        return self.head(game_id)[0]

    def head(self, game_id: str) -> tuple[int, str]:
        row = self._conn.execute(_SQL_HEAD, (game_id,)).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        self._secrets[game_id] = row_line_secret(row[2], row[3], row[4])
        self._heads[game_id] = (int(row[0]), row[1])
        return int(row[0]), row[1]

    def wait(self, game_id: str, seq: int, timeout: float) -> int:
        """LISTEN on ``citylog``; return once the head passes ``seq`` or at ``timeout``."""
        import time

        if self._listener is None:
            try:
                self._listener = psycopg.connect(self.url, autocommit=True)
                self._listener.execute(f"LISTEN {CHANNEL}")
            except psycopg.Error as e:
                raise _wrap(e, f"cannot listen on {self.location}") from e
        deadline = time.monotonic() + timeout
        while True:
            now = self.version(game_id)
            left = deadline - time.monotonic()
            if now > seq or left <= 0:
                return now
            for note in self._listener.notifies(timeout=left, stop_after=1):
                if note.payload == game_id:
                    break

    def append(
        self, game_id: str, expected_version: int, items: Sequence[tuple[str, bytes]]
    ) -> list[Recorded]:
        """As :meth:`SqliteStore.append`: all or nothing, :class:`Conflict` on a
        stale version, the head moved in the game's row, then ``NOTIFY``.

        When this connection last saw the game's head at ``expected_version``
        (the service reads it just before), the events, the head and the
        notification are one conditional statement — it writes nothing if the
        head moved meanwhile.  Otherwise the game's row is locked first.  Inside
        an outer :meth:`transaction` no savepoint is taken: a failed write
        aborts that transaction (PostgreSQL), and the error propagates.
        """
        conn = self._conn
        known = self._heads.get(game_id)
        try:
            if not items:
                version = self.version(game_id)
                if version != expected_version:
                    raise Conflict(game_id, expected_version, version)
                return []
            written = False
            if known is not None and known[0] == expected_version and game_id in self._secrets:
                records, args = self._rows(game_id, expected_version, known[1], items)
                row = conn.execute(_SQL_WRITE_IF_HEAD, args).fetchone()
                written = bool(row) and row[0] == len(records)
                if not written:  # nothing written: the head is not the one last seen
                    self._heads.pop(game_id, None)
                    version = self.version(game_id)
                    if version != expected_version:
                        raise Conflict(game_id, expected_version, version)
                    # same seq, another hash (a write seen here was rolled back and
                    # another writer's took its place): lock the row and chain onto it
            if not written:
                with contextlib.ExitStack() as stack:
                    if conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
                        stack.enter_context(conn.transaction())
                    head = conn.execute(_SQL_LOCK_HEAD, (game_id,)).fetchone()
                    if head is None:
                        raise GameNotFound(game_id)
                    version, prev = int(head[0]), head[1]
                    self._secrets[game_id] = row_line_secret(head[2], head[3], head[4])
                    if version != expected_version:
                        raise Conflict(game_id, expected_version, version)
                    records, args = self._rows(game_id, version, prev, items)
                    conn.execute(_SQL_WRITE_IF_HEAD, args)
        except pgerr.UniqueViolation as e:
            self._heads.pop(game_id, None)
            raise Conflict(game_id, expected_version, self.version(game_id)) from e
        except psycopg.Error as e:
            self._heads.pop(game_id, None)
            raise _wrap(e, f"append to {game_id!r} failed") from e
        self._heads[game_id] = (records[-1].seq, records[-1].hash)
        return records

    def _rows(
        self, game_id: str, version: int, prev: str, items: Sequence[tuple[str, bytes]]
    ) -> tuple[list[Recorded], tuple[object, ...]]:
        """The records ``items`` become after ``(version, prev)``, and the write's arguments."""
        expected_prev = prev
        records = link(game_id, version, prev, items, line_nonces(self._secrets[game_id]))
        seq, prev = (records[-1].seq, records[-1].hash) if records else (version, prev)
        args = (
            seq, prev, game_id, version, expected_prev, CHANNEL,
            [r.seq for r in records], [r.type for r in records], [r.payload for r in records],
            [r.prev_hash for r in records], [r.hash for r in records],
        )
        return records, args

    def read(self, game_id: str, upto: int | None = None, after: int = 0) -> list[Recorded]:
        sql, args = _SQL_READ, [game_id]
        if after:
            sql += " AND seq > %s"
            args.append(after)  # type: ignore[arg-type]
        if upto is not None:
            sql += " AND seq <= %s"
            args.append(upto)  # type: ignore[arg-type]
        try:
            cur = self._conn.execute(sql + " ORDER BY seq", args)
            out = [Recorded(game_id, int(s), t, bytes(p), ph, h) for s, t, p, ph, h in cur]
        except psycopg.Error as e:
            raise _wrap(e, f"read of {game_id!r} failed") from e
        if not out and not self._exists(game_id):
            raise GameNotFound(game_id)
        return out


def _first_line(e: BaseException) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
