"""Why an event happened, with the rule ids (``citylog explain``)."""

from __future__ import annotations

from collections.abc import Sequence

from core.five_by_five import events as ev
from core.five_by_five.plans import section_squares, square_name
from core.five_by_five.state import State
from core.five_by_five.text import describe


def explain(before: State, e: ev.Event, players: Sequence[str]) -> str:
    """``describe`` plus why it was legal or why it happened, with rule ids."""
    line = describe(e, players)
    why = ""
    match e:
        case ev.SetsDrawn():
            why = f"[FC-3] {len(before.players) + 1} sets of the size of plot {before.plot}"
        case ev.SetChosen():
            why = "[FC-3] Sets are chosen in turn order from the start player"
        case ev.TilePlaced(square=q):
            sq = " ".join(square_name(x) for x in section_squares(before.plan, before.plot))
            why = f"[FB-4] {square_name(q)} is an empty square of plot {before.plot} ({sq})"
        case ev.ParkTokenSpent():
            why = "[FC-7] 3 or more Parks and the token still held; it is spent at once"
        case ev.ParkSwapped():
            why = "[FC-7] Park action A of the player who spent the token swaps two tiles [FL-3]"
        case ev.ParkDeclined():
            why = "[FC-7] The player who spent the token declines its action, at once [FL-4]"
        case ev.ParkUsed() | ev.ParkReplaced() | ev.ParkKept():
            why = ("[FC-7] Park action B of the player who spent the token: replace one tile "
                   "with a drawn one, or keep the board [FL-5]")
        case ev.ParkTilesDrawn() | ev.ParkTilesReturned():
            why = ("[FC-7] Park action B draws two, seen only by the drawer; unused and replaced "
                   "tiles go back to the bag [FL-5]")
        case ev.SetReturned():
            why = "[FC-3] [FB-7] The set nobody took returns to the bag"
        case ev.BagPassed():
            why = "[FB-7] The bag goes to the player on the left"
        case ev.RoundStarted() | ev.PlotDrawn():
            why = "[FB-8] 12 rounds, one Building Plot card each"
        case ev.FinalScores() | ev.GameEnded():
            why = "[FB-5] Ties by [FC-9]"
        case ev.PlanDrawn():
            why = "[FB-1] [FC-1] Setup step 2: the plot card drawn picks the plan, then the deck is reshuffled"
    return f"{line} — {why}" if why else line
