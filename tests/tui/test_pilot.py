"""Each mode of the TUI driven with keys; assertions on the model, not on pixels."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cli.main import app as cli_app
from cli.tui.app import CitylogApp
from cli.tui.sceneview import SceneView
from core.scene import scene_of
from cli.tui.diff import DiffScreen
from cli.tui.library import LibraryScreen
from cli.tui.modals import TextModal
from textual.screen import ModalScreen
from cli.tui.play import PlayPanel
from cli.tui.replay import GameScreen
from core.engine import IllegalCommand, checked_decide
from replay.diff import diff
from replay.explain import explain_at
from replay.sources import export
from tests.tui.helpers import settle

SIZE = (120, 40)


async def test_library_lists_and_filter_narrows(db: str) -> None:
    app = CitylogApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LibraryScreen)
        table = screen.query_one("DataTable")
        ids = {r.id for r in screen.model.rows}
        assert {"cc-demo", "cc-other", "pc-demo", "cc-play"} <= ids
        assert table.row_count == len(ids)
        await pilot.press("slash", *"point")
        assert table.row_count == 1
        assert screen.selected() == "pc-demo"
        await pilot.press(*" nobody")
        assert table.row_count == 0
        await pilot.press(*["backspace"] * len(" nobody"), "enter")  # Enter in the filter: back to the table
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen)
        assert app.screen.model is not None and app.screen.model.game_id == "pc-demo"
        assert app.screen.model.at_end


async def test_replay_cursor_keys(db: str) -> None:
    app = CitylogApp(db, "cc-demo")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        model = app.screen.model
        assert model is not None and model.cursor == model.last == len(model.events) - 1
        await pilot.press("home")
        assert model.cursor == 0
        await pilot.press("right", "right", "right", "left")
        assert model.cursor == 2
        await pilot.press("pagedown")
        first = model.cursor
        assert first == model.round_starts[1]
        assert model.rounds[first] != model.rounds[first - 1]
        await pilot.press("pagedown")
        assert model.cursor == model.round_starts[2]
        await pilot.press("right", "pageup")  # mid-round: back to this round's start
        assert model.cursor == model.round_starts[2]
        await pilot.press("pageup")  # at a start: the previous round
        assert model.cursor == first
        await pilot.press("end")
        assert model.cursor == model.last
        await pilot.press("right")
        assert model.cursor == model.last
        # the board shows the cursor's state, as the game's scene describes it
        await pilot.press("home", "pagedown", "pagedown")
        await settle(pilot)
        board = app.screen.query_one(SceneView)
        expected = scene_of(model.game, model.states[model.cursor], None)
        assert board.scene.status == expected.status
        assert [v.panel for v in board.panels()] == list(board.scene.panels)
        assert [p.title for p in board.scene.panels] == [p.title for p in expected.panels]
        assert {(c.row, c.col, c.kind) for c in board.scene.panels[0].cells} == {
            (c.row, c.col, c.kind) for c in expected.panels[0].cells
        }


async def test_view_as_cycles_and_hides(db: str) -> None:
    app = CitylogApp(db, "cc-demo")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        model = app.screen.model
        game = model.game
        seen = []
        for _ in range(len(model.players) + 1):
            seen.append(model.viewer)
            await pilot.press("v")
        assert seen == [None, 0, 1, 2] and model.viewer is None
        await pilot.press("v")  # ada
        hidden = next(
            i for i, e in enumerate(model.events)
            if game.describe(game.redact(e, 0), model.players) != game.describe(e, model.players)
        )
        model.go(hidden)
        assert model.line(hidden) == game.describe(game.redact(model.events[hidden], 0), model.players)
        assert model.board() == game.render(game.view(model.states[hidden], 0), 0)
        assert model.board() != game.render(model.states[hidden], None)


def fork_point(model, after: int) -> int:
    """The first index >= ``after`` whose next event opens a decision (a fork may be taken there)."""
    i = after
    while model.game.command_of(model.events[i + 1]) is None:
        i += 1
    return i


async def test_fork_at_cursor(db: str, service) -> None:
    app = CitylogApp(db, "cc-demo")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        at = fork_point(app.screen.model, 10)
        await pilot.press("home", *["right"] * at, "f")
        await pilot.pause()
        await pilot.press(*"fresh", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.game_id != "cc-demo"
        record = service.store.get_game(screen.game_id)
        assert record.parent == "cc-demo" and record.fork_at == at + 1
        assert record.reseeds == ((at + 2, "fresh"),)
        # the prefix is the parent's; the all-bot fork then plays on from the new seed
        parent = service.load("cc-demo")
        assert [r.hash for r in screen.model.records[: at + 1]] == [r.hash for r in parent.records[: at + 1]]
        assert screen.model.version > at + 1 and screen.model.record.status == "over"
        # blank seed: the same seed, no reseed
        at2 = fork_point(screen.model, 1)
        await pilot.press("home", *["right"] * at2, "f")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        child = service.store.get_game(app.screen.game_id)
        assert child.parent == record.id and child.fork_at == at2 + 1 and child.reseeds == ()
        # forked before the reseed, with no new seed: the original seed and the same
        # bots, so it plays on exactly as the original game did
        mine = [r.hash for r in app.screen.model.records]
        assert mine == [r.hash for r in service.load("cc-demo").records]


async def test_fork_refused_shows_why(db: str, service) -> None:
    app = CitylogApp(db, "cc-demo")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        model = app.screen.model
        inside = next(i for i in range(1, model.last) if model.game.command_of(model.events[i + 1]) is None)
        before = len(service.store.list_games())
        await pilot.press("home", *["right"] * inside, "f")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.game_id == "cc-demo"
        assert len(service.store.list_games()) == before
        assert "decision" in str(app.screen.query_one("#status").render())


async def test_diff_jumps_to_first_divergence(db: str, service) -> None:
    fork = service.fork("cc-demo", 40, "elsewhere")
    service.autoplay(fork, "random", seats=[])
    expected = diff(export(service, "cc-demo"), export(service, fork))["first_divergence"]
    assert expected is not None and expected > 40
    app = CitylogApp(db, "cc-demo")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, LibraryScreen) and picker.mark == "cc-demo"
        await pilot.press("slash", *fork, "enter", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DiffScreen) and screen.model is not None
        assert screen.model.a.game_id == "cc-demo" and screen.model.b.game_id == fork
        assert screen.model.cursor + 1 == expected  # it opens where the games part
        await pilot.press("home", "j")
        assert screen.model.cursor + 1 == expected
        model = screen.model
        assert model.side_line(model.a).split(" ", 1)[1] != model.side_line(model.b).split(" ", 1)[1]
        listed = str(screen.query_one("#differences-text").render())
        for d in model.differences()[:3]:
            assert d.split(":")[0] in listed
        await pilot.press("end")  # both games over: their final positions still differ
        await settle(pilot)
        final = screen.model.differences()
        assert any(d.startswith("score ") for d in final)
        assert "_" not in " ".join(d.split(":")[0] for d in final)  # no struct field names
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen)


async def test_library_d_then_enter_opens_a_diff(db: str) -> None:
    app = CitylogApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"cc-", "enter")  # cc-demo, cc-other, cc-play
        await pilot.press("d", "down", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DiffScreen) and screen.model is not None
        assert (screen.model.a.game_id, screen.model.b.game_id) == ("cc-demo", "cc-other")
        await pilot.press("end", "j")
        assert screen.model.cursor + 1 == screen.model.first_divergence


async def test_play_submits_a_legal_command(db: str) -> None:
    app = CitylogApp(db, "cc-play")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        model = screen.model
        before = model.version
        panel = screen.query_one(PlayPanel)
        assert panel.display and panel.seat == 0 and panel.commands
        assert model.viewer == 0  # the human to act sees their own view
        chosen = panel.commands[0][1]
        assert app.focused is screen.query_one("#legal")
        await pilot.press("enter")  # chosen: it waits for a confirmation
        await settle(pilot)
        assert screen.model.version == before and panel.pending == chosen
        assert screen.query_one("#confirm-row").display
        await pilot.press("enter")  # the send button has the focus
        await settle(pilot)
        after = screen.model
        assert after.version > before
        assert after.game.command_of(after.events[before]) == (0, chosen)
        assert after.at_end


async def test_illegal_typed_command_shows_rule(db: str) -> None:
    app = CitylogApp(db, "cc-play")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        model = app.screen.model
        text = "build R 9,9"
        command = model.game.parse_command(model.states[-1], 0, text)
        with pytest.raises(IllegalCommand) as info:
            checked_decide(model.game, model.states[-1], 0, command)
        await pilot.click("#typed")
        await pilot.press(*text, "enter")
        await settle(pilot)
        message = str(app.screen.query_one("#play-message").render())
        assert f"[{info.value.rule}]" in message
        assert app.screen.model.version == model.version  # nothing written


async def test_explain_shows_the_cursor_event(db: str) -> None:
    app = CitylogApp(db, "cc-demo")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        model = app.screen.model
        await pilot.press("home", *["right"] * 5, "x")
        await pilot.pause()
        assert isinstance(app.screen, TextModal)
        expected = explain_at(model.game, model.events, model.players, 6, True)
        assert app.screen.body == expected and expected.startswith("seq 6:")
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen)


def test_cli_registers_tui(db: str) -> None:
    runner = CliRunner()
    result = runner.invoke(cli_app, ["--db", db, "tui", "--help"])
    assert result.exit_code == 0 and "[GAME]" in result.output
    result = runner.invoke(cli_app, ["--db", db, "tui", "no-such-game"])
    assert result.exit_code == 2


async def test_h_shows_a_hint_from_the_players_view(db: str) -> None:
    from replay.hint import describe, hint
    from replay.sources import open_log
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    app = CitylogApp(db, "cc-play")
    app.backend.hint = lambda game_id, player: _hint_lines(db, game_id, player)  # a small budget
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("escape", "h")  # out of the play panel first: letters there are text
        await settle(pilot)
        assert isinstance(app.screen, TextModal)
        assert app.screen.title_text == "hint for ada"
        store = SqliteStore(db)
        try:
            expected = describe(hint(open_log(GameService(store), "cc-play", "ada"), 8))
        finally:
            store.close()
        assert app.screen.body == "\n".join(expected)


def _hint_lines(db: str, game_id: str, player: str) -> list[str]:
    from cli.tui.backend import Backend

    return Backend.hint(Backend(db), game_id, player, playouts=8)


async def test_notes_show_in_the_timeline_and_status(db: str) -> None:
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    store = SqliteStore(db)
    GameService(store).note("cc-demo", 3, "look [bold]here[/]\nnow")
    store.close()
    app = CitylogApp(db, "cc-demo")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        model = app.screen.model
        assert model is not None and model.notes == {3: ("look [bold]here[/]\nnow",)}
        await pilot.press("home", "right")
        assert model.seq == 2 and "✎" not in model.status()
        await pilot.press("right")
        assert model.status().endswith("✎ look [bold]here[/] now")  # markup kept as text
        timeline = str(app.screen.query_one("Timeline").render())
        assert [line.split()[:2] for line in timeline.splitlines() if "✎" in line] == [["3", "✎"]]


async def test_escape_cancels_a_chosen_move_and_q_closes_the_game(db: str) -> None:
    app = CitylogApp(db, "cc-play")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        before = screen.model.version
        panel = screen.query_one(PlayPanel)
        await pilot.press("enter")
        assert panel.pending is not None
        await pilot.press("escape")
        await settle(pilot)
        assert panel.pending is None and screen.model.version == before
        assert app.screen is screen
        await pilot.press("escape")  # leaves the play panel
        assert app.screen is screen
        await pilot.press("q")
        await settle(pilot)
        assert app.screen is not screen


async def test_palette_goes_to_a_seq(db: str) -> None:
    app = CitylogApp(db, "cc-demo")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"go to seq 42")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen) and app.screen.model.seq == 42


async def test_palette_opens_a_game_and_starts_one_against_bots(db: str, service) -> None:
    app = CitylogApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"open game pc-demo")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen) and app.screen.game_id == "pc-demo"
        before = {r.id for r in service.store.list_games()}
        await pilot.press("ctrl+p")
        await pilot.press(*"new Card City game")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot, 5)
        new = {r.id for r in service.store.list_games()} - before
        assert len(new) == 1
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.game_id in new
        assert screen.model.players[0] == "you" and 0 not in screen.model.record.bots
        assert screen.query_one(PlayPanel).seat == 0  # you are to act


async def test_enter_chance_at_a_table_game(db: str, service) -> None:
    gid = service.create("card-city", ["ada", "ben"], table=True, game_id="cc-table")
    app = CitylogApp(db, gid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = app.screen.model.version
        await pilot.press("ctrl+p")
        await pilot.press(*"enter chance")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ModalScreen)
        await pilot.press(*"draw R R I C", "enter")
        await settle(pilot)
        model = app.screen.model
        assert model.version > before
        assert "R R I C" in model.line(before)


@pytest.mark.parametrize("gid", ["cc-demo", "pc-demo", "55-demo"])
def test_status_says_what_is_happening_never_game_over_mid_game(db: str, gid: str) -> None:
    from cli.tui.backend import Backend
    from tests.tui.conftest import HAS_5X5

    if gid == "55-demo" and not HAS_5X5:
        pytest.skip("5x5-city is not available in this build")
    model = Backend(db).load(gid, 0)
    game = model.game
    automatic = 0
    for i in range(model.last + 1):
        model.go(i)
        status = model.status()
        over = game.result(model.states[i]) is not None
        assert ("game over" in status) == over, (i, status)
        if not over and not game.to_act(model.states[i]):
            automatic += 1
            assert "automatic step after seq" in status or "automatic step at the start" in status
        scene = model.scene()
        assert (scene.status[0] == "game over") == over, (i, scene.status[0])
    assert automatic > 3 or gid == "55-demo"  # 5x5: chance or a seat acts at every step
    if gid != "cc-demo":
        return
    development = next(i for i in range(model.last + 1) if "development phase" in model.line(i))
    model.go(development)
    assert "development phase" in model.scene().status[0]
    assert "automatic step after seq" in model.status()
async def test_t_shows_the_fork_tree_and_opens_a_fork(db: str) -> None:
    from cli.tui.modals import TreeModal
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    store = SqliteStore(db)
    svc = GameService(store)
    at = next(i for i in range(20, 40) if svc.load("cc-demo").game.command_of(svc.load("cc-demo").events[i]))
    child = svc.fork("cc-demo", at, seed="branch")
    store.close()
    app = CitylogApp(db, "cc-demo")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, TreeModal)
        assert [gid for gid, _ in modal.rows] == ["cc-demo", child]
        assert modal.rows[0][1].endswith("◀") and f"at {at}: {child}  seed branch" in modal.rows[1][1]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, GameScreen) and app.screen.game_id == child
        await pilot.press("t")
        await settle(pilot)
        await pilot.press("escape")  # cancelled: still on the fork
        await settle(pilot)
        assert isinstance(app.screen, GameScreen) and app.screen.game_id == child
