"""Card City as a scene (core/scene.py): each city in its part of the fixed frame [CL-10]
(columns A–I, rows 1–9, City Hall at E5 — the names commands use),
the split on the table, hands, coins, and scores if the game ended now."""

from __future__ import annotations

from functools import lru_cache

from core.card_city.cards import KINDS, NAMES
from core.card_city.knowledge import by_counting, group_of
from core.card_city.rules import to_act
from core.card_city.scoring import final_score
from core.card_city.squares import column_label, row_label, square_label, window
from core.card_city.state import HIDDEN, State
from core.card_city.text import pool_text
from core.scene import Cell, Panel, Scene
from core.words import plural

COLOUR = {
    "H": "#9b59b6",
    "R": "#4caf50",
    "C": "#2f7ed8",
    "L": "#e0443e",
    "I": "#f2c531",
    "P": "#8d939b",
    HIDDEN: "#d9d9d9",
}
INK = {"H": "#ffffff", "R": "#0b2e0c", "C": "#ffffff", "L": "#ffffff", "I": "#3a2c00", "P": "#ffffff", HIDDEN: "#555555"}
EMPTY = "#f4f1ea"


def _card(row: int, col: int, kind: str, counted: bool = False) -> Cell:
    """A card; ``counted``: face down, shown because counting leaves no doubt [GN-1]."""
    hidden = kind == HIDDEN
    detail = "a face-down card you may not see [CC-7]" if hidden else NAMES.get(kind, kind)
    return Cell(
        row,
        col,
        kind,
        COLOUR.get(kind, "#cccccc"),
        kind,
        ("hidden",) if hidden else ("counted",) if counted else (),
        f"{detail} — face down, known by counting [GN-1]" if counted else detail,
        INK.get(kind, "#111111"),
    )


@lru_cache(maxsize=4096)
def _score_now(seat: int, city: tuple[tuple[int, int, str], ...], coins: int, decentralization: bool, solo: bool) -> int:
    """The score if the game ended now (cities and coins are public: the same in every view)."""
    return final_score(seat, {(r, c): k for r, c, k in city}, coins, decentralization, solo).total


def _cards_row(title: str, groups: list[tuple[str, tuple[str, ...]]], counted: tuple[str, ...] = ()) -> Panel:
    """Cards in a row; the last ``len(counted)`` non-hidden ones of the last group
    were face down and are known by counting [GN-1]."""
    cells = []
    col = 0
    labels = []
    last = groups[-1][1] if groups else ()
    marked = {j for j, k in enumerate(last) if k != HIDDEN}
    marked = set(sorted(marked)[len(marked) - len(counted) :]) if counted else set()
    for g, (name, cards) in enumerate(groups):
        for j, k in enumerate(cards):
            cells.append(_card(0, col, k, g == len(groups) - 1 and j in marked))
            labels.append(name)
            name = ""
            col += 1
    return Panel(title, 1, max(col, 1), tuple(cells), col_labels=tuple(labels))


def scene(s: State, seat: int | None) -> Scene:
    actors = to_act(s)
    panels: list[Panel] = []
    counted = by_counting(s, seat)
    where, whose = group_of(s)
    for i, p in enumerate(s.players):
        top, left, rows, cols = window(p.city)
        cells = []
        grid = {(r, c): k for r, c, k in p.city}
        for r in range(top, top + rows):
            for c in range(left, left + cols):
                k = grid.get((r, c))
                cells.append(_card(r, c, k) if k else Cell(r, c, "empty", EMPTY, "", (), square_label(r, c)))
        notes = [plural(p.coins, "coin") + ("  · first mayor" if i == s.first else "")]
        if len(p.hand):
            mine = counted if (where, whose) == ("hand", i) else ()
            notes.append(
                "hand: " + " ".join(p.hand.up + p.hand.down) + (f" ({''.join(mine)} by counting)" if mine else "")
            )
        marks = ("board",) + tuple(m for m, on in (("active", i in actors), ("you", i == seat)) if on)
        panels.append(
            Panel(
                p.name,
                rows,
                cols,
                tuple(cells),
                row_labels=tuple(row_label(r) for r in range(top, top + rows)),
                col_labels=tuple(column_label(c) for c in range(left, left + cols)),
                notes=tuple(notes),
                marks=marks,
                top=top,
                left=left,
                owner=i,
            )
        )
    if s.offer is not None:
        o = s.offer
        panels.append(
            _cards_row(
                f"split by {s.players[o.divider].name} for {s.players[o.to].name}",
                [("pair", o.pair), ("rest", o.up + o.down)],
                counted if where == "offer" else (),
            )
        )
    elif len(s.holding) and s.divider >= 0:
        panels.append(
            _cards_row(
                f"{s.players[s.divider].name} holds",
                [("drawn", s.holding.cards)],
                counted if where == "holding" else (),
            )
        )
    if s.set_aside:
        panels.append(_cards_row("set aside [CC-8]", [("", s.set_aside)]))
    reserve = " ".join(f"{k}{n}" for k, n in zip(KINDS, s.reserve, strict=True) if k in "RCI" or n)
    waiting = "the draw" if actors == (-1,) else ", ".join(s.players[a].name for a in actors if a >= 0)
    status = [
        f"round {s.round}/10 · {s.phase} phase" if s.phase != "over" else "game over",
        f"{pool_text(s)} · reserve {reserve}",
    ]
    if actors:
        status.append(f"to act: {waiting}")
    if s.scores:
        scores = tuple((s.players[b.seat].name, b.total) for b in s.scores)
    else:
        scores = tuple(
            (p.name, _score_now(i, p.city, p.coins, s.options.decentralization, s.n == 1))
            for i, p in enumerate(s.players)
        )
    legend = tuple((COLOUR[k], f"{k} {NAMES[k]}") for k in ("H", *KINDS))
    notation = "squares: columns A–I, rows 1–9, City Hall always E5 (build R E4) [CL-10]"
    return Scene("Card City", tuple(status), tuple(panels), scores, legend=legend, notation=notation)
