"""Each mode of the TUI driven with keys; assertions on the model, not on pixels."""

from __future__ import annotations

import pytest
from rich.text import Text
from typer.testing import CliRunner

from cli.main import app as cli_app
from cli.tui.app import CitylogApp
from cli.tui.diff import DiffScreen
from cli.tui.library import LibraryScreen
from cli.tui.modals import TextModal
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
        # the board shows the cursor's state, as the game renders it
        await pilot.press("home", "pagedown", "pagedown")
        shown = app.screen.query_one(".board-text").render()
        expected = Text.from_markup(model.game.render(model.states[model.cursor], None)).plain
        assert str(shown).splitlines()[0] == expected.splitlines()[0]


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
        assert screen.model.cursor == 0
        await pilot.press("j")
        assert screen.model.cursor + 1 == expected
        assert screen.model.differences()
        listed = str(screen.query_one("#differences-text").render())
        assert screen.model.differences()[0]["path"] in listed
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
        await pilot.press("enter")
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
    assert result.exit_code == 0 and "GAME_ID" in result.output.upper()
    result = runner.invoke(cli_app, ["--db", db, "tui", "no-such-game"])
    assert result.exit_code == 2


async def test_h_shows_a_hint_from_the_players_view(db: str) -> None:
    from replay.hint import describe, hint
    from replay.sources import open_log
    from events.service import GameService
    from events.store import SqliteStore

    app = CitylogApp(db, "cc-play")
    app.backend.hint = lambda game_id, player: _hint_lines(db, game_id, player)  # a small budget
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("h")
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
    from events.store import SqliteStore

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


async def test_t_shows_the_fork_tree_and_opens_a_fork(db: str) -> None:
    from cli.tui.modals import TreeModal
    from events.service import GameService
    from events.store import SqliteStore

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
