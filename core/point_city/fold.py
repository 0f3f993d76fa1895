"""``apply``: the dumb fold.  No validation, no rules: it records what each event says."""

from __future__ import annotations

from functools import singledispatch

import msgspec

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
    res = tuple(c for c, b in zip(cards, buildings) if not b)
    built = tuple(c for c, b in zip(cards, buildings) if b)
    return Seat(
        resources=_remove(_add(who.resources, res), paid),
        buildings=who.buildings + built,
        tokens=who.tokens + tokens,
    )


def _gaps(s: State, cells: tuple[int, int], buildings: tuple[bool, bool]) -> dict[str, object]:
    market = list(s.market)
    for cell in cells:
        market[cell] = Slot()
    order = sorted(zip(cells, buildings))
    return {
        "market": tuple(market),
        "gaps": tuple(c for c, _ in order),
        "gap_was_building": tuple(b for _, b in order),
        "step": "refill",
    }


@singledispatch
def apply(event: object, s: State | None) -> State:
    raise TypeError(f"not a Point City event: {event!r}")


@apply.register
def _(e: ev.Created, s: State | None) -> State:
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


@apply.register
def _(e: ev.TokensLaidOut, s: State) -> State:
    return _with(s, display=e.tokens, step="remove")


@apply.register
def _(e: ev.CardsRemoved, s: State) -> State:
    hidden = tuple(h - n for h, n in zip(s.hidden, e.counts))
    return _with(s, hidden=hidden, step="start")


@apply.register
def _(e: ev.StartCardsDealt, s: State) -> State:
    seats = tuple(Seat(resources=_add(x.resources, (c,))) for x, c in zip(s.seats, e.cards))
    return _with(s, seats=seats, step="deal")


@apply.register
def _(e: ev.CardRevealed, s: State) -> State:
    t = CARDS[e.card].tier - 1
    u = s.unseen[t]
    if e.card in u:  # in a player's view the card is a face, not among the unseen ids
        i = u.index(e.card)
        u = u[:i] + u[i + 1 :]
    unseen = s.unseen[:t] + (u,) + s.unseen[t + 1 :]
    hidden = s.hidden[:t] + (s.hidden[t] - 1,) + s.hidden[t + 1 :]
    return _with(s, unseen=unseen, hidden=hidden, top=e.card)


@apply.register
def _(e: ev.MarketDealt, s: State) -> State:
    market = _put(s.market, e.cell, Slot(e.card))
    return _with(s, market=market, top=0)


@apply.register
def _(e: ev.TurnStarted, s: State) -> State:
    return _with(s, turn=e.seat, round=e.round, step="turn", flipped=False)


@apply.register
def _(e: ev.Flipped, s: State) -> State:
    # the event names the card: in a player's view the slot held only its face (PL-16)
    market = _put(s.market, e.cell, Slot(e.card, True))
    return _with(s, market=market, flipped=True)


@apply.register
def _(e: ev.CardsTaken, s: State) -> State:
    paid = tuple(c for p in e.pays for c in p.cards)
    tokens = tuple(p.token for p in e.pays if p.token)
    who = _taken(s.seats[e.seat], e.cards, e.buildings, paid, tokens)
    display = tuple(t for t in s.display if t not in tokens)
    return _with(
        s, seats=_replace_seat(s, e.seat, who), discard=_add(s.discard, paid),
        display=display, mover=e.seat, **_gaps(s, e.cells, e.buildings),
    )


@apply.register
def _(e: ev.DeckTaken, s: State) -> State:
    who = s.seats[e.seat]
    new = Seat(_add(who.resources, (e.card,)), who.buildings, who.tokens)
    return _with(s, seats=_replace_seat(s, e.seat, new), top=0, mover=e.seat, step="second")


@apply.register
def _(e: ev.SecondTaken, s: State) -> State:
    who = s.seats[e.seat]
    new = Seat(_add(who.resources, (e.card,)), who.buildings, who.tokens)
    return _with(s, seats=_replace_seat(s, e.seat, new), top=0, step="after")


@apply.register
def _(e: ev.Refilled, s: State) -> State:
    market = _put(s.market, e.cell, Slot(e.card, e.building))
    keep = [(c, b) for c, b in zip(s.gaps, s.gap_was_building) if c != e.cell]
    return _with(
        s, market=market, top=0,
        gaps=tuple(c for c, _ in keep), gap_was_building=tuple(b for _, b in keep),
        step="refill" if keep else "after",
    )


@apply.register
def _(e: ev.OpponentTook, s: State) -> State:
    who = _taken(s.opponent, e.cards, e.buildings, (), e.tokens)
    display = tuple(t for t in s.display if t not in e.tokens)
    return _with(
        s, opponent=who, display=display, marker_col=e.col, marker_row=e.row, mover=BOT,
        **_gaps(s, e.cells, e.buildings),
    )


@apply.register
def _(e: ev.GameEnded, s: State) -> State:
    return _with(s, step="ended", end_reason=e.reason)


@apply.register
def _(e: ev.Scored, s: State) -> State:
    return _with(s, step="over", final=e.scores, final_winners=e.winners)


def _with(s: State, **changes: object) -> State:
    return msgspec.structs.replace(s, **changes)


_HANDLERS = apply.registry


def fold_event(state: State | None, event: object) -> State:
    """The fold step, ``(state, event)`` order; the handler found by a plain dict
    lookup on the event's type (the fold is hot: replay, search playouts)."""
    handler = _HANDLERS.get(type(event))
    if handler is None:
        return apply(event, state)  # type: ignore[arg-type]  # raises TypeError
    return handler(event, state)
