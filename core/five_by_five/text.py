"""Text: commands as typed, one-line descriptions, the rendered table, explanations.

Command syntax (case-insensitive; squares are column letter + row, ``A1`` top
left … ``E5`` bottom right; a tile is its id ``0``–``107`` or, when parsing,
its code such as ``Fe`` / ``H``, meaning the lowest-numbered such tile where
the command takes it from — the bag for draws, your set or park draw otherwise):

=============================  ==================================================
``choose 2``                   take set 2 of those on offer
``place 7 B3``                 build tile 7 on B3 building side up
``place 7 B3 park``            … Park side up
``swap A1 C3``                 park action A: swap two tiles (faces kept)
``use``                        park action B: draw two tiles
``replace 7 B3 [park]``        park action B: replace the tile on B3 with tile 7
``keep``                       park action B: replace nothing
``decline``                    decline the park action (the token is spent)
``sides AABBAABBAB``           chance: the Building card sides (Factories…Park)
``plan 5``                     chance: the Building Plan drawn at setup
``planning 3``                 chance: the Planning card (advanced rules)
``plot 7``                     chance: the Building Plot card of the round
``draw 12 45 78``              chance: tiles out of the bag (all sets, in order)
=============================  ==================================================

>>> from core.five_by_five import commands as cm
>>> format_command(cm.Place(7, 7, True))
'place Ff#7 C2 park'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from core.dispatch import handler
from core.engine import BadCommandSyntax
from core.five_by_five import commands as cm
from core.five_by_five import events as ev
from core.five_by_five.cards import BUILDING_CARDS, PLANNING_CARDS
from core.five_by_five.plans import layout, square_index, square_name
from core.five_by_five.rules import to_act
from core.five_by_five.state import HIDDEN, PARK_OFFER, PARK_REPLACE, PLAY, State
from core.five_by_five.tiles import TILES, TYPE_NAMES, cell_of, tile_code, tile_label
from core.markup import escape
from core.words import plural

COLOURS = {
    "F": "bold red",
    "H": "bold yellow",
    "S": "bold magenta",
    "O": "bold blue",
    "T": "bold white",
    "W": "bold cyan",
    "G": "bold bright_white",
    "E": "bold bright_yellow",
    "N": "bold bright_cyan",
    "P": "bold green",
}


# -- commands -------------------------------------------------------------------------
def format_command(c: cm.Command) -> str:
    face = lambda park: " park" if park else ""  # noqa: E731
    match c:
        case cm.Choose(index=i):
            return f"choose {i}"
        case cm.Place(tile=t, square=q, park=p):
            return f"place {tile_name(t)} {square_name(q)}{face(p)}"
        case cm.Swap(a=a, b=b):
            return f"swap {square_name(a)} {square_name(b)}"
        case cm.UsePark():
            return "use"
        case cm.Decline():
            return "decline"
        case cm.Replace(tile=t, square=q, park=p):
            return f"replace {tile_name(t)} {square_name(q)}{face(p)}"
        case cm.Keep():
            return "keep"
        case cm.DrawSides(sides=x):
            return f"sides {x}"
        case cm.DrawPlan(plan=n):
            return f"plan {n}"
        case cm.DrawPlanning(card=n):
            return f"planning {n}"
        case cm.DrawPlot(plot=n):
            return f"plot {n}"
        case cm.DrawTiles(tiles=ts):
            return "draw " + " ".join(str(t) for t in ts)
    raise TypeError(f"not a 5x5 City command: {c!r}")


def _int(tok: str, what: str) -> int:
    try:
        return int(tok)
    except ValueError:
        raise BadCommandSyntax(f"{what}: expected a number, got {tok!r}") from None


def tile_name(tile: int) -> str:
    """A tile as the hand shows it, code and id: ``Fc#10`` (commands accept it, the
    bare id ``10`` and the bare code ``Fc``)."""
    return f"{tile_code(tile)}#{tile}"


def _tile(tok: str, pool: list[int]) -> int:
    """A tile id (``10``), a name (``Fc#10``, as the hand shows it) or a code
    resolved to the lowest such tile in ``pool`` (which loses it)."""
    code_part, hash_, id_part = tok.partition("#")
    if hash_:
        if not id_part.isdigit():
            raise BadCommandSyntax(f"{tok!r}: write a tile as CODE#ID, e.g. Fc#10")
        t = int(id_part)
        if not 0 <= t < len(TILES):
            raise BadCommandSyntax(f"{tok!r}: no tile #{t}")
        code = code_part[:1].upper() + code_part[1:].lower()
        if code_part and TILES[t].code != code:
            raise BadCommandSyntax(f"{tok!r}: tile #{t} is {TILES[t].code}#{t}, not {code}")
    elif tok.isdigit():
        t = int(tok)
    else:
        code = tok[:1].upper() + tok[1:].lower()
        matches = sorted(t for t in pool if TILES[t].code == code)
        if not matches:
            raise BadCommandSyntax(f"no {code!r} tile available here")
        t = matches[0]
    if t in pool:
        pool.remove(t)
    return t


def _square(tok: str) -> int:
    try:
        return square_index(tok)
    except ValueError as exc:
        raise BadCommandSyntax(str(exc)) from None


def _face(rest: list[str]) -> bool:
    if not rest:
        return False
    if len(rest) == 1 and rest[0] in ("park", "building"):
        return rest[0] == "park"
    raise BadCommandSyntax(f"expected 'park' or 'building', got {' '.join(rest)!r}")


def parse_command(s: State, seat: int, text: str) -> cm.Command:
    words = text.strip().split()
    if not words:
        raise BadCommandSyntax("empty command")
    verb, args = words[0].lower(), words[1:]
    low = [a.lower() for a in args]

    def need(n: int, usage: str) -> None:
        if len(args) != n:
            raise BadCommandSyntax(f"usage: {usage}")

    if verb in ("use", "decline", "keep"):
        need(0, verb)
        plain: dict[str, cm.Command] = {"use": cm.UsePark(), "decline": cm.Decline(), "keep": cm.Keep()}
        return plain[verb]
    if verb in ("choose", "plan", "planning", "plot"):
        need(1, f"{verb} N")
        n = _int(args[0], verb)
        numbered: dict[str, Callable[[int], cm.Command]] = {
            "choose": cm.Choose, "plan": cm.DrawPlan, "planning": cm.DrawPlanning, "plot": cm.DrawPlot,
        }
        return numbered[verb](n)
    if verb == "sides":
        need(1, "sides XXXXXXXXXX")
        return cm.DrawSides(args[0].upper())
    if verb in ("place", "replace"):
        if len(args) not in (2, 3):
            raise BadCommandSyntax(f"usage: {verb} TILE SQUARE [park]")
        pool = list(s.hand if verb == "place" else s.park_drawn)
        tile = _tile(args[0], pool)
        cls = cm.Place if verb == "place" else cm.Replace
        return cls(tile, _square(args[1]), _face(low[2:]))
    if verb == "swap":
        need(2, "swap SQUARE SQUARE")
        return cm.Swap(_square(args[0]), _square(args[1]))
    if verb == "draw":
        if not args:
            raise BadCommandSyntax("usage: draw TILE TILE …")
        pool = list(s.bag)
        return cm.DrawTiles(tuple(_tile(a, pool) for a in args))
    raise BadCommandSyntax(f"unknown command {verb!r} (choose, place, swap, use, replace, keep, decline, draw, plot…)")


# -- one line per event ----------------------------------------------------------------
def _who(players: Sequence[str], seat: int) -> str:
    return players[seat] if 0 <= seat < len(players) else f"seat {seat}"


def _tiles(ts: Sequence[int]) -> str:
    return " ".join(map(tile_code, ts))


def _created(e: ev.GameCreated, players: Sequence[str]) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in e.options)
    table = " (table game)" if e.table else ""
    return f"5x5 City for {', '.join(e.players)}; {opts}{table}"


def _sides(e: ev.SidesDrawn, players: Sequence[str]) -> str:
    return f"Building card sides drawn: {e.sides}"


def _plan(e: ev.PlanDrawn, players: Sequence[str]) -> str:
    return f"Building Plan {e.plan} is used by everyone"


def _planning(e: ev.PlanningDrawn, players: Sequence[str]) -> str:
    return f"Planning card {e.card}: {PLANNING_CARDS[e.card]}"


def _round(e: ev.RoundStarted, players: Sequence[str]) -> str:
    return f"Round {e.round} begins"


def _plot(e: ev.PlotDrawn, players: Sequence[str]) -> str:
    return f"Building Plot {e.plot} drawn"


def _sets(e: ev.SetsDrawn, players: Sequence[str]) -> str:
    return "Sets drawn: " + " | ".join([f"{i}: {_tiles(st)}" for i, st in enumerate(e.sets, 1)])


def _set_chosen(e: ev.SetChosen, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} takes set {e.index}"


def _placed(e: ev.TilePlaced, players: Sequence[str]) -> str:
    t = e.tile
    what = "a Park" if e.park else TYPE_NAMES[TILES[t].kind]
    return f"{_who(players, e.seat)} builds {what} on {square_name(e.square)} (tile {tile_code(t)} #{t})"


def _token_spent(e: ev.ParkTokenSpent, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} has 3 Parks and spends the Park Action token"


def _swapped(e: ev.ParkSwapped, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} swaps {square_name(e.a)} and {square_name(e.b)}"


def _declined(e: ev.ParkDeclined, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} declines the park action"


def _used(e: ev.ParkUsed, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} uses the park action: draws two tiles"


def _park_drawn(e: ev.ParkTilesDrawn, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} draws {_tiles(e.tiles)}"


def _replaced(e: ev.ParkReplaced, players: Sequence[str]) -> str:
    t, r = e.tile, e.removed
    what = "a Park" if e.park else f"a {TYPE_NAMES[TILES[t].kind]}"
    old = f"tile {tile_code(r)} #{r}" if r >= 0 else "the tile"
    return f"{_who(players, e.seat)} replaces {old} on {square_name(e.square)} with {what} (tile {tile_code(t)} #{t})"


def _park_kept(e: ev.ParkKept, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} keeps the board as it is"


def _park_returned(e: ev.ParkTilesReturned, players: Sequence[str]) -> str:
    n = len(e.unused) + (e.removed >= 0)
    return (f"{plural(n, 'tile')} {'goes' if n == 1 else 'go'} back to the bag after "
            f"{_who(players, e.seat)}'s park action")


def _set_returned(e: ev.SetReturned, players: Sequence[str]) -> str:
    return f"Set {e.index} ({_tiles(e.tiles)}) goes back to the bag"


def _bag_passed(e: ev.BagPassed, players: Sequence[str]) -> str:
    return f"The bag passes to {_who(players, e.start)}, the new start player"


def _final(e: ev.FinalScores, players: Sequence[str]) -> str:
    return "Final scores: " + ", ".join([f"{_who(players, i)} {v}" for i, v in enumerate(e.scores)])


def _ended(e: ev.GameEnded, players: Sequence[str]) -> str:
    ws = e.winners
    names = " and ".join([_who(players, i) for i in ws])
    return f"Game over: {names} {'win' if len(ws) > 1 else 'wins'}"


_DESCRIBE: dict[type, Callable[[Any, Sequence[str]], str]] = {
    ev.GameCreated: _created, ev.SidesDrawn: _sides, ev.PlanDrawn: _plan, ev.PlanningDrawn: _planning,
    ev.RoundStarted: _round, ev.PlotDrawn: _plot, ev.SetsDrawn: _sets, ev.SetChosen: _set_chosen,
    ev.TilePlaced: _placed, ev.ParkTokenSpent: _token_spent, ev.ParkSwapped: _swapped,
    ev.ParkDeclined: _declined, ev.ParkUsed: _used, ev.ParkTilesDrawn: _park_drawn, ev.ParkReplaced: _replaced,
    ev.ParkKept: _park_kept, ev.ParkTilesReturned: _park_returned, ev.SetReturned: _set_returned,
    ev.BagPassed: _bag_passed, ev.FinalScores: _final, ev.GameEnded: _ended,
}  # fmt: skip
"""Each event class's describer: one look-up a line, not a ``match`` through every class (:mod:`core.dispatch`)."""


def describe(e: ev.Event, players: Sequence[str]) -> str:
    f = _DESCRIBE.get(type(e)) or handler(_DESCRIBE, e)
    return f(e, players) if f is not None else repr(e)


# -- the table -----------------------------------------------------------------------------
def _cell(s: State, seat: int, q: int) -> str:
    b = s.boards[seat]
    if b.tiles[q] < 0:
        sec = layout(s.plan)[q] if s.plan else 0
        mark = "bold reverse" if s.phase == PLAY and sec == s.plot else "dim"
        return f"[{mark}]{sec:>3}[/]" if sec else "[dim]  .[/]"
    code = cell_of(b.tiles[q], b.parks[q])
    return f"[{COLOURS[code[0]]}]{code:>3}[/]"


def makeup(tiles: Sequence[int]) -> str:
    """Tiles by face, in tile order: ``Fe×2 H×5 P…``."""
    counts: dict[str, int] = {}
    for t in sorted(tiles):
        counts[tile_code(t)] = counts.get(tile_code(t), 0) + 1
    return " ".join(f"{c}×{n}" for c, n in counts.items()) or "empty"


def bag_text(s: State, seat: int | None) -> str:
    """The bag as the seat can count it [GN-1]: its make-up, or the unseen tiles'
    less the unknown ones (each with the faces it can have)."""
    if HIDDEN not in s.bag:
        return f"bag {plural(len(s.bag), 'tile')}: {makeup(s.bag)}"
    from core.five_by_five.view import knowledge

    k = knowledge(s, seat)
    every = {tile_code(t) for t in k.unseen}
    parts: dict[str, int] = {}
    for u in k.unknown:
        who = _who(s.players, u.owner)
        where = f"{who}'s Park front" if u.where >= 0 else f"{who}'s park draw"
        faces = sorted({tile_code(t) for t in u.can_be})
        what = "any face" if set(faces) == every and len(faces) > 1 else "/".join(faces)
        what += " (by counting)" if len(faces) == 1 else ""
        parts[f"{where}: {what}"] = parts.get(f"{where}: {what}", 0) + 1
    said = "; ".join(f"{p} ×{n}" if n > 1 else p for p, n in parts.items())
    return f"bag {plural(len(s.bag), 'tile')}: the {len(k.unseen)} unseen ({makeup(k.unseen)}) less {len(k.unknown)} unknown ({said})"


def render_board(s: State, seat: int) -> str:
    b = s.boards[seat]
    token = "token held" if b.token else "token spent"
    head = f"[bold]{escape(s.players[seat])}[/] ({b.park_count()} parks, {token})"
    rows = ["     A   B   C   D   E"]
    for r in range(5):
        rows.append(f" {r + 1} " + " ".join(_cell(s, seat, r * 5 + c) for c in range(5)))
    return "\n".join([head, *rows])


def render(s: State, seat: int | None) -> str:
    sides = s.sides or "?" * 10
    lines = [
        f"[bold]5x5 City[/] — round {s.round}/12, plot {s.plot or '-'}, plan {s.plan or '-'}",
        escape("B" + bag_text(s, seat)[1:]),
        "Sides: " + " ".join(f"{c.name} {x}" for c, x in zip(BUILDING_CARDS, sides)),
    ]
    if s.planning:
        lines.append(f"Planning card {s.planning}: {PLANNING_CARDS[s.planning]}")
    if s.sets:
        offer = [f"{i}: {_tiles(st)}" for i, st in enumerate(s.sets, 1) if st]
        lines.append("Sets on offer: " + (" | ".join(offer) or "none"))
    if s.hand:
        lines.append(f"{escape(s.players[s.active])} places: " + " ".join(f"{tile_code(t)}#{t}" for t in s.hand))
    if s.park == PARK_OFFER:
        lines.append(f"{escape(s.players[s.active])} decides the park action [FC-7]")
    if s.park == PARK_REPLACE:
        seen = ", ".join(tile_label(t) for t in s.park_drawn)
        lines.append(f"{escape(s.players[s.active])} drew for the park action: {seen}")
    actors = to_act(s)
    if not actors:
        lines.append("Game over. Scores: " + ", ".join(f"{escape(p)} {v}" for p, v in zip(s.players, s.scores)))
    elif actors == (-1,):
        lines.append("Waiting for a draw (chance).")
    else:
        lines.append("To act: " + ", ".join(escape(s.players[a]) for a in actors))
    order = list(range(s.n))
    if seat is not None and 0 <= seat < s.n:
        order.remove(seat)
        order.insert(0, seat)
    for i in order:
        lines.append("")
        lines.append(render_board(s, i))
    return "\n".join(lines)
