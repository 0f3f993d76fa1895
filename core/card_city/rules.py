"""Card City's rules: ``decide`` turns a command into events, or refuses it.

``decide`` returns the command's own event first, then every automatic step up
to the next decision (``advance``): Leisure replacement [CC-8], keeping the last
group, discarding unbuildable cards [CC-2], development turns [CC-6], income
[CC-14], purchase turns [CC-10], pawn passes, round starts and final scoring.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any

from core.card_city import events as ev
from core.card_city.cards import (
    KINDS,
    LEISURE_COST,
    NAMES,
    ROUNDS,
    industrial_cost,
)
from core.card_city.city import (
    cells_can_construct,
    cells_development_options,
    cells_districts,
    cells_construction_squares,
    construction_violation,
    development_violation,
    eligible_districts,
    format_square,
)
from core.card_city.commands import (
    Build,
    Buy,
    Command,
    Develop,
    Discard,
    Draw,
    Keep,
    Pass,
    SplitCards,
    Take,
)
from core.card_city.fold import apply
from core.card_city.scoring import cells_income, final_score, winners
from core.card_city.state import HIDDEN, State, expand
from core.engine import CHANCE, IllegalCommand
from core.rng import Rng
from core.words import plural


# -- whose decision ---------------------------------------------------------
def to_act(s: State) -> tuple[int, ...]:
    if s.phase == "over":
        return ()
    if s.phase == "acquisition":
        if s.need_draw:
            return (CHANCE,)
        if s.offer is not None:
            return (s.offer.to,)
        if len(s.holding):
            return (s.divider,)
        return ()
    if s.phase == "construction":  # everyone with a card left (up or down)
        return tuple([i for i, p in enumerate(s.players) if p.hand.up or p.hand.down])
    if s.turn >= 0:
        return (s.turn,)
    return ()


def without_cards(s: State) -> list[int]:
    """Seats that still need their 2 cards this round, holder included."""
    return [i for i, p in enumerate(s.players) if not len(p.hand)]


def next_without_cards(s: State, after: int) -> int:
    """CL-4: the next player without cards, clockwise from the divider ``after``."""
    for step in range(1, s.n):
        seat = (after + step) % s.n
        if not len(s.players[seat].hand) and seat != after:
            return seat
    raise AssertionError("no player left to offer to")


# -- chance -----------------------------------------------------------------
def draw_possible(s: State, cards: tuple[str, ...]) -> None:
    """Chance outcomes must be possible: the cards must be in the pool (CC-9 order)."""
    if len(cards) != s.need_draw:
        raise IllegalCommand("CB-1", f"the draw must be {plural(s.need_draw, 'card')}, not {len(cards)}")
    unknown = [c for c in cards if c not in KINDS]
    if unknown:
        raise IllegalCommand("CB-1", f"{unknown[0]!r} is not a card that can be in the pool")
    unseen = s.pool_size - len(s.bottom)
    head, tail = cards[:unseen], cards[unseen:]
    have = dict(zip(KINDS, s.pool, strict=True))
    for kind in dict.fromkeys(head):  # first seen first, as Counter(head) listed them
        n = head.count(kind)
        if n > have[kind]:
            raise IllegalCommand(
                "CB-1", f"the pool holds only {plural(have[kind], NAMES[kind] + ' card')}, not {n}"
            )
    if tail and tuple(tail) != s.bottom[: len(tail)]:
        raise IllegalCommand(
            "CC-9", "once the unseen pool is empty, cards come off the bottom in the order they went there"
        )


# -- decide -----------------------------------------------------------------
def decide(s: State, seat: int, cmd: Command) -> tuple[ev.Event, ...]:
    return step(s, seat, cmd)[0]


def step(s: State, seat: int, cmd: Command) -> tuple[tuple[ev.Event, ...], State]:
    """``decide``'s events and the state after them (folded while deciding)."""
    return settle(s, _first_event(s, seat, cmd))


def settle(s: State, first: tuple[ev.Event, ...]) -> tuple[tuple[ev.Event, ...], State]:
    """``first`` and every automatic step after it, with the state they lead to."""
    out = list(first)
    for e in first:
        s = apply(s, e)
    while True:
        more = advance(s)
        if not more:
            return tuple(out), s
        for e in more:
            s = apply(s, e)
        out.extend(more)


def _first_event(s: State, seat: int, cmd: Command) -> tuple[ev.Event, ...]:
    if isinstance(cmd, Draw) != (seat == CHANCE):
        who = "chance" if seat == CHANCE else "a player"
        raise IllegalCommand("GL-1", f"{who} cannot make that move: draws are chance outcomes")
    if isinstance(cmd, Draw):
        if not s.need_draw:
            raise IllegalCommand("CB-1", "no draw is due now")
        draw_possible(s, cmd.cards)
        return (ev.CardsDrawn(seat=s.first, cards=cmd.cards),)
    handler = _HANDLERS.get(type(cmd))
    if handler is not None:
        return handler(s, seat, cmd)
    raise IllegalCommand("GL-1", f"unknown command {cmd!r}")


def _pass(s: State, seat: int, cmd: Pass) -> tuple[ev.Event, ...]:
    if s.phase != "purchase":
        raise IllegalCommand("CB-5", "passing is for the Industrial purchase (Phase 5)")
    return (ev.Passed(seat=seat),)


def _phase(s: State, phase: str, rule: str) -> None:
    if s.phase != phase:
        raise IllegalCommand(rule, f"that is done in the {phase} phase; this is the {s.phase} phase")


def _split(s: State, seat: int, cmd: SplitCards) -> tuple[ev.Event, ...]:
    _phase(s, "acquisition", "CC-7")
    if s.n == 1:
        raise IllegalCommand("CC-9", "there is no split in the solo game: keep 2 of the 3 cards")
    if s.offer is not None:
        raise IllegalCommand("CC-7", "a split is already on offer")
    k = len(without_cards(s))
    half = k - 1
    if len(cmd.pair) != 2 or len(cmd.up) != half or len(cmd.down) != half:
        raise IllegalCommand(
            "CC-7",
            f"with {2 * k} cards the split is a face-up pair against {half} face-up "
            f"and {plural(half, 'face-down card')}",
        )
    if sorted(cmd.pair + cmd.up + cmd.down) != sorted(s.holding.cards):  # as multisets
        held = "".join(sorted(s.holding.cards))
        raise IllegalCommand("CC-7", f"the split must use exactly the cards held ({held})")
    return (
        ev.Split(
            seat=seat,
            pair=cmd.pair,
            up=cmd.up,
            down=tuple(sorted(cmd.down)),
            to=next_without_cards(s, seat),
            known_to=tuple(k for k in s.holding.known_to if k != seat),
        ),
    )


def _take(s: State, seat: int, cmd: Take) -> tuple[ev.Event, ...]:
    offer = s.offer
    if offer is None:
        raise IllegalCommand("CC-7", "no split is on offer")
    if cmd.group not in ("pair", "rest"):
        raise IllegalCommand("CC-7", "take the 'pair' or the 'rest'")
    last = len(without_cards(s)) == 2  # the divider and the taker are the last two
    out: list[ev.Event] = [ev.Taken(seat=seat, group=cmd.group)]
    if cmd.group == "pair":
        out.append(ev.Kept(seat=seat, up=offer.pair, down=(), source="pair"))
        holder = offer.divider
    else:
        out.append(ev.Kept(seat=offer.divider, up=offer.pair, down=(), source="pair"))
        holder = seat
    # CL-8: the rest's face-down cards are known to its divider and to every
    # earlier divider of those cards (the drawer knows every card of the round)
    known = tuple(sorted({offer.divider, *offer.known_to} - {holder}))
    if last:
        out.append(ev.Kept(seat=holder, up=offer.up, down=offer.down, source="rest", known_to=known))
    else:
        out.append(ev.Holding(seat=holder, up=offer.up, down=offer.down, known_to=known))
    return tuple(out)


def _keep(s: State, seat: int, cmd: Keep) -> tuple[ev.Event, ...]:
    _phase(s, "acquisition", "CC-9")
    if s.n != 1:
        raise IllegalCommand("CC-7", "keeping 2 of 3 is the solo rule; split the cards instead")
    held = Counter(s.holding.cards)
    if len(s.holding) != 3:
        raise IllegalCommand("CC-9", "there are no 3 drawn cards to choose from now")
    if len(cmd.cards) != 2 or Counter(cmd.cards) - held:
        have = "".join(sorted(s.holding.cards))
        raise IllegalCommand("CC-9", f"keep 2 of the 3 cards drawn ({have})")
    rest = list((held - Counter(cmd.cards)).elements())
    return (ev.SoloChose(seat=seat, keep=tuple(cmd.cards), bottom=rest[0]),)


def _build(s: State, seat: int, cmd: Build) -> tuple[ev.Event, ...]:
    _phase(s, "construction", "CB-2")
    p = s.players[seat]
    if cmd.card not in p.hand.cards:
        raise IllegalCommand("CB-2", f"no {NAMES.get(cmd.card, cmd.card)} card in hand to build")
    if (cmd.row, cmd.col) not in cells_construction_squares(p.city, cmd.card, p.coins >= LEISURE_COST):
        found = construction_violation(p.grid(), cmd.card, (cmd.row, cmd.col), p.coins)
        raise IllegalCommand(*(found or ("CB-6", "not a square this card may be built on")))
    paid = LEISURE_COST if cmd.card == "L" else 0
    return (ev.Built(seat=seat, card=cmd.card, row=cmd.row, col=cmd.col, paid=paid),)


def unbuildable_reason(s: State, seat: int, card: str) -> tuple[str, str] | None:
    """Why ``card`` has no legal square for ``seat`` now [CC-2], or None if it has one.

    A card hidden from the viewer (a view's ``HIDDEN``) may have one: None."""
    if card == HIDDEN:
        return None
    p = s.players[seat]
    if cells_can_construct(p.city, card, p.coins):
        return None
    if card == "L" and p.coins < LEISURE_COST and cells_can_construct(p.city, card, LEISURE_COST):
        return ("CC-2", f"Leisure costs {LEISURE_COST} coins and {p.name} has {p.coins}")
    return ("CC-2", f"no legal square for the {NAMES[card]} card (zoning, size limit or frame)")


def _discard(s: State, seat: int, cmd: Discard) -> tuple[ev.Event, ...]:
    _phase(s, "construction", "CB-2")
    if cmd.card not in s.players[seat].hand.cards:
        raise IllegalCommand("CB-2", f"no {NAMES.get(cmd.card, cmd.card)} card in hand")
    reason = unbuildable_reason(s, seat, cmd.card)
    if reason is None:
        p = s.players[seat]
        squares = cells_construction_squares(p.city, cmd.card, p.coins >= LEISURE_COST) if cmd.card in NAMES else ()
        named = ", ".join(format_square(sq) for sq in sorted(squares)[:8]) + (", …" if len(squares) > 8 else "")
        raise IllegalCommand("CC-2", f"the {NAMES[cmd.card]} card can be built, so it must be (on {named}) [GL-4]")
    return (ev.Discarded(seat=seat, card=cmd.card, rule=reason[0], reason=reason[1], chosen=True),)


def _develop(s: State, seat: int, cmd: Develop) -> tuple[ev.Event, ...]:
    _phase(s, "development", "CB-3")
    if cmd.card not in ("R", "C"):
        raise IllegalCommand("CB-3", "only Residential and Commercial districts develop")
    if s.reserve[KINDS.index(cmd.card)] == 0:
        raise IllegalCommand("CC-6", f"the reserve has no {NAMES[cmd.card]} card left")
    sq = (cmd.row, cmd.col)
    if (cmd.card, sq) not in cells_development_options(s.players[seat].city):
        grid = s.players[seat].grid()
        found = development_violation(grid, cmd.card, sq)
        if found:
            raise IllegalCommand(*found)
        touching = [m for k, m in eligible_districts(grid) if k == cmd.card]
        if not touching:
            raise IllegalCommand("CC-5", f"no {NAMES[cmd.card]} district can develop")
        raise IllegalCommand(
            "CC-4", f"{format_square(sq)} does not touch a {NAMES[cmd.card]} district that can develop"
        )
    return (ev.Developed(seat=seat, card=cmd.card, row=cmd.row, col=cmd.col),)


def owned_industrial(s: State, seat: int) -> int:
    return sum(1 for _, _, k in s.players[seat].city if k == "I")


def _buy(s: State, seat: int, cmd: Buy) -> tuple[ev.Event, ...]:
    _phase(s, "purchase", "CC-10")
    cost = industrial_cost(owned_industrial(s, seat))
    p = s.players[seat]
    if p.coins < cost:
        raise IllegalCommand("CC-10", f"the next Industrial card costs {cost} coins; {p.name} has {p.coins}")
    if s.reserve[KINDS.index("I")] == 0:
        raise IllegalCommand("CC-10", "the reserve has no Industrial card left")
    found = construction_violation(p.grid(), "I", (cmd.row, cmd.col), p.coins)
    if found:
        raise IllegalCommand(*found)
    return (ev.Bought(seat=seat, row=cmd.row, col=cmd.col, cost=cost),)


_HANDLERS: dict[type, Callable[[State, int, Any], tuple[ev.Event, ...]]] = {
    SplitCards: _split,
    Take: _take,
    Keep: _keep,
    Build: _build,
    Discard: _discard,
    Develop: _develop,
    Buy: _buy,
    Pass: _pass,
}


# -- automatic steps ----------------------------------------------------------
def can_develop(s: State, seat: int) -> bool:
    options = cells_development_options(s.players[seat].city)
    return bool(options) and any(s.reserve[KINDS.index(kind)] > 0 for kind, _ in options)


def purchase_block(s: State, seat: int) -> str | None:
    """Why ``seat`` cannot buy an Industrial card now [CC-10], or None."""
    p = s.players[seat]
    cost = industrial_cost(owned_industrial(s, seat))
    if s.reserve[KINDS.index("I")] == 0:
        return "the reserve has no Industrial card (CC-10)"  # recorded in PurchaseSkipped: keep the words
    if p.coins < cost:
        return f"{p.coins} coins, the next Industrial card costs {cost} (CC-10)"
    if not cells_can_construct(p.city, "I", p.coins):
        return "no legal square for an Industrial card (CC-10)"
    return None


def draw_size(s: State, round_: int) -> int:
    if s.n == 1:
        return min(3, s.pool_size)  # CC-9: round 10 has only 2 left
    return 2 * s.n


def advance(s: State) -> tuple[ev.Event, ...]:
    """The automatic events due now, or () when a decision (or chance) is pending."""
    if s.phase == "acquisition":
        return _advance_acquisition(s)
    if s.phase == "construction":
        # CL-2: when no card left in a hand has a legal square, discard them one by one
        held = False
        for seat, p in enumerate(s.players):
            hand = p.hand
            if not (hand.up or hand.down):
                continue
            held = True
            # unbuildable_reason(s, seat, c) is not None, without wording the reason for each card
            # (cells_can_construct of each card, the city and the coins looked up once)
            city, affords = p.city, p.coins >= LEISURE_COST
            for c in hand.up + hand.down:
                if c == HIDDEN or cells_construction_squares(city, c, affords):
                    break
            else:
                card = hand.cards[0]
                rule, reason = unbuildable_reason(s, seat, card) or ("CC-2", "")
                return (ev.Discarded(seat=seat, card=card, rule=rule, reason=reason),)
        if held:
            return ()
        return (ev.PhaseStarted(phase="development"),)
    if s.phase == "development":
        if s.turn >= 0:
            return ()
        for step in range(s.n):
            seat = (s.dev_next - step) % s.n  # CC-6: reverse turn order, round robin
            if can_develop(s, seat):
                return (ev.DevelopTurn(seat=seat),)
        return (ev.PhaseStarted(phase="income"),)
    if s.phase == "income":
        out: list[ev.Event] = []
        for step in range(s.n):
            seat = (s.first + step) % s.n
            got = cells_income(s.players[seat].city, s.options.parking_meters)
            out.append(
                ev.IncomePaid(
                    seat=seat,
                    salary=got.salary,
                    commercial=got.commercial,
                    meters=got.meters,
                    total=got.total,
                )
            )
        out.append(ev.PhaseStarted(phase="purchase"))
        return tuple(out)
    if s.phase == "purchase":
        if s.turn >= 0:
            return ()
        if s.purchase_left > 0:
            seat = s.purchase_next
            block = purchase_block(s, seat)
            if block is not None:
                return (ev.PurchaseSkipped(seat=seat, reason=block),)
            return (ev.PurchaseTurn(seat=seat, cost=industrial_cost(owned_industrial(s, seat))),)
        return _end_of_round(s)
    return ()


def _advance_acquisition(s: State) -> tuple[ev.Event, ...]:
    if s.need_draw:
        return ()
    held = s.holding.cards
    if s.round == 1 and "L" in held:  # CC-8
        return (ev.LeisureSetAside(seat=s.divider, count=held.count("L")),)
    if s.set_aside:
        return (ev.LeisureReturned(count=len(s.set_aside)),)
    if s.offer is not None:
        return ()
    if held and len(held) == 2 and len(without_cards(s)) == 1:
        h = s.holding
        return (ev.Kept(seat=s.divider, up=h.up, down=h.down, known_to=h.known_to),)
    if held:
        return ()
    if all(len(p.hand) for p in s.players):
        return (ev.PhaseStarted(phase="construction"),)
    return ()


def _end_of_round(s: State) -> tuple[ev.Event, ...]:
    if s.round < ROUNDS:  # CL-3: the pawn passes between rounds; after round 10, scoring
        nxt = (s.first + 1) % s.n
        return (
            ev.PawnPassed(to=nxt),
            ev.RoundStarted(round=s.round + 1, draw=draw_size(s, s.round + 1)),
        )
    breakdowns = tuple(
        final_score(
            seat,
            p.grid(),
            p.coins,
            s.options.decentralization,
            solo=s.n == 1,
            groups=cells_districts(p.city),  # districts(p.grid()), grown from the cached parent city's
        )
        for seat, p in enumerate(s.players)
    )
    out: list[ev.Event] = [ev.Scored(seat=b.seat, breakdown=b) for b in breakdowns]
    out.append(
        ev.GameEnded(scores=tuple(b.total for b in breakdowns), winners=winners(breakdowns))
    )
    return tuple(out)


# -- legal commands -----------------------------------------------------------
def legal(s: State, seat: int) -> Iterator[Command]:
    if seat not in to_act(s) or seat == CHANCE:
        return
    if s.phase == "acquisition":
        if s.offer is not None:
            yield Take("pair")
            yield Take("rest")
        elif s.n == 1:
            seen: set[tuple[str, ...]] = set()
            cards = s.holding.cards
            for i in range(len(cards)):
                for j in range(i + 1, len(cards)):
                    keep = tuple(sorted((cards[i], cards[j])))
                    if keep not in seen:
                        seen.add(keep)
                        yield Keep(keep)
        else:
            yield from _splits(s)
    elif s.phase == "construction":
        p = s.players[seat]
        for card in sorted(set(p.hand.cards)):
            squares = cells_construction_squares(p.city, card, p.coins >= LEISURE_COST)
            for r, c in squares:
                yield Build(card, r, c)
            if not squares:
                yield Discard(card)
    elif s.phase == "development":
        for kind, (r, c) in cells_development_options(s.players[seat].city):
            if s.reserve[KINDS.index(kind)] > 0:
                yield Develop(kind, r, c)
    elif s.phase == "purchase":
        p = s.players[seat]
        for r, c in cells_construction_squares(p.city, "I", True):
            yield Buy(r, c)
        yield Pass()


def random_command(s: State, seat: int, rng: Rng) -> Command:
    """One of :func:`legal`'s commands, uniformly: the same draw as listing them
    (``SearchModel.random_command``), but a construction hand's squares are counted
    per card and only the drawn Build is made (the search's playouts build
    most of the time)."""
    if s.phase != "construction" or seat == CHANCE or seat not in to_act(s):
        options: Sequence[Command]
        if s.phase == "acquisition" and seat != CHANCE and s.n != 1 and seat in to_act(s):
            # list(legal(s, seat)), without the generator: the two groups, or the splits
            options = _TAKES if s.offer is not None else _cached_splits(tuple(sorted(s.holding.cards)))
        else:
            options = list(legal(s, seat))
        return options[rng.below(len(options))]
    p = s.players[seat]
    hand = [
        (card, cells_construction_squares(p.city, card, p.coins >= LEISURE_COST))
        for card in sorted(set(p.hand.cards))
    ]
    i = rng.below(sum(len(squares) or 1 for _, squares in hand))  # a card with no square: one Discard
    for card, squares in hand:
        if i < (len(squares) or 1):
            return Build(card, *squares[i]) if squares else Discard(card)
        i -= len(squares) or 1
    raise AssertionError("the draw is below the count")


_TAKES = (Take("pair"), Take("rest"))
"""What :func:`legal` offers a seat a split is offered to, in its order (commands are values)."""


def _splits(s: State) -> Iterator[SplitCards]:
    """Every distinct split of the held cards (as multisets)."""
    return iter(_cached_splits(tuple(sorted(s.holding.cards))))


@lru_cache(maxsize=4096)
def _cached_splits(cards: tuple[str, ...]) -> tuple[SplitCards, ...]:
    """:func:`_splits` of a sorted holding (a pure function of it, met again and
    again: there are few distinct holdings)."""
    return tuple(_split_cards(list(cards)))


def _split_cards(cards: list[str]) -> Iterator[SplitCards]:
    half = len(cards) // 2 - 1
    seen: set[tuple[tuple[str, ...], ...]] = set()
    for pair in _combos(cards, 2):
        rest = list(cards)
        for c in pair:
            rest.remove(c)
        for up in _combos(rest, half):
            down = list(rest)
            for c in up:
                down.remove(c)
            key = (pair, up, tuple(down))
            if key not in seen:
                seen.add(key)
                yield SplitCards(pair=pair, up=up, down=tuple(down))


def _combos(cards: list[str], k: int) -> list[tuple[str, ...]]:
    return sorted(set(combinations(sorted(cards), k)))


# -- chance and the decision behind an event ---------------------------------
def chance(state: State, rng: Rng) -> Command:
    """Draw ``need_draw`` cards: the unseen pool first, then the bottom [CC-9]."""
    k = state.need_draw
    unseen = _expanded(state.pool)
    if k <= len(unseen):
        return Draw(tuple(rng.sample(unseen, k)))
    head = rng.shuffled(unseen)
    return Draw(tuple(head) + state.bottom[: k - len(head)])


@lru_cache(maxsize=1024)
def _expanded(pool: tuple[int, ...]) -> tuple[str, ...]:
    """:func:`expand`, cached: the pool's counts repeat from game to game."""
    return tuple(expand(pool))


def command_of(event: ev.Event) -> tuple[int, Command] | None:
    match event:
        case ev.CardsDrawn():
            return CHANCE, Draw(event.cards)
        case ev.Split():
            return event.seat, SplitCards(event.pair, event.up, event.down)
        case ev.Taken():
            return event.seat, Take(event.group)
        case ev.SoloChose():
            return event.seat, Keep(event.keep)
        case ev.Built():
            return event.seat, Build(event.card, event.row, event.col)
        case ev.Discarded() if event.chosen:
            return event.seat, Discard(event.card)
        case ev.Developed():
            return event.seat, Develop(event.card, event.row, event.col)
        case ev.Bought():
            return event.seat, Buy(event.row, event.col)
        case ev.Passed():
            return event.seat, Pass()
    return None
