"""Where games and their events are kept: the :class:`EventStore` protocol and
:class:`SqliteStore`, its SQLite implementation (one file, WAL mode).

The store knows no game.  A game is a row of ``games`` (its definition, seed,
bots, lineage and status) and the rows of ``events`` with its id, numbered from
1.  The primary key ``(game_id, seq)`` is the final concurrency check; an
append names the version it expects and writes nothing if another writer got
there first (:class:`Conflict`).

>>> from events.envelope import GameDefinition
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
import os
import secrets
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal, Protocol, Union

import msgspec
from sqlite_utils import Database

from events.envelope import (
    GameDefinition,
    Recorded,
    canonical_definition,
    chain_hash,
    genesis_hash,
    line_nonce,
    payload_digest,
)

__all__ = [
    "Conflict",
    "EventStore",
    "GameExists",
    "GameNotFound",
    "GameRecord",
    "MIGRATIONS",
    "Note",
    "SCHEMA_VERSION",
    "SqliteStore",
    "StoreError",
    "default_db_path",
    "new_game_id",
]

STATUSES = ("active", "over")
Status = Literal["active", "over"]


# -- errors ------------------------------------------------------------------
class StoreError(Exception):
    """Base of every error the store raises."""


class GameNotFound(StoreError, LookupError):
    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        super().__init__(f"no game {game_id!r}")


class GameExists(StoreError):
    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        super().__init__(f"game {game_id!r} already exists")


class Conflict(StoreError):
    """The game's version is not the one the append expected; nothing written."""

    def __init__(self, game_id: str, expected: int, actual: int) -> None:
        self.game_id, self.expected, self.actual = game_id, expected, actual
        super().__init__(f"game {game_id!r}: expected version {expected}, found {actual}")


class StoreBusy(StoreError):
    """Another process held the database longer than the busy timeout."""


# -- records -----------------------------------------------------------------
class GameRecord(msgspec.Struct, frozen=True):
    """A row of ``games``.

    The definition columns (``game`` … ``table_game``) are what is hashed into
    the chain's genesis (:attr:`definition`); the rest is local bookkeeping
    that never enters an event.
    """

    id: str
    game: str
    rules_version: str
    options: dict[str, str]
    players: tuple[str, ...]
    seed_commitment: str
    table_game: bool = False
    seed: str | None = None
    """None for an imported player's view (the seed is not theirs to know)."""
    bots: dict[int, str] = {}
    """seat -> bot policy name."""
    parent: str | None = None
    fork_at: int | None = None
    """The parent's seq this fork was taken after."""
    status: Status = "active"
    created_at: str = ""
    salted: bool = True
    """Line digests are salted with nonces from the seed (every game since schema 5)."""
    reseeds: tuple[tuple[int, str], ...] = ()
    """Forks taken with a new seed: ``(from_seq, seed)``; chance events at and
    after ``from_seq`` come from that seed (the genesis keeps the first seed's
    commitment, so a fork shares its parent's prefix)."""
    """UTC ISO-8601; filled in by :meth:`EventStore.create_game` when empty."""

    @classmethod
    def of(cls, id: str, definition: GameDefinition, **rest: object) -> GameRecord:
        """A record for ``definition``; ``rest`` are the other fields."""
        return cls(
            id=id,
            game=definition.game,
            rules_version=definition.rules_version,
            options=dict(sorted(definition.options.items())),
            players=tuple(definition.players),
            seed_commitment=definition.seed_commitment,
            table_game=definition.table,
            **rest,  # type: ignore[arg-type]
        )

    @property
    def definition(self) -> GameDefinition:
        return GameDefinition(
            game=self.game,
            rules_version=self.rules_version,
            options=dict(sorted(self.options.items())),
            players=self.players,
            seed_commitment=self.seed_commitment,
            table=self.table_game,
        )

    @property
    def genesis(self) -> str:
        return genesis_hash(self.definition)


class Note(msgspec.Struct, frozen=True):
    """A comment attached to a point of a game (``citylog note``).

    Kept outside the hash chain: a note never changes a game's events or hashes.
    """

    seq: int
    text: str


def new_game_id() -> str:
    """A short random id (ids never enter events, so randomness is fine)."""
    return secrets.token_hex(4)


def default_db_path() -> Path:
    """``$CITYLOG_DB``, else ``$XDG_DATA_HOME/citylog/citylog.db``, else
    ``~/.local/share/citylog/citylog.db``."""
    explicit = os.environ.get("CITYLOG_DB")
    if explicit:
        return Path(explicit).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME")
    base = Path(data_home).expanduser() if data_home else Path.home() / ".local" / "share"
    return base / "citylog" / "citylog.db"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


# -- the protocol ------------------------------------------------------------
class EventStore(Protocol):
    """What the service needs from a store.  Every error is a StoreError."""

    def create_game(self, rec: GameRecord) -> None: ...
    def get_game(self, game_id: str) -> GameRecord: ...
    def list_games(self) -> list[GameRecord]: ...
    def list_games_with_counts(self) -> list[tuple[GameRecord, int]]: ...
    def version(self, game_id: str) -> int: ...
    def head(self, game_id: str) -> tuple[int, str]: ...
    def append(
        self, game_id: str, expected_version: int, items: Sequence[tuple[str, bytes]]
    ) -> list[Recorded]: ...
    def read(self, game_id: str, upto: int | None = None, after: int = 0) -> list[Recorded]: ...
    def set_status(self, game_id: str, status: Status) -> None: ...
    def add_note(self, game_id: str, seq: int, text: str) -> None: ...
    def notes(self, game_id: str) -> list[Note]: ...
    def transaction(self) -> contextlib.AbstractContextManager[EventStore]: ...
    def close(self) -> None: ...


# -- schema and migrations ---------------------------------------------------
def _v1(db: Database) -> None:
    db["games"].create(
        {
            "id": str,
            "game": str,
            "definition": str,
            "options": str,
            "players": str,
            "bots": str,
            "rules_version": str,
            "seed": str,
            "seed_commitment": str,
            "table_game": int,
            "parent": str,
            "fork_at": int,
            "status": str,
            "created_at": str,
        },
        pk="id",
        not_null={
            "game", "definition", "options", "players", "bots", "rules_version",
            "seed_commitment", "table_game", "status", "created_at",
        },
    )
    db["events"].create(
        {
            "game_id": str,
            "seq": int,
            "type": str,
            "payload": bytes,
            "prev_hash": str,
            "hash": str,
        },
        pk=("game_id", "seq"),
        not_null={"type", "payload", "prev_hash", "hash"},
        foreign_keys=[("game_id", "games", "id")],
    )


def _v2_genesis(db: Database) -> None:
    """Store each game's genesis hash (hashed once instead of on every read)."""
    db["games"].add_column("genesis", str)
    rows = db.execute("SELECT id, definition FROM games").fetchall()
    for game_id, definition in rows:
        d = msgspec.json.decode(definition, type=GameDefinition)
        db.execute("UPDATE games SET genesis = ? WHERE id = ?", (genesis_hash(d), game_id))


Migration = Union[str, Callable[[Database], None]]
MIGRATIONS: list[tuple[int, Migration]] = [
    (1, _v1),
    (2, _v2_genesis),
    (3, "CREATE INDEX IF NOT EXISTS games_created ON games (created_at, id)"),
    (4, "ALTER TABLE games ADD COLUMN reseeds TEXT NOT NULL DEFAULT '[]'"),
    # games chained before line nonces keep unsalted digests (salted = 0)
    (5, "ALTER TABLE games ADD COLUMN salted INTEGER NOT NULL DEFAULT 0"),
    # notes (issue 15): comments on a point of a game, outside the hash chain
    (
        6,
        "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, "
        "game_id TEXT NOT NULL REFERENCES games(id), seq INTEGER NOT NULL, text TEXT NOT NULL); "
        "CREATE INDEX IF NOT EXISTS notes_game ON notes (game_id, seq, id)",
    ),
]
"""Applied in order on open, each in the same transaction as its version bump.
Append only; never edit a released step (old databases went through it)."""
SCHEMA_VERSION = MIGRATIONS[-1][0]


def _schema_version(conn: sqlite3.Connection) -> int:
    has_meta = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if not has_meta:
        return 0
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


# -- SQLite ------------------------------------------------------------------
_GAME_COLS = (
    "id, game, rules_version, options, players, seed_commitment, table_game, seed, "
    "bots, parent, fork_at, status, created_at, reseeds, salted"
)
_options_dec = msgspec.json.Decoder(dict[str, str])
_players_dec = msgspec.json.Decoder(tuple[str, ...])
_bots_dec = msgspec.json.Decoder(dict[int, str])
_reseeds_dec = msgspec.json.Decoder(tuple[tuple[int, str], ...])
_json = msgspec.json.Encoder(order="sorted")

_SQL_HEAD = "SELECT seq, hash FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1"
_SQL_GENESIS = "SELECT genesis FROM games WHERE id = ?"
_SQL_INSERT = (
    "INSERT INTO events (game_id, seq, type, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)"
)
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


def _game_from_row(row: tuple) -> GameRecord:
    (gid, game, rules, options, players, commitment, table, seed, bots, parent, fork_at,
     status, created, reseeds, salted) = row
    return GameRecord(
        id=gid,
        game=game,
        rules_version=rules,
        options=_options_dec.decode(options),
        players=_players_dec.decode(players),
        seed_commitment=commitment,
        table_game=bool(table),
        seed=seed,
        bots=_bots_dec.decode(bots),
        parent=parent,
        fork_at=fork_at,
        status=status,
        created_at=created,
        reseeds=_reseeds_dec.decode(reseeds),
        salted=bool(salted),
    )


class SqliteStore:
    """An :class:`EventStore` in one SQLite file.

    :param path: the database file (created with its directory if missing);
        default :func:`default_db_path`.  ``":memory:"`` works for tests.
    :param durability: ``"full"`` (default) runs ``synchronous=FULL``: a
        returned append survives power loss.  ``"normal"`` runs
        ``synchronous=NORMAL``: in WAL mode the database stays consistent, but
        the last appends before a power loss (not a crash of the process) may
        be lost.  Much faster for bot simulations.
    :param busy_timeout: seconds to wait for another process's write lock
        before raising :class:`StoreBusy`.

    sqlite-utils owns the schema and migrations; the hot paths (append, read)
    use its ``db.conn`` directly.  A store is one connection: use it from one
    thread (open one store per thread or process).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        durability: Literal["full", "normal"] = "full",
        busy_timeout: float = 10.0,
    ) -> None:
        if durability not in ("full", "normal"):
            raise StoreError(f"durability must be 'full' or 'normal', not {durability!r}")
        target = default_db_path() if path is None else path
        if str(target) != ":memory:":
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        self.path = str(target)
        self.durability = durability
        try:
            conn = sqlite3.connect(self.path, timeout=busy_timeout, isolation_level=None)
        except sqlite3.Error as e:
            raise StoreError(f"cannot open {self.path}: {e}") from e
        self._conn = conn
        self._depth = 0
        self._secrets: dict[str, str | None] = {}
        self._sp = 0
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            self.db = Database(conn, execute_plugins=False)
            self.db.enable_wal()
            conn.execute(f"PRAGMA synchronous = {durability.upper()}")
            conn.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except BaseException as e:
            conn.close()
            if isinstance(e, sqlite3.Error):
                raise StoreError(f"cannot open {self.path}: {e}") from e
            raise

    # -- lifecycle -----------------------------------------------------------
    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def schema_version(self) -> int:
        return _schema_version(self._conn)

    def _migrate(self) -> None:
        if _schema_version(self._conn) == SCHEMA_VERSION:
            return
        with self.transaction():  # BEGIN IMMEDIATE: one process migrates
            current = _schema_version(self._conn)
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
                raise StoreError(str(e)) from e
            raise
        self._depth -= 1
        try:
            conn.execute("COMMIT" if outer else f"RELEASE SAVEPOINT {name}")
        except sqlite3.Error as e:
            self._undo(outer, name)
            raise StoreError(str(e)) from e

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
        except sqlite3.OperationalError as e:
            raise StoreBusy(f"{self.path}: {e}") from e
        return outer, name

    def _undo(self, outer: bool, name: str) -> None:
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
        if rec.status not in STATUSES:
            raise StoreError(f"status must be one of {', '.join(STATUSES)}, not {rec.status!r}")
        if rec.fork_at is not None and rec.parent is None:
            raise StoreError("fork_at needs a parent")
        definition = rec.definition
        row = (
            rec.id,
            rec.game,
            canonical_definition(definition).decode(),
            _json.encode(rec.options).decode(),
            _json.encode(rec.players).decode(),
            _json.encode({str(k): v for k, v in sorted(rec.bots.items())}).decode(),
            rec.rules_version,
            rec.seed,
            rec.seed_commitment,
            int(rec.table_game),
            rec.parent,
            rec.fork_at,
            rec.status,
            rec.created_at or _now(),
            genesis_hash(definition),
            _json.encode(rec.reseeds).decode(),
            int(rec.salted),
        )
        self._secrets.pop(rec.id, None)
        with self.transaction():
            conn = self._conn
            if conn.execute("SELECT 1 FROM games WHERE id = ?", (rec.id,)).fetchone():
                raise GameExists(rec.id)
            if rec.parent is not None and not self._exists(rec.parent):
                raise GameNotFound(rec.parent)
            conn.execute(
                "INSERT INTO games (id, game, definition, options, players, bots, rules_version, "
                "seed, seed_commitment, table_game, parent, fork_at, status, created_at, genesis, "
                "reseeds, salted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )

    def _exists(self, game_id: str) -> bool:
        return self._conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None

    def get_game(self, game_id: str) -> GameRecord:
        row = self._conn.execute(
            f"SELECT {_GAME_COLS} FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return _game_from_row(row)

    def list_games(self) -> list[GameRecord]:
        """Every game, oldest first (by ``created_at``, then id)."""
        cur = self._conn.execute(f"SELECT {_GAME_COLS} FROM games ORDER BY created_at, id")
        return [_game_from_row(r) for r in cur]

    def list_games_with_counts(self) -> list[tuple[GameRecord, int]]:
        """:meth:`list_games` with each game's number of events."""
        cols = ", ".join(f"g.{c.strip()}" for c in _GAME_COLS.split(","))
        cur = self._conn.execute(
            f"SELECT {cols}, (SELECT count(*) FROM events e WHERE e.game_id = g.id) "
            "FROM games g ORDER BY g.created_at, g.id"
        )
        return [(_game_from_row(r[:-1]), r[-1]) for r in cur]

    def set_status(self, game_id: str, status: Status) -> None:
        if status not in STATUSES:
            raise StoreError(f"status must be one of {', '.join(STATUSES)}, not {status!r}")
        with self.transaction():
            cur = self._conn.execute("UPDATE games SET status = ? WHERE id = ?", (status, game_id))
            if cur.rowcount == 0:
                raise GameNotFound(game_id)

    # -- notes ---------------------------------------------------------------
    def add_note(self, game_id: str, seq: int, text: str) -> None:
        """Attach ``text`` to event ``seq`` of the game (outside the hash chain)."""
        with self.transaction():
            version = self.version(game_id)  # GameNotFound if there is no such game
            if not 1 <= seq <= version:
                raise StoreError(f"game {game_id!r} has events 1..{version}; no seq {seq}")
            self._conn.execute(
                "INSERT INTO notes (game_id, seq, text) VALUES (?, ?, ?)", (game_id, seq, text)
            )

    def notes(self, game_id: str) -> list[Note]:
        """The game's notes by seq, in the order they were added."""
        cur = self._conn.execute(
            "SELECT seq, text FROM notes WHERE game_id = ? ORDER BY seq, id", (game_id,)
        )
        out = [Note(seq, text) for seq, text in cur]
        if not out and not self._exists(game_id):
            raise GameNotFound(game_id)
        return out

    # -- events --------------------------------------------------------------
    def version(self, game_id: str) -> int:
        """The last seq of the game, 0 before its first event."""
        row = self._conn.execute(_SQL_HEAD, (game_id,)).fetchone()
        if row is not None:
            return row[0]
        if not self._exists(game_id):
            raise GameNotFound(game_id)
        return 0

    def _secret(self, game_id: str) -> str | None:
        """The game's seed, which salts its lines' digests (a game's seed never changes)."""
        if game_id not in self._secrets:
            row = self._conn.execute(
                "SELECT seed, salted FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise GameNotFound(game_id)
            self._secrets[game_id] = row[0] if row[1] else None
        return self._secrets[game_id]

    def head(self, game_id: str) -> tuple[int, str]:
        """(last seq, its hash); (0, genesis) before the first event."""
        row = self._conn.execute(_SQL_HEAD, (game_id,)).fetchone()
        if row is not None:
            return row[0], row[1]
        g = self._conn.execute(_SQL_GENESIS, (game_id,)).fetchone()
        if g is None:
            raise GameNotFound(game_id)
        return 0, g[0]

    def append(
        self, game_id: str, expected_version: int, items: Sequence[tuple[str, bytes]]
    ) -> list[Recorded]:
        """Append ``(type, payload)`` items as seqs ``expected_version + 1 …``.

        All or nothing, in one transaction (a savepoint inside
        :meth:`transaction`).  Raises :class:`Conflict` if the game's version
        is not ``expected_version``, :class:`GameNotFound` if there is no such
        game.  An empty batch only checks the version.
        """
        conn = self._conn
        outer, name = self._begin()
        try:
            head = conn.execute(_SQL_HEAD, (game_id,)).fetchone()
            if head is None:
                g = conn.execute(_SQL_GENESIS, (game_id,)).fetchone()
                if g is None:
                    raise GameNotFound(game_id)
                version, prev = 0, g[0]
            else:
                version, prev = head
            if version != expected_version:
                raise Conflict(game_id, expected_version, version)
            secret = self._secret(game_id)
            records: list[Recorded] = []
            rows: list[tuple[str, int, str, bytes, str, str]] = []
            seq = version
            for type_, payload in items:
                if type(payload) is not bytes:
                    payload = bytes(payload)  # memoryview/bytearray; str raises TypeError
                seq += 1
                h = chain_hash(prev, seq, type_, payload_digest(payload, line_nonce(secret, seq)))
                records.append(Recorded(game_id, seq, type_, payload, prev, h))
                rows.append((game_id, seq, type_, payload, prev, h))
                prev = h
            if len(rows) == 1:
                conn.execute(_SQL_INSERT, rows[0])
            elif rows:
                conn.executemany(_SQL_INSERT, rows)
            conn.execute("COMMIT" if outer else f"RELEASE SAVEPOINT {name}")
        except BaseException as e:
            self._undo(outer, name)
            if isinstance(e, sqlite3.IntegrityError) and "UNIQUE" in str(e):
                # Another writer took the seq first: the PK is the final check.
                raise Conflict(game_id, expected_version, self.version(game_id)) from e
            if isinstance(e, sqlite3.Error):
                raise StoreError(f"append to {game_id!r} failed: {e}") from e
            raise
        return records

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
