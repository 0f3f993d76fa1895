"""Tables beside the hash chain, the same for every store: the signed move and
join files behind human decisions (issue 10), notes (issue 15) and tags
(issue 14); and what reads or removes a game as a whole: finding it by an id
prefix or as the latest, and deleting it.

Neither changes a game's events or hashes.  A store mixes this in and sets
``_mark``, its SQL parameter marker (``?`` for SQLite, ``%s`` for psycopg).
"""

from __future__ import annotations

from typing import Any

from collections.abc import Sequence

from events.store import GameNotFound, Note, StoreError, check_tag


class SideTables:
    _mark: str
    _conn: Any

    def _sql(self, sql: str) -> str:
        return sql.replace("?", self._mark)

    # used from the store itself: transaction(), version(game_id), _exists(game_id)
    transaction: Any
    version: Any
    _exists: Any

    def add_signed(self, game_id: str, seq: int, statement: bytes) -> None:
        """Keep the signed move or join file behind the decision opening ``seq``."""
        with self.transaction():
            self._conn.execute(
                self._sql("INSERT INTO signed (game_id, seq, statement) VALUES (?, ?, ?)"),
                (game_id, seq, statement),
            )

    def signed(self, game_id: str, after: int = 0) -> dict[int, bytes]:
        """seq -> the signed statement behind the decision opening it (those past ``after``)."""
        cur = self._conn.execute(
            self._sql("SELECT seq, statement FROM signed WHERE game_id = ? AND seq > ? ORDER BY seq"), (game_id, after)
        )
        return {int(seq): bytes(st) for seq, st in cur}

    def mark_time(self, game_id: str, seq: int, at: int) -> None:
        """The host's clock (issue 24): when it first saw line ``seq`` of the game
        (epoch seconds); a seq already marked keeps its first time."""
        with self.transaction():
            self._conn.execute(
                self._sql("INSERT INTO clock (game_id, seq, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"),
                (game_id, seq, int(at)),
            )

    def times(self, game_id: str) -> dict[int, int]:
        """seq -> when the host first saw that line (only the lines it marked)."""
        cur = self._conn.execute(self._sql("SELECT seq, at FROM clock WHERE game_id = ? ORDER BY seq"), (game_id,))
        return {int(seq): int(at) for seq, at in cur}

    def add_note(self, game_id: str, seq: int, text: str) -> None:
        """Attach ``text`` to event ``seq`` of the game (outside the hash chain)."""
        with self.transaction():
            version = self.version(game_id)  # GameNotFound if there is no such game
            if not 1 <= seq <= version:
                raise StoreError(f"game {game_id!r} has events 1..{version}; no seq {seq}")
            self._conn.execute(
                self._sql("INSERT INTO notes (game_id, seq, text) VALUES (?, ?, ?)"), (game_id, seq, text)
            )

    def notes(self, game_id: str) -> list[Note]:
        """The game's notes by seq, in the order they were added."""
        cur = self._conn.execute(
            self._sql("SELECT seq, text FROM notes WHERE game_id = ? ORDER BY seq, id"), (game_id,)
        )
        out = [Note(int(seq), text) for seq, text in cur]
        if not out and not self._exists(game_id):
            raise GameNotFound(game_id)
        return out

    # -- analyses (issue 25): derived judgements, outside the hash chain ------------
    def put_analyses(self, game_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        """Keep ``(key, data)`` judgements of the game (``citylog analyse``), a key's
        newer data replacing its older (they are recomputable: a cache beside the chain)."""
        with self.transaction():
            if not self._exists(game_id):
                raise GameNotFound(game_id)
            for key, data in items:
                self._conn.execute(self._sql("DELETE FROM analyses WHERE game_id = ? AND key = ?"), (game_id, key))
                self._conn.execute(
                    self._sql("INSERT INTO analyses (game_id, key, data) VALUES (?, ?, ?)"), (game_id, key, data)
                )

    def analyses(self, game_id: str) -> dict[str, bytes]:
        """key -> data of the game's stored judgements."""
        cur = self._conn.execute(
            self._sql("SELECT key, data FROM analyses WHERE game_id = ? ORDER BY key"), (game_id,)
        )
        return {str(k): bytes(d) for k, d in cur}

    # -- tags (issue 14): labels outside the hash chain --------------------------
    def add_tags(self, game_id: str, tags: Sequence[str]) -> list[str]:
        """Label the game with ``tags``; the ones it did not have yet, in order."""
        for tag in tags:
            check_tag(tag)
        with self.transaction():
            have = set(self.tags([game_id]).get(game_id, ()))
            if not have and not self._exists(game_id):
                raise GameNotFound(game_id)
            added = [t for t in dict.fromkeys(tags) if t not in have]
            for tag in added:
                self._conn.execute(self._sql("INSERT INTO tags (game_id, tag) VALUES (?, ?)"), (game_id, tag))
        return added

    def remove_tags(self, game_id: str, tags: Sequence[str]) -> list[str]:
        """Take ``tags`` off the game; the ones it had, in order."""
        with self.transaction():
            have = set(self.tags([game_id]).get(game_id, ()))
            if not have and not self._exists(game_id):
                raise GameNotFound(game_id)
            removed = [t for t in dict.fromkeys(tags) if t in have]
            for tag in removed:
                self._conn.execute(self._sql("DELETE FROM tags WHERE game_id = ? AND tag = ?"), (game_id, tag))
        return removed

    def tags(self, game_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """game id -> its tags, sorted (games without tags are left out)."""
        out: dict[str, list[str]] = {}
        ids = list(dict.fromkeys(game_ids))
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join([self._mark] * len(chunk))
            cur = self._conn.execute(
                f"SELECT game_id, tag FROM tags WHERE game_id IN ({marks}) ORDER BY game_id, tag", chunk
            )
            for gid, tag in cur:
                out.setdefault(gid, []).append(tag)
        return {k: tuple(v) for k, v in out.items()}

    # -- finding a game ----------------------------------------------------------
    def ids_with_prefix(self, prefix: str, limit: int = 10) -> list[str]:
        """Ids starting with ``prefix``, compared case-insensitively, oldest first."""
        if not prefix:
            return []
        cur = self._conn.execute(
            self._sql(
                "SELECT id FROM games WHERE lower(substr(id, 1, CAST(? AS INTEGER))) = lower(?) "
                "ORDER BY created_at, id LIMIT CAST(? AS INTEGER)"
            ),
            (len(prefix), prefix, max(0, limit)),
        )
        return [str(r[0]) for r in cur]

    def latest_id(self, hidden_tag: str | None = None) -> str | None:
        """The most recently created game's id (None: no game), skipping games
        tagged ``hidden_tag``."""
        sql = "SELECT g.id FROM games g"
        args: tuple[object, ...] = ()
        if hidden_tag is not None:
            sql += " WHERE NOT EXISTS (SELECT 1 FROM tags t WHERE t.game_id = g.id AND t.tag = ?)"
            args = (hidden_tag,)
        row = self._conn.execute(self._sql(sql + " ORDER BY g.created_at DESC, g.id DESC LIMIT 1"), args).fetchone()
        return None if row is None else str(row[0])

    # -- deleting ------------------------------------------------------------------
    def forks_of(self, game_id: str) -> list[str]:
        """The ids of the games forked directly from ``game_id``, oldest first."""
        cur = self._conn.execute(
            self._sql("SELECT id FROM games WHERE parent = ? ORDER BY created_at, id"), (game_id,)
        )
        return [str(r[0]) for r in cur]

    def delete_game(self, game_id: str) -> None:
        """Remove the game with its events, notes, tags and signed files.  A game
        that has forks is refused (delete them first): lineage stays whole."""
        with self.transaction():
            if not self._exists(game_id):
                raise GameNotFound(game_id)
            forks = self.forks_of(game_id)
            if forks:
                raise StoreError(f"game {game_id!r} has forks ({', '.join(forks)}); delete them first")
            for table in ("analyses", "tags", "notes", "signed", "clock", "events"):
                self._conn.execute(self._sql(f"DELETE FROM {table} WHERE game_id = ?"), (game_id,))
            self._conn.execute(self._sql("DELETE FROM games WHERE id = ?"), (game_id,))
        self._forget(game_id)

    def _forget(self, game_id: str) -> None:
        """Drop what the store remembers of a deleted game."""
        for cache in ("_secrets", "_heads"):
            getattr(self, cache, {}).pop(game_id, None)
