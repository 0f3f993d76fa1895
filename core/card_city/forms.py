"""Card City's command forms and what its prompt may decide from a view (issue 26, 27).

Read by the play prompt (``?`` lists the forms of the moment, an example each)
and by the TUI through :attr:`core.engine.Game.syntax`; the prompt's own code
names no game.
"""

from __future__ import annotations

from core.card_city.state import HIDDEN, State
from core.engine import CommandForm, Syntax

SYNTAX = Syntax(
    forms=(
        CommandForm("split", "split PAIR UP DOWN",
                    "split the drawn cards: the face-up pair, the face-up half, the face-down half"),
        CommandForm("take", "take pair|rest", "choose a group of the split on offer"),
        CommandForm("keep", "keep CARDS", "solo: keep two of the three cards drawn [CC-9]"),
        CommandForm("build", "build CARD SQUARE",
                    "build a card of your hand on SQUARE, as the board labels it (A1–I9, City Hall at E5) [CL-10]"),
        CommandForm("discard", "discard CARD", "discard a card that has no legal square"),
        CommandForm("develop", "develop CARD SQUARE", "develop a district (Phase 3)"),
        CommandForm("buy", "buy SQUARE", "buy an Industrial card and place it on SQUARE [CC-10]"),
        CommandForm("pass", "pass", "buy nothing"),
        CommandForm("draw", "draw CARDS", "the cards drawn, as the table dealt them", chance=True),
    ),
)


def unseen(state: State, seat: int) -> str | None:
    """The seat's own cards its view does not show yet (``?``): taken face down from a
    split decided on the view, they are dealt in the host's next view [CC-7] [CL-8]."""
    if not 0 <= seat < len(state.players):
        return None
    if HIDDEN in state.players[seat].hand.cards:
        return f"{_face_down(state.players[seat].hand.cards.count(HIDDEN))} you took"
    if state.divider == seat and HIDDEN in state.holding.cards:
        return f"{_face_down(state.holding.cards.count(HIDDEN))} you are to split"
    return None


def _face_down(n: int) -> str:
    """``the face-down card``, ``the 2 face-down cards``."""
    return "the face-down card" if n == 1 else f"the {n} face-down cards"
