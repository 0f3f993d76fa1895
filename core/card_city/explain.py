"""Why an event happened, with the rule ids (``citylog explain``)."""

from __future__ import annotations

from collections.abc import Sequence

from core.card_city import events as ev
from core.card_city.cards import NAMES
from core.card_city.city import eligible_districts
from core.card_city.squares import relabel
from core.ruletags import rule_id, tagged
from core.card_city.state import State
from core.card_city.text import describe


def explain(before: State, e: ev.Event, players: Sequence[str]) -> str:
    line = describe(e, players)
    why = _why(before, e)
    return f"{line}\n{why}" if why else line


def _why(s: State, e: ev.Event) -> str:
    match e:
        case ev.CardsDrawn():
            return (
                f"Chance [CB-1]: {len(e.cards)} card(s) drawn from the pool of {s.pool_size}; "
                "the outcome comes from the game's seed and this event's sequence number."
            )
        case ev.Split():
            return "[CC-7] The divider chooses the face-up pair and which half of the rest lies face down."
        case ev.Taken():
            return "[CC-7] The next player without cards chooses one of the two groups."
        case ev.Built():
            grid = s.players[e.seat].grid()
            return (
                f"Legal [CB-2] [CB-6]: the square touches the city, the city stays within "
                f"5 × 5 [CC-1], {len([k for k in grid.values() if k != 'I'])} non-Industrial "
                f"card(s) were within the size limit [CC-3], and no forbidden neighbour; "
                f"{NAMES[e.card]} must be built where it can be [CC-2]."
            )
        case ev.Developed():
            grid = s.players[e.seat].grid()
            eligible = [m for k, m in eligible_districts(grid) if k == e.card]
            sizes = ", ".join(str(len(m)) for m in eligible)
            rule = "N cards, N+1 distinct Cultural neighbours" if e.card == "R" else (
                "N cards, N+1 distinct Residential districts"
            )
            return f"Eligible district(s) of size {sizes} [CC-5] ({rule}); placed under [CC-4]; order by [CC-6]."
        case ev.Discarded():
            return f"[{rule_id(e.rule)}] {tagged(e.reason)}; discards go to the reserve [CC-12]."
        case ev.IncomePaid():
            return "[CB-4] 1 coin salary, each Commercial district by the player aid, Parking Meters by [CC-14]."
        case ev.Bought():
            return f"[CC-10] The cost is 5 × (Industrial cards owned + 1) = {e.cost}; placed at once."
        case ev.PurchaseSkipped():
            return f"[CC-10] {tagged(e.reason).removesuffix(' [CC-10]')}."
        case ev.Scored():
            return "\n".join(
                f"  {line.label:<22} {line.points:>4}  {relabel(line.detail)}" for line in e.breakdown.lines
            ) + f"\n  {'total':<22} {e.breakdown.total:>4}"
        case ev.GameEnded():
            return "[CC-11] Highest score; a tie goes to most coins left after the exchange; else shared."
    return ""
