"""Card City as text: commands parsed and formatted, events described, tables drawn.

Squares are named in the fixed frame around City Hall (``E5``) [CL-10]; the old
City-Hall-relative ``row,col`` is still read.

>>> from core.card_city.commands import Build

>>> parse_command(None, 0, "build R E4") == parse_command(None, 0, "build R -1,0") == Build("R", -1, 0)
True
>>> format_command(Build("I", -1, -2))
'build I C4'
>>> format_command(parse_command(None, 0, "split RC PL IC"))
'split RC PL IC'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from core.card_city import events as ev
from core.card_city.cards import KINDS, NAMES
from core.card_city.knowledge import by_counting, group_of
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
from core.card_city.squares import column_label, parse_square, row_label, square_label, window
from core.card_city.state import HIDDEN, State
from core.dispatch import handler
from core.engine import BadCommandSyntax
from core.ruletags import rule_id, tagged
from core.markup import escape
from core.words import plural

STYLE = {
    "H": "bold white on magenta",
    "R": "bold black on green",
    "C": "bold white on blue",
    "L": "bold white on red",
    "I": "bold black on yellow",
    "P": "bold white on grey23",
    HIDDEN: "dim",
}

COMMAND_HELP = (
    "draw R I L P C C | split RC PL IC | take pair|rest | keep RC | "
    "build R E4 | discard L | develop R F6 | buy D5 | pass (squares: A–I and 1–9, City Hall E5)"
)


def _cards(token: str, allowed: Sequence[str] = KINDS) -> tuple[str, ...]:
    cards = tuple(token.upper())
    for c in cards:
        if c not in allowed:
            raise BadCommandSyntax(f"{c!r} is not a card (use {' '.join(allowed)})")
    return cards


def _square(token: str) -> tuple[int, int]:
    return parse_square(token)


def parse_command(state: State | None, seat: int, text: str) -> Command:
    """``text`` as a command; Card City's syntax needs neither the state nor the seat."""
    words = text.split()
    if not words:
        raise BadCommandSyntax(f"empty command; commands: {COMMAND_HELP}")
    verb, args = words[0].lower(), words[1:]
    shapes = {
        "draw": None,
        "split": 3,
        "take": 1,
        "keep": 1,
        "build": 2,
        "discard": 1,
        "develop": 2,
        "buy": 1,
        "pass": 0,
    }
    if verb not in shapes:
        raise BadCommandSyntax(f"unknown command {verb!r}; commands: {COMMAND_HELP}")
    want = shapes[verb]
    if want is not None and len(args) != want:
        raise BadCommandSyntax(f"{verb!r} takes {plural(want, 'argument')}; commands: {COMMAND_HELP}")
    if verb == "draw":
        return Draw(tuple(c for a in args for c in _cards(a)))
    if verb == "split":
        return SplitCards(_cards(args[0]), _cards(args[1]), _cards(args[2]))
    if verb == "take":
        if args[0] not in ("pair", "rest"):
            raise BadCommandSyntax("take 'pair' or 'rest'")
        return Take(args[0])
    if verb == "keep":
        return Keep(_cards(args[0]))
    if verb in ("build", "develop"):
        card = _cards(args[0])
        if len(card) != 1:
            raise BadCommandSyntax(f"{verb} one card, e.g. '{verb} R E4'")
        r, c = _square(args[1])
        return Build(card[0], r, c) if verb == "build" else Develop(card[0], r, c)
    if verb == "discard":
        card = _cards(args[0])
        if len(card) != 1:
            raise BadCommandSyntax("discard one card, e.g. 'discard L'")
        return Discard(card[0])
    if verb == "buy":
        r, c = _square(args[0])
        return Buy(r, c)
    return Pass()


def format_command(cmd: Command) -> str:
    if isinstance(cmd, Draw):
        return "draw " + " ".join(cmd.cards)
    if isinstance(cmd, SplitCards):
        return f"split {''.join(cmd.pair)} {''.join(cmd.up)} {''.join(cmd.down)}"
    if isinstance(cmd, Take):
        return f"take {cmd.group}"
    if isinstance(cmd, Keep):
        return "keep " + "".join(cmd.cards)
    if isinstance(cmd, Build):
        return f"build {cmd.card} {square_label(cmd.row, cmd.col)}"
    if isinstance(cmd, Develop):
        return f"develop {cmd.card} {square_label(cmd.row, cmd.col)}"
    if isinstance(cmd, Discard):
        return f"discard {cmd.card}"
    if isinstance(cmd, Buy):
        return f"buy {square_label(cmd.row, cmd.col)}"
    return "pass"


def points(n: int) -> str:
    """``1 point``, ``18 points``."""
    return f"{n} point{'' if n == 1 else 's'}"


def _list(cards: Sequence[str]) -> str:
    return " ".join(cards) if cards else "-"


def _who(players: Sequence[str], seat: int) -> str:
    return players[seat] if 0 <= seat < len(players) else f"seat {seat}"


def _created(e: ev.GameCreated, players: Sequence[str]) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in e.options.items()) or "no options"
    return f"Card City for {', '.join(e.players)} ({opts}); {_who(players, e.first)} has the pawn"


def _drawn(e: ev.CardsDrawn, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} draws {_list(e.cards)}"


def _set_aside(e: ev.LeisureSetAside, players: Sequence[str]) -> str:
    return (f"{_who(players, e.seat)} sets aside {e.count} Leisure card{'' if e.count == 1 else 's'} "
            "and draws again [CC-8]")


def _returned(e: ev.LeisureReturned, players: Sequence[str]) -> str:
    return f"{e.count} Leisure card{'' if e.count == 1 else 's'} shuffled back into the pool [CC-8]"


def _split(e: ev.Split, players: Sequence[str]) -> str:
    return (
        f"{_who(players, e.seat)} splits: pair {_list(e.pair)} | rest {_list(e.up)} + "
        f"{_list(e.down)} face down; offered to {_who(players, e.to)}"
    )


def _taken(e: ev.Taken, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} takes the {e.group}"


def _kept(e: ev.Kept, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} keeps {_list(e.up + e.down)}"


def _holding(e: ev.Holding, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} holds {_list(e.up + e.down)} to divide"


def _solo_chose(e: ev.SoloChose, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} keeps {_list(e.keep)}, {e.bottom} to the bottom of the pool [CC-9]"


def _phase(e: ev.PhaseStarted, players: Sequence[str]) -> str:
    return f"— {e.phase} phase —"


def _built(e: ev.Built, players: Sequence[str]) -> str:
    paid = f" for {e.paid} coins" if e.paid else ""
    return f"{_who(players, e.seat)} builds {NAMES[e.card]} at {square_label(e.row, e.col)}{paid}"


def _discarded(e: ev.Discarded, players: Sequence[str]) -> str:
    return (f"{_who(players, e.seat)} discards {NAMES[e.card]} to the reserve "
            f"[{rule_id(e.rule)}] {tagged(e.reason)}")


def _develop_turn(e: ev.DevelopTurn, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} must develop [CC-6]"


def _developed(e: ev.Developed, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} develops {NAMES[e.card]} at {square_label(e.row, e.col)}"


def _income(e: ev.IncomePaid, players: Sequence[str]) -> str:
    parts = [f"salary {e.salary}"]
    if e.commercial:
        parts.append("commercial " + "+".join(map(str, e.commercial)))
    if e.meters:
        parts.append("meters " + "+".join(map(str, e.meters)))
    return f"{_who(players, e.seat)} earns {e.total} ({', '.join(parts)})"


def _purchase_turn(e: ev.PurchaseTurn, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} may buy an Industrial card for {e.cost}"


def _purchase_skipped(e: ev.PurchaseSkipped, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} cannot buy: {tagged(e.reason)}"


def _bought(e: ev.Bought, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} buys Industrial for {e.cost}, built at {square_label(e.row, e.col)}"


def _passed(e: ev.Passed, players: Sequence[str]) -> str:
    return f"{_who(players, e.seat)} buys nothing"


def _pawn_passed(e: ev.PawnPassed, players: Sequence[str]) -> str:
    return f"the first mayor pawn passes to {_who(players, e.to)}"


def _round(e: ev.RoundStarted, players: Sequence[str]) -> str:
    return f"=== round {e.round} ==="


def _scored(e: ev.Scored, players: Sequence[str]) -> str:
    b = e.breakdown
    title = f" — {b.title}" if b.title else ""
    left = b.tiebreak[0]
    return f"{_who(players, e.seat)} scores {b.total} ({left} coin{'' if left == 1 else 's'} left over){title}"


def _ended(e: ev.GameEnded, players: Sequence[str]) -> str:
    names = " and ".join(_who(players, w) for w in e.winners)
    verb = "share the win" if len(e.winners) > 1 else "wins"
    return f"game over: {names} {verb} ({', '.join(map(str, e.scores))})"


_DESCRIBE: dict[type, Callable[[Any, Sequence[str]], str]] = {
    ev.GameCreated: _created, ev.CardsDrawn: _drawn, ev.LeisureSetAside: _set_aside,
    ev.LeisureReturned: _returned, ev.Split: _split, ev.Taken: _taken, ev.Kept: _kept, ev.Holding: _holding,
    ev.SoloChose: _solo_chose, ev.PhaseStarted: _phase, ev.Built: _built, ev.Discarded: _discarded,
    ev.DevelopTurn: _develop_turn, ev.Developed: _developed, ev.IncomePaid: _income,
    ev.PurchaseTurn: _purchase_turn, ev.PurchaseSkipped: _purchase_skipped, ev.Bought: _bought,
    ev.Passed: _passed, ev.PawnPassed: _pawn_passed, ev.RoundStarted: _round, ev.Scored: _scored,
    ev.GameEnded: _ended,
}  # fmt: skip
"""Each event class's describer: one look-up a line, not a ``match`` through every class (:mod:`core.dispatch`)."""


def describe(e: ev.Event, players: Sequence[str]) -> str:
    f = _DESCRIBE.get(type(e)) or handler(_DESCRIBE, e)
    return f(e, players) if f is not None else repr(e)


def render_city(cells: Sequence[tuple[int, int, str]]) -> list[str]:
    """The city in its part of the fixed frame [CL-10]: column letters above, row numbers before.

    ``score`` and ``where`` read these lines back as they are (``·`` is empty).
    """
    top, left, rows, cols = window(cells)
    grid = {(r, c): k for r, c, k in cells}
    lines = ["    " + "".join(f"{column_label(c):>3}" for c in range(left, left + cols))]
    for r in range(top, top + rows):
        row = []
        for c in range(left, left + cols):
            k = grid.get((r, c))
            row.append(f"[{STYLE[k]}] {k} [/]" if k else " · ")
        lines.append(f"  {row_label(r):>2} " + "".join(row))
    return lines


def pool_text(s: State) -> str:
    """The pool as the state shows it: its size, then its make-up when known — each
    kind exactly, or ``least–most`` while a face-down group leaves it open [GN-1];
    the solo bottom (public, in order) after it [CC-9].

    >>> from core.card_city.state import Options
    >>> s = State((), Options(), False, 1, "acquisition", 0, (18, 9, 9, 12, 12), 60)
    >>> pool_text(s)
    'pool 60 cards: R18 C9 L9 I12 P12'
    >>> from msgspec.structs import replace
    >>> pool_text(replace(s, pool=(16, 9, 9, 11, 12), pool_most=(18, 9, 9, 12, 12), pool_size=57))
    'pool 57 cards: R16–18 C9 L9 I11–12 P12'
    """
    out = f"pool {plural(s.pool_size, 'card')}"
    if len(s.pool) == len(KINDS) and any(s.pool_most or s.pool):
        most = s.pool_most or s.pool
        out += ": " + " ".join(
            f"{k}{n}" if n == m else f"{k}{n}–{m}" for k, n, m in zip(KINDS, s.pool, most, strict=True)
        )
    if s.bottom:
        out += f", {''.join(s.bottom)} at the bottom"
    return out


def counted_note(s: State, seat: int | None) -> str:
    """`` (L by counting)``: the face-down cards ``seat`` is shown only because
    counting leaves no doubt (GN-1), to follow the group that holds them."""
    cards = by_counting(s, seat)
    return f" ({''.join(cards)} by counting)" if cards else ""


def render(s: State, seat: int | None) -> str:
    lines = [
        f"[bold]Card City[/] — round {s.round}/10, {s.phase} phase; "
        f"{pool_text(s)}; reserve "
        + " ".join(f"{k}{n}" for k, n in zip(KINDS, s.reserve, strict=True) if k in "RCI" or n)
    ]
    note = counted_note(s, seat)
    where, whose = group_of(s)
    for i, p in enumerate(s.players):
        pawn = " (first mayor)" if i == s.first else ""
        you = " ← you" if i == seat else ""
        hand = "".join(p.hand.cards) + (note if (where, whose) == ("hand", i) else "")
        # A finished game's score goes on the seat's own line, as Point City's does:
        # a list of totals after the cities would only repeat the breakdown that
        # `show`, `play` and `demo` print next.
        total = next((b for b in s.scores if b.seat == i), None)
        scored = f" — {points(total.total)}" + (f" — {total.title}" if total.title else "") if total else ""
        lines.append(f"[bold]{escape(p.name)}[/]{pawn}{you}: {plural(p.coins, 'coin')}" + (f", hand {hand}" if hand else "")
                     + scored)
        lines.extend(render_city(p.city))
    if s.offer is not None:
        o = s.offer
        lines.append(
            f"offer to {escape(s.players[o.to].name)}: pair {''.join(o.pair)} | rest {''.join(o.up)} + "
            f"{''.join(o.down)}" + (note if where == "offer" else "")
        )
    if len(s.holding) and s.divider >= 0:
        held = s.holding
        lines.append(
            f"{escape(s.players[s.divider].name)} holds {''.join(held.cards)}"
            + (note if where == "holding" else "")
        )
    if s.set_aside:
        lines.append(f"set aside [CC-8]: {''.join(s.set_aside)}")
    return "\n".join(lines)
