"""The TUI's live mode (``w``): moves appended by another process show up on
the game screen as they land, each folded onto the last state — the game is
never reloaded or refolded (counted, not timed)."""

from __future__ import annotations

import threading
from typing import Any

from cli.tui.app import CitylogApp
from cli.tui.backend import Backend
from cli.tui.model import GameModel
from cli.tui.replay import GameScreen
from events.service import GameService
from events.backends import open_store
from tests.tui.helpers import settle

SIZE = (120, 40)


async def test_live_mode_follows_moves_made_elsewhere(db: str, monkeypatch: Any) -> None:
    loads: list[str] = []
    real_load = Backend.load

    def counting_load(self: Backend, game_id: str, cursor: int | None = None) -> GameModel:
        loads.append(game_id)
        return real_load(self, game_id, cursor)

    applied = {"n": 0}
    app = CitylogApp(db, "cc-play")
    monkeypatch.setattr(Backend, "load", counting_load)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.model is not None
        before = screen.model.version
        game = screen.model.game
        real_apply = game.apply

        def counting_apply(state: Any, event: Any) -> Any:
            if threading.current_thread() is not threading.main_thread():  # the live worker's
                applied["n"] += 1
            return real_apply(state, event)

        monkeypatch.setattr(game, "apply", counting_apply)
        await pilot.press("escape", "w")  # out of the play panel first: letters there are text
        assert screen.live
        # another process: ada's move, then the bot and chance play on
        other = GameService(open_store(db))
        loaded = other.load("cc-play")
        seat = loaded.game.to_act(loaded.state)[0]
        command = next(iter(loaded.game.legal(loaded.state, seat)))
        written = other.submit("cc-play", seat, command)
        other.store.close()
        for _ in range(200):
            await pilot.pause(0.05)
            if screen.model.version > before:
                break
        model = screen.model
        assert model.version == before + len(written)
        assert [r.hash for r in model.records[before:]] == [r.hash for r in written]
        assert model.at_end and len(model.states) == len(model.events) == model.version
        assert loads == ["cc-play"]  # the game was loaded once, when opened
        assert applied["n"] == len(written)  # each new event applied once: no refold
        await pilot.press("w")
        assert not screen.live
        await settle(pilot)
