"""5x5 City's command forms and what its prompt may decide from a view (issue 26, 27).

Read by the play prompt (``?`` lists the forms of the moment, an example each)
and by the TUI through :attr:`core.engine.Game.syntax`; the prompt's own code
names no game.
"""

from __future__ import annotations

from core.engine import CommandForm, Syntax
from core.five_by_five.state import State

SYNTAX = Syntax(
    forms=(
        CommandForm("choose", "choose N", "take set N of the sets on offer"),
        CommandForm("place", "place TILE SQUARE [park]",
                    "build a tile of your hand on SQUARE (A1–E5); TILE as the hand shows it (Fc#10) or just its "
                    "code (Fc); 'park': park side up"),
        CommandForm("swap", "swap SQUARE SQUARE", "park action A: swap two tiles of your board"),
        CommandForm("use", "use", "park action B: draw two tiles"),
        CommandForm("decline", "decline", "decline the park action (the token is spent anyway)"),
        CommandForm("replace", "replace TILE SQUARE [park]", "park action B: put a drawn tile in place of a board tile"),
        CommandForm("keep", "keep", "park action B: replace nothing; both drawn tiles go back to the bag"),
        CommandForm("sides", "sides XXXXXXXXXX", "the Building card sides (A/B, Factories … Park)", chance=True),
        CommandForm("plan", "plan N", "the Building Plan drawn", chance=True),
        CommandForm("planning", "planning N", "the Planning card drawn", chance=True),
        CommandForm("plot", "plot N", "the Building Plot drawn", chance=True),
        CommandForm("draw", "draw TILE …", "the tiles out of the bag", chance=True),
    ),
)


def unseen(state: State, seat: int) -> str | None:
    """Nothing: a seat's decisions hang on no hidden part of its own view — the sets on
    offer and its tiles are open, and a draw from the bag (park action B) is a chance
    step, so the seat stops acting until the host deals it."""
    return None
