"""The card list: a readable data file, loaded once and checked against PC-1.

``cards.txt`` (packaged next to this module) holds one card a line::

    id  tier  resource-side  building-kind  building-cost  VP  produces
    12  1     economy        producer       energy*2       1   ecology

``load_cards(path)`` reads another file instead (an owner of the printed game
may type in the real list); a broken file raises :class:`CardDataError`
naming the line and the problem.

>>> CARDS[1].tier, CARDS[161].resource
(1, 'ingenuity')
"""

from __future__ import annotations

from collections import Counter
from importlib import resources
from pathlib import Path

import msgspec

from core.engine import RulesError
from core.words import plural

TYPES: tuple[str, ...] = ("community", "economy", "energy", "ecology", "industry")
WILD = "ingenuity"
KINDS: tuple[str, ...] = ("producer", "points", "civic")
TIER_SIZES: dict[int, int] = {1: 65, 2: 50, 3: 45}
START = 0
"""The tier number of the 4 Ingenuity starting cards (``start`` in the file)."""


class Card(msgspec.Struct, frozen=True):
    id: int
    tier: int
    resource: str
    """A type, or ``ingenuity`` (one wild symbol, PL-5)."""
    symbols: int
    """How many resources the resource side gives (1 or 2)."""
    kind: str = ""
    """``producer``, ``points`` or ``civic``; empty for starting cards."""
    cost: tuple[tuple[str, int], ...] = ()
    vp: int = 0
    """Civic buildings print none [PL-6]."""
    produces: str = ""
    line: int = 0

    @property
    def cost_total(self) -> int:
        return sum(n for _, n in self.cost)


class CardDataError(RulesError):
    """A broken card file; the message names the file, the line and the problem."""

    def __init__(self, source: str, line: int, problem: str) -> None:
        self.source, self.line, self.problem = source, line, problem
        super().__init__(f"{source}:{line}: {problem}")


# PC-1 figures: per tier and kind, (count, cost range, allowed VP).
_BUILDINGS: dict[int, dict[str, tuple[int, range, frozenset[int]]]] = {
    1: {
        "producer": (50, range(2, 4), frozenset(range(0, 3))),
        "points": (5, range(2, 3), frozenset({4})),
        "civic": (10, range(3, 4), frozenset({0})),
    },
    2: {
        "producer": (30, range(3, 6), frozenset(range(0, 3))),
        "points": (10, range(3, 5), frozenset({4, 5})),
        "civic": (10, range(4, 5), frozenset({0})),
    },
    3: {
        "producer": (20, range(4, 7), frozenset(range(1, 4))),
        "points": (15, range(4, 8), frozenset({4, 5, 7})),
        "civic": (10, range(5, 6), frozenset({0})),
    },
}
# PC-1 resource sides: per tier, (symbols per type card, cards per type, Ingenuity cards).
_RESOURCES: dict[int, tuple[int, int, int]] = {1: (1, 13, 0), 2: (2, 6, 20), 3: (2, 5, 20)}


def resource_symbols(tier: int, resource: str) -> int:
    """How many symbols a resource side of ``tier`` showing ``resource`` gives: the one
    source of truth for a card's symbols [PC-1, PL-5].  An Ingenuity side — starting,
    tier 2 or tier 3 — gives one wild symbol; a type side of tier 1 one symbol, of
    tiers 2 and 3 two.  The card file must agree with it (:func:`parse_cards`), and a
    card known by its face only (:data:`FACES`) is built from it, so a face and the
    card behind it never differ in what they pay."""
    if resource == WILD or tier in (START, 1):
        return 1
    return _RESOURCES[tier][0]


def _parse_resource(text: str, fail: _Fail) -> tuple[str, int]:
    if text == WILD:
        return WILD, 1
    name, _, n = text.partition("*")
    if name not in TYPES:
        fail(f"unknown resource {name!r} (types: {', '.join(TYPES)}, {WILD})")
    if n and n != "2":
        fail(f"resource side {text!r}: a card shows one or two symbols (type or type*2)")
    return name, 2 if n else 1


def _parse_cost(text: str, fail: _Fail) -> tuple[tuple[str, int], ...]:
    counts: Counter[str] = Counter()
    for part in text.split("+"):
        name, _, n = part.partition("*")
        if name not in TYPES:
            fail(f"cost {text!r}: unknown resource {name!r}")
        if n and not n.isdigit():
            fail(f"cost {text!r}: {n!r} is not a count")
        k = int(n) if n else 1
        if k < 1:
            fail(f"cost {text!r}: counts must be positive")
        counts[name] += k
    return tuple((t, counts[t]) for t in TYPES if counts[t])


class _Fail:
    def __init__(self, source: str) -> None:
        self.source, self.line = source, 0

    def __call__(self, problem: str, line: int | None = None) -> None:
        raise CardDataError(self.source, self.line if line is None else line, problem)


def parse_cards(text: str, source: str = "cards.txt") -> dict[int, Card]:
    """Parse and check a card list; raises :class:`CardDataError`."""
    fail = _Fail(source)
    cards: dict[int, Card] = {}
    last = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        last = number
        fail.line = number
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != 7:
            fail(f"expected 7 fields (id tier resource kind cost vp produces), found {len(fields)}")
        sid, stier, sres, kind, scost, svp, makes = fields
        if not sid.isdigit() or int(sid) < 1:
            fail(f"card id {sid!r} is not a positive number")
        cid = int(sid)
        if cid in cards:
            fail(f"card id {cid} already used on line {cards[cid].line}")
        resource, symbols = _parse_resource(sres, fail)
        if stier == "start":
            if resource != WILD or (kind, scost, svp, makes) != ("-", "-", "-", "-"):
                fail("a starting card is a single Ingenuity resource with no building side")
            cards[cid] = Card(cid, START, WILD, resource_symbols(START, WILD), line=number)
            continue
        if stier not in ("1", "2", "3"):
            fail(f"tier {stier!r}: use 1, 2, 3 or start")
        tier = int(stier)
        if symbols != resource_symbols(tier, resource):
            fail(f"tier {tier} {resource} resource cards show {plural(resource_symbols(tier, resource), 'symbol')}, "
                 f"not {symbols} [PC-1, PL-5]")
        if resource == WILD and tier == 1:
            fail("tier 1 has no Ingenuity cards [PC-1]")
        if kind not in KINDS:
            fail(f"building kind {kind!r}: use {', '.join(KINDS)}")
        cost = _parse_cost(scost, fail)
        total = sum(n for _, n in cost)
        _, costs, vps = _BUILDINGS[tier][kind]
        if total not in costs:
            fail(f"tier {tier} {kind} cost {total} is outside {costs.start}–{costs.stop - 1} [PC-1]")
        if not svp.isdigit():
            fail(f"VP {svp!r} is not a number")
        vp = int(svp)
        if vp not in vps:
            fail(f"tier {tier} {kind} VP {vp} not allowed [PC-1] ({sorted(vps)})")
        if kind == "civic" and len(cost) != 1:
            fail("a civic building costs resources of one type [PC-1]")
        if kind == "producer":
            if makes not in TYPES:
                fail(f"a producer makes one of {', '.join(TYPES)}, not {makes!r}")
        elif makes != "-":
            fail(f"only producers make a resource; write '-' (found {makes!r})")
        cards[cid] = Card(cid, tier, resource, symbols, kind, cost, vp,
                          makes if kind == "producer" else "", number)
    _check_counts(cards, fail, last)
    return cards


def _check_counts(cards: dict[int, Card], fail: _Fail, last: int) -> None:
    for tier, size in TIER_SIZES.items():
        mine = [c for c in cards.values() if c.tier == tier]
        where = max((c.line for c in mine), default=last)
        if len(mine) != size:
            fail(f"tier {tier} has {len(mine)} cards; [PC-1] needs {size}", where)
        symbols, per_type, wild = _RESOURCES[tier]
        res = Counter(c.resource for c in mine)
        for t in TYPES:
            if res[t] != per_type:
                fail(f"tier {tier} has {res[t]} {t} resource cards; [PC-1] needs {per_type}", where)
        if res[WILD] != wild:
            fail(f"tier {tier} has {res[WILD]} Ingenuity cards; [PC-1] needs {wild}", where)
        kinds = Counter(c.kind for c in mine)
        for kind, (count, _, _) in _BUILDINGS[tier].items():
            if kinds[kind] != count:
                fail(f"tier {tier} has {kinds[kind]} {kind} buildings; [PC-1] needs {count}", where)
    starts = [c for c in cards.values() if c.tier == START]
    if len(starts) != 4:
        fail(f"{len(starts)} starting cards; the game has 4 Ingenuity starting cards", last)


def load_cards(path: str | Path | None = None) -> dict[int, Card]:
    """The packaged card list, or the file at ``path``."""
    if path is None:
        text = resources.files("core.point_city").joinpath("cards.txt").read_text("utf-8")
        return parse_cards(text, "cards.txt")
    p = Path(path)
    return parse_cards(p.read_text("utf-8"), str(p))


class _CardList(dict[int, Card]):
    """Card id → card; a negative id is a card known by its resource side only
    (:func:`face_of`), so views can be looked up like any other card."""

    def __missing__(self, key: int) -> Card:
        face = FACES.get(key)
        if face is None:
            raise KeyError(key)
        return face


def face_id(tier: int, resource: str) -> int:
    """The id of "a tier-``tier`` card whose resource side shows ``resource``"."""
    return -(tier * 10 + (TYPES + (WILD,)).index(resource) + 1)


FACES: dict[int, Card] = {
    face_id(t, r): Card(face_id(t, r), t, r, resource_symbols(t, r))
    for t in (1, 2, 3)
    for r in TYPES + (WILD,)
}
"""Resource sides with no building side known [PL-16]: what a player sees of a
card lying resource side up, and of a resource card in another player's hand.
Their symbols come from :func:`resource_symbols`, as the cards' do: a tier-2/3
Ingenuity face gives one wild symbol [PL-5] (rules pc-2 gave it two, PL-17)."""

CARDS: dict[int, Card] = _CardList(load_cards())
TIER_CARDS: dict[int, tuple[int, ...]] = {
    t: tuple(sorted(c.id for c in CARDS.values() if c.tier == t)) for t in (1, 2, 3)
}
START_CARDS: tuple[int, ...] = tuple(sorted(c.id for c in CARDS.values() if c.tier == START))


def face_of(card: int) -> int:
    """``card`` as seen by resource side only [PL-16]; starting cards have no building
    side, so they and faces stay as they are."""
    face = _FACE_OF.get(card)
    if face is None:
        c = CARDS[card]  # an id no card has raises KeyError, and is not remembered
        face = card if card < 0 or c.tier == START else face_id(c.tier, c.resource)
        _FACE_OF[card] = face
    return face


_FACE_OF: dict[int, int] = {}
""":func:`face_of` of each card id and face met so far (at most every card's and face's)."""


