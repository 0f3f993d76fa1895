"""The agent's memory, ``<datadir>/mail.sqlite``: what was handled, what is to
be sent and was sent, the address book, and the views a player received.

Crash-safe order (an agent killed between any two steps loses nothing and
applies nothing twice when it runs again):

1. *Fetch* a message; if its transport key, or its Message-ID with the same
   bytes, is already handled, mark it done in the transport and go on (a
   replayed mail is never read twice).  A mail reusing a handled Message-ID with
   other bytes is read, as any mail: a Message-ID is easy to guess (citylog's
   are deterministic), so a forged mail cannot make the genuine one ignored,
   and what it carries is applied at most once anyway (the inbox never applies
   a recorded statement again; a view or a join is kept once).
2. *Save* what it carries: the host writes its attachments into the inbox
   folder under names made from the Message-ID *and the attachment's bytes*
   (written again after a crash, the same names: already there, or already
   recorded — the inbox never applies a recorded statement twice; a forged mail
   sent first under the same Message-ID leaves files of other names, so it never
   makes the genuine one's "already there") [CL-S8]; a player stores a received view.  Then, in one
   ledger transaction, the Message-ID is recorded handled (with any refusal
   reply queued in the same transaction).  Then the transport marks it done.
3. *Apply* (host): the inbox applies each file and moves it aside in the same
   database transaction (``cli.inbox._inbox``).
4. *Queue* each mail to send (``outbox`` table) with its deterministic
   Message-ID: queuing twice is one row.
5. *Send* what is queued and not yet sent, then mark it sent.  Killed between
   the two, it is sent again on restart: the same Message-ID, which its receiver
   has handled already and ignores.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from pathlib import Path

from events.store import EnvironmentFailure

LEDGER_NAME = "mail.sqlite"
BUSY_TIMEOUT = 30.0
"""Seconds a write waits for another connection's (then the pass fails: exit 4, or --watch tries again)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS inbound (key TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS handled (
    message_id TEXT NOT NULL, digest TEXT NOT NULL, sender TEXT NOT NULL, outcome TEXT NOT NULL, why TEXT NOT NULL,
    PRIMARY KEY (message_id, digest));
CREATE TABLE IF NOT EXISTS files (
    name TEXT PRIMARY KEY, message_id TEXT NOT NULL, sender TEXT NOT NULL, answered INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS outbox (
    n INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT UNIQUE NOT NULL, recipients TEXT NOT NULL,
    raw BLOB NOT NULL, game TEXT NOT NULL, kind TEXT NOT NULL, seat TEXT NOT NULL, seq INTEGER NOT NULL,
    sent INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS book (
    game TEXT NOT NULL, player TEXT NOT NULL, address TEXT NOT NULL, PRIMARY KEY (game, player));
CREATE TABLE IF NOT EXISTS hosts (game TEXT PRIMARY KEY, address TEXT NOT NULL, host_key TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS held (
    game TEXT NOT NULL, host_key TEXT NOT NULL, sender TEXT NOT NULL, message_id TEXT NOT NULL, data BLOB NOT NULL,
    PRIMARY KEY (game, host_key));
CREATE TABLE IF NOT EXISTS refused (message_id TEXT PRIMARY KEY, why TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS views (
    game TEXT NOT NULL, player TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL,
    message_id TEXT NOT NULL, to_act INTEGER NOT NULL, PRIMARY KEY (game, player, seq, kind));
"""


@dataclass(frozen=True)
class Queued:
    message_id: str
    recipients: list[str]
    raw: bytes
    game: str
    kind: str
    seat: str
    seq: int


@dataclass(frozen=True)
class View:
    game: str
    player: str
    seq: int
    kind: str
    path: Path
    message_id: str
    to_act: bool


class Ledger:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = home / LEDGER_NAME
        try:
            home.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.executescript(SCHEMA)
        except sqlite3.Error as exc:
            raise EnvironmentFailure(f"{self.path}: {exc}") from None
        self._depth = 0

    def close(self) -> None:
        self.conn.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:  # locked, or the disk: the machine, not the mail
            raise EnvironmentFailure(f"{self.path}: {exc}") from None
        self._depth = 1
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            try:
                self.conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                with contextlib.suppress(sqlite3.Error):  # still open after a busy COMMIT
                    self.conn.execute("ROLLBACK")
                raise EnvironmentFailure(f"{self.path}: {exc}") from None
        finally:
            self._depth = 0

    def _one(self, sql: str, *args: object) -> tuple[Any, ...] | None:
        return self.conn.execute(sql, args).fetchone()

    # inbound
    def key_done(self, key: str) -> bool:
        return self._one("SELECT 1 FROM inbound WHERE key = ?", key) is not None

    def mark_key(self, key: str) -> None:
        self.conn.execute("INSERT OR IGNORE INTO inbound (key) VALUES (?)", (key,))

    def handled(self, message_id: str, digest: str) -> bool:
        """This very message (its Message-ID and its bytes) was handled before."""
        return self._one("SELECT 1 FROM handled WHERE message_id = ? AND digest = ?", message_id, digest) is not None

    def mark_handled(self, message_id: str, digest: str, sender: str, outcome: str, why: str = "") -> None:
        self.conn.execute("INSERT OR IGNORE INTO handled VALUES (?, ?, ?, ?, ?)",
                          (message_id, digest, sender, outcome, why))

    def outcomes(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT outcome, count(*) FROM handled GROUP BY outcome").fetchall())

    # inbox files (host)
    def add_file(self, name: str, message_id: str, sender: str) -> None:
        self.conn.execute("INSERT OR IGNORE INTO files (name, message_id, sender) VALUES (?, ?, ?)",
                          (name, message_id, sender))

    def file(self, name: str) -> tuple[str, str, bool] | None:
        row = self._one("SELECT message_id, sender, answered FROM files WHERE name = ?", name)
        return (row[0], row[1], bool(row[2])) if row else None

    def answered(self, name: str) -> None:
        self.conn.execute("UPDATE files SET answered = 1 WHERE name = ?", (name,))

    # outbox
    def queue(self, message_id: str, recipients: list[str], raw: bytes, game: str, kind: str, seat: str,
              seq: int) -> bool:
        """Queue a mail; False if its Message-ID was queued before (never twice)."""
        cur = self.conn.execute(
            "INSERT OR IGNORE INTO outbox (message_id, recipients, raw, game, kind, seat, seq) VALUES (?,?,?,?,?,?,?)",
            (message_id, "\n".join(recipients), raw, game, kind, seat, seq))
        return cur.rowcount == 1

    def queued_ids(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT message_id FROM outbox")}

    def was_queued(self, message_id: str) -> bool:
        return self._one("SELECT 1 FROM outbox WHERE message_id = ?", message_id) is not None

    def unsent(self) -> list[Queued]:
        rows = self.conn.execute(
            "SELECT message_id, recipients, raw, game, kind, seat, seq FROM outbox WHERE sent = 0 ORDER BY n")
        return [Queued(r[0], r[1].split("\n"), bytes(r[2]), r[3], r[4], r[5], r[6]) for r in rows]

    def mark_sent(self, message_id: str) -> None:
        self.conn.execute("UPDATE outbox SET sent = 1 WHERE message_id = ?", (message_id,))

    def answer(self, message_id: str) -> Queued | None:
        """The move or hand-over this ledger queued as ``message_id``, if any."""
        row = self._one("SELECT message_id, recipients, raw, game, kind, seat, seq FROM outbox "
                        "WHERE message_id = ? AND kind IN ('move', 'handover')", message_id)
        return Queued(row[0], row[1].split("\n"), bytes(row[2]), row[3], row[4], row[5], row[6]) if row else None

    def mark_refused(self, message_id: str, why: str) -> None:
        """The host says it refused our move ``message_id`` (its refusal answers it): said
        beside the position, which stays answered [CL-S17]."""
        self.conn.execute("INSERT OR IGNORE INTO refused VALUES (?, ?)", (message_id, why))

    def answered_moves(self) -> set[tuple[str, str, int]]:
        """(game, seat, seq) of each move sent or to be sent, refused or not: an unsigned
        refusal never makes a position unanswered again [CL-S17]."""
        return {(r[0], r[1], r[2]) for r in self.conn.execute(
            "SELECT game, seat, seq FROM outbox WHERE kind = 'move'")}

    def moves_at(self, game: str, seat: str, seq: int) -> list[bytes]:
        """The mails of each move queued at (game, seat, seq), oldest first [CL-S17]."""
        return [bytes(r[0]) for r in self.conn.execute(
            "SELECT raw FROM outbox WHERE kind = 'move' AND game = ? AND seat = ? AND seq = ? ORDER BY n",
            (game, seat, seq))]

    def refused_moves(self) -> dict[tuple[str, str, int], str]:
        """(game, seat, seq) -> why, of each move the host refused."""
        return {(r[0], r[1], r[2]): r[3] for r in self.conn.execute(
            "SELECT o.game, o.seat, o.seq, r.why FROM outbox o JOIN refused r USING (message_id) "
            "WHERE o.kind = 'move' ORDER BY o.n")}

    def sent_count(self, game: str | None = None) -> int:
        if game is None:
            return self._one("SELECT count(*) FROM outbox WHERE sent = 1")[0]  # type: ignore[index]
        return self._one("SELECT count(*) FROM outbox WHERE sent = 1 AND game = ?", game)[0]  # type: ignore[index]

    def last_sent(self, game: str, seat: str, kind: str) -> int | None:
        row = self._one("SELECT max(seq) FROM outbox WHERE game = ? AND seat = ? AND kind = ?", game, seat, kind)
        return row[0] if row else None

    # address book (host) and hosts (player)
    def set_address(self, game: str, player: str, address: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO book VALUES (?, ?, ?)", (game, player, address))

    def book(self, game: str) -> dict[str, str]:
        return dict(self.conn.execute("SELECT player, address FROM book WHERE game = ?", (game,)).fetchall())

    def booked_games(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT game FROM book ORDER BY game")]

    def set_host(self, game: str, address: str, host_key: str) -> None:
        """The host's address for a game, from its first signed mail; never changed afterwards."""
        self.conn.execute(
            "INSERT INTO hosts VALUES (?, ?, ?) ON CONFLICT (game) DO UPDATE SET address = excluded.address "
            "WHERE hosts.address = '' AND hosts.host_key = excluded.host_key",  # pinned before it wrote [CL-S10]
            (game, address, host_key))

    def pin_host(self, game: str, address: str, host_key: str) -> None:
        """The player's own choice of a game's host key [CL-S10]: it replaces the one pinned.
        Every view the ledger holds of the game was sealed by the key trusted when it
        came (the agent keeps no other), so when the key changes they go: a view the
        other key sealed is no longer one she plays, nor is she told it is her turn
        in it [CL-S14]."""
        known = self.host(game)
        if known is not None and known[1] != host_key:
            self.conn.execute("DELETE FROM views WHERE game = ?", (game,))
        self.conn.execute("INSERT OR REPLACE INTO hosts VALUES (?, ?, ?)", (game, address, host_key))

    def hold_invitation(self, game: str, host_key: str, sender: str, message_id: str, data: bytes) -> None:
        """An invitation from another host key than the game's pinned one, kept for
        ``citylog mail accept`` (the first of each key is kept) [CL-S10]."""
        self.conn.execute("INSERT OR IGNORE INTO held VALUES (?, ?, ?, ?, ?)", (game, host_key, sender, message_id, data))

    def held_invitation(self, game: str, host_key: str) -> tuple[str, str, bytes] | None:
        """(sender, Message-ID, bytes) of the held invitation of ``game`` from ``host_key``."""
        row = self._one("SELECT sender, message_id, data FROM held WHERE game = ? AND host_key = ?", game, host_key)
        return (row[0], row[1], bytes(row[2])) if row else None

    def drop_held(self, game: str, host_key: str) -> None:
        self.conn.execute("DELETE FROM held WHERE game = ? AND host_key = ?", (game, host_key))

    def held_keys(self, game: str) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT host_key FROM held WHERE game = ? ORDER BY host_key", (game,))]

    def host(self, game: str) -> tuple[str, str] | None:
        row = self._one("SELECT address, host_key FROM hosts WHERE game = ?", game)
        return (row[0], row[1]) if row else None

    # received views (player)
    def add_view(self, v: View) -> None:
        """Record a received view (its path kept relative to the data directory)."""
        try:
            where = str(v.path.relative_to(self.home))
        except ValueError:
            where = str(v.path)
        self.conn.execute("INSERT OR IGNORE INTO views VALUES (?, ?, ?, ?, ?, ?, ?)",
                          (v.game, v.player, v.seq, v.kind, where, v.message_id, int(v.to_act)))

    def views(self, game: str | None = None) -> list[View]:
        sql = "SELECT game, player, seq, kind, path, message_id, to_act FROM views"
        rows = self.conn.execute(sql + (" WHERE game = ?" if game else "") + " ORDER BY game, player, seq",
                                 (game,) if game else ())
        return [View(r[0], r[1], r[2], r[3], self.home / r[4], r[5], bool(r[6])) for r in rows]

    def latest_views(self) -> list[View]:
        """Each (game, player)'s newest received view (a final one wins)."""
        latest: dict[tuple[str, str], View] = {}
        for v in self.views():
            key = (v.game, v.player)
            old = latest.get(key)
            if old is None or (v.kind == "final", v.seq) >= (old.kind == "final", old.seq):
                latest[key] = v
        return list(latest.values())


OUTGOING = "mail/outgoing"
"""Where ``play``/``move`` on a received view queue the move file for the agent."""


def received_view(home: Path, ref: str, player: str) -> tuple[Path, Path] | None:
    """The newest view of game ``ref`` (an id or a unique start of one, any case)
    that the data directory ``home`` received for ``player``, and the folder its
    move goes to; None if there is none (or ``ref`` names several games)."""
    if not (home / LEDGER_NAME).is_file():
        return None
    ledger = Ledger(home)
    try:
        views = [v for v in ledger.latest_views() if v.player == player]
    finally:
        ledger.close()
    exact = [v for v in views if v.game == ref]
    found = exact or [v for v in views if v.game.lower().startswith(ref.lower())]
    if len({v.game for v in found}) != 1:
        return None
    out = home / OUTGOING
    out.mkdir(parents=True, exist_ok=True)
    return found[0].path, out
