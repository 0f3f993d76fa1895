"""SVG pictures of scenes (core/scene.py): a pure function of a scene, no
browser or image library needed; integer coordinates and a fixed layout, so the
same scene always gives the same bytes (python-chess ``chess.svg``'s shape).

Marks: ``last`` — a thick orange outline; ``hidden`` — grey hatching and ``?``;
``target`` — a dashed outline; ``best`` — a green outline and ★ (the better
move an analysis found, issue 25); a panel marked ``active`` has a ▶ before its
title, ``you`` a "(you)" after it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.scene import Cell, Panel, Scene

SQ = 44
"""A square's side, in pixels."""
GAP = 24
MAX_WIDTH = 980
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
LAST = "#ff6d00"
BEST = "#2e7d32"
_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def esc(text: str) -> str:
    """Text safe inside an XML element or a double-quoted attribute."""
    text = _BAD_XML.sub("\ufffd", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _text(x: int, y: int, text: str, size: int = 13, anchor: str = "start", weight: str = "normal",
          fill: str = "#222222") -> str:
    bold = ' font-weight="bold"' if weight == "bold" else ""
    return (
        f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}"{bold} fill="{fill}">'
        f"{esc(text)}</text>"
    )


def _grid_width(p: Panel) -> int:
    return (26 if p.row_labels else 0) + p.cols * p.cell_width * SQ


def _notes(p: Panel) -> list[str]:
    """The panel's notes wrapped to the grid's width (at least 40 characters)."""
    chars = max(40, _grid_width(p) // 7)
    out: list[str] = []
    for note in p.notes:
        line = ""
        for word in note.split(" "):
            if line and len(line) + 1 + len(word) > chars:
                out.append(line)
                line = "  " + word
            else:
                line = f"{line} {word}" if line else word
        out.append(line)
    return out


def _panel_size(p: Panel) -> tuple[int, int]:
    notes = _notes(p)
    width = max(_grid_width(p), 8 * len(p.title) + 30, *(7 * len(n) for n in notes or [""]))
    height = 22 + (16 if p.col_labels else 0) + p.rows * SQ + 18 * len(notes) + 6
    return width, height


def _cell(c: Cell, x: int, y: int, w: int) -> list[str]:
    out = [f"<g><title>{esc(c.detail or c.label or c.kind)}</title>"]
    out.append(
        f'<rect x="{x + 1}" y="{y + 1}" width="{w - 2}" height="{SQ - 2}" rx="5" fill="{esc(c.colour)}" '
        f'stroke="#555555" stroke-width="1"/>'
    )
    if "hidden" in c.marks:
        out.append(f'<rect x="{x + 1}" y="{y + 1}" width="{w - 2}" height="{SQ - 2}" rx="5" fill="url(#hatch)"/>')
    if "target" in c.marks:
        out.append(
            f'<rect x="{x + 3}" y="{y + 3}" width="{w - 6}" height="{SQ - 6}" rx="4" fill="none" '
            f'stroke="#1565c0" stroke-width="2" stroke-dasharray="4 3"/>'
        )
    lines = c.label.split("\n") if c.label else []
    longest = max((len(t) for t in lines), default=1)
    size = 15 if len(lines) <= 1 and longest <= 3 else min(12, max(7, int((w - 8) / (0.64 * longest))))
    top = y + SQ // 2 - (len(lines) - 1) * (size + 1) // 2 + size // 3
    for i, line in enumerate(lines):
        out.append(_text(x + w // 2, top + i * (size + 1), line, size, "middle", "bold", c.ink))
    if "witness" in c.marks:  # a square an explanation names [GL-4]
        out.append(
            f'<rect class="witness" x="{x + 4}" y="{y + 4}" width="{w - 8}" height="{SQ - 8}" rx="4" fill="none" '
            f'stroke="#d81b60" stroke-width="3" stroke-dasharray="6 3"/>'
        )
    if "last" in c.marks:
        out.append(
            f'<rect class="last" x="{x + 2}" y="{y + 2}" width="{w - 4}" height="{SQ - 4}" rx="5" fill="none" '
            f'stroke="{LAST}" stroke-width="4"/>'
        )
    if "best" in c.marks:  # the better move found (issue 25)
        out.append(
            f'<rect class="best" x="{x + 5}" y="{y + 5}" width="{w - 10}" height="{SQ - 10}" rx="4" fill="none" '
            f'stroke="{BEST}" stroke-width="3"/>'
        )
        out.append(_text(x + w - 9, y + 14, "★", 13, "middle", "bold", BEST))
    out.append("</g>")
    return out


def _panel(p: Panel, x0: int, y0: int) -> list[str]:
    width, height = _panel_size(p)
    active = "active" in p.marks
    out = ['<g class="panel">']
    if active:
        out.append(
            f'<rect x="{x0 - 8}" y="{y0 - 4}" width="{width + 16}" height="{height + 4}" rx="8" '
            f'fill="#fff4d6" stroke="#e0b040"/>'
        )
    title = ("▶ " if active else "") + p.title + (" (you)" if "you" in p.marks else "")
    out.append(_text(x0, y0 + 14, title, 14, weight="bold"))
    y = y0 + 22
    label_w = 26 if p.row_labels else 0
    cw = p.cell_width * SQ
    if p.col_labels:
        for i, lab in enumerate(p.col_labels):
            if lab:
                out.append(_text(x0 + label_w + i * cw + cw // 2, y + 11, lab, 11, "middle", fill="#666666"))
        y += 16
    for i, lab in enumerate(p.row_labels):
        out.append(_text(x0 + label_w - 6, y + i * SQ + SQ // 2 + 4, lab, 11, "end", fill="#666666"))
    for c in p.cells:
        r, k = c.row - p.top, c.col - p.left
        if 0 <= r < p.rows and 0 <= k < p.cols:
            out += _cell(c, x0 + label_w + k * cw, y + r * SQ, cw)
    y += p.rows * SQ
    for n in _notes(p):
        y += 18
        out.append(_text(x0, y, n, 12, fill="#333333"))
    out.append("</g>")
    return out


def _layout(panels: Sequence[Panel], x0: int, y0: int) -> tuple[list[tuple[Panel, int, int]], int, int]:
    placed = []
    x, y, row_h, widest = x0, y0, 0, 0
    for p in panels:
        w, h = _panel_size(p)
        if x > x0 and x + w > MAX_WIDTH - GAP:
            x, y, row_h = x0, y + row_h + GAP, 0
        placed.append((p, x, y))
        x += w + GAP + 8
        row_h = max(row_h, h)
        widest = max(widest, x)
    return placed, widest, y + row_h


def render(scene: Scene) -> str:
    """The scene as a standalone SVG document."""
    head = [_text(GAP, 30, scene.title, 20, weight="bold")]
    y = 30
    for line in scene.status:
        y += 18
        head.append(_text(GAP, y, line, 13, fill="#333333"))
    if scene.scores:
        y += 20
        label = "final scores" if any("over" in s for s in scene.status) else "scores so far"
        head.append(_text(GAP, y, f"{label}: " + " · ".join(f"{n} {v}" for n, v in scene.scores), 13, weight="bold"))
    placed, widest, bottom = _layout(scene.panels, GAP, y + 20)
    body: list[str] = []
    for p, x, py in placed:
        body += _panel(p, x, py)
    height = bottom + 16
    width = max(widest + GAP, 420)
    if scene.legend:
        x = GAP
        for colour, label in scene.legend:
            w = 24 + 7 * len(label)
            if x > GAP and x + w > width - GAP:
                x, height = GAP, height + 20
            body.append(
                f'<rect x="{x}" y="{height - 2}" width="13" height="13" rx="2" fill="{esc(colour)}" stroke="#555555"/>'
            )
            body.append(_text(x + 18, height + 9, label, 12, fill="#333333"))
            x += w + 12
        height += 24
    if scene.caption:
        height += 8
        body.append(f'<rect x="0" y="{height - 6}" width="100%" height="30" fill="#fff0e0"/>')
        body.append(
            f'<rect x="{GAP}" y="{height + 2}" width="12" height="12" fill="none" stroke="{LAST}" stroke-width="3"/>'
        )
        body.append(_text(GAP + 20, height + 13, "last: " + scene.caption, 13, fill="#5a3200"))
        height += 26
    defs = (
        '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#9e9e9e" '
        'stroke-width="2"/></pattern></defs>'
    )
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="{FONT}">',
            defs,
            f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
            *head,
            *body,
            "</svg>",
            "",
        ]
    )
