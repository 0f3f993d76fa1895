"""Clickable squares: ``Game.square_of`` for each game, and the play panel's square grid."""

from __future__ import annotations

from collections import Counter

import pytest

from cli.tui.app import CitylogApp
from cli.tui.model import PlayModel
from cli.tui.play import PlayPanel
from cli.tui.sceneview import PanelView, SceneView
from core.scene import board_panel, square_name
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


# -- the board: squares picked on the real board ---------------------------------------
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


def placement_game(service, name: str) -> str:
    """A game of ``name`` where seat 0 (human) is to act with a command naming a square."""
    game = registry.get(name)
    players = ["hu", "bo", "cy"][: max(2, game.spec.min_players)]
    bots = {i: "random" for i in range(1, len(players))}
    gid = service.create(name, players, seed="place", bots=bots, game_id=f"{name}-place")
    for _ in range(80):
        loaded = service.load(gid)
        state = loaded.state
        assert 0 in game.to_act(state), "the human seat must be to act"
        commands = list(game.legal(state, 0))
        if any(game.square_of(c) is not None for c in commands):
            return gid
        service.submit(gid, 0, commands[0], expected_version=loaded.version)
    raise AssertionError(f"no placement for seat 0 in {name}")


def panel_of(app: CitylogApp) -> PlayPanel:
    return app.screen.query_one(PlayPanel)


def board_view(app: CitylogApp) -> PanelView:
    """The board panel the seat to act places on."""
    screen = app.screen
    scene = screen.model.scene(panel_of(app).play)
    index = board_panel(scene, panel_of(app).play.seat)
    return next(v for v in screen.query_one(SceneView).panels() if v.index == index)


async def click_square(pilot, view: PanelView, square: tuple[int, int]) -> None:
    """Click the middle of ``square`` on the drawn board."""
    view.scroll_visible(animate=False)
    await pilot.pause()
    hit = next(h for h in view._layout.hits if (h[3], h[4]) == square)
    line, x0, x1 = hit[0], hit[1], hit[2]
    await pilot.click(view, offset=((x0 + x1) // 2, line + 1))
    await settle(pilot)


def target_squares(view: PanelView) -> set[tuple[int, int]]:
    assert view.panel is not None
    return {(c.row, c.col) for c in view.panel.cells if "target" in c.marks}


async def test_the_board_marks_the_legal_squares(db: str, service) -> None:
    gid = construction_game(service)
    app = CitylogApp(db, gid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        model = app.screen.model
        game, state = model.game, model.states[-1]
        expected = {game.square_of(c) for c in game.legal(state, 0)} - {None}
        view = board_view(app)
        assert target_squares(view) == expected
        assert view.panel.owner == 0 and "you" in view.panel.marks  # ada's own city
        other = [v for v in app.screen.query_one(SceneView).panels() if v is not view]
        assert all(not target_squares(v) for v in other)


@pytest.mark.parametrize("name", registry.available())
async def test_clicking_a_board_square_places_after_a_confirmation(db: str, service, name: str) -> None:
    gid = placement_game(service, name)
    app = CitylogApp(db, gid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        model = app.screen.model
        panel = panel_of(app)
        play = panel.play
        view = board_view(app)
        squares = play.grid_squares()
        assert target_squares(view) == set(squares)
        square = next((s for s in squares if len(play.on(s)) == 1), squares[0])
        here = [c for _, c in play.on(square)]
        # one coordinate system [CL-10]: the command names the square as the board labels it
        label = square_name(view.panel, *square)
        assert label[0].isalpha() and label in model.game.format_command(here[0]).split(), label
        before = model.version
        await click_square(pilot, view, square)
        assert play.square_filter == square
        assert "selected" in next(c.marks for c in board_view(app).panel.cells if (c.row, c.col) == square)
        if panel.pending is None:  # several commands on the square: the list is narrowed to them
            assert [c for _, c in panel.commands] == here
            await pilot.press("enter")
        assert panel.pending == here[0]
        assert app.screen.model.version == before  # nothing sent yet
        await pilot.press("y")
        await settle(pilot)
        after = app.screen.model
        assert after.version > before
        assert after.game.command_of(after.events[before]) == (0, here[0])
        assert after.game.square_of(here[0]) == square


async def test_a_square_without_a_command_is_refused(db: str, service) -> None:
    gid = construction_game(service)
    app = CitylogApp(db, gid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = board_view(app)
        occupied = next((c.row, c.col) for c in view.panel.cells if c.kind == "H")  # City Hall
        before = app.screen.model.version
        await click_square(pilot, view, occupied)
        assert panel_of(app).pending is None and app.screen.model.version == before
        assert "no legal command" in str(panel_of(app).query_one("#play-message").render())


async def test_keyboard_picks_a_square_on_the_board(db: str, service) -> None:
    gid = construction_game(service)
    app = CitylogApp(db, gid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("escape", "b")  # out of the play panel first: letters there are text
        view = board_view(app)
        assert app.focused is view and view.cursor in target_squares(view)
        start = view.cursor
        await pilot.press("enter")
        await settle(pilot)
        assert panel_of(app).play.square_filter == start


async def test_typing_a_is_not_the_all_key(db: str, service) -> None:
    gid = construction_game(service)
    app = CitylogApp(db, gid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.click("#typed")
        await pilot.press(*"a b")
        assert app.screen.query_one("#typed").value == "a b"


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)])
def test_play_with_a_highlighted_target_snapshot(snap_compare, db: str, service, size) -> None:
    """A construction decision: the legal squares marked on ada's city, one square picked."""
    gid = construction_game(service)

    async def run_before(pilot) -> None:
        await settle(pilot)
        play = pilot.app.screen.query_one(PlayPanel).play
        square = next(s for s in play.grid_squares() if len(play.on(s)) > 1)
        await click_square(pilot, board_view(pilot.app), square)

    assert snap_compare(CitylogApp(db, gid), terminal_size=size, run_before=run_before)


OTHER_GAMES = [n for n in registry.available() if n != "card-city"]


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", OTHER_GAMES)
def test_play_with_a_highlighted_target_in_the_other_games(snap_compare, db: str, service, name: str, size) -> None:
    """5x5 City's plan and Point City's market: the legal squares marked, one picked."""
    gid = placement_game(service, name)

    async def run_before(pilot) -> None:
        await settle(pilot)
        play = pilot.app.screen.query_one(PlayPanel).play
        squares = play.grid_squares()
        square = next((s for s in squares if len(play.on(s)) > 1), squares[0])
        await click_square(pilot, board_view(pilot.app), square)

    assert snap_compare(CitylogApp(db, gid), terminal_size=size, run_before=run_before)
