"""The fold: ``apply(state, event) -> state``.

Pure and dumb on purpose (docs/architecture.md, property 2): it never validates and never
works out a rule; each event carries every value it sets.  So a later rules fix
in ``rules.py`` cannot make an old log unreadable.
"""

from __future__ import annotations

from functools import singledispatch

from msgspec.structs import replace

from core.card_city import events as ev
from core.card_city.state import (
    HIDDEN,
    Hand,
    Offer,
    Options,
    Player,
    State,
    add_counts,
    counts_of,
)


def _player(state: State, seat: int, **changes: object) -> tuple[Player, ...]:
    players = state.players
    return players[:seat] + (replace(players[seat], **changes),) + players[seat + 1 :]


def _reserve_plus(state: State, card: str, sign: int = 1) -> tuple[int, ...]:
    return add_counts(state.reserve, counts_of([card]), sign)


def _pool_plus(pool: tuple[int, ...], cards: list[str], sign: int = 1) -> tuple[int, ...]:
    """The pool's make-up with ``cards`` added (or taken out).  Unknown to a player
    (``()`` in a view, or once a card they did not see left it): it stays unknown."""
    if not pool or HIDDEN in cards:
        return ()
    return add_counts(pool, counts_of(cards), sign)


def _less(cards: tuple[str, ...], gone: tuple[str, ...]) -> tuple[str, ...]:
    """``cards`` less ``gone`` as multisets (what is not there is ignored), sorted."""
    left = list(cards)
    for c in gone:
        if c in left:
            left.remove(c)
    return tuple(sorted(left))


def _counted_less(s: State, seat: int, card: str) -> tuple[str, ...]:
    """``counted`` once ``seat`` built or discarded ``card``: a card that leaves the
    face-down part is no longer in the group (GN-1)."""
    if not s.counted or card in s.players[seat].hand.up:
        return s.counted
    return _less(s.counted, (card,))


@singledispatch
def _apply(event: object, state: State) -> State:
    raise TypeError(f"not a Card City event: {event!r}")


def apply(state: State | None, event: ev.Event) -> State:
    if state is None:
        if not isinstance(event, ev.GameCreated):
            raise TypeError("a Card City log starts with cc.created")
        return _created(event)
    handler = _apply.registry.get(type(event))  # a plain dict lookup: the fold is hot
    if handler is None:
        raise TypeError(f"not a Card City event: {event!r}")
    return handler(event, state)


def _created(e: ev.GameCreated) -> State:
    o = e.options
    return State(
        players=tuple(Player(name=n, coins=e.coins, city=((0, 0, "H"),)) for n in e.players),
        options=Options(
            decentralization=o.get("decentralization") == "yes",
            parking_meters=o.get("parking-meters") == "yes",
        ),
        table=e.table,
        round=1,
        phase="acquisition",
        first=e.first,
        pool=e.pool,
        pool_size=sum(e.pool),
        reserve=e.reserve,
        need_draw=e.draw,
    )


@_apply.register
def _(e: ev.CardsDrawn, s: State) -> State:
    from_pool = list(e.cards)
    bottom = s.bottom
    # CC-9: once the unseen part is empty, draws come off the bottom cards in order
    unseen = s.pool_size - len(bottom)
    if len(from_pool) > unseen:
        extra = len(from_pool) - unseen
        # GN-1: the cards off the bottom are known to all (the bottom is public)
        counted = tuple(sorted(s.counted + bottom[:extra]))
        bottom = bottom[extra:]
        from_pool = from_pool[:unseen]
    else:
        counted = s.counted
    return replace(
        s,
        counted=counted,
        pool=_pool_plus(s.pool, from_pool, -1),
        pool_size=s.pool_size - len(e.cards),
        bottom=bottom,
        need_draw=0,
        divider=e.seat,
        holding=Hand(s.holding.up, s.holding.down + e.cards),
    )


@_apply.register
def _(e: ev.LeisureSetAside, s: State) -> State:
    held = list(s.holding.down)
    for _ in range(e.count):  # in another player's view the drawn cards are HIDDEN
        held.remove("L" if "L" in held else HIDDEN)
    return replace(
        s,
        holding=Hand(s.holding.up, tuple(held)),
        set_aside=s.set_aside + ("L",) * e.count,
        need_draw=e.count,
    )


@_apply.register
def _(e: ev.LeisureReturned, s: State) -> State:
    return replace(
        s,
        pool=_pool_plus(s.pool, ["L"] * e.count),
        pool_size=s.pool_size + e.count,
        set_aside=(),
    )


@_apply.register
def _(e: ev.Split, s: State) -> State:
    # GN-1/CL-8: a card of the held group that everyone knows (face up, or counted)
    # and that the split does not show face up is in the face-down half
    known = s.holding.up + s.counted
    return replace(
        s,
        counted=_less(known, e.pair + e.up),
        holding=Hand(),
        offer=Offer(divider=e.seat, to=e.to, pair=e.pair, up=e.up, down=e.down, known_to=e.known_to),
    )


@_apply.register
def _(e: ev.Taken, s: State) -> State:
    return s  # the cards move with the Kept / Holding events that follow


def _offer_less(s: State, group: str) -> Offer | None:
    """The offer once ``group`` ("pair" or "rest") has left it."""
    o = s.offer
    if o is None:
        return None
    o = replace(o, pair=()) if group == "pair" else replace(o, up=(), down=())
    return None if not (o.pair or o.up or o.down) else o


@_apply.register
def _(e: ev.Kept, s: State) -> State:
    players = _player(s, e.seat, hand=Hand(e.up, e.down, e.known_to))
    if e.source == "holding":
        return replace(s, players=players, holding=Hand())
    return replace(s, players=players, offer=_offer_less(s, e.source))


@_apply.register
def _(e: ev.Holding, s: State) -> State:
    return replace(
        s, divider=e.seat, holding=Hand(e.up, e.down, e.known_to), offer=_offer_less(s, "rest")
    )


@_apply.register
def _(e: ev.SoloChose, s: State) -> State:
    return replace(
        s,
        players=_player(s, e.seat, hand=Hand(e.keep, ())),
        holding=Hand(),
        counted=(),
        bottom=s.bottom + (e.bottom,),
        pool_size=s.pool_size + 1,
    )


@_apply.register
def _(e: ev.PhaseStarted, s: State) -> State:
    changes: dict[str, object] = {"phase": e.phase, "turn": -1, "divider": -1}
    if e.phase == "development":
        changes["dev_next"] = (s.first - 1) % s.n  # CL-1: the last seat in turn order starts
    elif e.phase == "purchase":
        changes["purchase_next"] = s.first
        changes["purchase_left"] = s.n
    return replace(s, **changes)


@_apply.register
def _(e: ev.Built, s: State) -> State:
    p = s.players[e.seat]
    return replace(
        s,
        players=_player(
            s,
            e.seat,
            city=p.city + ((e.row, e.col, e.card),),
            hand=p.hand.without(e.card),
            coins=p.coins - e.paid,
        ),
        counted=_counted_less(s, e.seat, e.card),
    )


@_apply.register
def _(e: ev.Discarded, s: State) -> State:
    p = s.players[e.seat]
    return replace(
        s,
        players=_player(s, e.seat, hand=p.hand.without(e.card)),
        reserve=_reserve_plus(s, e.card),
        counted=_counted_less(s, e.seat, e.card),
    )


@_apply.register
def _(e: ev.DevelopTurn, s: State) -> State:
    return replace(s, turn=e.seat)


@_apply.register
def _(e: ev.Developed, s: State) -> State:
    p = s.players[e.seat]
    return replace(
        s,
        players=_player(s, e.seat, city=p.city + ((e.row, e.col, e.card),)),
        reserve=_reserve_plus(s, e.card, -1),
        turn=-1,
        dev_next=(e.seat - 1) % s.n,
    )


@_apply.register
def _(e: ev.IncomePaid, s: State) -> State:
    return replace(s, players=_player(s, e.seat, coins=s.players[e.seat].coins + e.total))


@_apply.register
def _(e: ev.PurchaseTurn, s: State) -> State:
    return replace(s, turn=e.seat)


def _purchase_done(s: State, seat: int) -> dict[str, object]:
    return {"turn": -1, "purchase_next": (seat + 1) % s.n, "purchase_left": s.purchase_left - 1}


@_apply.register
def _(e: ev.PurchaseSkipped, s: State) -> State:
    return replace(s, **_purchase_done(s, e.seat))


@_apply.register
def _(e: ev.Bought, s: State) -> State:
    p = s.players[e.seat]
    return replace(
        s,
        players=_player(s, e.seat, city=p.city + ((e.row, e.col, "I"),), coins=p.coins - e.cost),
        reserve=_reserve_plus(s, "I", -1),
        **_purchase_done(s, e.seat),
    )


@_apply.register
def _(e: ev.Passed, s: State) -> State:
    return replace(s, **_purchase_done(s, e.seat))


@_apply.register
def _(e: ev.PawnPassed, s: State) -> State:
    return replace(s, first=e.to)


@_apply.register
def _(e: ev.RoundStarted, s: State) -> State:
    return replace(s, round=e.round, phase="acquisition", need_draw=e.draw, turn=-1, counted=())


@_apply.register
def _(e: ev.Scored, s: State) -> State:
    return replace(s, scores=s.scores + (e.breakdown,))


@_apply.register
def _(e: ev.GameEnded, s: State) -> State:
    return replace(s, phase="over", winners=e.winners, turn=-1)
