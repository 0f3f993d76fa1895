"""``decide``, ``legal``, ``to_act`` and ``chance``: where the rules live.

``decide`` returns the command's own event, then every automatic step
(refills, the solo opponent, the next turn, the end and the scores) up to the
next decision, computed by folding as it goes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from typing import Any
from msgspec.structs import replace

from core.engine import CHANCE, IllegalCommand
from core.point_city import events as ev
from core.point_city.cards import CARDS, START_CARDS, TYPES, WILD, Card, face_of
from core.point_city.commands import PICKED, Command, Flip, LayOut, Pay, Reveal, Take, TakeDeck
from core.point_city.fold import apply
from core.point_city.payment import (
    _cached_payments, counted_plans, counts_left, counts_of, covers, is_minimal, payments, plan_payment, shortfall,
    source_classes,
)
from core.point_city.scoring import opponent_score, seat_score, winners
from core.point_city.solo import opponent_move
from core.point_city.state import State, deck_size, needs_reveal, top_tier
from core.point_city.names import cell_name, cost_text
from core.point_city.tokens import TOKEN_COUNT, TOKENS
from core.rng import Rng

REMOVED: dict[int, tuple[int, int, int]] = {
    1: (25, 26, 27), 2: (25, 26, 27), 3: (13, 14, 17), 4: (1, 2, 7)
}
"""PC-2: cards of tiers 1/2/3 removed at setup, by number of players."""


def adjacent(a: int, b: int) -> bool:
    ra, ca, rb, cb = a // 4, a % 4, b // 4, b % 4
    return (ra == rb and abs(ca - cb) == 1) or (ca == cb and abs(ra - rb) == 1)


PAIRS: tuple[tuple[int, int], ...] = tuple(
    (a, b) for a in range(16) for b in range(a + 1, 16) if adjacent(a, b)
)


def to_act(s: State) -> tuple[int, ...]:
    if s.step == "tokens" or needs_reveal(s):
        return (CHANCE,)
    if s.step == "turn":
        return (s.turn,)
    return ()


# -- automatic steps ---------------------------------------------------------
CanTake = Callable[[State, int], bool]
"""Whether a seat has a take (PL-7's test): :func:`has_take`, or an older rules
version's (:mod:`core.point_city.older`)."""


def next_auto(s: State, can_take: CanTake | None = None) -> object | None:
    """The next automatic event, or None when a decision (player or chance) is due;
    ``can_take`` is PL-7's test (default :func:`has_take`).

    By step, in the order the rules ask (run after every event, so the steps
    are told apart first and :func:`deck_size` and :func:`needs_reveal` are
    read inline)."""
    step = s.step
    if step == "turn":  # none of the steps below: a decision is due, unless the seat is stuck
        if can_take is None:
            hidden = s.hidden
            if hidden[0] + hidden[1] + hidden[2] + (1 if s.top else 0) >= 2:
                return None  # has_take's first answer: a deck take
            can_take = has_take
        return None if can_take(s, s.turn) else ev.GameEnded("stuck")  # PL-7
    if step == "refill":
        hidden = s.hidden
        deck = hidden[0] + hidden[1] + hidden[2]
        if deck + (1 if s.top else 0) < len(s.gaps):
            return ev.GameEnded("refill")  # PC-4, PL-8: the market cannot be refilled
        if not s.top and deck:
            return None  # needs_reveal
        # PC-4: gaps in reading order; a resource's gap gets the building side.
        return ev.Refilled(s.gaps[0], s.top, not s.gap_was_building[0])
    if step == "deal" or step == "second" or step == "after":
        if not s.top and sum(s.hidden) > 0:
            return None  # needs_reveal
        if step == "deal":
            empty = [i for i, x in enumerate(s.market) if not x.card]
            if empty:
                return ev.MarketDealt(empty[0], s.top)
            return ev.TurnStarted(0, 1)  # PL-13: the first listed seat starts
        if step == "second":
            return ev.SecondTaken(s.mover, s.top)
        if s.solo_level and s.mover >= 0:
            return opponent_move(s)
        seat = (s.turn + 1) % len(s.players)
        return ev.TurnStarted(seat, s.round + (1 if seat == 0 else 0))
    if step == "remove":
        return ev.CardsRemoved(REMOVED[len(s.players)])
    if step == "start":
        # PC-2: one Ingenuity starting card per seat; PL-14: the solo opponent gets none.
        return ev.StartCardsDealt(START_CARDS[: len(s.players)])
    if step == "ended":
        wins = winners(s)
        return ev.Scored(
            tuple(seat_score(x) for x in s.seats), wins,
            opponent_score(s) if s.solo_level else 0, opponent_won=not wins,
        )
    return None


def run(s: State, first: object, can_take: CanTake | None = None) -> tuple[tuple[object, ...], State]:
    """``first`` and every automatic step after it, with the state they lead to."""
    out = [first]
    s = apply(s, first)
    while (nxt := next_auto(s, can_take)) is not None:
        out.append(nxt)
        s = apply(s, nxt)
    return tuple(out), s


# -- checks -------------------------------------------------------------------
def flippable(s: State, cell: int) -> bool:
    """PC-3: a resource-side card whose row or column shows only resource sides [PL-11]."""
    if not 0 <= cell < 16 or not s.market[cell].card or s.market[cell].building:
        return False
    r, c = cell // 4, cell % 4
    row = all(not s.market[r * 4 + k].building for k in range(4))
    col = all(not s.market[k * 4 + c].building for k in range(4))
    return row or col


def flippable_cells(s: State) -> list[int]:
    """Every cell :func:`flippable` allows, in order (one pass over the market)."""
    built = [x.building for x in s.market]
    rows = [not any(built[r * 4 : r * 4 + 4]) for r in range(4)]
    cols = [not any(built[c::4]) for c in range(4)]
    return [
        cell for cell, x in enumerate(s.market)
        if x.card and not x.building and (rows[cell // 4] or cols[cell % 4])
    ]


def _check_flip(s: State, seat: int, cmd: Flip) -> ev.Flipped:
    if s.flipped:
        raise IllegalCommand("PC-3", "only one market card may be flipped each turn")
    if not 0 <= cmd.cell < 16:
        raise IllegalCommand("PC-3", f"there is no market cell {cmd.cell}")
    if s.market[cmd.cell].building:
        raise IllegalCommand("PC-3", f"the card at {cell_name(cmd.cell)} already shows its building side")
    if not flippable(s, cmd.cell):
        row, col = cmd.cell // 4, cmd.cell % 4
        sides = [cell_name(i) for i in range(16) if (i // 4 == row or i % 4 == col) and i != cmd.cell
                 and s.market[i].building]
        raise IllegalCommand(
            "PC-3", "a card may be flipped only if its row or its column shows only resource sides; "
            f"{cell_name(cmd.cell)}'s row and column show building sides at {', '.join(sides)} [GL-4]"
        )
    return ev.Flipped(seat, cmd.cell, s.market[cmd.cell].card)


def _check_payable(card: Card, hand: set[int], producers: set[int]) -> None:
    """PC-3: a building may be taken only if it is paid for this turn; say what is missing."""
    short, typed, wild = shortfall(card.cost, tuple(sorted(hand)), tuple(sorted(producers)))
    if short:
        have = ", ".join(f"{t} {n}" for t, n in typed.items())
        raise IllegalCommand(
            "PC-3",
            f"building {card.id} cannot be paid for, so it cannot be taken: it costs "
            f"{cost_text(card)}; the resource cards and producers at hand give {have} "
            f"and {wild} Ingenuity: {short} short",
        )


def _check_take(s: State, seat: int, cmd: Take) -> ev.CardsTaken:
    cells = tuple(cmd.cells)
    if len(cells) != 2 or not all(isinstance(c, int) and 0 <= c < 16 for c in cells):
        raise IllegalCommand("PC-3", "name two market cells")
    if cells[0] == cells[1]:
        raise IllegalCommand("PC-3", "take two different market cards")
    a, b = sorted(cells)
    if not adjacent(a, b):
        raise IllegalCommand(
            "PC-3", f"the two market cards must be orthogonally adjacent; {cell_name(a)} and {cell_name(b)} are not"
        )
    slots = (s.market[a], s.market[b])
    if not all(x.card for x in slots):
        empty = ", ".join(cell_name(c) for c, x in zip((a, b), slots) if not x.card)
        raise IllegalCommand("PC-4", f"an empty market cell has no card to take ({empty} is empty)")
    built = [c for c, x in zip((a, b), slots) if x.building]
    pays = sorted(cmd.pays, key=lambda p: p.cell)
    me = s.seats[seat]
    # PL-16: a payment names the resource card of the pick as PICKED (a player sees
    # only its face); recorded logs may name it by its id
    picked = [x.card for x in slots if not x.building]
    hand = set(me.resources) | set(picked)
    # (a pick of two resource cards, paying nothing, needs no producers)
    producers = {b for b in me.buildings if CARDS[b].produces} if built or pays else set()
    if sorted(p.cell for p in pays) != built:
        for c in built:
            if c not in {p.cell for p in pays}:
                _check_payable(CARDS[s.market[c].card], hand, producers)
        raise IllegalCommand(
            "PC-3", "give exactly one payment for each building taken, and none for resource cards"
        )
    used_cards: set[int] = set()
    used_perms: set[int] = set()
    used_tokens: set[int] = set()
    out: list[Pay] = []
    for p in pays:
        card = CARDS[s.market[p.cell].card]
        pc = tuple(sorted(picked[0] if c == PICKED and picked else c for c in p.cards))
        pp = tuple(sorted(p.perms))
        pc_set, pp_set = set(pc), set(pp)
        if len(pc_set) != len(pc) or len(pp_set) != len(pp):
            raise IllegalCommand("PC-3", "a source is named twice in one payment")
        if not pc_set <= hand:
            missing = ", ".join(str(c) for c in sorted(pc_set - hand))
            raise IllegalCommand("PC-3", f"a payment uses a resource card the player does not have ({missing})")
        if pc_set & used_cards:
            raise IllegalCommand("PL-3", "a resource card pays for one building only")
        if not pp_set <= producers:
            missing = ", ".join(str(c) for c in sorted(pp_set - producers))
            raise IllegalCommand("PC-3", f"a payment uses a permanent resource the player has not built ({missing})")
        if pp_set & used_perms:
            raise IllegalCommand("PC-3", "each permanent resource pays only once per turn")
        if not is_minimal(card.cost, pc, pp):  # (which covers first): say which rule it breaks
            if not covers(card.cost, pc, pp):
                raise IllegalCommand(
                    "PC-3", f"the payment does not cover building {card.id}; an unpaid building cannot be taken"
                )
            raise IllegalCommand("PL-4", "the payment names a source the cost does not need")
        used_cards |= pc_set
        used_perms |= pp_set
        token = p.token
        if card.kind == "civic":
            left = [t for t in s.display if t not in used_tokens]
            # PL-6: with no token left, a civic building takes none.
            if token == 0 and left:
                raise IllegalCommand("PC-5", "building a civic building takes one civic token at once")
            if token and token not in left:
                raise IllegalCommand("PC-5", f"civic token {token} is not on the table")
            if token:
                used_tokens.add(token)
        elif token:
            raise IllegalCommand("PC-5", "only a civic building takes a civic token")
        out.append(Pay(p.cell, pc, pp, token))
    return ev.CardsTaken(
        seat, (a, b), (slots[0].card, slots[1].card), (slots[0].building, slots[1].building),
        tuple(out),
    )


def _take_event(s: State, seat: int, cmd: Take) -> ev.CardsTaken:
    """:func:`_check_take`'s event, its checks left out: the same computations, line
    for line, of what the event records (the cells in order, the slots, each
    payment sorted with the pick's card for ``PICKED``), for a take known to
    pass them (:func:`random_command`'s, played by :func:`random_step`)."""
    a, b = sorted(tuple(cmd.cells))
    slots = (s.market[a], s.market[b])
    picked = [x.card for x in slots if not x.building]
    out: list[Pay] = []
    for p in sorted(cmd.pays, key=lambda p: p.cell):
        pc = tuple(sorted(picked[0] if c == PICKED and picked else c for c in p.cards))
        out.append(Pay(p.cell, pc, tuple(sorted(p.perms)), p.token))
    return ev.CardsTaken(
        seat, (a, b), (slots[0].card, slots[1].card), (slots[0].building, slots[1].building),
        tuple(out),
    )


def _check_chance(s: State, cmd: Command) -> object:
    if isinstance(cmd, LayOut):
        if s.step != "tokens":
            raise IllegalCommand("PC-5", "the civic tokens are already laid out")
        n = TOKEN_COUNT[len(s.players)]
        toks = tuple(cmd.tokens)
        if len(toks) != n or len(set(toks)) != n or any(t not in TOKENS for t in toks):
            raise IllegalCommand("PC-2", f"lay out {n} different civic tokens (ids 1–26)")
        return ev.TokensLaidOut(toks)
    if isinstance(cmd, Reveal):
        if not needs_reveal(s):
            raise IllegalCommand("GL-1", "no card is to be revealed now")
        tier = top_tier(s)
        if cmd.card not in s.unseen[tier]:
            raise IllegalCommand(
                "PC-2", f"card {cmd.card} cannot be on top of the deck (not an unseen tier {tier + 1} card)"
            )
        return ev.CardRevealed(cmd.card)
    raise IllegalCommand("GL-1", "a player's command is not a chance outcome")


def decide(s: State, seat: int, cmd: Command, can_take: CanTake | None = None) -> tuple[object, ...]:
    return step(s, seat, cmd, can_take)[0]


def step(
    s: State, seat: int, cmd: Command, can_take: CanTake | None = None
) -> tuple[tuple[object, ...], State]:
    """``decide``'s events and the state after them (folded while deciding);
    ``can_take``: PL-7's test, for an older rules version (default :func:`has_take`)."""
    if seat == CHANCE:
        return run(s, _check_chance(s, cmd), can_take)
    if s.step != "turn" or seat != s.turn:
        raise IllegalCommand("GL-1", "it is not this seat's turn")
    if isinstance(cmd, Flip):
        first: object = _check_flip(s, seat, cmd)
    elif isinstance(cmd, Take):
        first = _check_take(s, seat, cmd)
    elif isinstance(cmd, TakeDeck):
        if deck_size(s) < 2:
            raise IllegalCommand("PL-2", "a deck take needs two cards in the deck")
        first = ev.DeckTaken(seat, s.top)
    else:
        raise IllegalCommand("GL-1", "a chance outcome is not a player's command")
    return run(s, first, can_take)


def command_of(e: object) -> tuple[int, Command] | None:
    if isinstance(e, ev.TokensLaidOut):
        return CHANCE, LayOut(e.tokens)
    if isinstance(e, ev.CardRevealed):
        return CHANCE, Reveal(e.card)
    if isinstance(e, ev.Flipped):
        return e.seat, Flip(e.cell)
    if isinstance(e, ev.CardsTaken):
        return e.seat, Take(e.cells, as_picked(e))
    if isinstance(e, ev.DeckTaken):
        return e.seat, TakeDeck()
    return None


def chance(s: State, rng: Rng) -> Command:
    if s.step == "tokens":
        ids = sorted(TOKENS)
        return LayOut(tuple(rng.sample(ids, TOKEN_COUNT[len(s.players)])))
    if needs_reveal(s):
        return Reveal(rng.choice(s.unseen[top_tier(s)]))
    raise IllegalCommand("GL-1", "no chance outcome is pending")


# -- legal commands -----------------------------------------------------------
def _token_choices(display: tuple[int, ...], taken: tuple[int, ...]) -> list[int]:
    """One token of each kind still on the table (copies are interchangeable)."""
    seen: set[object] = set()
    out = []
    for t in display:
        if t in taken or TOKENS[t].key in seen:
            continue
        seen.add(TOKENS[t].key)
        out.append(t)
    return out or [0]


def takes(
    s: State, seat: int, a: int, b: int, perms: tuple[int, ...] | None = None,
    unused: Callable[[int], bool] | None = None,
) -> Iterator[Take]:
    """The legal takes of cells a, b (a < b, adjacent), one per distinct payment.

    ``perms``: the seat's producers, if the caller has them already (legal lists
    every pair of the market).  ``unused``: resource cards an older rules
    version's planner never paid with (:mod:`core.point_city.older`)."""
    slots = (s.market[a], s.market[b])
    built = [c for c, x in zip((a, b), slots) if x.building]
    if not built:
        yield Take((a, b))
        return
    me = s.seats[seat]
    # the pick's resource card pays by its face (all a player knows of it, PL-16)
    # and is written PICKED in the command
    faces = tuple(face_of(x.card) for x in slots if not x.building)
    hand = me.resources + faces
    if unused is not None:
        hand = tuple(c for c in hand if not unused(c))
        faces = tuple(c for c in faces if not unused(c))
    if perms is None:
        perms = tuple(x for x in me.buildings if CARDS[x].produces)

    picked = frozenset(faces)

    def pays_for(cell: int, cards: tuple[int, ...], pr: tuple[int, ...], toks: tuple[int, ...],
                 rest: bool) -> Iterator[tuple[Pay, tuple[int, ...], tuple[int, ...]]]:
        """Each payment of ``cell`` with the sources it leaves (only when ``rest``: the
        second building of a pick pays from them)."""
        card = CARDS[s.market[cell].card]
        tokens = _token_choices(s.display, toks) if card.kind == "civic" else None
        rest_c: tuple[int, ...] = ()
        rest_p: tuple[int, ...] = ()
        for pc, pp in payments(card.cost, cards, pr):
            if rest:
                rest_c = tuple(c for c in cards if c not in pc)
                rest_p = tuple(p for p in pr if p not in pp)
            # pc is sorted: without the pick's card it is already the sorted name
            named = pc if picked.isdisjoint(pc) else tuple(sorted(PICKED if c in faces else c for c in pc))
            if tokens is not None:
                for t in tokens:
                    yield Pay(cell, named, pp, t), rest_c, rest_p
            else:
                yield Pay(cell, named, pp), rest_c, rest_p

    if len(built) == 1:
        for pay, _, _ in pays_for(built[0], hand, perms, (), False):
            yield Take((a, b), (pay,))
    else:
        for p1, rc, rp in pays_for(built[0], hand, perms, (), True):
            for p2, _, _ in pays_for(built[1], rc, rp, (p1.token,), False):
                yield Take((a, b), (p1, p2))


def as_picked(e: ev.CardsTaken) -> tuple[Pay, ...]:
    """The event's payments as the command named them: the pick's resource card as PICKED."""
    picked = {c for c, b in zip(e.cards, e.buildings) if not b}
    return tuple(
        replace(p, cards=tuple(sorted(PICKED if c in picked else c for c in p.cards))) for p in e.pays
    )


def paid_cards(s: State, cmd: Take) -> tuple[int, ...]:
    """The resource cards a take's payments discard, the picked one by what the seat sees of it."""
    picked = [s.market[c].card for c in cmd.cells if 0 <= c < 16 and not s.market[c].building]
    return tuple(picked[0] if c == PICKED and picked else c for p in cmd.pays for c in p.cards)


def has_take(s: State, seat: int) -> bool:
    if deck_size(s) >= 2:
        return True
    # only a candidate pair can have a take (its sources must cover the cost)
    perms = tuple(x for x in s.seats[seat].buildings if CARDS[x].produces)
    return any(next(takes(s, seat, a, b, perms), None) is not None for a, b in candidate_pairs(s, seat, perms))


def legal(s: State, seat: int) -> Iterator[Command]:
    actors = to_act(s)
    if seat not in actors:
        return
    if seat == CHANCE:
        if needs_reveal(s):
            for c in s.unseen[top_tier(s)]:
                yield Reveal(c)
        return  # the token lay-outs are too many to list; draw one with chance()
    if not s.flipped:
        for cell in flippable_cells(s):
            yield Flip(cell)
    if deck_size(s) >= 2:
        yield TakeDeck()
    perms = tuple(x for x in s.seats[seat].buildings if CARDS[x].produces)
    for a, b in PAIRS:
        yield from takes(s, seat, a, b, perms)


def candidate_pairs(s: State, seat: int, perms: tuple[int, ...]) -> list[tuple[int, int]]:
    """The pairs :func:`random_command` draws from, in ``PAIRS`` order: two resource
    sides, or a pick holding a building whose cost (both costs together, for two)
    the seat's sources and the pick's resource side cover in symbols: a typed
    face lowers what its type asks, a wild one adds to the wild symbols."""
    market = s.market
    return _candidates(s.seats[seat].resources, perms, [x.building for x in market], [x.card for x in market])


def _candidates(
    resources: tuple[int, ...], perms: tuple[int, ...], built: Sequence[bool], cards: list[int]
) -> list[tuple[int, int]]:
    """:func:`candidate_pairs` of a market showing building sides at ``built``, with ``cards``.

    Symbols are counted per type in one int, a byte a type, so a
    pick's shortfall is a few integer operations: each byte of ``(need | GUARD) -
    have`` is ``128 + need - have`` (no borrow: both below 128), its guard bit set
    where nothing is short; those bytes' low bits are what is short, and a
    multiplication adds them up in the top byte.  A pick's resource side adds
    to the sources (a typed face, to its type; an Ingenuity face, to the wild
    symbols): the same as lowering what its type asks (:class:`_CostVec`,
    :class:`_FaceVec`, :class:`_HandVec`, :class:`_PermVec`)."""
    if True not in built:
        return list(PAIRS)  # every pair two resource sides
    have = wild = 0
    for c in resources:
        v, k = _HAND_VEC[c]
        have += v
        wild += k
    for p in perms:
        have += _PERM_VEC[p]
    vecs = [_COST_VEC[c] if b else _FACE_VEC[c] for c, b in zip(cards, built)]
    out: list[tuple[int, int]] = []
    for pair in PAIRS:
        a, b = pair
        if built[a]:
            if built[b]:
                d = ((vecs[a][0] + vecs[b][0]) | _GUARD) - have
                w = wild
            else:
                face, k = vecs[b]
                d = (vecs[a][0] | _GUARD) - have - face
                w = wild + k
        elif built[b]:
            face, k = vecs[a]
            d = (vecs[b][0] | _GUARD) - have - face
            w = wild + k
        else:
            out.append(pair)
            continue
        g = d & _GUARD
        if (d & (g - (g >> 7))) * _ADD >> _TOP & 0xFF <= w:
            out.append(pair)
    return out


_SHIFT = {t: 8 * i for i, t in enumerate(TYPES)}
_GUARD = sum(0x80 << v for v in _SHIFT.values())
_ADD = sum(1 << v for v in _SHIFT.values())
_TOP = 8 * (len(TYPES) - 1)
"""A byte a type: the guard bits, the multiplier that adds the bytes up into the
top one, and its shift (:func:`_candidates`)."""


class _HandVec(dict[int, tuple[int, int]]):
    """A resource card's symbols (:func:`core.point_city.payment.supply`'s): per type, a
    byte a type, and wild; each card's worked out once (a fixed fact of the card list)."""

    def __missing__(self, card: int) -> tuple[int, int]:
        c = CARDS[card]
        self[card] = v = (0, c.symbols) if c.resource == WILD else (c.symbols << _SHIFT[c.resource], 0)
        return v


class _PermVec(dict[int, int]):
    """A producer's permanent resource, a byte a type (as :class:`_HandVec`)."""

    def __missing__(self, building: int) -> int:
        self[building] = v = 1 << _SHIFT[CARDS[building].produces]
        return v


_HAND_VEC = _HandVec()
_PERM_VEC = _PermVec()


class _CostVec(dict[int, tuple[int, int]]):
    """A building side's cost in symbols per type, a byte a type (TYPES order), as
    ``(cost, 0)``; each card's worked out once (a fixed fact of the card list)."""

    def __missing__(self, card: int) -> tuple[int, int]:
        self[card] = v = (sum(n << _SHIFT[t] for t, n in CARDS[card].cost), 0)
        return v


class _FaceVec(dict[int, tuple[int, int]]):
    """A market card's resource side: its face's symbols [PL-16], per type (a byte a
    type) and wild; an empty cell (0) nothing."""

    def __missing__(self, card: int) -> tuple[int, int]:
        self[card] = v = _HAND_VEC[face_of(card)] if card else (0, 0)
        return v


_COST_VEC = _CostVec()
_FACE_VEC = _FaceVec()


@lru_cache(maxsize=4096)
def _producers(buildings: tuple[int, ...]) -> tuple[int, ...]:
    """The buildings that produce, in build order (``perms`` of :func:`takes`), cached."""
    return tuple(x for x in buildings if CARDS[x].produces)


_FLIPS = tuple(Flip(cell) for cell in range(16))
_TAKE_DECK = TakeDeck()
"""Commands are frozen values: one of each serves every playout's draw."""


@lru_cache(maxsize=1 << 12)
def _flip_moves(built: tuple[bool, ...]) -> tuple[Flip, ...]:
    """The Flip of each cell :func:`flippable_cells` allows in a market with no empty
    cell, showing building sides at ``built``: a few thousand patterns, met again
    and again, so cached on it."""
    rows = [not any(built[r * 4 : r * 4 + 4]) for r in range(4)]
    cols = [not any(built[c::4]) for c in range(4)]
    return tuple(_FLIPS[cell] for cell in range(16) if not built[cell] and (rows[cell // 4] or cols[cell % 4]))


def random_command(s: State, seat: int, rng: Rng) -> Command:
    """A random legal command without listing every payment (the search's playouts):
    one move uniformly — each flippable cell, the deck, each pair of cells that
    can be taken — then one of that pair's payments uniformly.

    A pair holding a building is a candidate when the seat's sources cover the
    cost (of both buildings together, for two); a candidate whose takes turn out
    empty is struck off and the draw repeated, so the move is uniform over the
    pairs that can really be taken."""
    return _random_move(s, seat, rng, PICKED)


def _random_move(s: State, seat: int, rng: Rng, picked_as: int | None) -> Command:
    """:func:`random_command`, a take's payment naming the pick's resource card
    ``picked_as`` (``PICKED``, as a command does; None: by its id, as its event
    does, :func:`random_step`)."""
    market = s.market
    built = tuple([x.building for x in market])
    cards = [x.card for x in market]
    moves: list[object]
    if s.flipped:
        moves = []
    elif 0 in cards:  # an empty cell (never while a seat decides, but as flippable_cells says)
        moves = [_FLIPS[cell] for cell in flippable_cells(s)]
    else:
        moves = list(_flip_moves(built))
    hidden = s.hidden
    if hidden[0] + hidden[1] + hidden[2] + (1 if s.top else 0) >= 2:  # deck_size(s), inline
        moves.append(_TAKE_DECK)
    me = s.seats[seat]
    perms = _producers(me.buildings)
    moves += _candidates(me.resources, perms, built, cards)
    while True:
        i = rng.below(len(moves))
        move = moves[i]
        if type(move) is not tuple:
            return move  # type: ignore[return-value]
        picked = _random_take(s, seat, move[0], move[1], perms, rng, picked_as)
        if picked is not None:
            return picked
        del moves[i]


def _random_take(
    s: State, seat: int, a: int, b: int, perms: tuple[int, ...], rng: Rng, picked_as: int | None = PICKED
) -> Take | None:
    """``takes(s, seat, a, b, perms)`` drawn from uniformly (None when there is none),
    the same draw as listing them, but counted: each payment of a building
    times its civic token choices (for two buildings, the second's counted on
    what the first leaves), and only the Take drawn is made.  The payments are
    counted on the sources' classes (:func:`counted_plans`), and only the one
    drawn is made of the sources' ids (:func:`plan_payment`); the pick's resource
    card is named ``picked_as`` in it (None: by its id, as the event names it)."""
    slots = (s.market[a], s.market[b])
    if not slots[0].building and not slots[1].building:
        return Take((a, b))  # the one take of two resource sides (as takes() lists it)
    resources = s.seats[seat].resources
    display = s.display
    if slots[0].building and slots[1].building:
        groups = source_classes(resources, perms)
        if groups is None:
            return _listed(s, seat, a, b, perms, rng, picked_as)
        first, second = CARDS[slots[0].card], CARDS[slots[1].card]
        counts = counts_of(groups)
        # takes() lists, for each payment (and token) of the first, every one of the
        # second from the sources left: blocks of options, counted before one is made
        first_tokens = _token_choices(display, ()) if first.kind == "civic" else (0,)
        civic = second.kind == "civic"
        blocks: list[tuple[Any, Any, int, list[int] | None]] = []
        count = 0
        cost2 = second.cost
        for plan in counted_plans(first.cost, counts):
            rest = counted_plans(cost2, counts_left(counts, plan))
            if not rest:
                continue
            for t in first_tokens:
                tokens = _token_choices(display, (t,)) if civic else None
                n = len(rest) * (len(tokens) if tokens is not None else 1)
                blocks.append((plan, rest, t, tokens))
                count += n
        if not count:
            return None
        i = rng.below(count)
        for plan, rest, t, tokens in blocks:
            n = len(rest) * (len(tokens) if tokens is not None else 1)
            if i < n:
                pc, pp = plan_payment(plan, groups)
                if tokens is None:
                    plan2, t2 = rest[i], 0
                else:
                    plan2, t2 = rest[i // len(tokens)], tokens[i % len(tokens)]
                pc2, pp2 = plan_payment(plan2, groups, plan)
                return Take((a, b), (Pay(a, pc, pp, t), Pay(b, pc2, pp2, t2)))
            i -= n
        raise AssertionError("the draw is below the count")
    cell, other = (a, slots[1]) if slots[0].building else (b, slots[0])
    face = face_of(other.card)
    groups = source_classes(resources + (face,), perms)
    if groups is None:
        return _listed(s, seat, a, b, perms, rng, picked_as)
    card = CARDS[s.market[cell].card]
    plans = counted_plans(card.cost, counts_of(groups))
    tokens = _token_choices(display, ()) if card.kind == "civic" else None
    count = len(plans) * (len(tokens) if tokens is not None else 1)
    if not count:
        return None
    i = rng.below(count)
    if tokens is None:
        plan, token = plans[i], 0
    else:
        plan, token = plans[i // len(tokens)], tokens[i % len(tokens)]
    pc, pp = plan_payment(plan, groups)
    if face in pc:
        named = other.card if picked_as is None else picked_as
        pc = tuple(sorted(named if c == face else c for c in pc))
    return Take((a, b), (Pay(cell, pc, pp, token),))


def _listed(
    s: State, seat: int, a: int, b: int, perms: tuple[int, ...], rng: Rng, picked_as: int | None
) -> Take | None:
    """:func:`_random_take_listed`'s take, its payments named as ``picked_as`` says."""
    take = _random_take_listed(s, seat, a, b, perms, rng)
    if take is None or picked_as == PICKED:
        return take
    return Take(take.cells, _take_event(s, seat, take).pays)


def _random_take_listed(s: State, seat: int, a: int, b: int, perms: tuple[int, ...], rng: Rng) -> Take | None:
    """``takes(s, seat, a, b, perms)`` drawn from uniformly (None when there is none),
    the same draw as listing them, but counted: each payment of a building
    times its civic token choices (for two buildings, the second's counted on
    what the first leaves), and only the Take drawn is made: from the payments
    listed (:func:`_cached_payments`), where the sources name an id twice."""
    slots = (s.market[a], s.market[b])
    if not slots[0].building and not slots[1].building:
        options = tuple(takes(s, seat, a, b, perms))  # the one Take of two resource cards
        return options[rng.below(len(options))] if options else None
    resources = s.seats[seat].resources
    if slots[0].building and slots[1].building:
        first, second = CARDS[slots[0].card], CARDS[slots[1].card]
        # takes() lists, for each payment (and token) of the first, every one of the
        # second from the sources left: blocks of options, counted before one is made
        blocks: list[tuple[Pay, tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], list[int] | None]] = []
        first_tokens = _token_choices(s.display, ()) if first.kind == "civic" else None
        for pc, pp in _cached_payments(first.cost, resources, perms):
            rest = _cached_payments(  # tuple(payments(...))
                second.cost, tuple(c for c in resources if c not in pc), tuple(p for p in perms if p not in pp)
            )
            firsts = [Pay(a, pc, pp)] if first_tokens is None else [Pay(a, pc, pp, t) for t in first_tokens]
            for pay in firsts:
                blocks.append((pay, rest, _token_choices(s.display, (pay.token,)) if second.kind == "civic" else None))
        count = sum(len(rest) * (len(tokens) if tokens is not None else 1) for _, rest, tokens in blocks)
        if not count:
            return None
        i = rng.below(count)
        for pay, rest, tokens in blocks:
            n = len(rest) * (len(tokens) if tokens is not None else 1)
            if i < n:
                return Take((a, b), (pay, _nth_pay(b, rest, tokens, i, ())))
            i -= n
        raise AssertionError("the draw is below the count")
    cell, other = (a, slots[1]) if slots[0].building else (b, slots[0])
    face = face_of(other.card)
    card = CARDS[s.market[cell].card]
    pays = _cached_payments(card.cost, resources + (face,), perms)  # tuple(payments(...))
    tokens = _token_choices(s.display, ()) if card.kind == "civic" else None
    count = len(pays) * (len(tokens) if tokens is not None else 1)
    if not count:
        return None
    return Take((a, b), (_nth_pay(cell, pays, tokens, rng.below(count), (face,)),))


def _nth_pay(
    cell: int, pays: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...],
    tokens: list[int] | None, i: int, faces: tuple[int, ...],
) -> Pay:
    """The ``i``-th Pay :func:`takes` would list for the building at ``cell``: payment by
    payment, each with every token choice; the pick's card (``faces``) named PICKED."""
    if tokens is None:
        pc, pp = pays[i]
    else:
        (pc, pp), token = pays[i // len(tokens)], tokens[i % len(tokens)]
    named = tuple(sorted(PICKED if c in faces else c for c in pc))
    return Pay(cell, named, pp) if tokens is None else Pay(cell, named, pp, token)


# -- the search's playouts (core.point_city.search), never the referee's path -------
def random_step(
    s: State, seat: int, rng: Rng, can_take: CanTake | None = None
) -> tuple[tuple[object, ...], State]:
    """:func:`random_command` played: ``step(s, seat, random_command(s, seat, rng))``,
    the same draws, events and state, but the event made at once: the command
    drawn is legal (its contract, tests/point_city/test_pc_fast_paths.py), so
    :func:`_check_take`'s and :func:`_check_flip`'s checks are left out and
    only the event they would make is made (:func:`_take_event`'s).  For the
    search's playouts (``PointCitySearch.random_step``); ``can_take`` as :func:`step`'s."""
    cmd = _random_move(s, seat, rng, None)
    if type(cmd) is Take:  # its payments name the pick's card by its id, as the event does
        a, b = cmd.cells
        x, y = s.market[a], s.market[b]
        first: object = ev.CardsTaken(seat, (a, b), (x.card, y.card), (x.building, y.building), cmd.pays)
    elif type(cmd) is Flip:
        first = ev.Flipped(seat, cmd.cell, s.market[cmd.cell].card)  # a flippable cell's card
    else:
        first = ev.DeckTaken(seat, s.top)  # drawn only with two cards in the deck
    return run(s, first, can_take)


def chance_step(s: State, rng: Rng, can_take: CanTake | None = None) -> tuple[tuple[object, ...], State]:
    """``step(s, CHANCE, chance(s, rng))``, the same draw, events and state: a card
    drawn from the unseen cards of the top tier is all :func:`_check_chance` checks
    of a Reveal, so its event is made at once (the search's playouts)."""
    hidden = s.hidden
    if not s.top and s.step in _REVEALING and sum(hidden) > 0:  # needs_reveal(s), inline
        # rng.choice(s.unseen[top_tier(s)]), inline
        u = s.unseen[0 if hidden[0] > 0 else 1 if hidden[1] > 0 else 2 if hidden[2] > 0 else -1]
        return run(s, ev.CardRevealed(u[rng.below(len(u))]), can_take)
    return step(s, CHANCE, chance(s, rng), can_take)


_REVEALING = ("deal", "second", "refill", "after")
"""The steps :func:`needs_reveal` turns a card up in."""


def default_take(s: State, seat: int, cells: tuple[int, int]) -> Take | None:
    """The cheapest legal payment for a pick (the CLI's default), best token first."""
    from core.point_city.payment import price
    from core.point_city.state import ingenuity_cards, permanents
    from core.point_city.tokens import points

    a, b = sorted(cells)
    if not adjacent(a, b):
        return None
    me = s.seats[seat]
    new_perms = permanents(me.buildings + tuple(
        x.card for x in (s.market[a], s.market[b]) if x.building))

    def key(t: Take) -> tuple[float, int, tuple[int, ...]]:
        paid = paid_cards(s, t)
        left = tuple(c for c in me.resources if c not in paid)
        tok = sum(points(TOKENS[p.token], new_perms, ingenuity_cards(left)) for p in t.pays if p.token)
        return (price(paid), -tok, paid)

    options = list(takes(s, seat, a, b))
    return min(options, key=key) if options else None


