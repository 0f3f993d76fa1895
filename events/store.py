"""Where games and their events are kept: the :class:`EventStore` protocol (the
single contract every backend implements), its records and errors, and
:func:`events.backends.open_store` picks the backend from a target.

The store knows no game.  A game is a row of ``games`` (its definition, seed,
bots, lineage, status and head) and the rows of ``events`` with its id,
numbered from 1.  The primary key ``(game_id, seq)`` is the final concurrency
check; an append names the version it expects and writes nothing if another
writer got there first (:class:`Conflict`).

Backends: :class:`events.sqlite_store.SqliteStore` (one file, the embedded
default) and :class:`events.pg_store.PgStore` (PostgreSQL, for several hosts
or workers sharing one store).  Each is imported only when opened, so a
command that never touches PostgreSQL never imports psycopg.
"""

from __future__ import annotations

import contextlib
import re
import secrets
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Literal, Protocol

import msgspec

from events.envelope import GameDefinition, Recorded, genesis_hash

__all__ = [
    "Conflict",
    "EventStore",
    "GameExists",
    "GameNotFound",
    "GameRecord",
    "Note",
    "NotCitylog",
    "StoreBusy",
    "StoreError",
    "StoreUnavailable",
    "EnvironmentFailure",
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


class NotCitylog(StoreError):
    """The target is a database, but not citylog's: refused, left untouched."""


class EnvironmentFailure(StoreError):
    """The machine, not the user's input, failed: disk full, I/O error, a lock
    held too long, a server that cannot be reached (exit code 4 in the CLI)."""


class StoreBusy(EnvironmentFailure):
    """Another process held the database longer than the busy timeout."""


class StoreUnavailable(EnvironmentFailure):
    """The store cannot be opened or written: disk full, I/O error, server down."""


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
    """UTC ISO-8601; filled in by :meth:`EventStore.create_game` when empty."""
    salted: bool = True
    """Line digests are salted with nonces from the seed (every game since schema 5)."""
    reseeds: tuple[tuple[int, str], ...] = ()
    """Forks taken with a new seed: ``(from_seq, seed)``; chance events at and
    after ``from_seq`` come from that seed (the genesis keeps the first seed's
    commitment, so a fork shares its parent's prefix)."""
    winners: tuple[str, ...] = ()
    """Once over: the winners' names (from the fold; kept in the row for ``list``)."""
    salt: str | None = None
    """Hex salt of the seed commitment (None: an older, unsalted commitment)."""
    host_key: str = ""
    """Play by email: the host's public key (part of the definition)."""
    secrets: int = 1
    """The definition's secret scheme (:mod:`core.chance`); kept in the ``salted``
    column as 2 (1 and 0 are scheme 1, salted or not)."""
    deadline: int = 0
    """Play by email: the definition's deadline in seconds (0: none) [CL-T1]."""
    on_timeout: str = ""
    """Play by email: the definition's timeout policy ("" with no deadline)."""
    entropy: int = 1
    """Play by email: the definition's entropy scheme (2: committed, then revealed) [CL-S7]."""

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
            host_key=definition.host_key,
            secrets=definition.secrets,
            deadline=definition.deadline,
            on_timeout=definition.on_timeout,
            entropy=definition.entropy,
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
            host_key=self.host_key,
            secrets=self.secrets,
            deadline=self.deadline,
            on_timeout=self.on_timeout,
            entropy=self.entropy,
        )

    @property
    def line_secret(self) -> str | None:
        """The secret this game's line nonces derive from (None: no nonces)."""
        from core.chance import nonce_secret

        return nonce_secret(self.seed, self.salt, self.secrets, self.salted)

    @property
    def pbem(self) -> bool:
        """A play-by-email game: seats join with keys, moves are signed."""
        return bool(self.host_key)

    @property
    def genesis(self) -> str:
        return genesis_hash(self.definition)


class GameFilter(msgspec.Struct, frozen=True):
    """Which games :meth:`EventStore.list_games_with_counts` returns: every
    field that is set must match; ``after`` pages (games listed after that id);
    ``limit`` caps the page."""

    game: str | None = None
    player: str | None = None
    status: Status | None = None
    after: str | None = None
    limit: int | None = None
    tag: str | None = None
    """Only games with this tag."""
    hidden_tag: str | tuple[str, ...] | None = None
    """Leave out games with this tag, or with any of these (``list`` hides simulated
    games, tagged ``sim``, and the branches an ``undo`` left, tagged ``superseded``)."""


class Note(msgspec.Struct, frozen=True):
    """A comment attached to a point of a game (``citylog note``).

    Kept outside the hash chain: a note never changes a game's events or hashes.
    """

    seq: int
    text: str


SIM_TAG = "sim"
"""The tag ``simulate`` gives its games; ``list`` and ``last`` leave them out unless asked."""
SUPERSEDED_TAG = "superseded"
"""The tag an ``undo`` at the play prompt gives the game it leaves for a fork [GL-3]:
``list`` leaves such games out unless asked (``--all``, ``--tag superseded``)."""
LIST_HIDDEN = (SIM_TAG, SUPERSEDED_TAG)
"""What ``list`` leaves out by default."""
_TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:+-]{0,39}")


def check_tag(tag: str) -> str:
    """``tag`` if it is a usable tag: 1–40 letters, digits, ``_ . : + -``, not
    starting with a punctuation mark (so never mistaken for an option).

    >>> check_tag("sim"), check_tag("club-2026")
    ('sim', 'club-2026')
    """
    if not isinstance(tag, str) or not _TAG.fullmatch(tag):
        raise StoreError(
            f"tag {str(tag)[:50]!r}: use 1–40 letters, digits and _ . : + - (starting with a letter or digit)"
        )
    return tag


def new_game_id() -> str:
    """A short random id (ids never enter events, so randomness is fine)."""
    return secrets.token_hex(4)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def check_new_game(rec: GameRecord) -> None:
    """What every backend checks before inserting a game."""
    if rec.status not in STATUSES:
        raise StoreError(f"status must be one of {', '.join(STATUSES)}, not {rec.status!r}")
    if rec.fork_at is not None and rec.parent is None:
        raise StoreError("fork_at needs a parent")


def check_status(status: str) -> None:
    if status not in STATUSES:
        raise StoreError(f"status must be one of {', '.join(STATUSES)}, not {status!r}")


# -- the protocol ------------------------------------------------------------
class EventStore(Protocol):
    """What the service needs from a store.  Every error is a StoreError."""

    location: str
    """Where the store is (a path or a URL without its password), for messages."""

    def create_game(self, rec: GameRecord) -> None: ...
    def get_game(self, game_id: str) -> GameRecord: ...
    def list_games(self) -> list[GameRecord]: ...
    def list_games_with_counts(
        self, where: GameFilter | None = None
    ) -> list[tuple[GameRecord, int]]:
        """Games oldest first (``created_at``, then id) with their number of
        events, read from each game's row (cost independent of history)."""
        ...

    def damaged_games(self) -> list[str]:
        """One line per row of ``games`` that cannot be read, naming the game
        (:meth:`list_games_with_counts` leaves such rows out)."""
        ...

    def integrity_problem(self) -> str | None:
        """The store's own check of its storage: None if sound, else its first complaint."""
        ...


    def version(self, game_id: str) -> int: ...
    def head(self, game_id: str) -> tuple[int, str]: ...
    def append(
        self, game_id: str, expected_version: int, items: Sequence[tuple[str, bytes]]
    ) -> list[Recorded]: ...
    def read(self, game_id: str, upto: int | None = None, after: int = 0) -> list[Recorded]: ...
    def set_status(self, game_id: str, status: Status, winners: Sequence[str] = ()) -> None:
        """Set the game's status (and, once over, its winners' names)."""
        ...

    def wait(self, game_id: str, seq: int, timeout: float) -> int:
        """Block until the game's head passes ``seq`` or ``timeout`` seconds
        pass; the head's seq then (another process's appends included)."""
        ...

    def add_note(self, game_id: str, seq: int, text: str) -> None:
        """Attach ``text`` to event ``seq`` of the game (outside the hash chain)."""
        ...

    def notes(self, game_id: str) -> list[Note]:
        """The game's notes by seq, in the order they were added."""
        ...

    def add_signed(self, game_id: str, seq: int, statement: bytes) -> None:
        """Keep the signed move or join file behind the decision opening ``seq``."""
        ...

    def signed(self, game_id: str, after: int = 0) -> dict[int, bytes]:
        """seq -> the signed statement behind the decision opening it (those past ``after``)."""
        ...

    def put_analyses(self, game_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        """Keep ``citylog analyse``'s judgements (key, data) beside the chain."""
        ...

    def analyses(self, game_id: str) -> dict[str, bytes]:
        """key -> data of the game's stored judgements."""
        ...

    def mark_time(self, game_id: str, seq: int, at: int) -> None:
        """The host's clock: when it first saw line ``seq`` (issue 24)."""
        ...

    def times(self, game_id: str) -> dict[int, int]:
        """seq -> when the host first saw that line."""
        ...

    def add_tags(self, game_id: str, tags: Sequence[str]) -> list[str]:
        """Label the game (outside the hash chain); the tags it did not have yet."""
        ...

    def remove_tags(self, game_id: str, tags: Sequence[str]) -> list[str]:
        """Take tags off the game; the ones it had."""
        ...

    def tags(self, game_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """game id -> its tags, sorted (untagged games left out)."""
        ...

    def ids_with_prefix(self, prefix: str, limit: int = 10) -> list[str]:
        """At most ``limit`` ids starting with ``prefix`` (case-insensitive), oldest first."""
        ...

    def latest_id(self, hidden_tag: str | None = None) -> str | None:
        """The newest game's id, skipping games tagged ``hidden_tag``; None if none."""
        ...

    def forks_of(self, game_id: str) -> list[str]:
        """The games forked directly from ``game_id``."""
        ...

    def delete_game(self, game_id: str) -> None:
        """Remove a game and everything kept beside it (events, notes, tags,
        signed files); StoreError if it has forks."""
        ...

    def transaction(self) -> contextlib.AbstractContextManager[EventStore]: ...
    def close(self) -> None: ...
