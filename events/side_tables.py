"""Tables beside the hash chain, the same for every store: the signed move and
join files behind human decisions (issue 10) and notes (issue 15).

Neither changes a game's events or hashes.  A store mixes this in and sets
``_mark``, its SQL parameter marker (``?`` for SQLite, ``%s`` for psycopg).
"""

from __future__ import annotations

from typing import Any

from events.store import GameNotFound, Note, StoreError


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

    def signed(self, game_id: str) -> dict[int, bytes]:
        """seq -> the signed statement behind the decision opening it."""
        cur = self._conn.execute(
            self._sql("SELECT seq, statement FROM signed WHERE game_id = ? ORDER BY seq"), (game_id,)
        )
        return {int(seq): bytes(st) for seq, st in cur}

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
