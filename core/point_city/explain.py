"""Why an event happened, with the rule ids (``citylog explain``)."""

from __future__ import annotations

from collections.abc import Sequence

from core.point_city import events as ev
from core.point_city.state import State, deck_size
from core.point_city.text import describe
from core.words import plural

RULE_OF: dict[type, str] = {
    ev.Created: "PC-2", ev.TokensLaidOut: "PC-2", ev.CardsRemoved: "PC-2] [PL-1",
    ev.StartCardsDealt: "PC-2", ev.CardRevealed: "PL-1", ev.MarketDealt: "PC-2",
    ev.TurnStarted: "PC-3", ev.Flipped: "PC-3", ev.CardsTaken: "PC-3", ev.DeckTaken: "PC-3",
    ev.SecondTaken: "PC-3", ev.Refilled: "PC-4", ev.OpponentTook: "PC-7", ev.Scored: "PC-6",
}


def explain(before: State, e: object, players: Sequence[str]) -> str:
    line = describe(e, players)
    if isinstance(e, ev.Refilled):
        why = ("the gap of a resource card gets the building side" if e.building
               else "the gap of a building gets the resource side")
        return f"{line} [PC-4] gaps in reading order; {why}"
    if isinstance(e, ev.GameEnded):
        rule = "PC-4" if e.reason == "refill" else "PL-7"
        return f"{line} [{rule}] deck {plural(deck_size(before), 'card')}"
    if isinstance(e, ev.CardsTaken) and any(p.token for p in e.pays):
        return f"{line} [PC-3] [PC-5] a civic building takes a token at once"
    known = RULE_OF.get(type(e))
    return f"{line} [{known}]" if known else line
