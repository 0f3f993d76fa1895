"""``apply``: the dumb fold.  No validation, no rules: it records what each event says."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from msgspec.structs import replace

from core.point_city import events as ev
from core.point_city.cards import CARDS, TIER_CARDS
from core.point_city.state import BOT, Seat, Slot, State


def _remove(items: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    """``items`` less ``cards``.  In a player's view a card may be a face [PL-16]:
    a face leaves the unseen cards of its tier unknown, so nothing is removed
    from them (the view shows none of them anyway)."""
    out = list(items)
    for c in cards:
        if c in out:
            out.remove(c)
    return tuple(out)


def _add(items: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(items + cards))


def _replace_seat(s: State, seat: int, new: Seat) -> tuple[Seat, ...]:
    return s.seats[:seat] + (new,) + s.seats[seat + 1 :]


def _put(market: tuple[Slot, ...], cell: int, slot: Slot) -> tuple[Slot, ...]:
    return market[:cell] + (slot,) + market[cell + 1 :]


def _taken(
    who: Seat, cards: tuple[int, int], buildings: tuple[bool, bool], paid: tuple[int, ...],
    tokens: tuple[int, ...],
) -> Seat:
    res: tuple[int, ...] = ()
    built: tuple[int, ...] = ()
    for c, b in zip(cards, buildings):
        if b:
            built += (c,)
        else:
            res += (c,)
    resources = _add(who.resources, res)
    return replace(
        who,
        resources=_remove(resources, paid) if paid else resources,
        buildings=who.buildings + built,
        tokens=who.tokens + tokens,
        paid=_add(who.paid, paid) if paid else who.paid,
    )


def _gaps(market: tuple[Slot, ...], cells: tuple[int, int], buildings: tuple[bool, bool]) -> tuple[
    tuple[Slot, ...], tuple[int, ...], tuple[bool, ...]
]:
    """The market with ``cells`` emptied, and the gaps in reading order with the side each showed."""
    empty = Slot()
    if len(cells) == 2 and len(buildings) == 2 and cells[0] != cells[1]:
        a, b = cells
        market = _put(_put(market, a, empty), b, empty)
        if a < b:
            return market, (a, b), (buildings[0], buildings[1])
        return market, (b, a), (buildings[1], buildings[0])
    for cell in cells:
        market = _put(market, cell, empty)
    order = sorted(zip(cells, buildings))
    return market, tuple(c for c, _ in order), tuple(b for _, b in order)


# -- one function per event: (state, event) -> state ---------------------------------
def _created(s: State | None, e: ev.Created) -> State:
    opts = dict(e.options)
    solo = int(opts.get("solo-level", "0")) if len(e.players) == 1 else 0  # PL-12
    return State(
        players=e.players,
        solo_level=solo,
        table=e.table,
        unseen=tuple(TIER_CARDS[t] for t in (1, 2, 3)),
        hidden=(len(TIER_CARDS[1]), len(TIER_CARDS[2]), len(TIER_CARDS[3])),
        seats=tuple(Seat() for _ in e.players),
    )


def _tokens_laid_out(s: State, e: ev.TokensLaidOut) -> State:
    return replace(s, display=e.tokens, step="remove")


def _cards_removed(s: State, e: ev.CardsRemoved) -> State:
    hidden = tuple(h - n for h, n in zip(s.hidden, e.counts))
    return replace(s, hidden=hidden, step="start")


def _start_cards_dealt(s: State, e: ev.StartCardsDealt) -> State:
    seats = tuple(replace(x, resources=_add(x.resources, (c,))) for x, c in zip(s.seats, e.cards))
    return replace(s, seats=seats, step="deal")


def _card_revealed(s: State, e: ev.CardRevealed) -> State:
    card = e.card
    t = CARDS[card].tier - 1
    unseen = s.unseen
    u = unseen[t]
    if card in u:  # in a player's view the card is a face, not among the unseen ids
        i = u.index(card)
        u = u[:i] + u[i + 1 :]
        unseen = unseen[:t] + (u,) + unseen[t + 1 :]
    hidden = s.hidden[:t] + (s.hidden[t] - 1,) + s.hidden[t + 1 :]
    return replace(s, unseen=unseen, hidden=hidden, top=card)


def _market_dealt(s: State, e: ev.MarketDealt) -> State:
    return replace(s, market=_put(s.market, e.cell, Slot(e.card)), top=0)


def _turn_started(s: State, e: ev.TurnStarted) -> State:
    return replace(s, turn=e.seat, round=e.round, step="turn", flipped=False)


def _flipped(s: State, e: ev.Flipped) -> State:
    # the event names the card: in a player's view the slot held only its face (PL-16)
    return replace(s, market=_put(s.market, e.cell, Slot(e.card, True)), flipped=True)


def _cards_taken(s: State, e: ev.CardsTaken) -> State:
    paid: tuple[int, ...] = ()
    tokens: tuple[int, ...] = ()
    for p in e.pays:
        paid += p.cards
        if p.token:
            tokens += (p.token,)
    who = _taken(s.seats[e.seat], e.cards, e.buildings, paid, tokens)
    display = tuple([t for t in s.display if t not in tokens]) if tokens else s.display
    market, gaps, sides = _gaps(s.market, e.cells, e.buildings)
    return replace(
        s, seats=_replace_seat(s, e.seat, who), discard=_add(s.discard, paid),
        display=display, mover=e.seat, market=market, gaps=gaps, gap_was_building=sides, step="refill",
    )


def _deck_taken(s: State, e: ev.DeckTaken) -> State:
    who = s.seats[e.seat]
    new = replace(who, resources=_add(who.resources, (e.card,)))
    return replace(s, seats=_replace_seat(s, e.seat, new), top=0, mover=e.seat, step="second")


def _second_taken(s: State, e: ev.SecondTaken) -> State:
    who = s.seats[e.seat]
    new = replace(who, resources=_add(who.resources, (e.card,)))
    return replace(s, seats=_replace_seat(s, e.seat, new), top=0, step="after")


def _refilled(s: State, e: ev.Refilled) -> State:
    market = _put(s.market, e.cell, Slot(e.card, e.building))
    gaps, sides = s.gaps, s.gap_was_building
    if e.cell in gaps:  # the first gap, as the rules refill them (PC-4)
        i = gaps.index(e.cell)
        gaps, sides = gaps[:i] + gaps[i + 1 :], sides[:i] + sides[i + 1 :]
    return replace(
        s, market=market, top=0, gaps=gaps, gap_was_building=sides,
        step="refill" if gaps else "after",
    )


def _opponent_took(s: State, e: ev.OpponentTook) -> State:
    who = _taken(s.opponent, e.cards, e.buildings, (), e.tokens)
    display = tuple(t for t in s.display if t not in e.tokens)
    market, gaps, sides = _gaps(s.market, e.cells, e.buildings)
    return replace(
        s, opponent=who, display=display, marker_col=e.col, marker_row=e.row, mover=BOT,
        market=market, gaps=gaps, gap_was_building=sides, step="refill",
    )


def _game_ended(s: State, e: ev.GameEnded) -> State:
    return replace(s, step="ended", end_reason=e.reason)


def _scored(s: State, e: ev.Scored) -> State:
    return replace(s, step="over", final=e.scores, final_winners=e.winners)


_HANDLERS: Mapping[type, Callable[[Any, Any], State]] = MappingProxyType({
    ev.Created: _created,
    ev.TokensLaidOut: _tokens_laid_out,
    ev.CardsRemoved: _cards_removed,
    ev.StartCardsDealt: _start_cards_dealt,
    ev.CardRevealed: _card_revealed,
    ev.MarketDealt: _market_dealt,
    ev.TurnStarted: _turn_started,
    ev.Flipped: _flipped,
    ev.CardsTaken: _cards_taken,
    ev.DeckTaken: _deck_taken,
    ev.SecondTaken: _second_taken,
    ev.Refilled: _refilled,
    ev.OpponentTook: _opponent_took,
    ev.GameEnded: _game_ended,
    ev.Scored: _scored,
})
"""The fold's one dispatch: a dict lookup on the event's type (the fold is hot:
replay, search playouts)."""


def apply(state: State | None, event: object) -> State:
    """The fold step, ``(state, event)`` order (as every game's ``fold.apply``)."""
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise TypeError(f"not a Point City event: {event!r}")
    return handler(state, event)
