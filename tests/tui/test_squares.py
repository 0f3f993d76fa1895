"""Clickable squares: ``Game.square_of`` for each game, and the play panel's square grid."""

from __future__ import annotations

from collections import Counter

import pytest

from cli.tui.app import CitylogApp
from cli.tui.model import PlayModel
from cli.tui.play import PlayPanel, SquareButton, square_id
from core import registry
from core.autoplay import play_game
from core.card_city import commands as cc
from core.point_city import commands as pc
from tests.tui.conftest import HAS_5X5
from tests.tui.helpers import settle

SIZE = (120, 40)


# -- square_of, game by game -------------------------------------------------------
def test_card_city_square_of() -> None:
    game = registry.get("card-city")
    assert game.square_of(cc.Build("R", -1, 0)) == (-1, 0)
    assert game.square_of(cc.Develop("I", 1, 1)) == (1, 1)
    assert game.square_of(cc.Buy(0, -1)) == (0, -1)
    for command in (cc.Take("pair"), cc.Discard("L"), cc.Pass(), cc.Keep(("R", "C")), cc.Draw(("R",))):
        assert game.square_of(command) is None


@pytest.mark.skipif(not HAS_5X5, reason="5x5-city is not available in this build")
def test_5x5_city_square_of() -> None:
    from core.five_by_five import commands as fc

    game = registry.get("5x5-city")
    assert game.square_of(fc.Place(3, 0)) == (0, 0)
    assert game.square_of(fc.Place(3, 7, True)) == (1, 2)
    assert game.square_of(fc.Place(3, 24)) == (4, 4)
    assert game.square_of(fc.Replace(5, 13)) == (2, 3)
    assert game.square_of(fc.Swap(6, 18)) == (1, 1)  # a swap: its first square
    for command in (fc.Choose(1), fc.UsePark(), fc.Decline(), fc.Keep(), fc.DrawTiles((1, 2))):
        assert game.square_of(command) is None


def test_point_city_square_of() -> None:
    game = registry.get("point-city")
    assert game.square_of(pc.Flip(0)) == (0, 0)
    assert game.square_of(pc.Flip(6)) == (1, 2)
    assert game.square_of(pc.Take((13, 14))) == (3, 1)  # a take: its first cell
    for command in (pc.TakeDeck(), pc.Reveal(3), pc.LayOut((1, 2))):
        assert game.square_of(command) is None


@pytest.mark.parametrize("name", registry.available())
def test_square_of_conformance(name: str) -> None:
    """Over a short seeded bot game, every command has no square or an (int, int) one."""
    game = registry.get(name)
    seen: list[object] = []
    players = [f"p{i}" for i in range(max(2, game.spec.min_players))]
    _, events = play_game(game, players, "squares", ["random"] * len(players))
    for event in events:
        decided = game.command_of(event)
        if decided is None:
            continue
        square = game.square_of(decided[1])
        seen.append(square)
        assert square is None or (
            isinstance(square, tuple) and len(square) == 2 and all(type(n) is int for n in square)
        ), (decided, square)
    assert seen


def test_play_model_filters_by_square() -> None:
    game = registry.get("card-city")
    commands = [cc.Build("R", 0, 1), cc.Build("C", 0, 1), cc.Build("R", -1, 0), cc.Discard("L")]
    play = PlayModel.of(game, 0, [(game.format_command(c), c) for c in commands])
    assert play.grid_squares() == [(-1, 0), (0, 1)]
    assert play.bounds() == (range(-1, 1), range(0, 2))
    assert play.pick_square((0, 1)) is None
    assert [c for _, c in play.visible()] == commands[:2]
    assert play.pick_square((-1, 0)) == commands[2]
    play.clear_filter()
    assert play.visible() == play.commands


def test_square_ids() -> None:
    assert square_id((0, 0)) == "sq-0-0"
    assert square_id((-2, 3)) == "sq-m2-3"
    assert square_id((1, -1)) == "sq-1-m1"


# -- the play panel --------------------------------------------------------------
def construction_game(service) -> str:
    """A Card City game where ada (human) must build: some squares take one card, some several."""
    gid = service.create("card-city", ["ada", "ben"], seed="squares", bots={1: "random"}, game_id="cc-squares")
    for _ in range(50):
        loaded = service.load(gid)
        game, state = loaded.game, loaded.state
        assert game.to_act(state) == (0,)
        commands = list(game.legal(state, 0))
        counts = Counter(s for s in map(game.square_of, commands) if s is not None)
        if 1 in counts.values() and max(counts.values()) > 1:  # single and shared squares
            return gid
        service.submit(gid, 0, commands[0], expected_version=loaded.version)
    raise AssertionError("no construction decision for ada")


def panel_of(app: CitylogApp) -> PlayPanel:
    return app.screen.query_one(PlayPanel)


async def test_grid_shows_the_squares_of_the_legal_commands(db: str, service) -> None:
    gid = construction_game(service)
    app = CitylogApp(db, gid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        model = app.screen.model
        game, state = model.game, model.states[-1]
        expected = {game.square_of(c) for c in game.legal(state, 0)} - {None}
        panel = panel_of(app)
        buttons = list(panel.query(SquareButton))
        assert {b.square for b in buttons} == expected
        assert {b.id for b in buttons} == {square_id(s) for s in expected}
        assert all(str(b.label) == f"{b.square[0]},{b.square[1]}" for b in buttons)
        rows, cols = panel.play.bounds()
        blanks = panel.query(".square-blank")
        assert len(buttons) + len(blanks) == len(rows) * len(cols)
        assert panel.play.square_filter is None and len(panel.commands) == len(panel.play.commands)


async def test_clicking_a_square_with_one_command_submits_it(db: str, service) -> None:
    gid = construction_game(service)
    app = CitylogApp(db, gid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        model = app.screen.model
        play = panel_of(app).play
        square = next(s for s in play.grid_squares() if len(play.on(s)) == 1)
        (_, command), = play.on(square)
        before = model.version
        await pilot.click("#" + square_id(square))
        await settle(pilot)
        after = app.screen.model
        assert after.version > before
        assert after.game.command_of(after.events[before]) == (0, command)
        assert after.game.square_of(command) == square


async def test_clicking_a_square_with_several_commands_filters_the_list(db: str, service) -> None:
    gid = construction_game(service)
    app = CitylogApp(db, gid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        model = app.screen.model
        panel = panel_of(app)
        play = panel.play
        square = next(s for s in play.grid_squares() if len(play.on(s)) > 1)
        game, state = model.game, model.states[-1]
        expected = [c for c in game.legal(state, 0) if game.square_of(c) == square]
        before = model.version
        await pilot.click("#" + square_id(square))
        await settle(pilot)
        assert app.screen.model.version == before  # nothing submitted
        assert play.square_filter == square
        assert [c for _, c in panel.commands] == expected
        assert panel.query_one("#legal").option_count == len(expected)
        assert panel.query_one("#" + square_id(square), SquareButton).variant == "primary"
        assert app.focused is panel.query_one("#legal")
        await pilot.press("a")  # back to every command
        assert play.square_filter is None and panel.query_one("#legal").option_count == len(play.commands)
        await pilot.click("#" + square_id(square))
        await pilot.click("#sq-all")
        assert play.square_filter is None
        panel.query_one("#" + square_id(square), SquareButton).focus()
        await pilot.press("enter")  # Enter on a square button is a click
        assert play.square_filter == square
        await pilot.press("down", "enter")  # the narrowed list submits its second command
        await settle(pilot)
        after = app.screen.model
        assert after.version > before
        assert after.game.command_of(after.events[before]) == (0, expected[1])


async def test_typing_a_is_not_the_all_key(db: str, service) -> None:
    gid = construction_game(service)
    app = CitylogApp(db, gid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.click("#typed")
        await pilot.press(*"a b")
        assert app.screen.query_one("#typed").value == "a b"


def test_play_panel_squares_snapshot(snap_compare, db: str, service) -> None:
    """The square grid of a construction decision, one square picked."""
    gid = construction_game(service)

    async def run_before(pilot) -> None:
        await settle(pilot)
        play = pilot.app.screen.query_one(PlayPanel).play
        square = next(s for s in play.grid_squares() if len(play.on(s)) > 1)
        await pilot.click("#" + square_id(square))
        await settle(pilot)

    assert snap_compare(CitylogApp(db, gid), terminal_size=SIZE, run_before=run_before)
