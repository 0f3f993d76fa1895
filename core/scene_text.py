"""Scene panels laid out as terminal text: fixed-width cells, so rows never wrap into each other.

One layout serves the CLI (rich markup, :func:`panel_markup`) and the TUI board
widget (styled segments and the cell under a click, :func:`layout`).  A cell is
``left + label + right``: ``left`` is ``▶`` on the selected square and ``+`` on
a legal target, ``right`` is ``●`` on a square the last decision changed and
``★`` on the better move an analysis found (issue 25).
Empty legal targets are filled with :data:`TARGET`.

>>> from core.scene import Cell, Panel
>>> p = Panel("c", 1, 2, (Cell(0, 0, "R", "#4caf50", "R"), Cell(0, 1, "empty", "#f4f1ea", "", ("target",))),
...           row_labels=("0",), col_labels=("0", "1"))
>>> [s.text for s in layout(p).lines[1]]
['0 ', '  R   ', '+     ']
>>> layout(p).cell_at(8, 1)
(0, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.scene import Cell, Panel, Scene

TARGET = "#ffe066"
"""The fill of an empty square a command may name."""
SELECTED = "#ff9f1c"
"""The fill of the square a player picked."""
BEST = "#81c784"
"""An empty square the better move found would have used (issue 25), with ``★``."""
LEGEND = "+ legal target · ▶ selected · ● changed by the last move · ? hidden from this view"


@dataclass(frozen=True)
class Seg:
    text: str
    bg: str = ""
    fg: str = ""
    bold: bool = False


@dataclass
class Layout:
    lines: list[list[Seg]] = field(default_factory=list)
    hits: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    """``(line, x0, x1, row, col)``: the characters ``x0 <= x < x1`` of ``line`` are the cell's."""

    @property
    def width(self) -> int:
        return max((sum(len(s.text) for s in line) for line in self.lines), default=0)

    def cell_at(self, x: int, y: int) -> tuple[int, int] | None:
        for line, x0, x1, row, col in self.hits:
            if line == y and x0 <= x < x1:
                return row, col
        return None


def cell_width(panel: Panel) -> int:
    longest = max((len(part) for c in panel.cells for part in c.label.split("\n")), default=1)
    return max(4, longest) + 2


def cell_height(panel: Panel) -> int:
    return max((len(c.label.split("\n")) for c in panel.cells), default=1)


def _cell_lines(cell: Cell | None, w: int, h: int, pad: int = 0) -> list[Seg]:
    """The ``h`` lines of a cell ``w`` wide, its label after ``pad`` blank lines."""
    if cell is None:
        return [Seg(" " * w)] * h
    marks = cell.marks
    left = "▶" if "selected" in marks else "+" if "target" in marks else " "
    right = "★" if "best" in marks else "●" if "last" in marks else " "
    bg = TARGET if "target" in marks and cell.kind == "empty" else cell.colour
    bg = BEST if "best" in marks and cell.kind == "empty" else bg
    bg = SELECTED if "selected" in marks else bg
    if cell.kind == "empty" and bg == cell.colour and (cell.row + cell.col) % 2:
        bg = _shade(bg)  # a chequer, so empty squares read as squares
    parts = [""] * pad + cell.label.split("\n")
    parts += [""] * (h - len(parts))
    out = []
    for i, part in enumerate(parts[:h]):
        text = (left if i == pad else " ") + part.center(w - 2) + (right if i == pad else " ")
        out.append(Seg(text, bg, cell.ink, "selected" in marks or "last" in marks or "best" in marks))
    return out


def _shade(colour: str) -> str:
    """``colour`` a little darker (``#rrggbb``)."""
    if len(colour) != 7 or not colour.startswith("#"):
        return colour
    return "#" + "".join(f"{max(0, int(colour[i:i + 2], 16) - 22):02x}" for i in (1, 3, 5))


def layout(panel: Panel, width: int | None = None, zoom: int = 1) -> Layout:
    """The grid of ``panel`` (column labels, then rows), ``width`` characters at most for a ``flow`` panel;
    ``zoom`` 2 draws bigger squares (a wide, tall terminal)."""
    w, h = cell_width(panel), cell_height(panel)
    pad = 0
    if zoom > 1:
        w, h, pad = w + 4, h + 2, 1
    lw = max((len(x) for x in panel.row_labels), default=0)
    lw = lw + 1 if lw else 0
    grid = {(c.row - panel.top, c.col - panel.left): c for c in panel.cells}
    per_line = panel.cols
    if width is not None and "flow" in panel.marks:
        per_line = max(1, min(panel.cols, (width - lw) // w))
    out = Layout()
    if panel.col_labels and per_line == panel.cols:
        head = " " * lw + "".join(x.center(w) for x in panel.col_labels)
        out.lines.append([Seg(head.rstrip(), fg="#8a8a8a")])
    for r in range(panel.rows):
        row = [grid.get((r, c)) for c in range(panel.cols)]
        if "flow" in panel.marks:
            row = [c for c in row if c is not None] or [None]
        for start in range(0, len(row), per_line):
            chunk = row[start:start + per_line]
            label = panel.row_labels[r] if r < len(panel.row_labels) and start == 0 else ""
            for i in range(h):
                line = [Seg(label.ljust(lw) if i == pad else " " * lw, fg="#8a8a8a")]
                x = lw
                for cell in chunk:
                    line.append(_cell_lines(cell, w, h, pad)[i])
                    if cell is not None and i == 0:
                        for y in range(h):
                            out.hits.append((len(out.lines) + y, x, x + w, cell.row, cell.col))
                    x += w
                out.lines.append(line)
    return out


def _markup(seg: Seg) -> str:
    text = seg.text.replace("[", "\\[")
    style = " ".join(x for x in ("bold" if seg.bold else "", seg.fg, f"on {seg.bg}" if seg.bg else "") if x)
    return f"[{style}]{text}[/]" if style else text


def panel_markup(panel: Panel) -> list[str]:
    """``panel``'s grid as rich-markup lines for a terminal (``show``)."""
    return ["".join(_markup(s) for s in line).rstrip() for line in layout(panel).lines]


def legend_line(scene: Scene, marks: bool = False) -> str:
    """What the colours (and with ``marks``, the board marks) mean, one line (``show``'s ``legend``)."""
    notation = f" · {scene.notation}" if scene.notation else ""
    return "legend: " + " · ".join(text for _, text in scene.legend) + notation + (" · " + LEGEND if marks else "")
