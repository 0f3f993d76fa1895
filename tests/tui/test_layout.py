"""What a player needs to act is on screen, keys do what the footer says, nothing is cut (issue 26,
items 3, 4 and 8).

Laws, each checked on every game:

- at 80x24 the widgets holding a decision's inputs (the boards and offers it depends on, the
  command list, the command input) lie wholly inside the visible screen;
- a printable key typed anywhere in the play panel is text: no screen shortcut fires;
- the footer names at least one key of the focused widget's chain, whatever has the focus;
- a board panel is drawn whole: its height is the number of lines it draws at its width;
- the event list shows each event's whole text (wrapped, never cut with ``…``).
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.errors import NoWidget
from textual.geometry import Region
from textual.widget import Widget

from cli.tui.app import CitylogApp
from cli.tui.board import Timeline
from cli.tui.diff import DiffScreen
from cli.tui.play import PlayPanel
from cli.tui.replay import GameScreen
from cli.tui.sceneview import PanelView, SceneView
from core import registry
from tests.tui.conftest import HAS_5X5
from tests.tui.helpers import settle

SMALL = (80, 24)

# Decisions by game: the command's first word that marks it, and which panels it depends on.
# Card City: the split or choice and the opponent's city (every panel, notes too: coins, hand);
# 5x5 City: the offered tiles and the plans (every panel); Point City: your own tableau whole and
# the market's grid (its notes, the deck and the civic-token list, continue below it and scroll
# at 80x24: the market's 4x4 two-line cards alone fill the rows there are).
# Late in a game of Point City the tableau no longer fits beside the market: what a payment
# names (the resource cards held, the permanent resources) is then shown in the play panel.
DECISIONS: list[tuple[str, str, int]] = [
    ("card-city", "split", 0),
    ("card-city", "take", 0),
    ("card-city", "build", 0),
    ("point-city", "flip", 0),
    ("point-city", "take", 0),
    ("point-city", "take", 14),
]
if HAS_5X5:
    DECISIONS += [("5x5-city", "choose", 0), ("5x5-city", "place", 0)]


def needed(name: str, seat: int, view: PanelView) -> Region | None:
    """The part of ``view`` that must be on screen for ``seat``'s decision (None: none of it;
    Point City's own tableau: all of it, unless the play panel shows its summary)."""
    panel = view.panel
    if panel is None:
        return None
    region = view.region
    if name != "point-city":
        return region
    if panel.owner == seat:
        title = view.screen.query_one("#play-title")
        shown = panel.summary and panel.summary in str(title.render())
        return None if shown and wholly_visible(title) else region
    if panel.owner is None:  # the market: its title and grid
        grid = view._lines(view.size.width)[1]
        return Region(region.x, region.y, region.width, min(region.height, 1 + len(grid.lines)))
    return None


def decision_game(service: Any, name: str, word: str, after: int = 0) -> str:
    """A two-player game of ``name`` where the human seat 0 has a ``word …`` command to choose,
    after at least ``after`` decisions of its own."""
    game = registry.get(name)
    gid = service.create(name, ["hu", "bo"], seed="place", bots={1: "random"},
                         game_id=f"{name}-{word}" + (f"-{after}" if after else ""))
    for made in range(80 + after):
        loaded = service.load(gid)
        commands = list(game.legal(game.view(loaded.state, 0), 0))
        assert commands, "the human seat must be to act"
        if made >= after and any(game.format_command(c).split()[0] == word for c in commands):
            return gid
        service.submit(gid, 0, commands[0], expected_version=loaded.version)
    raise AssertionError(f"no {word!r} decision for seat 0 in {name}")


def wholly_visible(widget: Widget, region: Region | None = None) -> bool:
    """Every corner of ``widget`` (or of ``region``, a part of it) is on screen and shows ``widget``
    (not clipped, not covered)."""
    region = widget.region if region is None else region
    if region.width == 0 or region.height == 0:
        return False
    screen = widget.screen
    for x, y in ((region.x, region.y), (region.right - 1, region.y),
                 (region.x, region.bottom - 1), (region.right - 1, region.bottom - 1)):
        try:
            found, _ = screen.get_widget_at(x, y)
        except NoWidget:
            return False
        if found is not widget and widget not in found.ancestors:
            return False
    return True


@pytest.mark.parametrize(("name", "word", "after"), DECISIONS,
                         ids=[f"{n}-{w}" + (f"-late{a}" if a else "") for n, w, a in DECISIONS])
async def test_at_80x24_the_decision_and_what_it_depends_on_are_on_screen(
    db: str, service: Any, name: str, word: str, after: int
) -> None:
    gid = decision_game(service, name, word, after)
    app = CitylogApp(db, gid)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        panel = screen.query_one(PlayPanel)
        assert panel.display and panel.seat == 0
        views = screen.query_one(SceneView).panels()
        assert views
        hidden = [
            v.panel.title for v in views
            if v.panel is not None and (part := needed(name, 0, v)) is not None and not wholly_visible(v, part)
        ]
        assert not hidden, f"scrolled out of view at 80x24: {hidden}"
        for wid in ("#legal", "#typed", "#play-message"):
            assert wholly_visible(screen.query_one(wid)), wid
        assert app.focused is screen.query_one("#legal")


@pytest.mark.parametrize(("name", "word", "after"), DECISIONS,
                         ids=[f"{n}-{w}" + (f"-late{a}" if a else "") for n, w, a in DECISIONS])
async def test_at_80x24_a_command_waiting_to_be_sent_is_shown_whole(
    db: str, service: Any, name: str, word: str, after: int
) -> None:
    """Choosing a ``word …`` entry (and, for a two-step one, its default variant): the
    command that ``y`` would send is on screen whole, in the message, beside the
    highlighted entry and the send button."""
    gid = decision_game(service, name, word, after)
    app = CitylogApp(db, gid)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        panel = app.screen.query_one(PlayPanel)
        entries = [text for text, _ in panel.commands]
        index = next(i for i, text in enumerate(entries) if text.split()[0] == word)
        for _ in range(index):
            await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot)
        assert panel.pending is not None
        text = panel.model.game.format_command(panel.pending)
        message = app.screen.query_one("#play-message")
        assert text in " ".join(str(message.render()).split()), (text, str(message.render()))
        for wid in ("#play-message", "#play-send", "#legal"):
            assert wholly_visible(app.screen.query_one(wid)), wid
        legal = app.screen.query_one("#legal")
        assert legal.highlighted is not None and legal.scroll_offset.y <= legal.highlighted < (
            legal.scroll_offset.y + legal.scrollable_content_region.height), "the chosen entry is scrolled off"


SHORTCUTS = "tdfvxwqhbc?"
"""The game screen's letter keys (fork tree, diff, fork, view, explain, live, close, hint, board…)."""


async def test_letters_typed_in_the_play_panel_are_text_never_shortcuts(db: str) -> None:
    app = CitylogApp(db, "cc-play")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        model = screen.model
        typed = screen.query_one("#typed")
        assert app.focused is screen.query_one("#legal")
        # on the command list: the first letter moves to the input, the rest follow it
        await pilot.press(*SHORTCUTS)
        await settle(pilot)
        assert app.screen is screen and app.focused is typed
        assert typed.value == SHORTCUTS
        assert screen.model is model and model.viewer == 0 and not screen.live
        # in the input: the same
        typed.value = ""
        await pilot.press(*SHORTCUTS, "space", *SHORTCUTS.upper())
        await settle(pilot)
        assert app.screen is screen and typed.value == f"{SHORTCUTS} {SHORTCUTS.upper()}"
        # Escape leaves the panel: the letters are keys again
        await pilot.press("escape")
        assert isinstance(app.focused, Timeline)
        await pilot.press("v")
        assert model.viewer != 0


def footer_keys(app: CitylogApp) -> list[str]:
    """The keys the footer shows now (the focused widget's chain, shown bindings only)."""
    return [key for key, active in app.screen.active_bindings.items() if active.binding.show and active.enabled]


async def test_the_footer_names_the_keys_wherever_the_focus_is_and_after_a_move(db: str) -> None:
    app = CitylogApp(db, "cc-play")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        model = screen.model
        assert footer_keys(app), "on the command list"
        text = model.game.format_command(model.legal(0)[0][1])
        await pilot.press("tab")
        assert app.focused is screen.query_one("#typed")
        assert footer_keys(app), "in the command input"
        await pilot.press(*text, "enter")
        await settle(pilot)
        assert screen.query_one(PlayPanel).pending is not None
        assert "y" in footer_keys(app), "at the confirmation"
        await pilot.press("enter")
        await settle(pilot)
        assert screen.model.version > model.version, "the move was sent"
        assert app.focused is not None and app.focused.display
        assert app.focused is not screen.query_one("#typed")
        assert footer_keys(app), "after the move"
        assert screen.query_one("#typed").value == ""


# one size per game keeps it cheap: Point City at 120x40 (its civic tokens were cut there), the
# others at 200x60 (where the event list cut long lines)
GAMES = [("pc-demo", (120, 40)), ("cc-demo", (200, 60)), *([("55-demo", (200, 60))] if HAS_5X5 else [])]


@pytest.mark.slow
@pytest.mark.parametrize(("gid", "size"), GAMES, ids=[g for g, _ in GAMES])
async def test_board_panels_are_drawn_whole_and_events_are_never_cut(db: str, gid: str, size) -> None:
    """Every panel's height is what it draws at its width (Point City's civic tokens were cut at
    120x40); every event in the list shows its whole text (long lines were cut with … at 200x60)."""
    app = CitylogApp(db, gid)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.screen
        model = screen.model
        await pilot.press("home")
        for _ in range(4):
            await pilot.press("pagedown", "pagedown", "pagedown")
            await settle(pilot, 1)
            for view in screen.query_one(SceneView).panels():
                drawn = len(view._lines(view.size.width)[0])
                assert view.size.height == drawn, (model.seq, view.panel.title if view.panel else None)
            timeline = screen.query_one(Timeline)
            shown = " ".join(timeline.render().plain.split())
            assert "…" not in shown
            for i in timeline.window():
                assert " ".join(model.line(i).split()) in shown, (i, model.line(i))


async def test_the_diff_of_unrelated_games_says_so_and_counts_nothing(db: str) -> None:
    app = CitylogApp(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.open_diff("cc-demo", "pc-demo")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        for key in ("end", "home"):
            await pilot.press(key)
            status = str(screen.query_one("#diff-status").render())
            body = str(screen.query_one("#differences-text").render())
            assert "different games" in status
            assert " difference" not in status and "the same" not in body  # no count at all


@pytest.mark.parametrize("gid", ["cc-demo", "pc-demo", *(["55-demo"] if HAS_5X5 else [])])
async def test_at_80x24_a_finished_games_status_line_names_its_winners_whole(db: str, gid: str) -> None:
    """The status line of a finished game (a short screen puts the game's name first)
    says who won and the scores within the columns there are: the result comes first."""
    from cli.tui.board import StatusLine

    app = CitylogApp(db, gid)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("end")
        await settle(pilot)
        model = app.screen.model
        result = model.game.result(model.state)
        assert result is not None, "the demo game is over"
        line = app.screen.query_one(StatusLine)
        shown = str(line.render())[: line.content_region.width]
        assert all(model.players[w] in shown for w in result.winners), shown
        assert ", ".join(str(s) for s in result.scores) in shown, shown
