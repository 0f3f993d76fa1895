"""Income (Phase 4, CC-14) and final scoring (End of the Game, CC-11, CC-13).

>>> g = {(0, 0): "H", (0, 1): "C", (1, 1): "R", (1, 2): "C"}  # two 1-card districts
>>> income(g, parking_meters=False)
Income(salary=1, commercial=(1, 1), meters=())
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import msgspec

from core.card_city.cards import NAMES, triangular
from core.card_city.city import Grid, Square, cells_commercial_sizes, cells_districts, districts, surrounding_colours
from core.engine import Breakdown, ScoreLine

SOLO_LEVELS: tuple[tuple[int, str], ...] = (
    (50, "Megalopolis"),
    (45, "Capital"),
    (40, "Metropolis"),
    (35, "City"),
    (30, "Suburb"),
    (25, "Town"),
    (20, "Neighborhood"),
    (15, "Village"),
    (10, "Hamlet"),
    (-10**9, "Homestead"),
)

REQUIRED_COLOURS: dict[str, frozenset[str]] = {
    # CC-13: the six colours less the district's own and its forbidden neighbour.
    "R": frozenset({"blue", "red", "purple", "black"}),
    "I": frozenset({"blue", "red", "purple", "black"}),
    "C": frozenset({"green", "red", "purple", "yellow", "black"}),
    "P": frozenset({"green", "blue", "red", "purple", "yellow"}),
    "L": frozenset({"green", "blue", "purple", "yellow", "black"}),
}


class Income(msgspec.Struct, frozen=True):
    salary: int
    commercial: tuple[int, ...]
    """Coins from each Commercial district, in reading order."""
    meters: tuple[int, ...] = ()
    """Coins from each Parking district (Parking Meters, CC-14)."""

    @property
    def total(self) -> int:
        return self.salary + sum(self.commercial) + sum(self.meters)


def parking_meter_coins(colours: int) -> int:
    """CC-14: 3, 4, 5 distinct colours earn 1, 2, 3 coins."""
    return max(0, min(colours, 5) - 2)


def income(
    grid: Grid, parking_meters: bool, groups: Sequence[tuple[str, tuple[Square, ...]]] | None = None
) -> Income:
    """Phase 4: 1 coin salary, Commercial districts by the player aid, Parking Meters.
    ``groups``: the grid's :func:`districts`, when the caller has them."""
    if groups is None:
        groups = districts(grid)
    commercial = tuple(triangular(len(m)) for k, m in groups if k == "C")
    meters: tuple[int, ...] = ()
    if parking_meters:
        meters = tuple(
            parking_meter_coins(len(surrounding_colours(grid, m))) for k, m in groups if k == "P"
        )
    return Income(salary=1, commercial=commercial, meters=meters)


def city_hall_bonus(grid: Grid) -> tuple[int, int, int]:
    """CC-13: 2 × Manhattan distance from City Hall to the centre of the 5×5 frame.

    Where the city is narrower than 5 in an axis, the frame is placed to give the
    highest bonus.  Returns (bonus, row offset, column offset).
    """
    hall = next(sq for sq, k in grid.items() if k == "H")
    offsets = []
    for axis in (0, 1):
        lo = min(sq[axis] for sq in grid)
        hi = max(sq[axis] for sq in grid)
        # the frame's first line t may be anywhere in [hi - 4, lo]; its centre is t + 2
        best = max(abs(hall[axis] - (t + 2)) for t in range(hi - 4, lo + 1))
        offsets.append(best)
    return 2 * (offsets[0] + offsets[1]), offsets[0], offsets[1]


def _district_label(kind: str, members: tuple[Square, ...]) -> str:
    """Recorded in ``Scored`` events, so it keeps the relative ``row,col`` it always had (the
    hash chain covers it); every reader shows it through ``squares.relabel`` (``at C4``) [CL-10]."""
    first = members[0]
    return f"{NAMES[kind]} district of {len(members)} at {first[0]},{first[1]}"


def final_score(
    seat: int, grid: Grid, coins: int, decentralization: bool, solo: bool = False,
    groups: Sequence[tuple[str, tuple[Square, ...]]] | None = None,
) -> Breakdown:
    """End of the Game, with the Decentralization variant [CC-13] and solo level.
    ``groups``: the grid's :func:`districts`, when the caller has them."""
    if groups is None:
        groups = districts(grid)
    lines: list[ScoreLine] = []
    for kind, members in groups:
        if kind == "R":
            lines.append(
                ScoreLine("residential", triangular(len(members)), _district_label(kind, members))
            )
    empty = 25 - len(grid)  # CC-1
    lines.append(ScoreLine("empty squares", -empty, f"{empty} empty square(s)"))
    lines.append(ScoreLine("coins", coins // 5, f"{coins} coins, 5 per point"))
    if decentralization:
        for kind, members in groups:
            if kind == "H":
                continue  # CC-13: City Hall's own district earns no bonus
            needed = REQUIRED_COLOURS[kind]
            if needed <= surrounding_colours(grid, members):
                lines.append(
                    ScoreLine("decentralization", 5, _district_label(kind, members) + " sees every colour")
                )
        bonus, dr, dc = city_hall_bonus(grid)
        lines.append(
            ScoreLine("city hall", bonus, f"City Hall {dr} row(s) and {dc} column(s) off centre")
        )
        industrial = sum(1 for k, _ in groups if k == "I")
        lines.append(
            ScoreLine(
                "industrial districts",
                triangular(industrial) if industrial >= 2 else 0,
                f"{industrial} Industrial district(s)",
            )
        )
    total = sum(line.points for line in lines)
    title = solo_level(total) if solo else ""
    return Breakdown(seat=seat, lines=tuple(lines), total=total, tiebreak=(coins % 5,), title=title)


def solo_level(score: int) -> str:
    """CC-9: the level table, Homestead … Megalopolis."""
    for threshold, name in SOLO_LEVELS:
        if score >= threshold:
            return name
    return "Homestead"


def winners(breakdowns: tuple[Breakdown, ...]) -> tuple[int, ...]:
    """CC-11: highest total, then most coins left after the exchange; else a shared win."""
    best = max((b.total, b.tiebreak) for b in breakdowns)
    return tuple(b.seat for b in breakdowns if (b.total, b.tiebreak) == best)


@lru_cache(maxsize=8192)
def cells_income(cells: tuple[tuple[int, int, str], ...], parking_meters: bool) -> Income:
    """:func:`income` of a city given as its immutable cells (cached: search folds many rounds)."""
    if not parking_meters:  # income() without meters: the Commercial districts' sizes
        return Income(salary=1, commercial=tuple(triangular(n) for n in cells_commercial_sizes(cells)))
    return income({(r, c): k for r, c, k in cells}, parking_meters, cells_districts(cells))
