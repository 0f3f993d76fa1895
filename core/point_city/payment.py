"""Paying for buildings [PC-3]: checking a payment and listing the possible ones.

A source is a resource card (its symbols: one or two of a type, or one wild
Ingenuity) or a built producer's permanent resource (one of its type).  A
payment covers a cost when the typed symbols plus the wild ones reach it; it
must be *minimal* [PL-4]: dropping any one source would leave the cost unpaid.
A card's symbols pay one building only [PL-3].
"""

from __future__ import annotations

from collections.abc import Container, Iterator
from functools import lru_cache

from core.point_city.cards import CARDS, TYPES, WILD

Cost = tuple[tuple[str, int], ...]


def supply(cards: tuple[int, ...], perms: tuple[int, ...]) -> tuple[dict[str, int], int]:
    """(typed symbols per type, wild symbols) the sources give."""
    typed: dict[str, int] = {}
    wild = 0
    for c in cards:
        card = CARDS[c]
        if card.resource == WILD:
            wild += card.symbols
        else:
            typed[card.resource] = typed.get(card.resource, 0) + card.symbols
    for b in perms:
        t = CARDS[b].produces
        typed[t] = typed.get(t, 0) + 1
    return typed, wild


def covers(cost: Cost, cards: tuple[int, ...], perms: tuple[int, ...]) -> bool:
    typed, wild = supply(cards, perms)
    deficit = sum(max(0, n - typed.get(t, 0)) for t, n in cost)
    return deficit <= wild


def shortfall(cost: Cost, cards: tuple[int, ...], perms: tuple[int, ...]) -> tuple[int, dict[str, int], int]:
    """How far the sources fall short of ``cost``: (symbols missing after the wild
    ones are spent, the typed symbols on hand per type of the cost, the wild symbols)."""
    typed, wild = supply(cards, perms)
    deficit = sum(max(0, n - typed.get(t, 0)) for t, n in cost)
    return max(0, deficit - wild), {t: typed.get(t, 0) for t, _ in cost}, wild


def is_minimal(cost: Cost, cards: tuple[int, ...], perms: tuple[int, ...]) -> bool:
    """Covers, and no single source can be left out.

    Each source is left out in turn arithmetically (the supply found once): a
    wild card's symbols come off the wild ones, a typed source's off its type,
    which raises the deficit by what that type then lacks more.  The cost names
    each type once (as every card's does)."""
    typed, wild = supply(cards, perms)
    need = dict(cost)
    lack = {t: max(0, n - typed.get(t, 0)) for t, n in need.items()}
    deficit = sum(lack.values())
    if deficit > wild:
        return False

    # leaving out k symbols of type t still covers the cost when t is not asked
    # for, or when the deficit it then adds stays within the wild symbols
    for c in cards:
        card = CARDS[c]
        t, k = card.resource, card.symbols
        if t == WILD:
            if deficit <= wild - k:
                return False
        elif t not in need or deficit - lack[t] + max(0, need[t] - typed.get(t, 0) + k) <= wild:
            return False
    for b in perms:
        t = CARDS[b].produces
        if t not in need or deficit - lack[t] + max(0, need[t] - typed.get(t, 0) + 1) <= wild:
            return False
    return True


def _is_minimal_by_dropping(cost: Cost, cards: tuple[int, ...], perms: tuple[int, ...]) -> bool:
    """:func:`is_minimal` by its definition: leave each source out and check again
    (the tests compare the two)."""
    if not covers(cost, cards, perms):
        return False
    for i in range(len(cards)):
        if covers(cost, cards[:i] + cards[i + 1:], perms):
            return False
    for i in range(len(perms)):
        if covers(cost, cards, perms[:i] + perms[i + 1:]):
            return False
    return True


def _classes(
    cards: tuple[int, ...], perms: tuple[int, ...], types: Container[str]
) -> dict[tuple[str, str, int], list[int]]:
    """Sources grouped by what they give: ('card', type, symbols) or ('perm', type, 1),
    lowest ids first; only those of ``types`` and the wild ones."""
    out: dict[tuple[str, str, int], list[int]] = {}
    for c in sorted(cards):
        k = _card_class(c)
        if k[1] in types or k[1] == WILD:
            out.setdefault(k, []).append(c)
    for b in sorted(perms):
        k = _perm_class(b)
        if k[1] in types or k[1] == WILD:
            out.setdefault(k, []).append(b)
    return out


@lru_cache(maxsize=None)
def _card_class(card: int) -> tuple[str, str, int]:
    """What a resource card gives (a fixed fact of the card list, looked up again and again).

    The planner (:func:`_plans`) pays wild symbols from one class, one symbol a
    card: an Ingenuity card of any other count would be silently never used (rules
    pc-2's bug, PL-17), so it is refused loudly instead."""
    c = CARDS[card]
    if c.resource == WILD and c.symbols != 1:
        raise ValueError(f"card {card}: an Ingenuity side gives one wild symbol [PL-5], not {c.symbols}")
    return "card", c.resource, c.symbols


@lru_cache(maxsize=None)
def _perm_class(building: int) -> tuple[str, str, int]:
    return "perm", CARDS[building].produces, 1


def payments(
    cost: Cost, cards: tuple[int, ...], perms: tuple[int, ...]
) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every minimal payment of ``cost`` from the sources (see :func:`_payments`);
    cached on the immutable arguments, since legal moves list them for every
    pair of the market and a search meets the same hands again and again."""
    return iter(_cached_payments(cost, cards, perms))


@lru_cache(maxsize=1 << 16)
def _cached_payments(
    cost: Cost, cards: tuple[int, ...], perms: tuple[int, ...]
) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    return tuple(_payments(cost, cards, perms))


def _payments(
    cost: Cost, cards: tuple[int, ...], perms: tuple[int, ...]
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every minimal payment of ``cost`` from the sources, up to equivalence.

    Sources giving the same thing (two single-economy cards, two energy
    producers) are interchangeable, so each distinct choice is listed once,
    with the lowest ids.  Lists ``(cards, perms)``, both sorted.  Which
    choices there are depends only on the cost and how many sources of each
    class there are, so that part is worked out once per such shape
    (:func:`_plans`, cached on immutable tuples).  Only the classes a plan can
    use are grouped: the cost's types and the wild cards.
    """
    need = dict(cost)
    total = sum(need.values())
    groups = _classes(cards, perms, need)
    shape = []
    for k, v in groups.items():
        # how many of a class could ever be used: more are the same to _plans
        if k[1] == WILD:
            shape.append((k, min(len(v), total)))
        else:
            n = need[k[1]]
            shape.append((k, min(len(v), (n + 1) // 2 if k[2] == 2 else n)))
    shape.sort()
    out = []
    for plan in _plans(cost, tuple(shape)):
        pay_cards: list[int] = []
        pay_perms: list[int] = []
        for key, n in plan:
            (pay_perms if key[0] == "perm" else pay_cards).extend(groups[key][:n])
        out.append((tuple(sorted(pay_cards)), tuple(sorted(pay_perms))))
    return out


_Class = tuple[str, str, int]
Counts = tuple[tuple[_Class, int], ...]
"""How many sources of each class there are (classes sorted, none of them 0)."""


def source_classes(cards: tuple[int, ...], perms: tuple[int, ...]) -> dict[_Class, list[int]] | None:
    """Every source grouped by class (:func:`_classes` for every type), lowest ids
    first; None when a source is named twice (a player's view may show two
    resource cards by the same face), where :func:`payments` must be asked."""
    out: dict[_Class, list[int]] = {}
    last = None
    for c in sorted(cards):
        if c == last:
            return None
        last = c
        out.setdefault(_card_class(c), []).append(c)
    for b in sorted(perms):
        if b == last:
            return None
        last = b
        out.setdefault(_perm_class(b), []).append(b)
    return out


def counts_of(groups: dict[_Class, list[int]]) -> Counts:
    return tuple(sorted((k, len(v)) for k, v in groups.items()))


@lru_cache(maxsize=1 << 16)
def counted_plans(cost: Cost, counts: Counts) -> tuple[tuple[tuple[_Class, int], ...], ...]:
    """The plans of :func:`_payments` (one a payment, in its order) from sources of
    the classes ``counts`` counts: the same shape made of the counts alone, so a
    payment can be counted and drawn without making the others (the search's
    random takes, :func:`core.point_city.rules._random_take`)."""
    need = dict(cost)
    total = sum(need.values())
    shape = []
    for k, m in counts:  # sorted by class: the shape is sorted too
        if k[1] == WILD:
            shape.append((k, min(m, total)))
        elif k[1] in need:
            n = need[k[1]]
            shape.append((k, min(m, (n + 1) // 2 if k[2] == 2 else n)))
    return _plans(cost, tuple(shape))


@lru_cache(maxsize=1 << 16)
def counts_left(counts: Counts, plan: tuple[tuple[_Class, int], ...]) -> Counts:
    """``counts`` less the sources ``plan`` uses (a class used up is dropped)."""
    used = dict(plan)
    return tuple((k, m - used.get(k, 0)) for k, m in counts if m > used.get(k, 0))


def plan_payment(
    plan: tuple[tuple[_Class, int], ...], groups: dict[_Class, list[int]], skip: Counts = ()
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The payment ``(cards, perms)`` of ``plan`` from ``groups``, after the first
    ``skip`` of each class (what a payment before it used): as :func:`_payments`
    makes it from the sources left."""
    off = dict(skip)
    pay_cards: list[int] = []
    pay_perms: list[int] = []
    for key, n in plan:
        i = off.get(key, 0)
        (pay_perms if key[0] == "perm" else pay_cards).extend(groups[key][i : i + n])
    return tuple(sorted(pay_cards)), tuple(sorted(pay_perms))


@lru_cache(maxsize=1 << 16)
def _plans(cost: Cost, shape: tuple[tuple[_Class, int], ...]) -> tuple[tuple[tuple[_Class, int], ...], ...]:
    """The minimal payments of ``cost`` as (class, how many) choices, given how many
    sources of each class there are; in the order :func:`payments` lists them.

    Each type of the cost is paid by its producers (a), single cards (b) and
    double cards (d), the Ingenuity cards making up the sum of what the types
    lack.  Such a plan is minimal [PL-4] exactly when no type is overpaid by as
    much as its smallest source used (:func:`_minimal` drops each source in
    turn; the wild ones never go, they pay only what is lacking), so each
    type's choices are filtered alone, before they are combined."""
    have = dict(shape)
    wilds = have.get(("card", WILD, 1), 0)
    per_type = [
        _type_parts(t, n, have.get(("perm", t, 1), 0), have.get(("card", t, 1), 0), have.get(("card", t, 2), 0))
        for t, n in cost
    ]
    out: list[tuple[tuple[_Class, int], ...]] = []

    def combine(i: int, deficit: int, parts: tuple[tuple[_Class, int], ...]) -> None:
        """Each type's choices in turn, in ``product`` order; what the types lack
        only grows, so a branch past the wild cards is left at once."""
        if i == len(per_type):
            out.append(((("card", WILD, 1), deficit),) + parts if deficit else parts)
            return
        for lacking, part in per_type[i]:
            if deficit + lacking <= wilds:
                combine(i + 1, deficit + lacking, parts + part)

    combine(0, 0, ())
    return tuple(out)


@lru_cache(maxsize=4096)
def _type_parts(
    t: str, n: int, perms: int, singles: int, doubles: int
) -> tuple[tuple[int, tuple[tuple[_Class, int], ...]], ...]:
    """:func:`_type_choices` as the symbols each leaves to the wild cards and its part
    of a plan: the classes of type ``t`` it uses, with how many of each."""
    return tuple(
        (lacking, tuple((k, m) for k, m in ((("perm", t, 1), a), (("card", t, 1), b), (("card", t, 2), d)) if m))
        for a, b, d, lacking in _type_choices(n, perms, singles, doubles)
    )


@lru_cache(maxsize=4096)
def _type_choices(n: int, perms: int, singles: int, doubles: int) -> tuple[tuple[int, int, int, int], ...]:
    """How a type asking ``n`` may be paid minimally from that many producers, single
    and double cards: (producers, singles, doubles, symbols left to the wild cards),
    in the order :func:`_plans` lists them.  A few small numbers: met again and again."""
    opts = []
    for a in range(min(perms, n) + 1):
        for b in range(min(singles, n - a) + 1):
            for d in range(min(doubles, (n - a - b + 1) // 2) + 1):
                over = a + b + 2 * d - n
                if over >= 2 or (over >= 1 and (a or b)):
                    continue  # a source of this type could be left out
                opts.append((a, b, d, max(0, -over)))
    return tuple(opts)


def _minimal(cost: Cost, plan: list[tuple[_Class, int]]) -> bool:
    """The plan covers ``cost`` and no single source of it can be left out [PL-4]
    (the definition :func:`_plans` relies on; the tests check it against it)."""

    def covers(drop: _Class | None) -> bool:
        typed: dict[str, int] = {}
        wild = 0
        for key, m in plan:
            if key == drop:
                m -= 1
            if key[1] == WILD:
                wild += m * key[2]
            else:
                typed[key[1]] = typed.get(key[1], 0) + m * key[2]
        return sum(max(0, n - typed.get(t, 0)) for t, n in cost) <= wild

    return covers(None) and not any(covers(key) for key, _ in plan)


def price(cards: tuple[int, ...]) -> float:
    """How much a payment costs the payer: cards lost, Ingenuity and doubles weigh more."""
    total = 0.0
    for c in cards:
        card = CARDS[c]
        total += 1.5 if card.resource == WILD else (1.6 if card.symbols == 2 else 1.0)
    return total


def symbols(cards: tuple[int, ...]) -> tuple[int, ...]:
    """Resource symbols held per type, wild last (for heuristics and display)."""
    typed, wild = supply(cards, ())
    return tuple(typed.get(t, 0) for t in TYPES) + (wild,)
