"""Why an event happened, with the rule ids (``citylog explain``)."""

from __future__ import annotations

from collections.abc import Sequence

from core.card_city import events as ev
from core.card_city.cards import CULTURAL_KINDS, LEISURE_COST, NAMES
from core.card_city.city import (
    FRAME,
    Grid,
    Square,
    border,
    districts,
    eligible_districts,
    format_square,
    frontier,
    neighbours,
    size_limit,
    non_industrial,
    unbuildable_witnesses,
)
from core.card_city.squares import relabel
from core.ruletags import rule_id, tagged
from core.card_city.state import State
from core.card_city.text import describe
from core.words import plural, plurals


def explain(before: State, e: ev.Event, players: Sequence[str]) -> str:
    line = describe(e, players)
    why = _why(before, e)
    return f"{line}\n{why}" if why else line


def _why(s: State, e: ev.Event) -> str:
    match e:
        case ev.CardsDrawn():
            return (
                f"Chance [CB-1]: {plural(len(e.cards), 'card')} drawn from the pool of {s.pool_size}; "
                "the outcome comes from the game's seed and this event's sequence number."
            )
        case ev.Split():
            return "[CC-7] The divider chooses the face-up pair and which half of the rest lies face down."
        case ev.Taken():
            return "[CC-7] The next player without cards chooses one of the two groups."
        case ev.Built():
            grid = s.players[e.seat].grid()
            return (
                f"Legal [CB-2] [CB-6]: {_placement(grid, e.card, (e.row, e.col), construction=True)}; "
                f"{NAMES[e.card]} must be built where it can be [CC-2]."
                + (f" It cost {e.paid} coins [CC-2]." if e.paid else "")
            )
        case ev.Developed():
            grid = s.players[e.seat].grid()
            sq = (e.row, e.col)
            touching = [m for k, m in eligible_districts(grid) if k == e.card and sq in border(grid, m)]
            facts = "; ".join(_eligible(grid, e.card, m) for m in touching) or "no eligible district touches it"
            return (f"[CC-5] {facts}. Placed on {format_square(sq)} [CC-4]: "
                    f"{_placement(grid, e.card, sq, construction=False)}; order by [CC-6].")
        case ev.Discarded():
            p = s.players[e.seat]
            out = f"[{rule_id(e.rule)}] {tagged(e.reason)}; discards go to the reserve [CC-12]."
            if e.card in NAMES:
                out += "\n" + _unbuildable(p.grid(), e.card, p.coins)
            return out
        case ev.IncomePaid():
            return "[CB-4] 1 coin salary, each Commercial district by the player aid, Parking Meters by [CC-14]."
        case ev.Bought():
            grid = s.players[e.seat].grid()
            owned = sum(1 for k in grid.values() if k == "I")
            return (f"[CC-10] {plural(owned, 'Industrial card')} owned: the cost is 5 × ({owned} + 1) = {e.cost}; "
                    f"placed at once: {_placement(grid, 'I', (e.row, e.col), construction=False)}.")
        case ev.PurchaseSkipped():
            return f"[CC-10] {tagged(e.reason).removesuffix(' [CC-10]')}."
        case ev.Scored():
            return "\n".join(
                f"  {line.label:<22} {line.points:>4}  {plurals(relabel(line.detail))}" for line in e.breakdown.lines
            ) + f"\n  {'total':<22} {e.breakdown.total:>4}"
        case ev.GameEnded():
            return "[CC-11] Highest score; a tie goes to most coins left after the exchange; else shared."
    return ""


def _placement(grid: Grid, card: str, sq: Square, construction: bool) -> str:
    """The facts that made ``card`` on ``sq`` legal, each with its witnesses [GL-4]."""
    touches = [n for n in neighbours(sq) if n in grid]
    named = ", ".join(f"{format_square(n)} ({NAMES[grid[n]]})" for n in touches)
    rows = [r for r, _ in grid] + [sq[0]]
    cols = [c for _, c in grid] + [sq[1]]
    tall, wide = max(rows) - min(rows) + 1, max(cols) - min(cols) + 1
    parts = [f"{format_square(sq)} touches {named}",
             f"the city spans {tall} × {wide} squares with it, at most {FRAME} × {FRAME} [CC-1]"]
    if card == "I":
        parts.append("Industrial cards do not count towards the size limit [CC-3]")
    else:
        industrial = sum(1 for k in grid.values() if k == "I")
        allow = "allows" if industrial == 1 else "allow"
        parts.append(f"the city had {plural(non_industrial(grid), 'non-Industrial card')} of the {size_limit(grid)} "
                     f"its {plural(industrial, 'Industrial card')} {allow} [CC-3]")
    if card in ("R", "I"):
        other = "I" if card == "R" else "R"
        parts.append(f"no {NAMES[other]} neighbour [CB-6]")
    if construction and card in ("R", "C"):
        parts.append(f"no {NAMES[card]} neighbour in the Construction phase [CB-6]")
    if card == "L":
        parts.append(f"Leisure costs {LEISURE_COST} coins [CC-2]")
    return ", ".join(parts)


def _eligible(grid: Grid, kind: str, members: tuple[Square, ...]) -> str:
    """Why a district may develop [CC-5], naming its squares and the neighbours that count."""
    where = ", ".join(format_square(m) for m in members)
    n = len(members)
    if kind == "R":
        cultural = sorted(sq for sq in border(grid, members) if grid.get(sq) in CULTURAL_KINDS)
        named = ", ".join(f"{format_square(c)} ({NAMES[grid[c]]})" for c in cultural)
        return (f"the Residential district {where} ({n} card{'s' if n != 1 else ''}) touches "
                f"{len(cultural)} distinct Cultural cards, {named}: at least {n} + 1")
    owner = {sq: i for i, (k, m) in enumerate(districts(grid)) for sq in m if k == "R"}
    found: dict[int, list[Square]] = {}
    for sq in sorted(border(grid, members)):
        if sq in owner:
            found.setdefault(owner[sq], []).append(sq)
    all_districts = districts(grid)
    named = "; ".join(", ".join(format_square(x) for x in all_districts[i][1]) for i in sorted(found))
    return (f"the Commercial district {where} ({n} card{'s' if n != 1 else ''}) touches "
            f"{len(found)} different Residential districts ({named}): at least {n} + 1")


def _unbuildable(grid: Grid, card: str, coins: int) -> str:
    """Every square touching the city, and what keeps the card out of it [CC-2, GL-4]."""
    found = unbuildable_witnesses(grid, card, coins)
    if not found:
        return f"Witnesses: no square touching the city is open to it ({len(frontier(grid))} checked)."
    rules = {v[1] for _, v in found}
    if len(rules) == 1 and found[0][1][0] == "CC-3":  # one limit keeps it out of every square
        squares = ", ".join(format_square(sq) for sq, _ in found)
        return f"Witnesses: [CC-3] {found[0][1][1]}; that keeps it out of all {len(found)} squares touching the " \
               f"city ({squares})."
    return "Witnesses, square by square:\n" + "\n".join(
        f"  {format_square(sq)} [{rule}] {why}" for sq, (rule, why) in found
    )


def witnesses(before: State, e: ev.Event) -> tuple[int, tuple[Square, ...]] | None:
    """The seat and the squares an explanation of ``e`` names (its evidence), for a
    picture to outline [GL-4]; None if it names none."""
    match e:
        case ev.Built() | ev.Bought():
            grid = before.players[e.seat].grid()
            sq = (e.row, e.col)
            return e.seat, (sq, *(n for n in neighbours(sq) if n in grid))
        case ev.Developed():
            grid = before.players[e.seat].grid()
            sq = (e.row, e.col)
            out: list[Square] = [sq]
            for kind, members in eligible_districts(grid):
                if kind == e.card and sq in border(grid, members):
                    out += members
                    if kind == "R":
                        out += sorted(c for c in border(grid, members) if grid.get(c) in CULTURAL_KINDS)
                    else:
                        owner = {x: m for k, m in districts(grid) for x in m if k == "R"}
                        for x in sorted(border(grid, members)):
                            if x in owner:
                                out += owner[x]
            return e.seat, tuple(dict.fromkeys(out))
        case ev.Discarded():
            p = before.players[e.seat]
            if e.card not in NAMES:
                return None
            return e.seat, tuple(sq for sq, _ in unbuildable_witnesses(p.grid(), e.card, p.coins))
    return None
