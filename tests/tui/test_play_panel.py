"""The play panel's list (issue 26): what it offers and how a choice is made, with Pilot.

* Point City's take is listed once, its payment a second, optional step: choosing
  the take holds the cheapest payment to send and lists the others in its place.
* The panel lists exactly what the prompt offers (cli/choices.py), so the law of
  tests/cli/test_choice_law.py holds for it: none of it is refused when chosen.
* A typed command is cleared once read, refused or not, and kept in a history.
"""

from __future__ import annotations

from typing import Any

import pytest

from textual.widgets import OptionList

from cli.choices import choices
from cli.tui.app import CitylogApp
from cli.tui.play import CommandInput, PlayPanel
from tests.tui.helpers import settle

SIZE = (120, 40)


def _point_city_with_payments(service: Any) -> str:
    """A Point City game where the human seat's pick has several payments (pia plays, quin is a bot)."""
    gid = service.create("point-city", ["pia", "quin"], seed="pc-pay", bots={1: "random"}, game_id="pc-pay")
    for _ in range(10):
        loaded = service.load(gid)
        game = loaded.game
        offered = choices(game, game.view(loaded.state, 0), 0)
        if any(c.two_step for c in offered):
            return gid
        take = next(c for c in offered if c.text.startswith("take"))
        service.submit(gid, 0, take.default, expected_version=loaded.version)
    raise AssertionError("no pick with several payments came up")


@pytest.mark.slow  # about 12 s on a loaded 2-core machine (a Point City game played to a pick)
async def test_point_city_take_first_then_the_payment(db: str, service: Any) -> None:
    gid = _point_city_with_payments(service)
    app = CitylogApp(db, gid)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        model = screen.model
        panel = screen.query_one(PlayPanel)
        game = model.game
        view = game.view(model.states[-1], 0)
        offered = choices(game, view, 0)
        legal = [game.format_command(c) for c in game.legal(view, 0)]
        # each take once, by its cells: what the prompt lists
        assert [t for t, _ in panel.commands] == [c.text for c in offered]
        assert len(panel.commands) < len(legal) and not any(" pay " in t for t, _ in panel.commands)
        index, pick = next((i, c) for i, c in enumerate(offered) if c.two_step)
        options = screen.query_one("#legal", OptionList)
        shown = str(options.get_option_at_index(index).prompt)
        assert shown == f"{pick.text}  ({len(pick.commands)} payments)"
        options.focus()
        options.highlighted = index
        await pilot.press("enter")
        await settle(pilot)
        # the second step: the payments listed, the cheapest held to send
        assert panel.step == pick and panel.pending == pick.default
        cheapest = game.parse_command(view, 0, pick.text)  # the take without 'pay' [PC-3]
        assert pick.default == cheapest
        assert [t for t, _ in panel.commands] == list(pick.texts)
        assert "(the cheapest" in str(options.get_option_at_index(0).prompt)
        # another payment may be chosen instead; Escape goes back to the whole list
        options.focus()
        options.highlighted = 1
        await pilot.press("enter")
        assert panel.pending == pick.commands[1]
        await pilot.press("escape")
        await settle(pilot)
        assert panel.step is None and panel.pending is None
        assert [t for t, _ in panel.commands] == [c.text for c in offered]
        # the default, sent: two presses as for any command
        before = model.version
        options.focus()
        options.highlighted = index
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("enter")  # the send button has the focus
        await settle(pilot)
        after = screen.model
        assert after.version > before
        assert after.game.command_of(after.events[before]) == (0, cheapest)


async def test_a_typed_command_is_cleared_and_kept_in_history(db: str) -> None:
    """Issue 26 item 8: refused text no longer stays in the input (the next command was
    appended to it); Up brings it back."""
    app = CitylogApp(db, "cc-play")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        typed = app.screen.query_one("#typed", CommandInput)
        await pilot.click("#typed")
        await pilot.press(*"build R 9,9", "enter")
        await settle(pilot)
        message = str(app.screen.query_one("#play-message").render())
        assert "illegal" in message and typed.value == ""
        await pilot.press(*"split")
        assert typed.value == "split"  # not appended to the refused text
        await pilot.press(*["backspace"] * 5, "up")
        assert typed.value == "build R 9,9"
        await pilot.press("down")
        assert typed.value == ""
