"""Bots.  ``greedy_bot`` looks one move ahead and values the seat it would have.

Value of a seat = its score now (building VP + civic tokens, PC-5/PC-6) +
a weight per permanent resource that shrinks as the deck runs out + a
little per resource symbol held.  Flips are never chosen (they only serve
a take that greedy does not plan).
"""

from __future__ import annotations

from typing import Any

from core.engine import CHANCE
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
    """Greedy without flips (cheap): the best take by :func:`seat_value`, ties by ``rng``."""
    return _one_ply(game, s, seat, rng, flips=False)


def leaf_estimate(game: Any, s: State, rng: Rng, plies: int | None = None) -> tuple[float, ...]:
    """Each seat's :func:`seat_value` after ``plies`` moves of :func:`rollout_move`
    (default :data:`LEAF_PLIES`; fewer if the game ends), chance drawn from
    ``rng``: a leaf is judged once the reply to its move has been answered, not on
    the move alone."""
    for _ in range(LEAF_PLIES if plies is None else plies):
        actors = game.to_act(s)
        while actors == (CHANCE,):
            s = game.step(s, CHANCE, game.chance(s, rng))[1]
            actors = game.to_act(s)
        if not actors:
            break
        s = game.step(s, actors[0], rollout_move(game, s, actors[0], rng))[1]
    deck = deck_size(s)
    return tuple(seat_value(x, deck) for x in s.seats)
