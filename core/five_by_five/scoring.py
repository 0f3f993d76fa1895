"""End-of-game scoring of one board (the Building cards, Park penalty and Planning cards).

A board is a tuple of 25 *cells* (see :mod:`tiles`): ``""`` empty, ``"P"`` a
Park, else a type letter plus an optional Goods icon letter.  Partial boards
score too (empty squares have no type, FC-10), which the greedy bot uses.

>>> board = ("F",) * 4 + ("P",) * 2 + ("",) * 19
>>> score_board(board, "A" * 10).categories["parks"]
-4
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from operator import itemgetter

import msgspec

from core.five_by_five.cards import CATEGORY_KEYS
from core.five_by_five.tiles import GOODS_NAMES

Cells = tuple[str, ...]

FACTORY_A = (0, 3, 8, 13, 19, 24, 30)
LINE_SHOPS = (0, 2, 6, 11, 16, 25)
OFFICE_CHAIN = (0, 2, 6, 11, 16, 23, 30)
OFFICE_ROWS = (0, 2, 6, 10, 15, 20)
PARK_PENALTY = (0, -2, -4, -7, -11, -16, -22)
FOUNTAIN_A_MAX = 8
CIRCUMFERENCE = frozenset(i for i in range(25) if i // 5 in (0, 4) or i % 5 in (0, 4))
ROWS = tuple(tuple(r * 5 + c for c in range(5)) for r in range(5))
COLUMNS = tuple(tuple(r * 5 + c for r in range(5)) for c in range(5))
DIAGONALS = (tuple(i * 6 for i in range(5)), tuple(4 + i * 4 for i in range(5)))
MIDDLE_NINE = tuple(r * 5 + c for r in range(1, 4) for c in range(1, 4))
OUTER_COLUMNS = COLUMNS[0] + COLUMNS[4]
CENTRE = 12


def _neighbours(i: int) -> tuple[int, ...]:
    r, c = divmod(i, 5)
    out = []
    for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= rr < 5 and 0 <= cc < 5:
            out.append(rr * 5 + cc)
    return tuple(out)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(25))
AROUND: tuple[Callable[[Sequence[str]], tuple[str, ...]], ...] = tuple(itemgetter(*n) for n in NEIGHBOURS)
"""``AROUND[i](k)``: the neighbours' entries of square ``i`` in ``k`` (every square
has at least two, so always a tuple): one C call where the valuations are hot."""


class Tally(msgspec.Struct, frozen=True):
    categories: dict[str, int]
    """Points per category key, in FC-9 order (``parks`` is the penalty)."""
    details: dict[str, str]
    planning: int | None
    planning_points: int
    total: int

    def tiebreak(self) -> tuple[int, ...]:
        """FC-9: the category scores in tie-break order."""
        return tuple(self.categories[k] for k in CATEGORY_KEYS)


def kinds(cells: Cells) -> tuple[str, ...]:
    return tuple(c[:1] for c in cells)


def chains(kind_of: tuple[str, ...], members: frozenset[str] | None = None) -> Iterator[list[int]]:
    """Orthogonally connected groups: of one type each (``members`` None), or of any types in ``members``."""
    seen: set[int] = set()
    for start in range(25):
        k = kind_of[start]
        if not k or start in seen or (members is not None and k not in members):
            continue
        group, stack = [], [start]
        seen.add(start)
        while stack:
            i = stack.pop()
            group.append(i)
            for j in NEIGHBOURS[i]:
                kj = kind_of[j]
                same = kj in members if members is not None else kj == k
                if kj and same and j not in seen:
                    seen.add(j)
                    stack.append(j)
        yield group


def _table(table: tuple[int, ...], n: int) -> int:
    return table[min(n, len(table) - 1)]


def _adjacent(kind_of: tuple[str, ...], i: int, kind: str) -> bool:
    return any(kind_of[j] == kind for j in NEIGHBOURS[i])


def _count(n: int, one: str, many: str | None = None) -> str:
    """``1 factory``, ``2 factories``, ``0 parks``."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def factories(k: tuple[str, ...], cells: Cells, side: str) -> tuple[int, str]:
    where = [i for i in range(25) if k[i] == "F"]
    if side == "A":
        return _table(FACTORY_A, len(where)), _count(len(where), "factory", "factories")
    edge = sum(1 for i in where if i in CIRCUMFERENCE)
    return 5 * edge + 2 * (len(where) - edge), f"{edge} on the circumference, {len(where) - edge} inside"


def houses(k: tuple[str, ...], cells: Cells, side: str) -> tuple[int, str]:
    pts, both, one = 0, 0, 0
    for i in range(25):
        if k[i] != "H":
            continue
        cond_a = not _adjacent(k, i, "F") if side == "A" else _adjacent(k, i, "H")
        cond_b = _adjacent(k, i, "P")
        if cond_a and cond_b:
            pts, both = pts + 5, both + 1
        elif cond_a or cond_b:
            pts, one = pts + 2, one + 1
    return pts, f"{both} meet both conditions, {one} meet one"


def shops(k: tuple[str, ...], cells: Cells, side: str) -> tuple[int, str]:
    lines = ROWS if side == "A" else COLUMNS
    counts = [sum(1 for i in line if k[i] == "S") for line in lines]
    word = "rows" if side == "A" else "columns"
    return sum(LINE_SHOPS[n] for n in counts), f"shops per {word}: {' '.join(map(str, counts))}"


def offices(k: tuple[str, ...], cells: Cells, side: str) -> tuple[int, str]:
    if side == "A":
        sizes = sorted((len(g) for g in chains(k) if k[g[0]] == "O"), reverse=True)
        return sum(_table(OFFICE_CHAIN, n) for n in sizes), (f"office chains of {', '.join(map(str, sizes))}" if sizes else "no offices")
    rows = sum(1 for line in ROWS if any(k[i] == "O" for i in line))
    return OFFICE_ROWS[rows], f"{rows} rows with an office"


def stations(k: tuple[str, ...], cells: Cells, side: str) -> tuple[int, str]:
    pts, shared = 0, 0
    where = [i for i in range(25) if k[i] == "T"]
    for i in where:
        share = any(j != i and (j // 5 == i // 5 or j % 5 == i % 5) for j in where)
        shared += share
        pts += (1 if share else 4) if side == "A" else (4 if share else 1)
    return pts, f"{shared} of {len(where)} share a line"


def warehouses(k: tuple[str, ...], cells: Cells, side: str) -> tuple[int, str]:
    """Icons show only on tiles built building side up [FL-8]."""
    icons = Counter(c[1:] for c in cells if len(c) == 2)
    pts = 0
    for c in cells:
        if c[:1] != "W" or len(c) != 2:
            continue
        g = c[1]
        if side == "A":
            pts += icons[g]
        else:
            has_s = f"S{g}" in cells
            has_f = f"F{g}" in cells
            pts += 4 if has_s and has_f else 2 if has_s or has_f else 0
    return pts, "Goods " + (", ".join(f"{GOODS_NAMES[g]} {n}" for g, n in sorted(icons.items())) or "none")


def public_offices(k: tuple[str, ...], cells: Cells, side: str) -> tuple[int, str]:
    pts = 0
    for i in range(25):
        if k[i] != "G":
            continue
        if side == "A":
            pts += len({k[j] for j in NEIGHBOURS[i] if k[j]})
        else:
            pts += sum(1 for j in NEIGHBOURS[i] if k[j] in ("F", "S", "O", "H"))
    return pts, _count(k.count("G"), "public office")


def schools(k: tuple[str, ...], cells: Cells, side: str) -> tuple[int, str]:
    want = "H" if side == "A" else "O"
    good = sum(1 for i in range(25) if k[i] == "E" and _adjacent(k, i, want))
    return 4 * good, f"{good} next to a {'house' if want == 'H' else 'office'}"


def fountains(k: tuple[str, ...], cells: Cells, side: str) -> tuple[int, str]:
    n = k.count("N")
    if side == "A":
        pts = 0
        for group in chains(k, frozenset("NP")):
            in_group = sum(1 for i in group if k[i] == "N")
            pts += in_group * min(len(group), FOUNTAIN_A_MAX)
        return pts, _count(n, "fountain")
    both = n + k.count("P")
    each = 0 if both == 0 else 1 if both == 1 else 2 if both <= 3 else 3 if both <= 5 else 4 if both <= 7 else 5
    return n * each, f"{_count(n, 'fountain')} × {each} ({both} fountains and parks)"


def parks(k: tuple[str, ...], cells: Cells, side: str) -> tuple[int, str]:
    diff = k.count("F") - k.count("P")
    return _table(PARK_PENALTY, max(diff, 0)), f"{_count(k.count('F'), 'factory', 'factories')} − {_count(k.count('P'), 'park')}"


CATEGORY_RULES = {
    "factories": factories,
    "houses": houses,
    "shops": shops,
    "offices": offices,
    "stations": stations,
    "warehouses": warehouses,
    "public_offices": public_offices,
    "schools": schools,
    "fountains": fountains,
    "parks": parks,
}


def _distinct(k: tuple[str, ...], squares: tuple[int, ...]) -> int:
    return len({k[i] for i in squares if k[i]})


def planning_score(k: tuple[str, ...], card: int) -> int:
    """The points of Planning card ``card`` (FC-8, FC-10, FC-11)."""
    counts = Counter(x for x in k if x)
    if card == 1:
        return 2 * max(counts.values(), default=0)
    if card == 2:
        return counts["P"]
    if card in (3, 4, 5):
        sizes = [len(g) for g in chains(k)]
        if card == 3:
            return 2 * sizes.count(2)
        if card == 4:
            return 3 * sizes.count(3)
        return 3 * sum(1 for s in sizes if s >= 4)
    if card == 6:
        return 4 * sum(1 for d in DIAGONALS if _distinct(k, d) == 5)
    if card == 7:
        return 3 * sum(1 for r in ROWS if _distinct(k, r) == 5)
    if card == 8:
        return 3 * sum(1 for c in COLUMNS if _distinct(k, c) == 5)
    if card == 9:
        return 3 * min(counts["F"], counts["S"], counts["H"], counts["O"])
    if card == 10:
        return counts[k[CENTRE]] if k[CENTRE] else 0
    if card == 11:
        return 2 * _distinct(k, OUTER_COLUMNS)
    if card == 12:
        return 2 * _distinct(k, MIDDLE_NINE)
    raise ValueError(f"no Planning card {card}")


def score_board(cells: Cells, sides: str, planning: int | None = None) -> Tally:
    """Score ``cells`` with the Building card ``sides`` (10 letters) and an optional Planning card."""
    k = kinds(cells)
    cats: dict[str, int] = {}
    details: dict[str, str] = {}
    for key, side in zip(CATEGORY_KEYS, sides):
        pts, why = CATEGORY_RULES[key](k, cells, side)
        cats[key], details[key] = pts, why
    plan_pts = planning_score(k, planning) if planning else 0
    return Tally(cats, details, planning or None, plan_pts, sum(cats.values()) + plan_pts)


def solo_title(total: int, advanced: bool) -> str:
    """The solo title of the rulebook's tables (basic, or advanced 10 VP higher)."""
    shift = 10 if advanced else 0
    for floor, title in (
        (100, "Mayor of Untold Legend"),
        (90, "Very Excellent Mayor"),
        (80, "Good Mayor"),
        (70, "Just OK Mayor"),
        (60, "Mediocre Mayor"),
        (50, "You'll be voted out soon"),
    ):
        if total >= floor + shift:
            return title
    return "Keep trying harder!"


def _chain_sizes(k: str, kind: str) -> list[int]:
    """The sizes of the chains of ``kind`` (a one-letter type) in the kind string ``k``."""
    seen = [False] * 25
    sizes = []
    start = k.find(kind)
    while start >= 0:
        if not seen[start]:
            seen[start] = True
            stack, size = [start], 0
            while stack:
                i = stack.pop()
                size += 1
                for j in NEIGHBOURS[i]:
                    if not seen[j] and k[j] == kind:
                        seen[j] = True
                        stack.append(j)
            sizes.append(size)
        start = k.find(kind, start + 1)
    return sizes


def _where(k: str, kind: str) -> list[int]:
    out = []
    i = k.find(kind)
    while i >= 0:
        out.append(i)
        i = k.find(kind, i + 1)
    return out


EDGE = tuple(sorted(CIRCUMFERENCE))
STARTS = (0, 5, 10, 15, 20)


def total_and_penalty(cells: Cells, sides: str, planning: int | None = None) -> tuple[int, int]:
    """``score_board(cells, sides, planning)``'s total and Park penalty, without the
    breakdown's wording: what the bots' valuations call thousands of times a move
    (tests/five_by_five/test_fc_bots.py checks it against :func:`score_board`).
    The board's kinds are one string (``.`` empty), counted with ``str`` methods."""
    k = "".join([c[:1] if c else "." for c in cells])
    nf = k.count("F")
    np_ = k.count("P")
    if sides[0] == "A":
        total = FACTORY_A[nf if nf < 6 else 6]
    else:
        edge = sum(1 for i in EDGE if k[i] == "F")
        total = 5 * edge + 2 * (nf - edge)
    if "H" in k:
        house_a = sides[1] == "A"
        for i in _where(k, "H"):
            around = AROUND[i](k)
            cond_a = ("F" not in around) if house_a else ("H" in around)
            cond_b = "P" in around
            total += 5 if cond_a and cond_b else 2 if cond_a or cond_b else 0
    if "S" in k:
        if sides[2] == "A":
            for r in STARTS:
                total += LINE_SHOPS[k.count("S", r, r + 5)]
        else:
            for c in range(5):
                total += LINE_SHOPS[k[c::5].count("S")]
    if "O" in k:
        if sides[3] == "A":
            for n in _chain_sizes(k, "O"):
                total += OFFICE_CHAIN[n if n < 6 else 6]
        else:
            total += OFFICE_ROWS[sum(1 for r in STARTS if "O" in k[r : r + 5])]
    if "T" in k:
        for i in _where(k, "T"):
            r, c = i - i % 5, i % 5
            share = k.count("T", r, r + 5) > 1 or k[c::5].count("T") > 1
            total += (1 if share else 4) if sides[4] == "A" else (4 if share else 1)
    if "W" in k:  # icons show only on tiles built building side up
        icons = "".join([c[1] for c in cells if len(c) == 2])
        for cell in cells:
            if cell[:1] != "W" or len(cell) != 2:
                continue
            g = cell[1]
            if sides[5] == "A":
                total += icons.count(g)
            else:
                has_s = f"S{g}" in cells
                has_f = f"F{g}" in cells
                total += 4 if has_s and has_f else 2 if has_s or has_f else 0
    if "G" in k:
        gov_a = sides[6] == "A"
        for i in _where(k, "G"):
            around = AROUND[i](k)
            if gov_a:
                kinds_around = set(around)
                kinds_around.discard(".")
                total += len(kinds_around)
            else:
                total += sum(1 for x in around if x in "FSOH")
    if "E" in k:
        want = "H" if sides[7] == "A" else "O"
        for i in _where(k, "E"):
            if want in AROUND[i](k):
                total += 4
    if "N" in k:
        n = k.count("N")
        if sides[8] == "A":
            kt = tuple("" if x == "." else x for x in k)
            for group in chains(kt, frozenset("NP")):
                in_group = sum(1 for i in group if kt[i] == "N")
                total += in_group * min(len(group), FOUNTAIN_A_MAX)
        else:
            both = n + np_
            each = 0 if both == 0 else 1 if both == 1 else 2 if both <= 3 else 3 if both <= 5 else 4 if both <= 7 else 5
            total += n * each
    diff = nf - np_
    penalty = PARK_PENALTY[0 if diff <= 0 else diff if diff < 6 else 6]
    total += penalty
    if planning:
        total += planning_score(tuple("" if x == "." else x for x in k), planning)
    return total, penalty
