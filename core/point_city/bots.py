"""Bots.  ``greedy_bot`` looks one move ahead and values the seat it would have.

Value of a seat = its score now (building VP + civic tokens, PC-5/PC-6) +
a weight per permanent resource that shrinks as the deck runs out + a
little per resource symbol held.  Flips are never chosen (they only serve
a take that greedy does not plan).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from core.engine import CHANCE
from core.point_city import fold
from core.point_city.cards import CARDS, FACES, WILD, face_of
from core.point_city.commands import PICKED, Command, Flip, Pay, Take, TakeDeck
from core.point_city.events import Flipped
from core.point_city.payment import _cached_payments
from core.point_city.rules import _producers, _token_choices, candidate_pairs, paid_cards, random_command
from core.point_city.state import Seat, State, deck_size, ingenuity_cards, permanents
from core.point_city.tokens import TOKENS, points
from core.rng import Rng


def seat_value(who: Seat, deck: int) -> float:
    """The seat's score now, a weight per permanent resource that shrinks as the
    deck runs out, and a little per resource symbol held (the greedy measure);
    the same sums as :func:`seat_score`'s, their parts cached per tableau."""
    vp, perms, count = _built(who.buildings)
    held, wild = _held(who.resources)
    score = vp
    for t in who.tokens:
        score += points(TOKENS[t], perms, wild)
    return score + (0.5 + min(2.0, deck / 25)) * count + held


@lru_cache(maxsize=1 << 16)
def _built(buildings: tuple[int, ...]) -> tuple[int, tuple[int, ...], int]:
    """The buildings' points, permanent resources per type, and their number."""
    perms = permanents(buildings)
    return sum(CARDS[b].vp for b in buildings), perms, sum(perms)


@lru_cache(maxsize=1 << 16)
def _held(resources: tuple[int, ...]) -> tuple[float, int]:
    """What greedy's measure gives the resource cards held, and their Ingenuity cards."""
    held = 0.0
    for c in resources:
        card = CARDS[c]
        held += 0.7 if card.resource == WILD else 0.5 * card.symbols
    return held, ingenuity_cards(resources)


def after(s: State, seat: int, cmd: Command) -> Seat:
    """The seat's tableau once ``cmd`` is done (the unseen deck card counted as absent)."""
    me = s.seats[seat]
    if isinstance(cmd, TakeDeck):
        return Seat(me.resources + (s.top,), me.buildings, me.tokens)
    assert isinstance(cmd, Take)
    paid = set(paid_cards(s, cmd))
    slots = [s.market[c] for c in cmd.cells]
    res = tuple(c for c in me.resources + tuple(x.card for x in slots if not x.building)
                if c not in paid)
    built = me.buildings + tuple(x.card for x in slots if x.building)
    return Seat(res, built, me.tokens + tuple(p.token for p in cmd.pays if p.token))


FLIP_SAMPLES = 3
"""How many building sides greedy imagines under a face-down card it might flip."""


def _flip_value(game: Any, s: State, seat: int, deck: int, cell: int, rng: Rng) -> float:
    """A flip judged by the best take it opens, averaged over building sides the card
    may have: the bot sees the resource side only [PL-16], never the card itself."""
    face = CARDS[s.market[cell].card]
    candidates = [c.id for c in BY_FACE[(face.tier, face.resource)]]
    picks = [candidates[rng.below(len(candidates))] for _ in range(FLIP_SAMPLES)]
    total = 0.0
    for card in picks:
        flipped = fold.apply(s, Flipped(seat, cell, card))
        total += _best(game, flipped, seat, deck, None)[0]
    return total / len(picks) - 0.05


def _best(
    game: Any, s: State, seat: int, deck: int, rng: Rng | None
) -> tuple[float, list[Command]]:
    """The best commands by value; flips are considered only when ``rng`` is given."""
    best: list[Command] = []
    best_v = float("-inf")
    for cmd in game.legal(s, seat):
        if isinstance(cmd, Flip):
            if rng is None:
                continue
            v = _flip_value(game, s, seat, deck, cmd.cell, rng)
        else:
            v = seat_value(after(s, seat, cmd), deck)
            if isinstance(cmd, TakeDeck):
                v += UNSEEN_VALUE
        if v > best_v + 1e-9:
            best, best_v = [cmd], v
        elif abs(v - best_v) <= 1e-9:
            best.append(cmd)
    return best_v, best


BY_FACE = {
    (f.tier, f.resource): [c for c in CARDS.values() if c.tier and face_of(c.id) == f.id]
    for f in FACES.values()
}
BY_FACE = {k: v for k, v in BY_FACE.items() if v}

UNSEEN_VALUE = 0.45
"""What greedy expects of the unknown second card of a deck take."""


def greedy_bot(game: Any, state: State, seat: int, rng: Rng) -> Command:
    """One ply (a flip is judged by the best take it opens), ties broken by ``rng``."""
    return _one_ply(game, state, seat, rng, flips=True)


def _one_ply(game: Any, s: State, seat: int, rng: Rng, flips: bool) -> Command:
    """The best command by :func:`seat_value` (flips judged only if ``flips``), ties by ``rng``."""
    _, best = _best(game, s, seat, deck_size(s), rng if flips else None)
    if not best:
        return next(iter(game.legal(s, seat)))
    return best[rng.below(len(best))]


# -- the search's leaf (core.mcts through PointCitySearch.leaf_estimate) -----------
LEAF_PLIES = 2
"""Plies of flip-less greedy play after a search leaf before its measure is read:
the other seat's reply and the searching seat's answer (bench/RESULTS.md, fourth
pass: 0 plies — the leaf read at once —, 1 and 4 plies all won less)."""


def rollout_move(game: Any, s: State, seat: int, rng: Rng) -> Command:
    """Greedy without flips (cheap): the best take by :func:`seat_value`, ties by ``rng``
    (:func:`_fast_best`: the choice of ``_one_ply(game, s, seat, rng, flips=False)``)."""
    best, found = _fast_best(s, seat, deck_size(s))
    if not found:
        return next(iter(game.legal(s, seat)))
    return _command(s, best[rng.below(len(best))])


HELD_FADE = 20
"""The deck size under which :func:`leaf_value` fades what the resource cards held
are worth, to nothing once the deck is out (bench/RESULTS.md, issue 25, round 3)."""


def leaf_value(who: Seat, deck: int) -> float:
    """The search's leaf measure: :func:`seat_value`, but what it gives the resource
    cards held shrinks in proportion as the deck (``deck`` cards) falls under
    :data:`HELD_FADE`, to nothing at the end, where unspent cards score nothing
    (PC-6: a tie-break only; an Ingenuity token still counts its cards).
    Greedy's own measure keeps them at full value."""
    if deck >= HELD_FADE:
        return seat_value(who, deck)
    return seat_value(who, deck) - (1 - deck / HELD_FADE) * _held(who.resources)[0]


def leaf_estimate(
    game: Any, s: State, rng: Rng, plies: int | None = None,
    measure: Callable[[Seat, int], float] = seat_value,
) -> tuple[float, ...]:
    """Each seat's ``measure`` (:func:`seat_value` unless told) after ``plies`` moves
    of :func:`rollout_move` (default :data:`LEAF_PLIES`; fewer if the game ends),
    chance drawn from ``rng``: a leaf is judged once the reply to its move has
    been answered, not on the move alone."""
    for _ in range(LEAF_PLIES if plies is None else plies):
        actors = game.to_act(s)
        while actors == (CHANCE,):
            s = game.step(s, CHANCE, game.chance(s, rng))[1]
            actors = game.to_act(s)
        if not actors:
            break
        s = game.step(s, actors[0], rollout_move(game, s, actors[0], rng))[1]
    deck = deck_size(s)
    return tuple(measure(x, deck) for x in s.seats)


def candidates(game: Any, s: State, seat: int, k: int) -> list[Command]:
    """Greedy's best ``k`` takes by :func:`seat_value` (deck take with its unseen card's
    value), then every flip: what a flat search compares."""
    deck = deck_size(s)
    scored: list[tuple[float, int, Command]] = []
    flips: list[Command] = []
    for i, cmd in enumerate(game.legal(s, seat)):
        if isinstance(cmd, Flip):
            flips.append(cmd)
            continue
        v = seat_value(after(s, seat, cmd), deck)
        if isinstance(cmd, TakeDeck):
            v += UNSEEN_VALUE
        scored.append((-v, i, cmd))
    scored.sort(key=lambda x: (x[0], x[1]))
    return [c for _, _, c in scored[:k]] + flips


# -- flip-less greedy, fast (the search's playouts) ---------------------------------
def _value(resources: tuple[int, ...], buildings: tuple[int, ...], tokens: tuple[int, ...],
           weight: float) -> float:
    """:func:`seat_value` of a tableau given by its parts (``weight``: the permanents')."""
    vp, perms, count = _built(buildings)
    held, wild = _held(resources)
    score = vp
    for t in tokens:
        score += points(TOKENS[t], perms, wild)
    return score + weight * count + held


Option = tuple[int, int, tuple[tuple[int, tuple[int, ...], tuple[int, ...], int | None], ...]]
"""A take as :func:`rollout_move` weighs it: its cells and its payments (cell, cards
paid by id as listed, producers, token or None), the command made only once chosen."""


def _fast_best(s: State, seat: int, deck: int) -> tuple[list[Option | None], bool]:
    """The best flip-less commands by :func:`seat_value`, in :func:`_best`'s order and
    with its values (None: the deck take), without making a command for each payment:
    the payments are listed as :func:`core.point_city.rules.takes` lists them."""
    me = s.seats[seat]
    weight = 0.5 + min(2.0, deck / 25)
    res, blds, toks = me.resources, me.buildings, me.tokens
    best: list[Option | None] = []
    best_v = float("-inf")

    def offer(v: float, option: Option | None) -> None:
        nonlocal best, best_v
        if v > best_v + 1e-9:
            best, best_v = [option], v
        elif abs(v - best_v) <= 1e-9:
            best.append(option)

    if deck_size(s) >= 2:
        offer(_value(res + (s.top,), blds, toks, weight) + UNSEEN_VALUE, None)
    perms = _producers(blds)
    market = s.market
    display = s.display
    for a, b in candidate_pairs(s, seat, perms):
        sa, sb = market[a], market[b]
        if not sa.building and not sb.building:
            offer(_value(res + (sa.card, sb.card), blds, toks, weight), (a, b, ()))
            continue
        if sa.building and sb.building:
            first, second = CARDS[sa.card], CARDS[sb.card]
            built = blds + (sa.card, sb.card)
            t1s = _token_choices(display, ()) if first.kind == "civic" else [None]
            for pc, pp in _cached_payments(first.cost, res, perms):
                left = tuple(c for c in res if c not in pc)
                rest = _cached_payments(second.cost, left, tuple(p for p in perms if p not in pp))
                for t1 in t1s:
                    t2s = _token_choices(display, (t1 or 0,)) if second.kind == "civic" else [None]
                    for pc2, pp2 in rest:
                        kept = tuple(c for c in left if c not in pc2)
                        for t2 in t2s:
                            got = toks + tuple(t for t in (t1, t2) if t)
                            offer(_value(kept, built, got, weight),
                                  (a, b, ((a, pc, pp, t1), (b, pc2, pp2, t2))))
            continue
        cell, other = (a, sb) if sa.building else (b, sa)
        card = CARDS[market[cell].card]
        face = face_of(other.card)
        built = blds + (card.id,)
        hand = res + (other.card,)
        ts = _token_choices(display, ()) if card.kind == "civic" else [None]
        for pc, pp in _cached_payments(card.cost, res + (face,), perms):
            paid = {other.card if c == face else c for c in pc}
            kept = tuple(c for c in hand if c not in paid)
            for t in ts:
                offer(_value(kept, built, toks + ((t,) if t else ()), weight),
                      (a, b, ((cell, pc, pp, t),)))
    return best, bool(best)


def _command(s: State, option: Option | None) -> Command:
    """The command :func:`_fast_best` weighed as ``option``, named as ``takes`` names it."""
    if option is None:
        return TakeDeck()
    a, b, pays = option
    faces = tuple(face_of(x.card) for x in (s.market[a], s.market[b]) if not x.building)
    out = []
    for cell, pc, pp, t in pays:
        named = pc if not faces or faces[0] not in pc else tuple(sorted(PICKED if c in faces else c for c in pc))
        out.append(Pay(cell, named, pp) if t is None else Pay(cell, named, pp, t))
    return Take((a, b), tuple(out))


SAMPLED = 3
"""Random commands :func:`sampled_greedy` weighs (a cheap greedy for full playouts)."""


def sampled_greedy(s: State, seat: int, rng: Rng) -> Command:
    """The best of :data:`SAMPLED` random commands (:func:`core.point_city.rules.random_command`)
    by :func:`seat_value`, the first drawn among equals: a greedy-like playout policy
    a few times a random one's cost (greedy lists every payment).  A flip is
    played only when every draw is one (greedy's flips are a take's preparation)."""
    deck = deck_size(s)
    best: Command | None = None
    best_v = float("-inf")
    first: Command | None = None
    for _ in range(SAMPLED):
        cmd = random_command(s, seat, rng)
        if first is None:
            first = cmd
        if isinstance(cmd, Flip):
            continue
        v = seat_value(after(s, seat, cmd), deck) + (UNSEEN_VALUE if isinstance(cmd, TakeDeck) else 0.0)
        if v > best_v:
            best, best_v = cmd, v
    assert first is not None
    return best if best is not None else first
