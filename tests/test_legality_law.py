"""The legality law, for every registered game: ``legal`` lists what ``decide`` accepts.

On random reachable positions of every game and option set, for every seat to
act, the commands :meth:`Game.legal` lists and the commands ``decide`` accepts
out of an exhaustive enumeration of the command space are the same set (up to
interchangeable choices, see each game's ``canonical``).  The enumerations are
built from each game's data and command types — card kinds, the frame of
squares, tile ids, market cells, the seat's sources and the tokens on the
table — never from ``legal``, so a take, a square or a split that ``legal``
misses shows up as a difference.  This is the law that would have caught
Point City's missing Ingenuity takes (issue 23, PL-17).

The spaces:

* Point City: a flip of every cell, the deck, and every pair of market cells
  (adjacent or not) with every payment of its buildings — every count of each
  class of source (resource cards and the pick's card, ``PICKED``, by what
  they give; producers by their type) up to one more than the building could
  use, a count past that leaving a source out that the cost does not need
  [PL-4] — times every token choice (none, up to two of each kind on the
  table, one not on it).  For two buildings the two payments are combined
  from the sources left; a payment is combined only when it is minimal on
  its own by the definition of PL-4 (:func:`_minimal_by_definition`, written
  here from the card list), since ``decide`` checks each payment alone.
* Card City: in the phase's decision, every card kind × every square of a frame
  wider than the city can grow (build, develop), every discard, every square
  to buy, pass, both groups of an offer (and another word), every one, two or
  three kinds to keep, every split of kinds into a pair, a face-up and a
  face-down half of every size; one command of each other kind.
* 5x5 City: every set number (and one past each end), every tile of the hand,
  of the park draw and one other × every square (and two off the board) ×
  both sides, every swap of two squares, and the park's fixed commands.

Run it thoroughly (positions per game counted, differences printed)::

    PYTHONPATH=. python tests/test_legality_law.py --positions 5000
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import combinations_with_replacement, product
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import registry
from core.autoplay import play_game
from core.engine import CHANCE, IllegalCommand, checked_decide

GAMES = registry.available()


# -- Point City --------------------------------------------------------------
def _pc_space(s: Any, seat: int) -> Iterator[Any]:
    from core.point_city.cards import CARDS
    from core.point_city.commands import PICKED, Flip, Pay, Take, TakeDeck
    from core.point_city.tokens import TOKENS

    for cell in range(-1, 17):
        yield Flip(cell)
    yield TakeDeck()
    me = s.seats[seat]
    perms = [b for b in me.buildings if CARDS[b].produces]
    foreign = next(c for c in sorted(CARDS) if c > 0 and c not in me.resources)
    on_table = [t for t in s.display]
    off_table = next((t for t in sorted(TOKENS) if t not in on_table), None)
    by_kind: dict[Any, list[int]] = {}
    for t in on_table:
        by_kind.setdefault(TOKENS[t].key, []).append(t)
    off = [off_table] if off_table else []
    plain_tokens = [0, on_table[0] if on_table else 1]

    def tokens(cell: int, before: int | None = None) -> list[int]:
        """Every token choice of a building, up to copies of a kind: none, each kind on
        the table, one not on it; after a first civic's ``before``: that one again."""
        if CARDS[s.market[cell].card].kind != "civic":
            return plain_tokens
        kinds = [next((t for t in ts if t != before), ts[0]) for ts in by_kind.values()]
        return [0] + kinds + off + ([before] if before else [])
    for a in range(16):
        for b in range(a + 1, 16):
            slots = (s.market[a], s.market[b])
            built = [c for c, x in zip((a, b), slots) if x.building and x.card]
            yield Take((a, b))
            yield Take((a, b), (Pay(a),))
            if not built or any(not x.card for x in slots):
                continue
            picked = [x.card for x in slots if not x.building]
            # sources by what they give: resource cards (the pick's as PICKED) and producers
            real = {PICKED: picked[0]} if picked else {}
            classes: dict[tuple[str, str, int], list[int]] = {}
            for c in ([PICKED] if picked else []) + sorted(me.resources):
                card = CARDS[real.get(c, c)]
                classes.setdefault(("card", card.resource, card.symbols), []).append(c)
            for p in sorted(perms):
                classes.setdefault(("perm", CARDS[p].produces, 1), []).append(p)
            keys = sorted(classes)

            def one(cell: int) -> list[tuple[tuple[int, ...], tuple[int, ...], Counter[Any]]]:
                """Every payment of the building at ``cell`` within the counts it could use:
                of a type it asks, as many as that type's symbols need; wild ones, as many
                as the whole cost.  One more, or any source of a type it does not ask,
                leaves a source out that the cost does not need [PL-4]: those are probed
                by :func:`probes`, not listed in full."""
                cost = dict(CARDS[s.market[cell].card].cost)
                caps = []
                for k in keys:
                    if k[1] in cost:
                        cap = -(-cost[k[1]] // k[2])
                    elif k[1] == "ingenuity":
                        cap = sum(cost.values())
                    else:
                        cap = 0
                    caps.append(range(min(cap, len(classes[k])) + 1))
                out = []
                for counts in product(*caps):
                    out.append(named(Counter(dict(zip(keys, counts)))))
                return out

            def named(n: Counter[Any], after: Counter[Any] | None = None
                      ) -> tuple[tuple[int, ...], tuple[int, ...], Counter[Any]]:
                """The sources of counts ``n`` (each class's next ones after ``after``'s)."""
                cards: list[int] = []
                prs: list[int] = []
                for k in keys:
                    skip = after[k] if after else 0
                    (prs if k[0] == "perm" else cards).extend(classes[k][skip: skip + n[k]])
                return tuple(sorted(cards)), tuple(sorted(prs)), n

            def probes(cell: int, pays: list[tuple[tuple[int, ...], tuple[int, ...], Counter[Any]]]
                       ) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
                """Payments past the counts of :func:`one`: each source alone, a card the
                seat does not hold, and each of the first minimal payments with one more
                source of every class."""
                for k in keys:
                    yield named(Counter({k: 1}))[:2]
                yield (foreign,), ()
                minimal = [p for p in pays if _minimal_by_definition(s, cell, p[0], p[1], real)]
                for _, _, n in minimal[:8]:
                    for k in keys:
                        if n[k] < len(classes[k]):
                            yield named(n + Counter({k: 1}))[:2]

            if len(built) == 1:
                x = built[0]
                pays = one(x)
                for pc, pp, _ in pays:
                    for t in tokens(x):
                        yield Take((a, b), (Pay(x, pc, pp, t),))
                for pc, pp in probes(x, pays):
                    yield Take((a, b), (Pay(x, pc, pp, tokens(x)[-1]),))
                continue
            x, y = built
            firsts = [p for p in one(x) if _minimal_by_definition(s, x, p[0], p[1], real)]
            seconds = [p for p in one(y) if _minimal_by_definition(s, y, p[0], p[1], real)]
            for (c1, p1, n1), (_, _, n2) in product(firsts, seconds):
                if any(n1[k] + n2[k] > len(classes[k]) for k in keys):
                    continue
                c2, p2, _ = named(n2, n1)  # the second pays with each class's next sources
                for t1 in tokens(x):
                    for t2 in tokens(y, t1):
                        yield Take((a, b), (Pay(x, c1, p1, t1), Pay(y, c2, p2, t2)))
            if firsts and seconds:  # a source paying twice [PL-3]
                c1, p1, _ = firsts[0]
                c2, p2, _ = seconds[0]
                shared = named(Counter({k: 1 for k in keys}))
                yield Take((a, b), (Pay(x, c1 + shared[0], p1 + shared[1]), Pay(y, c2 + shared[0], p2 + shared[1])))


def _minimal_by_definition(
    s: Any, cell: int, cards: tuple[int, ...], perms: tuple[int, ...], real: dict[int, int]
) -> bool:
    """PL-4 by its words, from the card list: the sources cover the cost (typed
    symbols, then wild ones for what is lacking) and leaving out any one does not."""
    from core.point_city.cards import CARDS

    cost = CARDS[s.market[cell].card].cost
    gives = [(CARDS[real.get(c, c)].resource, CARDS[real.get(c, c)].symbols) for c in cards]
    gives += [(CARDS[p].produces, 1) for p in perms]

    def covers(items: list[tuple[str, int]]) -> bool:
        typed: Counter[str] = Counter()
        wild = 0
        for r, k in items:
            if r == "ingenuity":
                wild += k
            else:
                typed[r] += k
        return sum(max(0, n - typed[t]) for t, n in cost) <= wild

    return covers(gives) and not any(covers(gives[:i] + gives[i + 1:]) for i in range(len(gives)))


def _pc_canonical(s: Any, cmd: Any) -> Any:
    """A take by what it gives: each payment's sources by class (the pick's card as the
    card it is, producers by type), its token by kind; the rest as it is."""
    from core.point_city.cards import CARDS
    from core.point_city.commands import PICKED, Take
    from core.point_city.tokens import TOKENS

    if not isinstance(cmd, Take):
        return cmd
    picked = [s.market[c].card for c in cmd.cells if 0 <= c < 16 and not s.market[c].building]
    pays = []
    for p in sorted(cmd.pays, key=lambda p: p.cell):
        cards = sorted((CARDS[picked[0] if c == PICKED and picked else c].resource,
                        CARDS[picked[0] if c == PICKED and picked else c].symbols) for c in p.cards)
        perms = sorted(CARDS[b].produces for b in p.perms)
        pays.append((p.cell, tuple(cards), tuple(perms), TOKENS[p.token].key if p.token in TOKENS else p.token))
    return ("take", tuple(sorted(cmd.cells)), tuple(pays))


# -- Card City ---------------------------------------------------------------
def _cc_space(s: Any, seat: int) -> Iterator[Any]:
    """The whole space of the phase's decision; one command of each other kind (the
    phase gates them first, so the rest of their space is refused alike)."""
    from core.card_city.cards import KINDS
    from core.card_city.commands import Build, Buy, Develop, Discard, Keep, Pass, SplitCards, Take

    frame = [(r, c) for r in range(-5, 6) for c in range(-5, 6)]  # CC-1 keeps a city within ±4
    full = {s.phase}
    yield Take("pair")
    yield Take("rest")
    yield Take("other")
    yield Pass()
    for size in (1, 2, 3) if "acquisition" in full else (2,):
        for keep in combinations_with_replacement(KINDS, size):
            yield Keep(keep)
    for card in KINDS:
        yield Discard(card)
        for r, c in frame if "construction" in full else frame[:1]:
            yield Build(card, r, c)
        for r, c in frame if "development" in full else frame[:1]:
            yield Develop(card, r, c)
    for r, c in frame if "purchase" in full else frame[:1]:
        yield Buy(r, c)
    n = len(s.holding.cards) if "acquisition" in full else 0
    if n >= 2:
        for pair in combinations_with_replacement(KINDS, 2):
            for up_size in range(n - 1):
                for up in combinations_with_replacement(KINDS, up_size):
                    for down in combinations_with_replacement(KINDS, n - 2 - up_size):
                        yield SplitCards(pair, up, down)
    else:
        yield SplitCards(("R", "R"), ("C",), ("C",))


def _cc_canonical(s: Any, cmd: Any) -> Any:
    """Cards are kinds: a keep or a split as multisets."""
    from core.card_city.commands import Keep, SplitCards

    if isinstance(cmd, Keep):
        return Keep(tuple(sorted(cmd.cards)))
    if isinstance(cmd, SplitCards):
        return SplitCards(tuple(sorted(cmd.pair)), tuple(sorted(cmd.up)), tuple(sorted(cmd.down)))
    return cmd


# -- 5x5 City ----------------------------------------------------------------
def _fc_space(s: Any, seat: int) -> Iterator[Any]:
    from core.five_by_five import commands as cm
    from core.five_by_five.tiles import ALL_TILE_IDS

    for i in range(len(s.sets) + 2):
        yield cm.Choose(i)
    yield cm.UsePark()
    yield cm.Decline()
    yield cm.Keep()
    squares = range(-1, 26)
    for a in squares:
        for b in squares:
            yield cm.Swap(a, b)
    mine = set(s.hand) | set(s.park_drawn)
    other = next(t for t in ALL_TILE_IDS if t not in mine)
    for t in sorted(mine) + [other]:
        for q in squares:
            for park in (False, True):
                yield cm.Place(t, q, park)
                yield cm.Replace(t, q, park)


def _fc_canonical(s: Any, cmd: Any) -> Any:
    from core.five_by_five import commands as cm

    if isinstance(cmd, cm.Swap):
        return cm.Swap(min(cmd.a, cmd.b), max(cmd.a, cmd.b))
    return cmd


SPACES: dict[str, tuple[Callable[[Any, int], Iterator[Any]], Callable[[Any, Any], Any]]] = {
    "point-city": (_pc_space, _pc_canonical),
    "card-city": (_cc_space, _cc_canonical),
    "5x5-city": (_fc_space, _fc_canonical),
}


def differences(game: Any, state: Any) -> list[str]:
    """Where ``legal`` and ``decide`` disagree at ``state``, for every seat to act
    (empty when they agree): a command listed but refused, or accepted but not listed."""
    space, canonical = SPACES[game.spec.name]
    out = []
    for seat in game.to_act(state):
        if seat == CHANCE:
            continue
        listed = {}
        for cmd in game.legal(state, seat):
            listed.setdefault(canonical(state, cmd), cmd)
            try:
                checked_decide(game, state, seat, cmd)
            except IllegalCommand as exc:
                out.append(f"seat {seat}: listed but refused: {game.format_command(cmd)} ({exc})")
        accepted = {}
        for cmd in space(state, seat):
            try:
                checked_decide(game, state, seat, cmd)
            except IllegalCommand:
                continue
            accepted.setdefault(canonical(state, cmd), cmd)
        for key in accepted.keys() - listed.keys():
            out.append(f"seat {seat}: accepted but not listed: {game.format_command(accepted[key])}")
        for key in listed.keys() - accepted.keys():
            out.append(f"seat {seat}: listed but not in the enumerated space: {game.format_command(listed[key])}")
    return out


def positions(game: Any, n: int, seed: str, policies: list[str], options: dict[str, str]) -> list[Any]:
    """Every position of a bot game where a player decides (the true states)."""
    seen: list[Any] = []

    def hook(before: Any, seat: int, command: Any, events: tuple[Any, ...]) -> None:
        if seat != CHANCE:
            seen.append(before)

    play_game(game, [f"p{i}" for i in range(n)], seed, policies, options, keep_events=False, hook=hook)
    return seen


def _draw_game(game: Any, data: st.DataObject) -> tuple[int, str, list[str], dict[str, str]]:
    from tests.options import draw_options

    n = data.draw(st.integers(game.spec.min_players, game.spec.max_players), label="players")
    seed = data.draw(st.text("abcdef0123456789", min_size=1, max_size=8), label="seed")
    policies = [data.draw(st.sampled_from(["random", "greedy"])) for _ in range(n)]
    return n, seed, policies, draw_options(game, data.draw)


@pytest.mark.parametrize("name", GAMES)
@given(data=st.data())
def test_legal_lists_exactly_what_decide_accepts(name: str, data: st.DataObject) -> None:
    """Some positions of a random game (all of them would be slow in CI; the thorough
    run below checks thousands)."""
    game = registry.get(name)
    found = positions(game, *_draw_game(game, data))
    picks = data.draw(st.lists(st.integers(0, len(found) - 1), min_size=1, max_size=3, unique=True), label="at")
    for i in picks:
        assert differences(game, found[i]) == [], f"position {i}"


def test_the_law_can_fail() -> None:
    """A ``legal`` that drops one command is caught (the law is not vacuous)."""
    game = registry.get("point-city")
    state = next(p for p in positions(game, 2, "law", ["greedy", "greedy"], {})
                 if any(len(getattr(c, "pays", ())) for c in game.legal(p, p.turn)))

    class Dropping(type(game)):  # type: ignore[misc]
        def legal(self, s: Any, seat: int) -> Iterator[Any]:
            return (c for c in super().legal(s, seat) if not getattr(c, "pays", ()))

    assert any("accepted but not listed" in d for d in differences(Dropping(), state))


def main(argv: list[str] | None = None) -> int:
    """The thorough run: at least ``--positions`` positions a game, differences printed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=5000)
    parser.add_argument("--games", default=",".join(GAMES))
    args = parser.parse_args(argv)
    import random

    failed = 0
    for name in args.games.split(","):
        game = registry.get(name)
        rng = random.Random(f"legality-{name}")
        checked = games = diffs = 0
        while checked < args.positions:
            n = rng.randint(game.spec.min_players, game.spec.max_players)
            seed = f"{rng.getrandbits(32):08x}"
            policies = [rng.choice(["random", "greedy"]) for _ in range(n)]
            options = {o.key: rng.choice(list(o.choices) or ["A", "B", "random"]) for o in game.spec.options}
            for state in positions(game, n, seed, policies, options):
                found = differences(game, state)
                checked += 1
                if found:
                    diffs += 1
                    if diffs <= 5:
                        print(f"{name} seed {seed} {n} players {options}: {found[:3]}", flush=True)
            games += 1
        print(f"{name}: {checked} positions of {games} games, {diffs} with a difference", flush=True)
        failed += diffs
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
