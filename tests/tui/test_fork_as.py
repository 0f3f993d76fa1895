"""The replay screen's ``F``: fork at the shown event taking over a seat [GL-3] (issue 26, item 5)."""

from __future__ import annotations

from events.service import GameService

from cli.tui.app import CitylogApp
from cli.tui.replay import GameScreen
from tests.tui.helpers import settle

SIZE = (120, 40)


async def test_shift_f_forks_taking_over_a_seat(db: str, service: GameService) -> None:
    app = CitylogApp(db, "cc-demo")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.model is not None
        model = screen.model
        at = 10
        while model.game.command_of(model.events[at + 1]) is None:  # a fork point: a decision opens next
            at += 1
        await pilot.press("home", *["right"] * at, "F")
        await pilot.pause()
        await pilot.press(*"ben", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.game_id != "cc-demo"
        child = service.load(screen.game_id)
        assert child.record.parent == "cc-demo" and child.record.fork_at == at + 1
        # ben's bot is gone, the others keep theirs; the game waits for ben, not for the end
        assert sorted(child.record.bots) == [0, 2]
        assert child.game.to_act(child.state) == (1,)
        parent = service.load("cc-demo")
        assert [r.hash for r in child.records[: at + 1]] == [r.hash for r in parent.records[: at + 1]]
        assert child.version < parent.version
