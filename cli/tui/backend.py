"""Store I/O for the TUI, safe to call from worker threads.

A ``SqliteStore`` is one connection and belongs to one thread, so every call
opens its own store on the database file, uses the same :class:`GameService`
as the CLI, and closes it.  Call these from Textual thread workers only.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from events.service import GameService
from events.store import SqliteStore
from replay.diff import diff
from replay.hint import describe, hint
from replay.sources import export, open_log

from cli.tui.model import DiffModel, GameModel, GameRow


HINT_PLAYOUTS = 300
"""The TUI's hint budget: a few seconds at most on a slow machine."""


class Backend:
    def __init__(self, db: str, durability: str = "full") -> None:
        self.db = db
        self.durability = durability

    @contextmanager
    def service(self) -> Iterator[GameService]:
        store = SqliteStore(self.db, durability=self.durability)  # type: ignore[arg-type]
        try:
            yield GameService(store)
        finally:
            store.close()

    def games(self) -> list[GameRow]:
        with self.service() as svc:
            return [GameRow.of(rec, n) for rec, n in svc.store.list_games_with_counts()]

    def load(self, game_id: str, cursor: int | None = None) -> GameModel:
        with self.service() as svc:
            return GameModel.from_loaded(svc.load(game_id, history=True), cursor)

    def submit(self, game_id: str, seat: int, command: Any, expected_version: int) -> GameModel:
        """Submit, then reload with the cursor at the new end (bots have moved too)."""
        with self.service() as svc:
            svc.submit(game_id, seat, command, expected_version=expected_version)
            return GameModel.from_loaded(svc.load(game_id, history=True))

    def fork(self, game_id: str, at: int, seed: str | None) -> str:
        with self.service() as svc:
            return svc.fork(game_id, at, seed)

    def hint(self, game_id: str, player: str, playouts: int = HINT_PLAYOUTS) -> list[str]:
        """``citylog hint``'s lines for ``player``, read through their view (open_log)."""
        with self.service() as svc:
            return describe(hint(open_log(svc, game_id, player), playouts))

    def diff(self, a: str, b: str) -> DiffModel:
        with self.service() as svc:
            summary = diff(export(svc, a), export(svc, b))
            ma = GameModel.from_loaded(svc.load(a, history=True), 0)
            mb = GameModel.from_loaded(svc.load(b, history=True), 0)
        return DiffModel(ma, mb, summary)
