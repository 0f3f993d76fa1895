"""Store I/O for the TUI, safe to call from worker threads.

A store is one connection and belongs to one thread, so every call opens its
own store (a SQLite file or a PostgreSQL URL), uses the same :class:`GameService`
as the CLI, and closes it.  Call these from Textual thread workers only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from events.service import GameService
from events.backends import open_store
from replay.analyses import from_store
from replay.diff import diff
from replay.hint import describe, hint
from replay.sources import export, open_log
from replay.tree import flatten, game_tree

from cli.tui.model import DiffModel, GameModel, GameRow


class Backend:
    def __init__(self, db: str, durability: str = "full") -> None:
        self.db = db
        self.durability = durability

    @contextmanager
    def service(self) -> Iterator[GameService]:
        store = open_store(self.db, durability=self.durability)  # type: ignore[arg-type]
        try:
            yield GameService(store)
        finally:
            store.close()

    def tree(self, game_id: str) -> list[tuple[str, str]]:
        """The game's fork tree as (game id, line) rows (``citylog tree``)."""
        with self.service() as svc:
            return flatten(game_tree(svc, game_id), mark=game_id)

    def games(self) -> list[GameRow]:
        """The library: every game but simulated ones (tag sim) and those an undo left
        (tag superseded, [GL-3]), as ``citylog list``."""
        from events.store import LIST_HIDDEN, GameFilter

        with self.service() as svc:
            rows = svc.store.list_games_with_counts(GameFilter(hidden_tag=LIST_HIDDEN))
            return [GameRow.of(rec, n) for rec, n in rows]

    def follow(
        self,
        game_id: str,
        current: Callable[[], GameModel | None],
        deliver: Callable[[GameModel], None],
        stop: Callable[[], bool],
        poll: float = 0.5,
    ) -> None:
        """Live mode: until ``stop()`` or the game is over, wait for events
        appended by anyone (PostgreSQL: LISTEN/NOTIFY; SQLite: the head, polled)
        and ``deliver`` the current model extended by them — never refolded."""
        store = open_store(self.db, readonly=True)
        try:
            while not stop():
                model = current()
                if model is None or not model.game.to_act(model.states[-1]):
                    return
                if store.wait(game_id, model.version, poll) > model.version:
                    new = store.read(game_id, after=model.version)
                    if new and new[0].prev_hash == model.records[-1].hash and not stop():
                        deliver(model.extended(new))
        finally:
            store.close()

    def load(self, game_id: str, cursor: int | None = None) -> GameModel:
        with self.service() as svc:
            return GameModel.from_loaded(svc.load(game_id, history=True), cursor, svc.store.notes(game_id),
                                         from_store(svc.store, game_id))

    def submit(self, game_id: str, seat: int, command: Any, expected_version: int) -> GameModel:
        """Submit, then reload with the cursor at the new end (bots have moved too)."""
        with self.service() as svc:
            svc.submit(game_id, seat, command, expected_version=expected_version)
            return GameModel.from_loaded(svc.load(game_id, history=True), None, svc.store.notes(game_id),
                                         from_store(svc.store, game_id))

    def new(self, game: str, players: list[str], bots: dict[int, str]) -> str:
        with self.service() as svc:
            return svc.create(game, players, bots=bots)

    def fork(self, game_id: str, at: int, seed: str | None, take_over: str | None = None) -> str:
        """``citylog fork``; ``take_over``: a player whose seat the fork gives to a person [GL-3]."""
        with self.service() as svc:
            seats = [svc.load(game_id).seat(take_over)] if take_over else []
            return svc.fork(game_id, at, seed, take_over=seats)

    def hint(self, game_id: str, player: str, playouts: int = 0) -> list[str]:
        """``citylog hint``'s lines for ``player``, read through their view (open_log);
        0 playouts: the game's default, what the ``mcts`` bot searches."""
        with self.service() as svc:
            return describe(hint(open_log(svc, game_id, player), playouts))

    def diff(self, a: str, b: str) -> DiffModel:
        with self.service() as svc:
            summary = diff(export(svc, a), export(svc, b))
            ma = GameModel.from_loaded(svc.load(a, history=True), 0)
            mb = GameModel.from_loaded(svc.load(b, history=True), 0)
        model = DiffModel(ma, mb, summary)
        model.jump_to_divergence()  # open where the games part
        return model
