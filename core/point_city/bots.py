"""Bots.  ``greedy_bot`` looks one move ahead and values the seat it would have.

Value of a seat = its score now (building VP + civic tokens, PC-5/PC-6) +
a weight per permanent resource that shrinks as the deck runs out + a
little per resource symbol held.  Flips are never chosen (they only serve
a take that greedy does not plan).
"""

from __future__ import annotations

from typing import Any

from core.point_city import fold
from core.point_city.cards import CARDS, FACES, WILD, face_of
from core.point_city.commands import Command, Flip, Take, TakeDeck
from core.point_city.events import Flipped
from core.point_city.rules import paid_cards
from core.point_city.scoring import seat_score
from core.point_city.state import Seat, State, deck_size, permanents
from core.rng import Rng


def seat_value(who: Seat, deck: int) -> float:
    perm_weight = 0.5 + min(2.0, deck / 25)
    held = 0.0
    for c in who.resources:
        card = CARDS[c]
        held += 0.7 if card.resource == WILD else 0.5 * card.symbols
    return seat_score(who) + perm_weight * sum(permanents(who.buildings)) + held


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
        flipped = fold.fold_event(s, Flipped(seat, cell, card))
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
    _, best = _best(game, state, seat, deck_size(state), rng)
    if not best:
        return next(iter(game.legal(state, seat)))
    return best[rng.below(len(best))]


# -- search hooks (core.mcts through PointCity.candidates / leaf_estimate) -------
SEARCH_TOP = 0
"""How many of greedy's best takes (by :func:`seat_value`) the search expands, with
the deck take and every flip; 0: every legal command."""
SEARCH_FLIPS = True
LEAF_PLIES = 0
"""Plies of flip-less greedy play after a search leaf before its estimate is read."""


def ranked(game: Any, s: State, seat: int) -> list[tuple[float, int, Command]]:
    """Every take (deck or market) with greedy's value of it, best first (legal order on ties)."""
    deck = deck_size(s)
    out = []
    for i, cmd in enumerate(game.legal(s, seat)):
        if isinstance(cmd, Flip):
            continue
        v = seat_value(after(s, seat, cmd), deck)
        if isinstance(cmd, TakeDeck):
            v += UNSEEN_VALUE
        out.append((-v, i, cmd))
    out.sort(key=lambda x: (x[0], x[1]))
    return out


def candidates(game: Any, s: State, seat: int) -> list[Command] | None:
    if not SEARCH_TOP or s.solo_level:
        return None
    order = ranked(game, s, seat)
    chosen = [c for _, _, c in order[:SEARCH_TOP]]
    deck = [c for _, _, c in order if isinstance(c, TakeDeck)]
    if deck and deck[0] not in chosen:
        chosen.append(deck[0])
    if SEARCH_FLIPS:
        chosen += [c for c in game.legal(s, seat) if isinstance(c, Flip)]
    return chosen or None


def rollout_move(game: Any, s: State, seat: int, rng: Rng) -> Command:
    """Greedy without flips: the best take by value, ties broken by ``rng``."""
    _, best = _best(game, s, seat, deck_size(s), None)
    if not best:
        return next(iter(game.legal(s, seat)))
    return best[rng.below(len(best))]


def leaf_estimate(game: Any, s: State, rng: Rng) -> tuple[float, ...] | None:
    if s.solo_level:
        return None
    from core.engine import CHANCE

    for _ in range(LEAF_PLIES):
        actors = game.to_act(s)
        while actors == (CHANCE,):
            s = game.step(s, CHANCE, game.chance(s, rng))[1]
            actors = game.to_act(s)
        if not actors:
            break
        s = game.step(s, actors[0], rollout_move(game, s, actors[0], rng))[1]
    deck = deck_size(s)
    measure = fitted_value if ESTIMATE else seat_value
    return tuple(measure(x, deck) for x in s.seats)


ESTIMATE = 0


def fitted_value(who: Seat, deck: int) -> float:
    """A seat's expected final score: its score now plus what its producers, the
    types they cover and its resource cards have been worth, on average, in the
    rest of greedy-against-greedy games at this deck size."""
    perms = permanents(who.buildings)
    sym = wild = 0
    for c in who.resources:
        card = CARDS[c]
        if card.resource == WILD:
            wild += 1
        else:
            sym += card.symbols
    perm_w = min(2.2, 0.1 + 0.07 * deck)
    type_w = min(2.0, 0.4 + 0.035 * deck)
    sym_w = min(0.45, 0.012 * deck)
    return (seat_score(who) + perm_w * sum(perms) + type_w * sum(1 for n in perms if n)
            + sym_w * sym + 0.5 * wild)
