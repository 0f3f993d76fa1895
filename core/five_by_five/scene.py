"""5x5 City as a scene (core/scene.py): each plan with its tiles (Goods icons as
lower-case letters), the section numbers of empty squares (the current plot
marked as the target), the sets on offer, the hand and scores so far."""

from __future__ import annotations

from core.five_by_five.cards import BUILDING_CARDS
from core.five_by_five.plans import layout
from core.five_by_five.rules import to_act
from core.five_by_five.scoring import score_board
from core.five_by_five.state import OVER, PARK_REPLACE, PLAY, State
from core.five_by_five.text import bag_text
from core.five_by_five.tiles import GOODS_NAMES, TILES, TYPE_NAMES, cell_of
from core.scene import Cell, Panel, Scene
from core.words import plural

COLOUR = {
    "F": "#d9534f",
    "H": "#f2c531",
    "S": "#c05fc4",
    "O": "#2f7ed8",
    "T": "#e8e8e8",
    "W": "#36b5c0",
    "G": "#ffffff",
    "E": "#f5e08a",
    "N": "#8fd3f0",
    "P": "#4caf50",
}
INK = {"F": "#ffffff", "S": "#ffffff", "O": "#ffffff", "P": "#ffffff"}
EMPTY = "#f4f1ea"
HIDDEN_COLOUR = "#d9d9d9"


def _tile_cell(row: int, col: int, tile: int, park: bool = False) -> Cell:
    if not 0 <= tile < len(TILES):
        return Cell(row, col, "?", HIDDEN_COLOUR, "?", ("hidden",), "a tile you may not see", "#555555")
    code = cell_of(tile, park)
    name = TYPE_NAMES[code[0]]
    goods = f" ({GOODS_NAMES[code[1]]})" if len(code) > 1 else ""
    return Cell(row, col, code, COLOUR[code[0]], code, (), f"#{tile} {name}{goods}", INK.get(code[0], "#111111"))


def _row(title: str, groups: list[tuple[str, tuple[int, ...]]]) -> Panel:
    cells: list[Cell] = []
    labels: list[str] = []
    for name, tiles in groups:
        for t in tiles:
            cells.append(_tile_cell(0, len(cells), t))
            labels.append(name)
            name = ""
    return Panel(title, 1, max(len(cells), 1), tuple(cells), col_labels=tuple(labels))


def scene(s: State, seat: int | None) -> Scene:
    actors = to_act(s)
    sections = layout(s.plan) if s.plan else (0,) * 25
    panels: list[Panel] = []
    for i, b in enumerate(s.boards):
        cells = []
        for q in range(25):
            r, c = divmod(q, 5)
            if b.tiles[q] >= 0:
                cells.append(_tile_cell(r, c, b.tiles[q], b.parks[q]))
                continue
            sec = sections[q]
            target = s.phase == PLAY and sec == s.plot and sec > 0
            cells.append(
                Cell(r, c, "empty", EMPTY, str(sec) if sec else "", ("target",) if target else (),
                     f"empty, section {sec}" if sec else "empty", "#9a9a9a")
            )
        marks = ("board",) + tuple(m for m, on in (("active", i in actors), ("you", i == seat)) if on)
        token = "token held" if b.token else "token spent"
        panels.append(
            Panel(
                s.players[i],
                5,
                5,
                tuple(cells),
                row_labels=tuple("12345"),
                col_labels=tuple("ABCDE"),
                notes=(f"{b.park_count()} parks · {token}",),
                marks=marks,
                owner=i,
            )
        )
    if s.sets and any(s.sets):
        panels.append(_row("sets on offer", [(f"set {n}", st) for n, st in enumerate(s.sets, 1) if st]))
    if s.hand and 0 <= s.active < s.n:
        panels.append(_row(f"{s.players[s.active]} places", [("hand", s.hand)]))
    if s.park == PARK_REPLACE and s.park_drawn:
        panels.append(_row("park action draw", [("drawn", s.park_drawn)]))
    sides = s.sides or "?" * 10
    status = [
        f"round {s.round}/12 · plot {s.plot or '-'} · plan {s.plan or '-'} · bag {plural(len(s.bag), 'tile')}"
        if actors or s.phase != OVER else "game over",
        bag_text(s, seat),
        "sides: " + " ".join(f"{c.name} {x}" for c, x in zip(BUILDING_CARDS, sides)),
    ]
    if actors:
        status.append("to act: " + ("the draw" if actors == (-1,) else ", ".join(s.players[a] for a in actors)))
    if s.scores:
        scores = tuple(zip(s.players, s.scores))
    elif s.sides:
        scores = tuple(
            (s.players[i], score_board(b.cells(), s.sides, s.planning or None).total)
            for i, b in enumerate(s.boards)
        )
    else:
        scores = ()
    legend = tuple((COLOUR[k], f"{k} {TYPE_NAMES[k]}") for k in COLOUR) + (
        ("#ffffff", "e f c m: Goods (Electrical, Food, Clothing, Medicine)"),
        (EMPTY, "number: the square's section"),
    )
    return Scene("5x5 City", tuple(status), tuple(panels), scores, legend=legend)
