"""Stepping through a ~2,000-event log does no fold per key press.

No single bot game is that long, so the log is five 4-player Point City games
laid end to end (the model only indexes lists; each step renders one state).
What a step costs is counted, not timed: every ``apply`` and ``fold`` of the
game is counted while the cursor walks the whole log and while real key
presses go through the Pilot, and there must be none (the step is O(1) in the
log's length).  Timings, as ratios, are in ``bench/bench_tui.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cli.tui.app import CitylogApp
from cli.tui.model import GameModel
from cli.tui.replay import GameScreen
from events.service import GameService
from events.sqlite_store import SqliteStore
from tests.tui.helpers import settle

SIZE = (120, 40)


def long_model(db: str, target: int = 2000) -> GameModel:
    svc = GameService(SqliteStore(db, durability="normal"))
    ids = []
    n = 0
    seed = 0
    while n < target:
        gid = svc.create("point-city", ["a", "b", "c", "d"], seed=f"long{seed}", bots={i: "random" for i in range(4)})
        n += svc.store.version(gid)
        ids.append(gid)
        seed += 1
    loads = [svc.load(gid, history=True) for gid in ids]
    svc.store.close()
    first = loads[0]
    return GameModel(
        first.record,
        first.game,
        [r for x in loads for r in x.records],
        [e for x in loads for e in x.events],
        [s for x in loads for s in x.history],
    )


class FoldCounter:
    """Counts calls of the game's ``apply`` and ``fold`` (the only ways to fold)."""

    def __init__(self, game: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        for name in ("apply", "fold"):
            monkeypatch.setattr(game, name, self._counting(getattr(game, name)))

    def _counting(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return fn(*args, **kwargs)

        return counted


async def test_stepping_a_2000_event_log_folds_nothing(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    model = long_model(db)
    n = len(model.events)
    assert n >= 2000
    app = CitylogApp(db)
    app.backend.load = lambda game_id, cursor=None: model  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(GameScreen(model.game_id))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.model is model
        await pilot.press("home")
        folds = FoldCounter(model.game, monkeypatch)
        # the counter sees a fold when there is one (so a zero below means something)
        model.game.fold(model.events[:3])
        assert folds.calls >= 1
        folds.calls = 0
        # every event, model + widgets updated (what one key press does, without key dispatch)
        for _ in range(n - 1):
            screen.action_step(1)
        assert model.cursor == n - 1
        # real key presses through the Pilot
        await pilot.press("home")
        await pilot.press(*["right"] * 40)
        assert model.cursor == 40
        await pilot.press(*["pagedown"] * 8, "end", "home")
        assert model.cursor == 0
        assert folds.calls == 0, f"{folds.calls} folds while stepping"
