"""The game-agnostic event store: envelope and hash chain, codec, the stores (SQLite, PostgreSQL),
and the service over them (docs/architecture.md, section 2).

Nothing in this package knows any game: payloads are opaque msgspec-JSON bytes
whose tag is the record's ``type``.  The package imports none of its modules,
so ``import events.envelope`` loads the envelope alone (no store, no backend):
import what you use from its module (``events.backends.open_store``,
``events.sqlite_store.SqliteStore``, ``events.service.GameService``).
"""
