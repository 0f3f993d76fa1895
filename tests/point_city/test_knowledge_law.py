"""The knowledge law for Point City [GN-1] [PL-16].

A view hides an item only if two true games consistent with everything the
seat has seen differ in it, and shows it otherwise.  The items are the cards
a view shows by face only (a market cell, the top card, another hand, the
solo opponent's hand, the discard pile, the unseen stock), each a card id.

* Shown is sound: the view is the fold of the seat's redacted log
  (tests/test_view_law.py); here the true game must agree with every card the
  view names (the seat's own paid cards, cards known by counting, the stock).
* Hidden is really hidden: for each place showing a face, a consistent
  completion is built independently of the view's counting: the true log with
  one of that place's true cards exchanged, everywhere, for a card of the same
  face lying elsewhere; it must replay under the rules (every decision
  re-decided), redact event by event to exactly the seat's log, and hold a
  different card at that place.

``python -m tests.point_city.test_knowledge_law [VIEWS]`` measures it on random
games of every option (the closing-note count).
"""

from __future__ import annotations

import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from core import registry
from core.autoplay import play_game
from core.engine import RulesError
from core.point_city import events as ev
from core.point_city.cards import face_of
from core.point_city.view import FACE_CARDS
from tests.options import draw_options

GAME = registry.get("point-city")


def _swap(e: Any, a: int, b: int) -> Any:
    """``e`` with cards ``a`` and ``b`` exchanged."""
    f = lambda c: b if c == a else a if c == b else c  # noqa: E731
    match e:
        case ev.StartCardsDealt(cards=cs):
            return replace(e, cards=tuple(map(f, cs)))
        case ev.CardRevealed(card=c) | ev.MarketDealt(card=c) | ev.Flipped(card=c) | ev.DeckTaken(card=c) | \
                ev.SecondTaken(card=c) | ev.Refilled(card=c):
            return replace(e, card=f(c))
        case ev.CardsTaken(cards=cs, pays=ps):
            def pay(p: Any) -> Any:  # a payment lists its cards sorted when it was sorted
                cards = tuple(map(f, p.cards))
                return replace(p, cards=tuple(sorted(cards)) if list(p.cards) == sorted(p.cards) else cards)

            return replace(e, cards=tuple(map(f, cs)), pays=tuple(pay(p) for p in ps))
        case ev.OpponentTook(cards=cs):
            return replace(e, cards=tuple(map(f, cs)))
    return e


_REPLAY: dict[tuple[int, int, int], tuple[int, dict[int, Any]]] = {}
_MENTIONS: dict[int, dict[int, list[int]]] = {}


def _mentions(events: list[Any]) -> dict[int, list[int]]:
    """Card id → the indices of the events that name it (what :func:`_swap` can change)."""
    key = id(events)
    if key not in _MENTIONS:
        index: dict[int, list[int]] = {}
        for i, e in enumerate(events):
            for c in _cards_in(e):
                index.setdefault(c, []).append(i)
        _MENTIONS[key] = index
    return _MENTIONS[key]


def _cards_in(e: Any) -> set[int]:
    """The card ids event ``e`` names (those :func:`_swap` exchanges)."""
    match e:
        case ev.StartCardsDealt(cards=cs) | ev.OpponentTook(cards=cs):
            return set(cs)
        case ev.CardRevealed(card=c) | ev.MarketDealt(card=c) | ev.Flipped(card=c) | ev.DeckTaken(card=c) | \
                ev.SecondTaken(card=c) | ev.Refilled(card=c):
            return {c}
        case ev.CardsTaken(cards=cs, pays=ps):
            return {*cs, *(c for p in ps for c in p.cards)}
    return set()


def _swapped(events: list[Any], a: int, b: int) -> dict[int, Any]:
    """Index → event, for the events that exchanging cards ``a`` and ``b`` changes."""
    index = _mentions(events)
    out = {}
    for i in sorted({*index.get(a, ()), *index.get(b, ())}):
        e = _swap(events[i], a, b)
        if e != events[i]:
            out[i] = e
    return out


def _replay(events: list[Any], states: list[Any], a: int, b: int) -> tuple[int, dict[int, Any]]:
    """How many leading events of the game with cards ``a`` and ``b`` exchanged replay
    under the rules (every decision re-decided gives exactly its events), and the
    changed events.  Seat-independent, so computed once for every seat."""
    key = (id(events), a, b)
    if key in _REPLAY:
        return _REPLAY[key]
    changed = _swapped(events, a, b)
    first = min(changed, default=len(events))
    while first > 1 and GAME.command_of(events[first]) is None:
        first -= 1  # start at the decision the first change belongs to
    s = states[first - 1]
    i = first
    out_n = len(events)
    while i < len(events):
        opened = GAME.command_of(changed.get(i, events[i]))
        try:
            out = GAME.decide(s, *opened) if opened is not None else None
        except RulesError:  # the changed hidden card makes the command illegal
            out = None
        if out is None:
            out_n = i
            break
        got = [changed.get(j, events[j]) for j in range(i, min(i + len(out), len(events)))]
        k = next((j for j, (x, y) in enumerate(zip(got, out)) if x != y), len(got))
        if k < len(got):
            out_n = i + k
            break
        for e in out:
            s = GAME.apply(s, e)
        i += len(out)
    _REPLAY[key] = (out_n, changed)
    return out_n, changed


def horizon(events: list[Any], states: list[Any], seat: int, a: int, b: int) -> int:
    """How many leading events of the game with cards ``a`` and ``b`` exchanged are a game
    the seat cannot tell from ``events``: every decision re-decided gives exactly its
    events (:func:`_replay`), and each event redacts for the seat as the true one does
    (only the changed events can redact otherwise).  A prefix of such a game is such a
    game, so one replay answers for every prefix."""
    out_n, changed = _replay(events, states, a, b)
    bad = (j for j in sorted(changed) if j < out_n and GAME.redact(events[j], seat) != GAME.redact(changed[j], seat))
    return next(bad, out_n)


def _places(state: Any, v: Any) -> dict[tuple[str, int], tuple[list[int], list[int]]]:
    """Place → (what the view shows there, the true cards there), for each place showing a face."""
    out: dict[tuple[str, int], tuple[list[int], list[int]]] = {}
    for i, (x, y) in enumerate(zip(v.market, state.market)):
        if x.card:
            out[("cell", i)] = ([x.card], [y.card])
    if v.top:
        out[("top", 0)] = ([v.top], [state.top])
    for i, (x, y) in enumerate(zip(v.seats, state.seats)):
        out[("seat", i)] = (list(x.resources), list(y.resources))
    out[("opponent", 0)] = (list(v.opponent.resources), list(state.opponent.resources))
    out[("discard", 0)] = (list(v.discard), list(state.discard))
    out[("stock", 0)] = ([c for t in v.unseen for c in t], [c for t in state.unseen for c in t])
    return out


_FOLDED: dict[tuple[int, int, int], tuple[int, Any]] = {}


def _fold_swapped(events: list[Any], states: list[Any], upto: int, a: int, b: int) -> Any:
    """The fold of the first ``upto`` events with cards ``a`` and ``b`` exchanged.  The
    events before the first one the exchange changes are the true ones, so their
    fold is the true state there (``states``); the fold goes on from it, or from
    the last fold asked of the same exchange (positions are checked in order)."""
    changed = _swapped(events, a, b)
    first = min((i for i in changed if i < upto), default=upto)
    done, s = _FOLDED.get((id(events), a, b), (0, None))
    if not first < done <= upto:
        done, s = first, states[first - 1] if first else None
    for i in range(done, upto):
        s = GAME.apply(s, changed.get(i, events[i]))
    _FOLDED[(id(events), a, b)] = (upto, s)
    return s


def check_position(events: list[Any], states: list[Any], upto: int, seat: int) -> int:
    """The law after ``upto`` events of the game ``events``; returns how many cards the
    view shows by face only."""
    state = states[upto - 1]
    v = GAME.view(state, seat)
    hidden = 0
    places = _places(state, v)
    somewhere = {c for _, t in places.values() for c in t}  # every card at a place showing a face
    named = named_anywhere(v)
    for place, (shown, true) in places.items():
        rest = list(true)
        for c in [c for c in shown if c > 0]:
            assert c in rest, f"[GN-1] {place}: the view names card {c}, which is not there"
            rest.remove(c)
        assert sorted(face_of(c) for c in rest) == sorted(c for c in shown if c < 0)
        for face in sorted({c for c in shown if c < 0}):
            hidden += sum(1 for c in shown if c == face)
            here = [c for c in rest if face_of(c) == face]
            a = here[0]
            elsewhere = [c for c in FACE_CARDS[face] if c not in true and c in somewhere and c not in named]
            assert elsewhere, f"[GN-1] {place} shows face {face}, but no other card of that face could be there"
            for b in elsewhere:
                if horizon(events, states, seat, a, b) >= upto:
                    alt = _fold_swapped(events, states, upto, a, b)
                    assert GAME.view(alt, seat) == v
                    assert sorted(_places(alt, v)[place][1]) != sorted(true)
                    break
            else:
                raise AssertionError(f"[GN-1] no consistent game puts another card of face {face} at {place}")
    return hidden


def named_anywhere(v: Any) -> set[int]:
    ids = {x.card for x in v.market if x.card > 0}
    for s in (*v.seats, v.opponent):
        ids.update(c for c in s.resources if c > 0)
        ids.update(s.buildings)
    ids.update(c for c in v.discard if c > 0)
    ids.update(c for t in v.unseen for c in t if c > 0)
    if v.top > 0:
        ids.add(v.top)
    return ids


def check_game(events: list[Any], n: int, stride: int) -> tuple[int, int, int]:
    views = hidden = paid = 0
    states = []
    state = None
    for e in events:
        state = GAME.apply(state, e)
        states.append(state)
    _REPLAY.clear()
    _MENTIONS.clear()
    _FOLDED.clear()
    for i, state in enumerate(states):
        if i % stride:
            continue
        for seat in range(n):
            hidden += check_position(events, states, i + 1, seat)
            v = GAME.view(state, seat)
            for c in state.seats[seat].paid:
                assert c in v.discard, f"[GN-1] seat {seat} paid {c} but its view does not show it"
            paid += len(state.seats[seat].paid)
            views += 1
    return views, hidden, paid


@settings(deadline=None)
@given(data=st.data())
def test_a_view_hides_only_what_two_consistent_games_differ_in(data: st.DataObject) -> None:
    n = data.draw(st.integers(GAME.spec.min_players, GAME.spec.max_players), label="players")
    seed = data.draw(st.text("abcdef0123456789", min_size=1, max_size=8), label="seed")
    options = draw_options(GAME, data.draw)
    policies = [data.draw(st.sampled_from(["random", "greedy"])) for _ in range(n)]
    _, events = play_game(GAME, [f"p{i}" for i in range(n)], seed, policies, options)
    stride = data.draw(st.integers(15, 40), label="stride")
    views, _, _ = check_game(events, n, stride)
    assert views > 0


def test_a_seat_sees_its_own_paid_cards_by_id() -> None:
    """[GN-1] The seat held the cards it paid; its view of the discard names them."""
    _, events = play_game(GAME, ["a", "b"], "paid", ["greedy", "greedy"], {})
    state = None
    for e in events:
        state = GAME.apply(state, e)
    mine = state.seats[0].paid
    assert mine, "the game should have a payment by seat 0"
    v = GAME.view(state, 0)
    assert all(c in v.discard for c in mine)
    theirs = GAME.view(state, 1)
    assert not theirs.seats[0].paid


def measure(views_wanted: int) -> None:
    import random

    rnd = random.Random(23)
    views = hidden = paid = games = 0
    while views < views_wanted:
        n = rnd.randint(GAME.spec.min_players, GAME.spec.max_players)
        opts = {o.key: rnd.choice(o.choices) for o in GAME.spec.options if o.choices}
        _, events = play_game(GAME, [f"p{i}" for i in range(n)], f"kl{games}", ["greedy", "random", "random", "greedy", "random"][:n], opts)
        v, h, p = check_game(events, n, 5)
        views, hidden, paid, games = views + v, hidden + h, paid + p, games + 1
    print(f"Point City: {games} games, {views} views; {hidden} cards shown by face only, each with a "
          f"consistent completion holding another card there; {paid} paid cards shown to their payer by id")


if __name__ == "__main__":
    measure(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
