"""The SQLite store's schema: its migrations in order, and the checks made on
open (is this citylog's database, and at which version)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Union

import msgspec

from events.envelope import GameDefinition, genesis_hash
from events.store import NotCitylog

if TYPE_CHECKING:  # sqlite-utils is imported only to migrate (it costs ~90 ms)
    from sqlite_utils import Database

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "check_ours", "schema_version"]


def _v1(db: Database) -> None:
    db.table("games").create(
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
    db.table("events").create(
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
    db.table("games").add_column("genesis", str)
    rows = db.execute("SELECT id, definition FROM games").fetchall()
    for game_id, definition in rows:
        d = msgspec.json.decode(definition, type=GameDefinition)
        db.execute("UPDATE games SET genesis = ? WHERE id = ?", (genesis_hash(d), game_id))


_V6_HEADS = """
ALTER TABLE games ADD COLUMN head_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN head_hash TEXT;
UPDATE games SET
    head_seq = coalesce((SELECT max(seq) FROM events e WHERE e.game_id = games.id), 0),
    head_hash = coalesce(
        (SELECT hash FROM events e WHERE e.game_id = games.id ORDER BY seq DESC LIMIT 1), genesis);
ALTER TABLE games ADD COLUMN winners TEXT NOT NULL DEFAULT '[]';
CREATE INDEX IF NOT EXISTS games_game ON games (game, created_at, id);
CREATE INDEX IF NOT EXISTS games_status ON games (status, created_at, id);
"""

def _v7_pbem(db: "Database") -> None:
    """Play by email (issue 10): the seed commitment's salt, the host's key, and the
    signed statement (move or join file) behind each human decision."""
    db.execute("ALTER TABLE games ADD COLUMN salt TEXT")
    db.execute("ALTER TABLE games ADD COLUMN host_key TEXT NOT NULL DEFAULT ''")
    db.execute(
        "CREATE TABLE signed (game_id TEXT NOT NULL REFERENCES games (id), seq INTEGER NOT NULL, "
        "statement BLOB NOT NULL, PRIMARY KEY (game_id, seq))"
    )


Migration = Union[str, Callable[["Database"], None]]
MIGRATIONS: list[tuple[int, Migration]] = [
    (1, _v1),
    (2, _v2_genesis),
    (3, "CREATE INDEX IF NOT EXISTS games_created ON games (created_at, id)"),
    (4, "ALTER TABLE games ADD COLUMN reseeds TEXT NOT NULL DEFAULT '[]'"),
    # games chained before line nonces keep unsalted digests (salted = 0)
    (5, "ALTER TABLE games ADD COLUMN salted INTEGER NOT NULL DEFAULT 0"),
    # each game's head (seq, hash) in its row, kept by append, and its winners (set with
    # its status by the service; '[]' for games that ended before): list costs no history
    (6, _V6_HEADS),
    # notes (issue 15): comments on a point of a game, outside the hash chain
    # issue 10, play by email: the seed commitment's salt, the host's key, and the
    # signed statement (move or join file) behind each human decision
    (7, _v7_pbem),
    (
        8,
        "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, "
        "game_id TEXT NOT NULL REFERENCES games(id), seq INTEGER NOT NULL, text TEXT NOT NULL); "
        "CREATE INDEX IF NOT EXISTS notes_game ON notes (game_id, seq, id)",
    ),
    # tags (issue 14): labels outside the hash chain (``tag``, ``list --tag``, simulate's ``sim``)
    (
        9,
        "CREATE TABLE IF NOT EXISTS tags (game_id TEXT NOT NULL REFERENCES games(id), "
        "tag TEXT NOT NULL, PRIMARY KEY (game_id, tag)); "
        "CREATE INDEX IF NOT EXISTS tags_tag ON tags (tag, game_id)",
    ),
    # analyses (issue 25): ``citylog analyse``'s judgements, keyed by seat, seq,
    # budget, rules and engine version; derived data beside the hash chain
    (
        10,
        "CREATE TABLE IF NOT EXISTS analyses (game_id TEXT NOT NULL REFERENCES games(id), "
        "key TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (game_id, key))",
    ),
    # deadlines (issue 24): when the host first saw each line of a game (its own clock,
    # outside the hash chain; what it claims on a timeout line is read from here)
    (
        11,
        "CREATE TABLE IF NOT EXISTS clock (game_id TEXT NOT NULL REFERENCES games(id), "
        "seq INTEGER NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (game_id, seq))",
    ),
]
"""Applied in order on open, each in the same transaction as its version bump.
Append only; never edit a released step (old databases went through it)."""
SCHEMA_VERSION = MIGRATIONS[-1][0]


def schema_version(conn: sqlite3.Connection) -> int:
    has_meta = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if not has_meta:
        return 0
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    try:
        return int(row[0]) if row else 0
    except (TypeError, ValueError):
        raise NotCitylog(f"schema_version {str(row[0])[:40]!r} is not a number: not a citylog database, or a damaged one") from None


def check_ours(conn: sqlite3.Connection, path: str) -> None:
    """Refuse, before anything is written, a database that is not citylog's."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return
    ours = "meta" in tables and conn.execute(
        "SELECT 1 FROM meta WHERE key = 'schema_version'"
    ).fetchone()
    if not ours:
        raise NotCitylog(f"{path} is a SQLite database but not citylog's; left untouched")
