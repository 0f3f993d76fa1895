"""The SQLite :class:`~events.store.EventStore`: one file, WAL mode, the embedded default.

>>> from events.envelope import GameDefinition
>>> from events.store import GameRecord
>>> store = SqliteStore(":memory:")
>>> d = GameDefinition("demo", "1", {}, ("ann", "bob"), "c0ffee")
>>> store.create_game(GameRecord.of("g1", d, seed="s3cret"))
>>> [r.seq for r in store.append("g1", 0, [("ping", b'{"type":"ping"}')] * 2)]
[1, 2]
>>> store.version("g1")
2
>>> store.append("g1", 1, [("ping", b"{}")])  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
...
Conflict: game 'g1': expected version 1, found 2
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import quote


from events.envelope import Recorded, line_nonces, link, row_line_secret
from events.game_rows import GAME_COLS, INSERT_GAME_COLS, JSON, filter_sql, game_from_row, game_row, scan_rows
from events.side_tables import SideTables
from events.sqlite_schema import MIGRATIONS, SCHEMA_VERSION, check_ours, schema_version
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
from events.targets import default_db_target

if TYPE_CHECKING:  # sqlite-utils is imported only to migrate (it costs ~90 ms)
    from sqlite_utils import Database

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SqliteStore"]


# SQLite result codes (primary) that are the environment's fault, not the input's.
_BUSY = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED
_ENVIRONMENT = {8, 10, 13, 14, 15}  # READONLY, IOERR, FULL, CANTOPEN, PROTOCOL
_NOTADB = 26


def _wrap(e: sqlite3.Error, what: str) -> StoreError:
    """A sqlite3 error as the store's: environment failures kept apart from the rest."""
    code = (getattr(e, "sqlite_errorcode", 0) or 0) & 0xFF
    if code in _BUSY:
        return StoreBusy(f"{what}: {e} (another process holds the lock)")
    if code in _ENVIRONMENT:
        return StoreUnavailable(f"{what}: {e}")
    if code == _NOTADB:
        return NotCitylog(f"{what}: {e}")
    return StoreError(f"{what}: {e}")


def _connect_readonly(path: str, busy_timeout: float) -> sqlite3.Connection:
    """``mode=ro``.  A WAL database whose directory we cannot write (no
    ``-shm`` can be made) and that has no ``-wal`` file holds everything in
    the main file: read it as immutable then."""
    uri = "file:" + quote(os.path.abspath(path))
    conn = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=busy_timeout, isolation_level=None)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError as e:
        code = (getattr(e, "sqlite_errorcode", 0) or 0) & 0xFF
        conn.close()
        if code not in (8, 14) or Path(path + "-wal").exists() or os.access(
            os.path.dirname(os.path.abspath(path)), os.W_OK
        ):
            raise
    return sqlite3.connect(uri + "?mode=ro&immutable=1", uri=True, isolation_level=None)


def _max_rows(conn: sqlite3.Connection) -> int:
    """Events one ``INSERT`` may carry (6 bound parameters each)."""
    try:
        limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    except (AttributeError, sqlite3.Error):  # pragma: no cover - older Pythons
        limit = 999
    return max(1, min(limit // 6, 1000))


# -- SQLite ------------------------------------------------------------------
_SQL_HEAD = "SELECT head_seq, head_hash FROM games WHERE id = ?"
_SQL_INSERT = (
    "INSERT INTO events (game_id, seq, type, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)"
)
_SQL_MOVE_HEAD = (
    "UPDATE games SET head_seq = ?, head_hash = ? WHERE id = ? AND head_seq = ? AND head_hash = ?"
)
_SQL_PUT_HEAD = "UPDATE games SET head_seq = ?, head_hash = ? WHERE id = ?"
_SQL_DROP_AFTER = "DELETE FROM events WHERE game_id = ? AND seq > ?"
_INSERT_ROW = "(?, ?, ?, ?, ?, ?)"


@functools.lru_cache(maxsize=64)
def _insert_sql(rows: int) -> str:
    """``INSERT`` of ``rows`` events in one statement."""
    return _SQL_INSERT + (", " + _INSERT_ROW) * (rows - 1)


def _inserts(rows: Sequence[tuple[object, ...]], most: int) -> Iterator[tuple[str, list[object]]]:
    """The statements that insert ``rows``: one, unless the batch has more than
    ``most`` rows (SQLite's limit on bound parameters)."""
    for i in range(0, len(rows), most):
        chunk = rows[i : i + most]
        yield _insert_sql(len(chunk)), [v for row in chunk for v in row]
_SQL_READ = (
    "SELECT seq, type, payload, prev_hash, hash FROM events WHERE game_id = ? ORDER BY seq"
)
_SQL_READ_AFTER = (
    "SELECT seq, type, payload, prev_hash, hash FROM events "
    "WHERE game_id = ? AND seq > ? AND seq <= ? ORDER BY seq"
)
_SQL_READ_UPTO = (
    "SELECT seq, type, payload, prev_hash, hash FROM events "
    "WHERE game_id = ? AND seq <= ? ORDER BY seq"
)


class SqliteStore(SideTables):
    """An :class:`EventStore` in one SQLite file.

    :param path: the database file (created with its directory if missing);
        default :func:`~events.targets.default_db_target`.  ``":memory:"`` works for tests.
    :param durability: ``"full"`` (default) runs ``synchronous=FULL``: a
        returned append survives power loss.  ``"normal"`` runs
        ``synchronous=NORMAL``: in WAL mode the database stays consistent, but
        the last appends before a power loss (not a crash of the process) may
        be lost.  Much faster for bot simulations.
    :param busy_timeout: seconds to wait for another process's write lock
        before raising :class:`StoreBusy`.
    :param readonly: open for reading only (``mode=ro``): nothing is created,
        migrated or switched to WAL; a missing file reads as an empty store.

    A database that is not citylog's is refused before anything is written to
    it (:class:`NotCitylog`).  sqlite-utils owns the schema and migrations (and
    is imported only to migrate); the hot paths use the connection directly.
    A store is one connection: use it from one thread.
    """

    _mark = "?"  # SQL parameter marker (events.side_tables)

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        durability: Literal["full", "normal"] = "full",
        busy_timeout: float = 10.0,
        readonly: bool = False,
    ) -> None:
        if durability not in ("full", "normal"):
            raise StoreError(f"durability must be 'full' or 'normal', not {durability!r}")
        target = default_db_target() if path is None else os.fspath(path)
        self.path = self.location = str(target)
        self.durability = durability
        self.readonly = readonly
        memory = self.path == ":memory:"
        if not memory and Path(self.path).is_dir():
            raise StoreError(f"{self.path} is a directory, not a database file")
        missing = not memory and not Path(self.path).exists()
        try:
            if readonly and not memory and not missing:
                conn = _connect_readonly(self.path, busy_timeout)
            elif readonly:
                conn = sqlite3.connect(":memory:", isolation_level=None)  # nothing to read
            else:
                if not memory:
                    Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None)
        except sqlite3.Error as e:
            raise _wrap(e, f"cannot open {self.path}") from e
        except OSError as e:
            raise StoreUnavailable(f"cannot open {self.path}: {e}") from e
        self._conn = conn
        self._depth = 0
        self._secrets: dict[str, str | None] = {}
        self._heads: dict[str, tuple[int, str]] = {}
        """game id -> the head (seq, hash) this connection last read or wrote: an
        append after it moves the head only if it is still there."""
        self._max_rows = _max_rows(conn)
        self._sp = 0
        self._db: Database | None = None
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            check_ours(conn, self.path)
            if readonly and not missing:
                if schema_version(conn) != SCHEMA_VERSION:
                    self._readonly_schema()
            else:
                if not memory:
                    conn.execute("PRAGMA journal_mode = wal")
                conn.execute(f"PRAGMA synchronous = {durability.upper()}")
                conn.execute("PRAGMA foreign_keys = ON")
                self._migrate()
        except BaseException as e:
            conn.close()
            if isinstance(e, sqlite3.Error):
                raise _wrap(e, f"cannot open {self.path}") from e
            raise

    def _readonly_schema(self) -> None:
        """An older file opened read-only: migrate a private copy of nothing —
        refuse clearly instead (a read must not change the file)."""
        current = schema_version(self._conn)
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {current}; this citylog knows "
                f"up to {SCHEMA_VERSION} (upgrade citylog)"
            )
        # Upgrading needs write access; do it once, then read.
        self._conn.close()
        SqliteStore(self.path, durability=self.durability).close()
        self._conn = _connect_readonly(self.path, 10.0)

    @property
    def db(self) -> Database:
        """The sqlite-utils view of the connection (imported on first use)."""
        if self._db is None:
            from sqlite_utils import Database

            self._db = Database(self._conn, execute_plugins=False)
        return self._db

    # -- lifecycle -----------------------------------------------------------
    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def schema_version(self) -> int:
        return schema_version(self._conn)

    def _migrate(self) -> None:
        if schema_version(self._conn) == SCHEMA_VERSION:
            return
        with self.transaction():  # BEGIN IMMEDIATE: one process migrates
            current = schema_version(self._conn)
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} has schema version {current}; this citylog knows "
                    f"up to {SCHEMA_VERSION} (upgrade citylog)"
                )
            if current == 0:
                self._conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            for version, step in MIGRATIONS:
                if version <= current:
                    continue
                if isinstance(step, str):
                    self.db.executescript(step)
                else:
                    step(self.db)
                self._conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                    (str(version),),
                )

    # -- transactions --------------------------------------------------------
    @contextlib.contextmanager
    def transaction(self) -> Iterator[SqliteStore]:
        """All store calls inside happen atomically (``BEGIN IMMEDIATE``).

        Nested blocks are savepoints: an exception escaping an inner block
        undoes only that block.  Any exception undoes everything since the
        block began, and sqlite errors come out as :class:`StoreError`.
        """
        conn = self._conn
        outer, name = self._begin()
        self._depth += 1
        try:
            yield self
        except BaseException as e:
            self._depth -= 1
            self._undo(outer, name)
            if isinstance(e, sqlite3.Error):
                raise _wrap(e, self.path) from e
            raise
        self._depth -= 1
        try:
            conn.execute("COMMIT" if outer else f"RELEASE SAVEPOINT {name}")
        except sqlite3.Error as e:
            self._undo(outer, name)
            raise _wrap(e, self.path) from e

    def _begin(self) -> tuple[bool, str]:
        """Open the outermost transaction (``BEGIN IMMEDIATE``) or a savepoint inside one."""
        outer = self._depth == 0
        name = ""
        try:
            if outer:
                self._conn.execute("BEGIN IMMEDIATE")
            else:
                self._sp += 1
                name = f"citylog_sp{self._sp}"
                self._conn.execute(f"SAVEPOINT {name}")
        except sqlite3.Error as e:
            raise _wrap(e, self.path) from e
        return outer, name

    def _undo(self, outer: bool, name: str) -> None:
        self._heads.clear()  # what this connection wrote since may be gone
        conn = self._conn
        if not conn.in_transaction:
            return
        if outer:
            conn.execute("ROLLBACK")
        else:
            conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
            conn.execute(f"RELEASE SAVEPOINT {name}")

    # -- games ---------------------------------------------------------------
    def create_game(self, rec: GameRecord) -> None:
        check_new_game(rec)
        row = game_row(rec)
        self._secrets.pop(rec.id, None)
        self._heads.pop(rec.id, None)
        with self.transaction():
            conn = self._conn
            if conn.execute("SELECT 1 FROM games WHERE id = ?", (rec.id,)).fetchone():
                raise GameExists(rec.id)
            if rec.parent is not None and not self._exists(rec.parent):
                raise GameNotFound(rec.parent)
            marks = ", ".join("?" * len(row))
            conn.execute(f"INSERT INTO games ({INSERT_GAME_COLS}) VALUES ({marks})", row)

    def _exists(self, game_id: str) -> bool:
        return self._conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None

    def get_game(self, game_id: str) -> GameRecord:
        row = self._conn.execute(
            f"SELECT {GAME_COLS} FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return game_from_row(row)

    def list_games(self) -> list[GameRecord]:
        """Every game, oldest first (by ``created_at``, then id)."""
        return [g for g, _ in self.list_games_with_counts()]

    def list_games_with_counts(
        self, where: GameFilter | None = None
    ) -> list[tuple[GameRecord, int]]:
        """Games (filtered, paged) with each game's number of events, from the
        games rows alone: the cost does not grow with the events stored."""
        cols = ", ".join(f"g.{c.strip()}" for c in GAME_COLS.split(","))
        sql, args = filter_sql(
            where, "?", "EXISTS (SELECT 1 FROM json_each(g.players) WHERE value = ?)"
        )
        cur = self._conn.execute(f"SELECT {cols}, g.head_seq FROM games g{sql}", args)
        return scan_rows(cur)[0]

    def damaged_games(self) -> list[str]:
        """One line per row of ``games`` that cannot be read, naming the game."""
        cols = ", ".join(f"g.{c.strip()}" for c in GAME_COLS.split(","))
        return scan_rows(self._conn.execute(f"SELECT {cols}, g.head_seq FROM games g"))[1]

    def integrity_problem(self) -> str | None:
        """SQLite's own check of the file (``PRAGMA quick_check``): None if sound,
        else its first complaint."""
        try:
            rows = self._conn.execute("PRAGMA quick_check").fetchall()
        except sqlite3.DatabaseError as exc:
            return str(exc)
        first = str(rows[0][0]) if rows else "no answer"
        if first == "ok":
            return None
        complaints = [line for row in rows for line in str(row[0]).splitlines() if not line.startswith("***")]
        return "; ".join(complaints[:1] + ([f"{len(complaints) - 1} more"] if len(complaints) > 1 else []))

    def set_status(self, game_id: str, status: Status, winners: Sequence[str] = ()) -> None:
        check_status(status)
        with self.transaction():
            cur = self._conn.execute(
                "UPDATE games SET status = ?, winners = ? WHERE id = ?",
                (status, JSON.encode(tuple(winners)).decode(), game_id),
            )
            if cur.rowcount == 0:
                raise GameNotFound(game_id)

    # -- events --------------------------------------------------------------
    def version(self, game_id: str) -> int:
        """The last seq of the game, 0 before its first event."""
        return self.head(game_id)[0]

    def _secret(self, game_id: str) -> str | None:
        """The secret that salts the game's lines' digests (:func:`core.chance.nonce_secret`
        of its seed and salt; a game's seed never changes)."""
        if game_id not in self._secrets:
            row = self._conn.execute(
                "SELECT seed, salted, salt FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise GameNotFound(game_id)
            self._secrets[game_id] = row_line_secret(row[0], row[1], row[2])
        return self._secrets[game_id]

    def head(self, game_id: str) -> tuple[int, str]:
        """(last seq, its hash); (0, genesis) before the first event."""
        head = self._heads[game_id] = self._read_head(game_id)
        return head

    def wait(self, game_id: str, seq: int, timeout: float, poll: float = 0.2) -> int:
        """Poll the game's head (one row read) until it passes ``seq`` or ``timeout`` passes."""
        deadline = time.monotonic() + timeout
        while True:
            now = self.version(game_id)
            left = deadline - time.monotonic()
            if now > seq or left <= 0:
                return now
            time.sleep(min(poll, left))

    def append(
        self, game_id: str, expected_version: int, items: Sequence[tuple[str, bytes]]
    ) -> list[Recorded]:
        """Append ``(type, payload)`` items as seqs ``expected_version + 1 …``.

        All or nothing, which also moves the game's head in its row.  Raises
        :class:`Conflict` if the game's version is not ``expected_version``,
        :class:`GameNotFound` if there is no such game.  An empty batch only
        checks the version.

        Two statements: the head moves in the game's row only if it is still
        the one this connection last saw (or reads now), then the batch goes
        in as one multi-row ``INSERT``.  Outside a :meth:`transaction` they
        run in their own; inside one no savepoint is taken — should the insert
        fail, the head is put back before the error propagates.
        """
        conn = self._conn
        if not items:
            version = self.version(game_id)
            if version != expected_version:
                raise Conflict(game_id, expected_version, version)
            return []
        outer = self._depth == 0
        moved = False
        try:
            if outer:
                conn.execute("BEGIN IMMEDIATE")
            known = self._heads.get(game_id)
            if known is None or known[0] != expected_version:
                version, prev = self._read_head(game_id)
                if version != expected_version:
                    raise Conflict(game_id, expected_version, version)
            else:
                prev = known[1]
            records, rows = self._rows(game_id, expected_version, prev, items)
            last = records[-1]
            cur = conn.execute(_SQL_MOVE_HEAD, (last.seq, last.hash, game_id, expected_version, prev))
            if cur.rowcount != 1:  # the head is not the one this connection saw last
                self._heads.pop(game_id, None)
                version, prev = self._read_head(game_id)
                if version != expected_version:
                    raise Conflict(game_id, expected_version, version)
                # the same seq with another hash (a write this connection saw was
                # rolled back, another writer's took its place): chain onto that
                records, rows = self._rows(game_id, expected_version, prev, items)
                last = records[-1]
                conn.execute(_SQL_MOVE_HEAD, (last.seq, last.hash, game_id, expected_version, prev))
            moved = True
            for sql, args in _inserts(rows, self._max_rows):
                conn.execute(sql, args)
            if outer:
                conn.execute("COMMIT")
        except BaseException as e:
            self._heads.pop(game_id, None)
            if outer:
                self._undo(True, "")
            elif moved:  # inside a caller's transaction: put the head back, drop any rows
                with contextlib.suppress(sqlite3.Error):
                    conn.execute(_SQL_DROP_AFTER, (game_id, expected_version))
                    conn.execute(_SQL_PUT_HEAD, (expected_version, prev, game_id))
            if isinstance(e, sqlite3.IntegrityError) and "UNIQUE" in str(e):
                # Another writer took the seq first: the PK is the final check.
                raise Conflict(game_id, expected_version, self.version(game_id)) from e
            if isinstance(e, sqlite3.Error):
                raise _wrap(e, f"append to {game_id!r} failed") from e
            raise
        self._heads[game_id] = (last.seq, last.hash)
        return records

    def _read_head(self, game_id: str) -> tuple[int, str]:
        row = self._conn.execute(_SQL_HEAD, (game_id,)).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return row[0], row[1]

    def _rows(
        self, game_id: str, version: int, prev: str, items: Sequence[tuple[str, bytes]]
    ) -> tuple[list[Recorded], list[tuple[str, int, str, bytes, str, str]]]:
        """The records ``items`` become after ``(version, prev)``, and their rows."""
        records = link(game_id, version, prev, items, line_nonces(self._secret(game_id)))
        return records, [(game_id, r.seq, r.type, r.payload, r.prev_hash, r.hash) for r in records]

    def read(self, game_id: str, upto: int | None = None, after: int = 0) -> list[Recorded]:
        """The game's records in seq order, after ``after`` up to and including ``upto``."""
        if after:
            cur = self._conn.execute(_SQL_READ_AFTER, (game_id, after, upto if upto is not None else 2**62))
        elif upto is None:
            cur = self._conn.execute(_SQL_READ, (game_id,))
        else:
            cur = self._conn.execute(_SQL_READ_UPTO, (game_id, upto))
        R = Recorded
        out = [R(game_id, s, t, p, ph, h) for s, t, p, ph, h in cur]
        if not out and not self._exists(game_id):
            raise GameNotFound(game_id)
        return out
