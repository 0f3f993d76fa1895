"""Point City's command forms, its two-step take, and what its prompt may decide from
a view (issue 26, 27).

Read by the play prompt (``?`` lists the forms of the moment, an example each)
and by the TUI through :attr:`core.engine.Game.syntax`; the prompt's own code
names no game.  A take is chosen in two steps: the cells (or the deck), then
its payment, the cheapest by default (``take A1 B1`` without ``pay`` is that
default, ``text.parse_command``).
"""

from __future__ import annotations

from core.engine import CommandForm, Syntax
from core.point_city.commands import Command, Take
from core.point_city.state import State
from core.point_city.text import format_command

SYNTAX = Syntax(
    forms=(
        CommandForm("flip", "flip CELL", "turn a market card to its building side (CELL: A1–D4) [PC-3]"),
        CommandForm("deck", "deck", "take the top two cards of the deck"),
        CommandForm("take", "take CELL CELL [pay CELL=ITEMS …]",
                    "take two adjacent market cards; each building taken is paid with ITEMS: resource cards by "
                    "number (12 or #12, as your hand shows them; or the other cell of the pick), pN = built "
                    "producer N's permanent resource, tN = civic token N [PC-3]; without 'pay' the cheapest payment"),
        CommandForm("reveal", "reveal N", "card N turns up on top of the deck", chance=True),
        CommandForm("tokens", "tokens N N …", "the civic tokens laid out, leftmost first", chance=True),
    ),
    notation=((" pay ", "pay CELL=ITEMS: the building at CELL paid with resource cards (12 or #12, as your hand "
                        "shows them; or the other cell of the pick), pN = built producer #N's permanent resource, "
                        "tN = civic token tN taken [PC-3]"),),
    second_step="payment",
    default="the cheapest (best token first)",
)


def first_step(command: Command) -> str | None:
    """A take's cells (``take A1 B1``): its payment and civic token are the second step."""
    if isinstance(command, Take):
        return format_command(Take(command.cells))
    return None


def unseen(state: State, seat: int) -> str | None:
    """A market building the view knows by its resource side only: turned up by a flip
    decided on the view, its building side is shown in the host's next view [PL-16]."""
    if any(x.building and x.card < 0 for x in state.market):
        return "the building side you turned up"
    return None
