"""The game-agnostic event store: envelope and hash chain, codec, the stores (SQLite, PostgreSQL).

Nothing in this package knows any game: payloads are opaque msgspec-JSON bytes
whose tag is the record's ``type``.
"""

from events.codec import decoder_for, encode, to_item
from events.envelope import (
    GameDefinition,
    Recorded,
    chain_hash,
    genesis_hash,
    payload_digest,
    verify_chain,
)
from events.store import (
    Conflict,
    EventStore,
    GameExists,
    GameNotFound,
    GameRecord,
    SqliteStore,
    StoreBusy,
    StoreError,
    default_db_path,
    new_game_id,
    open_store,
)

__all__ = [
    "Conflict",
    "EventStore",
    "GameDefinition",
    "GameExists",
    "GameNotFound",
    "GameRecord",
    "Recorded",
    "SqliteStore",
    "StoreBusy",
    "StoreError",
    "chain_hash",
    "decoder_for",
    "encode",
    "default_db_path",
    "genesis_hash",
    "new_game_id",
    "open_store",
    "payload_digest",
    "to_item",
    "verify_chain",
]
