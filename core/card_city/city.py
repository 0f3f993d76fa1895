"""A city's geometry: districts, the frame, the size limit and the zoning laws.

A city is a mapping from squares ``(row, col)`` to card kinds.  In a game City
Hall sits at ``(0, 0)`` [CC-1]; a board typed in from the table keeps the file's
own coordinates.  Nothing here depends on where the origin is.

>>> g = {(0, 0): "H", (0, 1): "R"}
>>> construction_violation(g, "R", (1, 1), coins=3)
('CB-6', 'a Residential card may not be built next to another Residential card in the Construction phase: F5 (Residential)')
>>> sorted(construction_squares(g, "I", coins=0))
[(-1, 0), (0, -1), (1, 0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from bisect import insort
from functools import lru_cache

from core.card_city.squares import column_label, in_frame, row_label, square_label
from core.words import plural
from core.card_city.cards import (
    COLOURS,
    CULTURAL_KINDS,
    DEVELOPMENT_KINDS,
    LEISURE_COST,
    NAMES,
)

Square = tuple[int, int]
Grid = Mapping[Square, str]
Violation = tuple[str, str]
"""(rule id or rulebook section, one sentence)."""

FRAME = 5


def neighbours(sq: Square) -> tuple[Square, Square, Square, Square]:
    r, c = sq
    return ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1))


def districts(grid: Grid) -> list[tuple[str, tuple[Square, ...]]]:
    """Orthogonally connected groups of one kind, in reading order of their first square."""
    seen: set[Square] = set()
    out: list[tuple[str, tuple[Square, ...]]] = []
    for start in sorted(grid):
        if start in seen:
            continue
        kind = grid[start]
        stack, members = [start], []
        seen.add(start)
        while stack:
            sq = stack.pop()
            members.append(sq)
            r, c = sq
            for n in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):  # neighbours(sq), inlined
                if n not in seen and grid.get(n) == kind:
                    seen.add(n)
                    stack.append(n)
        out.append((kind, tuple(sorted(members))))
    return out


def border(grid: Grid, members: Iterable[Square]) -> set[Square]:
    """Squares orthogonally adjacent to a group, outside it."""
    inside = set(members)
    return {n for sq in inside for n in neighbours(sq) if n not in inside}


def surrounding_colours(grid: Grid, members: Iterable[Square]) -> set[str]:
    """CC-13/CC-14: colours of the cards adjacent to any card of the group."""
    colours: set[str] = set()
    for sq in border(grid, members):
        kind = grid.get(sq)
        if kind is not None:
            colours.update(COLOURS[kind])
    return colours


def frontier(grid: Grid) -> list[Square]:
    """Empty squares orthogonally adjacent to the city, in reading order."""
    return sorted(
        {n for r, c in grid for n in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)) if n not in grid}
    )


def fits_frame(grid: Grid, sq: Square) -> bool:
    """CC-1: the bounding box of all cards, ``sq`` included, stays within 5 × 5."""
    return _Facts(grid).fits(sq)


def size_limit(grid: Grid) -> int:
    """CC-3: non-Industrial cards allowed, City Hall included."""
    industrial = sum(1 for k in grid.values() if k == "I")
    return 5 * (1 + industrial)


def non_industrial(grid: Grid) -> int:
    return sum(1 for k in grid.values() if k != "I")


class _Facts:
    """What every square's check needs, computed once per city."""

    __slots__ = ("top", "bottom", "left", "right", "industrial", "others")

    def __init__(self, grid: Grid) -> None:
        rows = [r for r, _ in grid]
        cols = [c for _, c in grid]
        self.top, self.bottom = min(rows), max(rows)
        self.left, self.right = min(cols), max(cols)
        self.industrial = sum(1 for k in grid.values() if k == "I")
        self.others = len(grid) - self.industrial

    def fits(self, sq: Square) -> bool:
        r, c = sq
        return (
            max(self.bottom, r) - min(self.top, r) < FRAME
            and max(self.right, c) - min(self.left, c) < FRAME
        )


def _named(grid: Grid, squares: Iterable[Square]) -> str:
    """``F4 (Industrial), E3 (Industrial)``: witness squares with what stands there [GL-4]."""
    return ", ".join(f"{format_square(sq)} ({NAMES.get(grid[sq], grid[sq])})" for sq in squares)


def _base_violation(grid: Grid, kind: str, sq: Square, facts: _Facts | None = None) -> Violation | None:
    """Checks shared by construction, development and purchase; each names its
    witnesses: the squares, and for a limit the limit and the figure [GL-4]."""
    if sq in grid:
        return ("CB-6", f"square {format_square(sq)} is already built ({_named(grid, [sq])})")
    around = neighbours(sq)
    if not any(n in grid for n in around):
        return ("CB-6", f"a card must be orthogonally adjacent to a card of the city; {format_square(sq)} touches none")
    f = facts or _Facts(grid)
    if not f.fits(sq):
        r, c = sq
        tall = max(f.bottom, r) - min(f.top, r) + 1
        wide = max(f.right, c) - min(f.left, c) + 1
        low, high = (min(f.top, r), max(f.bottom, r)) if tall > FRAME else (min(f.left, c), max(f.right, c))
        label = row_label if tall > FRAME else column_label
        ends = f" ({'rows' if tall > FRAME else 'columns'} {label(low)}–{label(high)})" if in_frame(low, high) else ""
        span = f"{tall} rows tall{ends}" if tall > FRAME else f"{wide} columns wide{ends}"
        return ("CC-1", f"the city would no longer fit in a 5 × 5 square: with {format_square(sq)} it would be "
                        f"{span}, at most {FRAME}")
    limit = 5 * (1 + f.industrial)
    if kind != "I" and f.others + 1 > limit:
        allow = "allows" if f.industrial == 1 else "allow"
        return (
            "CC-3",
            f"size limit: {plural(f.industrial, 'Industrial card')} {allow} {limit} "
            f"non-Industrial cards and the city has them all ({f.others}, City Hall included; "
            f"this card would make {f.others + 1})",
        )
    if kind == "R" and any(grid.get(n) == "I" for n in around):
        return ("CB-6", "Residential and Industrial cards may not be adjacent: "
                        + _named(grid, [n for n in around if grid.get(n) == "I"]))
    if kind == "I" and any(grid.get(n) == "R" for n in around):
        return ("CB-6", "Residential and Industrial cards may not be adjacent: "
                        + _named(grid, [n for n in around if grid.get(n) == "R"]))
    return None


def construction_violation(
    grid: Grid, kind: str, sq: Square, coins: int, facts: _Facts | None = None
) -> Violation | None:
    """Why ``kind`` may not be built at ``sq`` in the Construction phase (None: it may)."""
    found = _base_violation(grid, kind, sq, facts)
    if found is not None:
        return found
    if kind in DEVELOPMENT_KINDS and any(grid.get(n) == kind for n in neighbours(sq)):
        return (
            "CB-6",
            f"a {NAMES[kind]} card may not be built next to another {NAMES[kind]} card "
            "in the Construction phase: " + _named(grid, [n for n in neighbours(sq) if grid.get(n) == kind]),
        )
    if kind == "L" and coins < LEISURE_COST:
        return ("CC-2", f"a Leisure card costs {LEISURE_COST} coins and there are only {coins}")
    return None


def unbuildable_witnesses(grid: Grid, kind: str, coins: int) -> list[tuple[Square, Violation]]:
    """Why ``kind`` fits none of the squares touching the city: each such square
    with the rule that keeps it out (frame, size limit or zoning) [CC-2, GL-4]."""
    facts = _Facts(grid)
    out = []
    for sq in sorted(frontier(grid)):
        found = construction_violation(grid, kind, sq, coins, facts)
        if found is not None:
            out.append((sq, found))
    return out


def construction_squares(grid: Grid, kind: str, coins: int) -> list[Square]:
    """The squares where ``kind`` may be built now, in reading order: those where
    :func:`construction_violation` finds nothing (the same checks, as a yes or no)."""
    facts, near = _frontier_kinds(grid)
    kinds = dict(near)  # in reading order, as near is
    return _construction_squares(facts, kinds, kinds, kind, coins)


Near = tuple[_Facts, tuple[tuple[Square, frozenset[str]], ...]]
"""A city's :class:`_Facts` and each frontier square with the kinds next to it."""


def _frontier_kinds(grid: Grid) -> Near:
    near: dict[Square, set[str]] = {}  # the frontier (see frontier()), each square's kinds around it
    for (r, c), kind in grid.items():
        for n in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
            if n not in grid:
                kinds = near.get(n)
                if kinds is None:
                    near[n] = {kind}
                else:
                    kinds.add(kind)
    return _Facts(grid), tuple((sq, frozenset(near[sq])) for sq in sorted(near))


def _construction_squares(
    facts: _Facts, order: Iterable[Square], near: Mapping[Square, frozenset[str]], kind: str, coins: int
) -> list[Square]:
    """The frontier squares (``order``: reading order) where ``kind`` may be built,
    from the kinds next to each (``near``)."""
    if kind == "L" and coins < LEISURE_COST:
        return []
    if kind != "I" and facts.others + 1 > 5 * (1 + facts.industrial):
        return []  # CC-3, wherever it goes
    clash = "I" if kind == "R" else "R" if kind == "I" else ""
    same = kind if kind in DEVELOPMENT_KINDS else ""
    if facts.bottom - facts.top >= FRAME or facts.right - facts.left >= FRAME:
        return []  # CC-1: no square fits (a city never gets here, but say so)
    # CC-1 as bounds: max(bottom, r) - min(top, r) < FRAME, for a city that fits
    r_lo, r_hi = facts.bottom - FRAME + 1, facts.top + FRAME - 1
    c_lo, c_hi = facts.right - FRAME + 1, facts.left + FRAME - 1
    out = []
    for sq in order:  # empty squares next to the city
        r, c = sq
        if r_lo <= r <= r_hi and c_lo <= c <= c_hi:
            kinds = near[sq]
            if clash not in kinds and same not in kinds:
                out.append(sq)
    return out


def development_violation(grid: Grid, kind: str, sq: Square, facts: _Facts | None = None) -> Violation | None:
    """CC-4: a developed card obeys R–I non-adjacency, the size limit and the frame."""
    return _base_violation(grid, kind, sq, facts)


def eligible_districts(
    grid: Grid, all_districts: Sequence[tuple[str, tuple[Square, ...]]] | None = None
) -> list[tuple[str, tuple[Square, ...]]]:
    """CC-5: Residential districts of N cards touching ≥ N+1 distinct Cultural cards,
    Commercial districts of N cards touching ≥ N+1 distinct Residential districts.
    ``all_districts``: the grid's :func:`districts`, when the caller has them."""
    if all_districts is None:
        all_districts = districts(grid)
    owner: dict[Square, int] = {}
    for i, (_, members) in enumerate(all_districts):
        for sq in members:
            owner[sq] = i
    out = []
    for kind, members in all_districts:
        if kind == "R":
            cultural = {sq for sq in border(grid, members) if grid.get(sq) in CULTURAL_KINDS}
            if len(cultural) >= len(members) + 1:
                out.append((kind, members))
        elif kind == "C":
            residential = {
                owner[sq] for sq in border(grid, members) if grid.get(sq) == "R"
            }
            if len(residential) >= len(members) + 1:
                out.append((kind, members))
    return out


def development_options(
    grid: Grid, all_districts: Sequence[tuple[str, tuple[Square, ...]]] | None = None
) -> list[tuple[str, Square]]:
    """Every (kind, square) where a card may be developed now, in a stable order."""
    options: set[tuple[str, Square]] = set()
    facts = _Facts(grid)
    for kind, members in eligible_districts(grid, all_districts):
        for sq in border(grid, members):
            if sq not in grid and development_violation(grid, kind, sq, facts) is None:
                options.add((kind, sq))
    return sorted(options)


def format_square(sq: Square) -> str:
    """A square as players name it: the frame around City Hall (``E5``) [CL-10]."""
    return square_label(*sq)


# -- cached by city ---------------------------------------------------------------
# A city in a game state is an immutable tuple of (row, col, kind) cells, so the
# answers below are pure functions of it; the rules ask them many times per
# decision (every automatic step re-checks every hand), hence the caches.
#
# A city only ever grows by one cell appended at the end (Built, Developed,
# Bought), and its parent (``cells[:-1]``) was met one event earlier, so the
# geometry of a new city is its parent's updated around the new cell (a few
# squares) rather than found again from the whole grid.  The cached values are
# shared: never mutate one (each update copies what it changes).
Cells = tuple[tuple[int, int, str], ...]


def cells_can_construct(cells: Cells, kind: str, coins: int) -> bool:
    return bool(cells_construction_squares(cells, kind, coins >= LEISURE_COST))


class _Geometry:
    """A city's grid, :class:`_Facts`, and each frontier square with the kinds
    next to it (:func:`_frontier_kinds` as a dict, and its squares in reading
    order), cached per city."""

    __slots__ = ("grid", "facts", "near", "order")

    def __init__(
        self, grid: dict[Square, str], facts: _Facts, near: dict[Square, frozenset[str]], order: list[Square]
    ) -> None:
        self.grid, self.facts, self.near, self.order = grid, facts, near, order


def _facts_grown(f: _Facts, sq: Square, kind: str) -> _Facts:
    """``f`` of a grid with ``kind`` added at the empty square ``sq``."""
    out = _Facts.__new__(_Facts)
    r, c = sq
    out.top, out.bottom = min(f.top, r), max(f.bottom, r)
    out.left, out.right = min(f.left, c), max(f.right, c)
    out.industrial = f.industrial + (kind == "I")
    out.others = f.others + (kind != "I")
    return out


@lru_cache(maxsize=8192)
def _cells_geometry(cells: Cells) -> _Geometry:
    r, c, kind = cells[-1]
    sq = (r, c)
    if len(cells) > 1:
        parent = _cells_geometry(cells[:-1])
        if sq not in parent.grid:  # (a fold never repeats a square; a hand-made city might)
            grid = dict(parent.grid)
            grid[sq] = kind
            near = dict(parent.near)
            order = parent.order.copy()
            if near.pop(sq, None) is not None:
                order.remove(sq)
            for n in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
                if n not in grid:
                    kinds = near.get(n)
                    if kinds is None:
                        near[n] = frozenset((kind,))
                        insort(order, n)
                    else:
                        near[n] = kinds | {kind}
            return _Geometry(grid, _facts_grown(parent.facts, sq, kind), near, order)
    grid = {(r, c): k for r, c, k in cells}
    facts, squares = _frontier_kinds(grid)
    return _Geometry(grid, facts, dict(squares), [sq for sq, _ in squares])


District = tuple[str, tuple[Square, ...]]


def _first_square(d: District) -> Square:
    return d[1][0]


@lru_cache(maxsize=8192)
def _cells_districts_owned(cells: Cells) -> tuple[tuple[District, ...], dict[Square, District]]:
    """:func:`districts` of a city, and the district holding each square: the
    parent's, with the districts of the new cell's kind that it touches merged."""
    r, c, kind = cells[-1]
    sq = (r, c)
    if len(cells) > 1:
        groups, owner = _cells_districts_owned(cells[:-1])
        if sq not in owner:
            # the districts of its kind the new cell touches, by their first square
            # (districts are disjoint: a square names one, and hashes faster)
            joined: dict[Square, District] = {}
            for n in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
                d = owner.get(n)
                if d is not None and d[0] == kind:
                    joined[d[1][0]] = d
            members = [sq]
            for d in joined.values():
                members += d[1]
            merged: District = (kind, tuple(sorted(members)))
            # districts() lists them by their first square in reading order
            kept = [d for d in groups if d[1][0] not in joined] if joined else list(groups)
            insort(kept, merged, key=_first_square)
            owner = owner.copy()
            for m in merged[1]:
                owner[m] = merged
            return tuple(kept), owner
    groups = tuple(districts({(r, c): k for r, c, k in cells}))
    return groups, {m: d for d in groups for m in d[1]}


@lru_cache(maxsize=8192)
def cells_districts(cells: Cells) -> tuple[District, ...]:
    """:func:`districts` of a city (income, final scoring and the greedy bot need
    them): from its masks' connected parts, else grown from the parent city's."""
    m = _cells_masks(cells)
    if m is None:
        return _cells_districts_owned(cells)[0]
    found = [
        ((part & -part).bit_length(), kind, _squares_of(part))
        for kind, i in _KIND.items()
        for part in _parts(m.kinds[i])
    ]
    found.sort()  # by each district's first square: bits go in reading order
    return tuple((kind, members) for _, kind, members in found)


def cells_commercial_sizes(cells: Cells) -> tuple[int, ...]:
    """The sizes of a city's Commercial districts in :func:`districts`' order (income)."""
    m = _cells_masks(cells)
    if m is None:
        return tuple(len(members) for kind, members in _cells_districts_owned(cells)[0] if kind == "C")
    return tuple(part.bit_count() for part in _parts(m.kinds[_KIND["C"]]))


@lru_cache(maxsize=8192)
def cells_development_options(cells: Cells) -> tuple[tuple[str, Square], ...]:
    """:func:`development_options` of a city, from its cached masks (or geometry) and
    districts (the same checks: CC-5's eligible districts, then CC-4's squares
    around them)."""
    m = _cells_masks(cells)
    if m is None:
        return _geometry_development_options(cells)
    return _masks_development_options(cells, m)


def _geometry_development_options(cells: Cells) -> tuple[tuple[str, Square], ...]:
    """:func:`cells_development_options` from the city's geometry (any city)."""
    g = _cells_geometry(cells)
    facts, grid, near = g.facts, g.grid, g.near
    if facts.others + 1 > 5 * (1 + facts.industrial):
        return ()  # CC-3: a developed card is never Industrial
    if facts.bottom - facts.top >= FRAME or facts.right - facts.left >= FRAME:
        return ()  # CC-1: no square fits (as in _construction_squares)
    owner = _cells_districts_owned(cells)[1]
    r_lo, r_hi = facts.bottom - FRAME + 1, facts.top + FRAME - 1  # CC-1, as in _construction_squares
    c_lo, c_hi = facts.right - FRAME + 1, facts.left + FRAME - 1
    # CC-5, counted from the few cards that can make a district eligible: each
    # Cultural card marks the Residential districts it touches, each Residential
    # card its district on the Commercial districts it touches
    marks: dict[District, set[object]] = {}
    mark: object
    for (r, c), kind in grid.items():
        if kind in CULTURAL_KINDS:
            target, mark = "R", (r, c)
        elif kind == "R":
            target, mark = "C", owner[(r, c)][1]
        else:
            continue
        for n in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
            if grid.get(n) == target:
                marks.setdefault(owner[n], set()).add(mark)
    options: set[tuple[str, Square]] = set()
    for (kind, members), marked in marks.items():
        if len(marked) <= len(members):  # N cards need N+1 distinct Cultural cards / Residential districts
            continue
        for r, c in members:
            for n in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
                if n not in grid and r_lo <= n[0] <= r_hi and c_lo <= n[1] <= c_hi:
                    if kind == "C" or "I" not in near[n]:  # CB-6: no Residential next to Industrial
                        options.add((kind, n))
    return tuple(sorted(options))


@lru_cache(maxsize=16384)
def cells_construction_squares(cells: Cells, kind: str, affords_leisure: bool) -> tuple[Square, ...]:
    """:func:`construction_squares` of a city; coins matter only to afford a Leisure card [CC-2]."""
    m = _cells_masks(cells)
    if m is not None:
        return _masks_construction_squares(m, kind, affords_leisure)
    coins = LEISURE_COST if affords_leisure else 0
    g = _cells_geometry(cells)
    return tuple(_construction_squares(g.facts, g.order, g.near, kind, coins))


# -- as bit masks ------------------------------------------------------------------
# The same answers from a city as one bit mask per kind, each square a bit of a
# 16-bit row: a city's frontier, the squares next to a kind, the CC-1 window are a
# few shifts and ands of Python ints, instead of a dict of the frontier grown cell
# by cell.  Squares -7..7 on each axis have a bit (one spare bit a row, so a shift
# left or right never makes a square a neighbour of one on another row); a city
# with a card outside -6..6 (its neighbours outside -7..7), or a kind not in
# ``_KIND``, has no masks and is answered from its geometry as before.
_W = 16
"""Bits a row of the mask."""
_OFF = 7
"""Square (r, c) is bit ``(r + 7) * 16 + c + 7``."""
_LIM = 6
"""The farthest a card of a city with masks lies from City Hall's square, per axis."""
_KIND = {"H": 0, "R": 1, "C": 2, "L": 3, "I": 4, "P": 5}
_VALID = sum(1 << ((r + _OFF) * _W + c + _OFF) for r in range(-_OFF, _OFF + 1) for c in range(-_OFF, _OFF + 1))
_SQUARE: dict[int, Square] = {
    (r + _OFF) * _W + c + _OFF: (r, c) for r in range(-_OFF, _OFF + 1) for c in range(-_OFF, _OFF + 1)
}
"""Each bit's square."""


def _bit(r: int, c: int) -> int:
    return 1 << ((r + _OFF) * _W + c + _OFF)


def _around(m: int) -> int:
    """The squares orthogonally next to a square of ``m``."""
    return ((m << 1) | (m >> 1) | (m << _W) | (m >> _W)) & _VALID


def _two_around(m: int) -> int:
    """The squares next to at least two squares of ``m``."""
    up, down, left, right = m << _W, m >> _W, m << 1, m >> 1
    return ((up & (down | left | right)) | (down & (left | right)) | (left & right)) & _VALID


@lru_cache(maxsize=4096)
def _window(r_lo: int, r_hi: int, c_lo: int, c_hi: int) -> int:
    """The squares with ``r_lo <= r <= r_hi`` and ``c_lo <= c <= c_hi`` (CC-1's bounds)."""
    return sum(
        _bit(r, c)
        for r in range(max(r_lo, -_OFF), min(r_hi, _OFF) + 1)
        for c in range(max(c_lo, -_OFF), min(c_hi, _OFF) + 1)
    )


def _squares_of(m: int) -> tuple[Square, ...]:
    """The squares of ``m`` in reading order (rows down, then columns right)."""
    out = []
    square = _SQUARE
    while m:
        low = m & -m
        out.append(square[low.bit_length() - 1])
        m ^= low
    return tuple(out)


def _parts(m: int) -> list[int]:
    """The orthogonally connected parts of ``m``, each as a mask, by their first
    square in reading order (the lowest bit left is the next part's first square)."""
    out = []
    while m:
        part = m & -m
        while True:
            grown = (part | _around(part)) & m
            if grown == part:
                break
            part = grown
        out.append(part)
        m &= ~part
    return out


class _Masks:
    """A city as bit masks: every card (``occ``), each kind's cards (``kinds``, by
    ``_KIND``), and its :class:`_Facts` (bounds, Industrial and other cards)."""

    __slots__ = ("occ", "kinds", "top", "bottom", "left", "right", "industrial", "others")

    def __init__(
        self, occ: int, kinds: list[int], bounds: tuple[int, int, int, int], industrial: int, others: int
    ) -> None:
        self.occ, self.kinds = occ, kinds
        self.top, self.bottom, self.left, self.right = bounds
        self.industrial, self.others = industrial, others


@lru_cache(maxsize=16384)
def _cells_masks(cells: Cells) -> _Masks | None:
    """A city's :class:`_Masks` (None: out of their range), its parent's with the
    new cell added when that square was empty, else found from the grid."""
    r, c, kind = cells[-1]
    if len(cells) > 1:
        parent = _cells_masks(cells[:-1])
        if parent is None or kind not in _KIND or not (-_LIM <= r <= _LIM and -_LIM <= c <= _LIM):
            return None
        b = _bit(r, c)
        if not parent.occ & b:
            kinds = parent.kinds.copy()
            kinds[_KIND[kind]] |= b
            industrial = kind == "I"
            return _Masks(
                parent.occ | b, kinds,
                (min(parent.top, r), max(parent.bottom, r), min(parent.left, c), max(parent.right, c)),
                parent.industrial + industrial, parent.others + (not industrial),
            )
    grid = {(r, c): k for r, c, k in cells}  # a square built twice: the last card stands (as in the grid)
    occ, kinds = 0, [0] * len(_KIND)
    for (r, c), k in grid.items():
        if k not in _KIND or not (-_LIM <= r <= _LIM and -_LIM <= c <= _LIM):
            return None
        b = _bit(r, c)
        occ |= b
        kinds[_KIND[k]] |= b
    f = _Facts(grid)
    return _Masks(occ, kinds, (f.top, f.bottom, f.left, f.right), f.industrial, f.others)


def _masks_construction_squares(m: _Masks, kind: str, affords_leisure: bool) -> tuple[Square, ...]:
    """:func:`_construction_squares` from the masks: the frontier in the CC-1 window,
    less the squares next to a clashing kind (CB-6) or to the same development kind."""
    if kind == "L" and not affords_leisure:
        return ()
    if kind != "I" and m.others + 1 > 5 * (1 + m.industrial):
        return ()  # CC-3, wherever it goes
    if m.bottom - m.top >= FRAME or m.right - m.left >= FRAME:
        return ()  # CC-1: no square fits
    occ = m.occ
    free = _around(occ) & ~occ & _window(m.bottom - FRAME + 1, m.top + FRAME - 1, m.right - FRAME + 1, m.left + FRAME - 1)
    if kind == "R":
        free &= ~_around(m.kinds[_KIND["I"]] | m.kinds[_KIND["R"]])
    elif kind == "I":
        free &= ~_around(m.kinds[_KIND["R"]])
    elif kind == "C":
        free &= ~_around(m.kinds[_KIND["C"]])
    return _squares_of(free)


def _masks_development_options(cells: Cells, m: _Masks) -> tuple[tuple[str, Square], ...]:
    """:func:`_geometry_development_options` from the masks.  First, whether any
    district can be eligible [CC-5], by pigeonhole: a Residential district of N
    cards touching N+1 distinct Cultural cards has a card touching two of them, a
    Commercial district of N cards touching N+1 distinct Residential districts a
    card touching two Residential cards; with neither, no district is (most
    cities), found without the districts."""
    if m.others + 1 > 5 * (1 + m.industrial):
        return ()  # CC-3: a developed card is never Industrial
    if m.bottom - m.top >= FRAME or m.right - m.left >= FRAME:
        return ()  # CC-1: no square fits (as in _construction_squares)
    kinds = m.kinds
    residential = kinds[_KIND["R"]]
    cultural = kinds[_KIND["H"]] | kinds[_KIND["L"]]
    if not (residential & _two_around(cultural)) and not (kinds[_KIND["C"]] & _two_around(residential)):
        return ()
    # CC-5 district by district (each a connected part of its kind's mask): a
    # Residential one of N cards touching more than N Cultural cards, a Commercial
    # one touching more than N Residential districts; CC-4/CB-6: the empty squares
    # next to it in the CC-1 window, a Residential one's not next to Industrial
    free = ~m.occ & _window(m.bottom - FRAME + 1, m.top + FRAME - 1, m.right - FRAME + 1, m.left + FRAME - 1)
    districts_r = _parts(residential)
    grow_r = grow_c = 0
    for part in districts_r:
        near = _around(part)
        if (near & cultural).bit_count() > part.bit_count():
            grow_r |= near
    for part in _parts(kinds[_KIND["C"]]):
        near = _around(part)
        if sum(1 for other in districts_r if other & near) > part.bit_count():
            grow_c |= near
    grow_r &= free & ~_around(kinds[_KIND["I"]])
    grow_c &= free
    # sorted (kind, square): "C" before "R", each in reading order
    return tuple(("C", sq) for sq in _squares_of(grow_c)) + tuple(("R", sq) for sq in _squares_of(grow_r))
