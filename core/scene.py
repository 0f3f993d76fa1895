"""A position as plain data — a *scene* — for every renderer (SVG, HTML, TUI).

Each game describes a position once (``core/<game>/scene.py``), built from a
state a seat may see: :func:`scene_of` folds the referee's state through
``game.view`` before the game's builder sees it, so hidden information never
reaches a scene.  A scene is panels (titled grids of cells with coordinates,
kind, colour, label and marks), status lines and scores so far; renderers keep
each game's look through the cells' kinds and colours, not through drawing code
of their own.

Marks a renderer should show: ``last`` (changed by the last decision),
``hidden`` (a card or tile the viewer may not see), ``target`` (where the next
decision may place something), ``selected`` (the square a player picked),
``active`` (whose turn).  A panel marked ``board`` holds squares a command can
name (``Game.square_of``); its ``owner`` is the seat whose board it is (None:
a shared board such as Point City's market); a panel marked ``flow`` is a row
of cards a renderer may wrap to its width.

>>> a = Scene("t", panels=(Panel("p", 1, 2, (Cell(0, 0, "R", "#fff", "R"),)),))
>>> b = Scene("t", panels=(Panel("p", 1, 2, (Cell(0, 0, "R", "#fff", "R"), Cell(0, 1, "C", "#00f", "C"))),))
>>> [c.marks for c in mark_changes(a, b).panels[0].cells]
[(), ('last',)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from msgspec.structs import replace

from core.engine import decision_start


class Cell(msgspec.Struct, frozen=True):
    row: int
    col: int
    kind: str
    """The game's own code (``R``, ``Fe``, ``card``, ``empty``…)."""
    colour: str
    """A fill colour, ``#rrggbb``."""
    label: str = ""
    """Short text on the cell (a few characters; ``\n`` separates lines)."""
    marks: tuple[str, ...] = ()
    detail: str = ""
    """A longer description (a tooltip)."""
    ink: str = "#111111"
    """The label's colour."""


class Panel(msgspec.Struct, frozen=True):
    """A titled grid: a city, a board, a market, or a row of cards."""

    title: str
    rows: int
    cols: int
    cells: tuple[Cell, ...] = ()
    """Cells at their game coordinates: grid row ``cell.row - top``, column ``cell.col - left``."""
    row_labels: tuple[str, ...] = ()
    col_labels: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    """Lines under the grid (coins, hand, tokens…)."""
    marks: tuple[str, ...] = ()
    """``active``: the panel of the seat to act; ``you``: the viewer's own."""
    cell_width: int = 1
    """Cells are this many squares wide (Point City's cards carry more text)."""
    top: int = 0
    left: int = 0
    """The game coordinates of the grid's top-left square (a Card City frame moves)."""
    owner: int | None = None
    """The seat whose board or tableau this is (None: shared, or not a seat's)."""
    summary: str = ""
    """One line of what the panel holds that a decision reads (Point City: the cards a
    payment names), for a screen too short to show the panel beside the board."""


class Scene(msgspec.Struct, frozen=True):
    title: str
    status: tuple[str, ...] = ()
    panels: tuple[Panel, ...] = ()
    scores: tuple[tuple[str, int], ...] = ()
    """Scores so far (or final), player by player."""
    caption: str = ""
    """The last event, described."""
    legend: tuple[tuple[str, str], ...] = ()
    """What the colours mean: ``(colour, text)`` pairs."""
    notation: str = ""
    """How to read the labels and commands (Point City's ``t4``, ``pay``), for text legends."""


def mark_changes(before: Scene | None, after: Scene) -> Scene:
    """``after`` with the cells the last decision changed marked ``last``."""
    if before is None:
        return after
    old = {
        (p.title, c.row, c.col): (c.kind, c.label, c.colour)
        for p in before.panels
        for c in p.cells
    }
    titles = {p.title for p in before.panels}
    panels = []
    for p in after.panels:
        if p.title not in titles:  # a panel that just appeared (a new offer): no marks
            panels.append(p)
            continue
        cells = tuple(
            replace(c, marks=(*c.marks, "last"))
            if old.get((p.title, c.row, c.col)) != (c.kind, c.label, c.colour) and c.kind != "empty"
            else c
            for c in p.cells
        )
        panels.append(replace(p, cells=cells))
    return replace(after, panels=tuple(panels))


def board_panel(scene: Scene, seat: int) -> int | None:
    """The index of the panel ``seat``'s commands name squares on (``Game.square_of``)."""
    shared = None
    for i, p in enumerate(scene.panels):
        if "board" not in p.marks:
            continue
        if p.owner == seat:
            return i
        if p.owner is None and shared is None:
            shared = i
    return shared


def mark_best(scene: Scene, index: int, square: tuple[int, int]) -> Scene:
    """Panel ``index`` with ``square`` marked ``best``: the better move an analysis
    found at a marked decision (issue 25); the grid widened to hold it as
    :func:`mark_targets` widens it, its other marks kept.

    >>> p = Panel("c", 1, 1, (Cell(0, 0, "R", "#fff", "R", ("target",)),), row_labels=("0",), col_labels=("0",))
    >>> q = mark_best(Scene("t", panels=(p,)), 0, (0, 1)).panels[0]
    >>> [(c.col, c.marks) for c in q.cells]
    [(0, ('target',)), (1, ('best',))]
    """
    p = scene.panels[index]
    targets = [(c.row, c.col) for c in p.cells if "target" in c.marks]
    if square not in {(c.row, c.col) for c in p.cells}:  # widen the grid to hold it, as mark_targets does
        selected = next(((c.row, c.col) for c in p.cells if "selected" in c.marks), None)
        scene = mark_targets(scene, index, [*targets, square], selected)
    wide = scene.panels[index]

    def marked(c: Cell) -> Cell:
        kept = tuple(m for m in c.marks if m != "target" or square in targets)
        return replace(c, marks=(*kept, "best"))

    cells = tuple(marked(c) if (c.row, c.col) == square else c for c in wide.cells)
    return replace(scene, panels=scene.panels[:index] + (replace(wide, cells=cells),) + scene.panels[index + 1:])


def _extend_labels(labels: tuple[str, ...], first: int, start: int, count: int) -> tuple[str, ...]:
    """``labels`` (for grid positions from ``first``) carried on to ``count`` positions from ``start``,
    when they are consecutive numbers (``3 4 5``) or letters (``C D E``); otherwise unchanged."""
    if not labels:
        return labels
    if all(x.lstrip("-").isdigit() for x in labels):
        base = int(labels[0]) - first
        if tuple(labels) == tuple(str(base + first + i) for i in range(len(labels))):
            return tuple(str(base + n) for n in range(start, start + count))
    if all(len(x) == 1 and x.isalpha() and x.isupper() for x in labels):
        base = ord(labels[0]) - first
        if tuple(labels) == tuple(chr(ord(labels[0]) + i) for i in range(len(labels))):
            return tuple(chr(base + n) if 0 <= base + n - ord("A") < 26 else "?" for n in range(start, start + count))
    return labels


def mark_targets(
    scene: Scene, index: int, squares: Sequence[tuple[int, int]], selected: tuple[int, int] | None = None,
    blank: str = "#f4f1ea",
) -> Scene:
    """Panel ``index`` with ``squares`` marked ``target`` and ``selected`` marked.

    A target outside the panel's grid (a Card City city may grow past the frame
    that centres it) widens the grid to hold it, with blank cells; numeric
    labels (numbers or letters) are extended to match.

    >>> p = Panel("c", 1, 1, (Cell(0, 0, "R", "#fff", "R"),), row_labels=("0",), col_labels=("0",))
    >>> s = mark_targets(Scene("t", panels=(p,)), 0, [(0, 1)], (0, 1))
    >>> q = s.panels[0]
    >>> (q.rows, q.cols, q.col_labels, [c.marks for c in q.cells])
    (1, 2, ('0', '1'), [(), ('target', 'selected')])
    """
    p = scene.panels[index]
    wanted = set(squares) | ({selected} if selected else set())
    top = min([p.top] + [r for r, _ in wanted])
    left = min([p.left] + [c for _, c in wanted])
    bottom = max([p.top + p.rows - 1] + [r for r, _ in wanted])
    right = max([p.left + p.cols - 1] + [c for _, c in wanted])
    have = {(c.row, c.col): c for c in p.cells}
    targets = set(squares)
    cells = []
    for r in range(top, bottom + 1):
        for c in range(left, right + 1):
            cell = have.get((r, c)) or Cell(r, c, "empty", blank, "", (), f"{r},{c}", "#9a9a9a")
            marks = tuple(m for m in cell.marks if m not in ("target", "selected"))
            marks += ("target",) if (r, c) in targets else ()
            marks += ("selected",) if (r, c) == selected else ()
            cells.append(replace(cell, marks=marks) if marks != cell.marks else cell)
    rows, cols = bottom - top + 1, right - left + 1
    row_labels, col_labels = p.row_labels, p.col_labels
    if (rows, cols) != (p.rows, p.cols):
        row_labels = _extend_labels(p.row_labels, p.top, top, rows)
        col_labels = _extend_labels(p.col_labels, p.left, left, cols)
    panel = replace(p, rows=rows, cols=cols, top=top, left=left, cells=tuple(cells),
                    row_labels=row_labels, col_labels=col_labels)
    panels = scene.panels[:index] + (panel,) + scene.panels[index + 1:]
    return replace(scene, panels=panels)


def scene_of(game: Any, state: Any, seat: int | None, caption: str = "") -> Scene:
    """The scene of ``state`` as ``seat`` may see it (None: the referee sees all)."""
    seen = state if seat is None else game.view(state, seat)
    scene = scene_or_text(game, seen, seat)
    return replace(scene, caption=caption) if caption else scene


def scene_or_text(game: Any, seen: Any, seat: int | None) -> Scene:
    """``game.scene(seen, seat)``, or for a game that draws none (the contract's
    default) a scene of its rendered text alone: no panels, the text's lines as
    the status, so every picture, page and legend has something to show."""
    try:
        scene: Scene = game.scene(seen, seat)
    except NotImplementedError:
        from core.markup import plain

        lines = tuple(x for x in plain(game.render(seen, seat)).splitlines() if x.strip())
        return Scene(title=game.spec.title, status=lines)
    return scene


def scene_at(
    game: Any,
    events: list[Any],
    states: list[Any],
    seq: int,
    seat: int | None,
    players: Any,
    cache: dict[int, Scene] | None = None,
) -> Scene:
    """The scene after event ``seq`` (1-based), the last decision's cells marked.

    ``states[i]`` is the state after ``events[i]``.  ``cache`` (index -> unmarked
    scene, for one seat) saves rebuilding scenes when drawing every step.
    """
    cache = {} if cache is None else cache

    def plain(i: int) -> Scene:
        if i not in cache:
            cache[i] = scene_of(game, states[i], seat)
        return cache[i]

    start = decision_start(game, events, seq)
    before = plain(start - 2) if start >= 2 else None
    event = events[seq - 1] if seat is None else game.redact(events[seq - 1], seat)
    caption = f"#{seq} {game.describe(event, players)}"
    return mark_changes(before, replace(plain(seq - 1), caption=caption))


def square_name(panel: Panel, row: int, col: int) -> str:
    """A square as the board's labels name it: ``B3`` (letters across) or ``row,col``."""
    r, c = row - panel.top, col - panel.left
    rl = panel.row_labels[r] if 0 <= r < len(panel.row_labels) else str(row)
    cl = panel.col_labels[c] if 0 <= c < len(panel.col_labels) else str(col)
    if cl.isalpha() and len(cl) == 1:
        return f"{cl}{rl}"
    return f"{rl},{cl}" if rl and cl else f"{row},{col}"


def _what(cell: Cell | None) -> str:
    if cell is None or cell.kind == "empty":
        return "empty"
    return cell.detail or cell.label.replace("\n", " ") or cell.kind


def scene_differences(a: Scene, b: Scene) -> list[str]:
    """How two positions differ, in the game's words: squares, cards, notes, scores.

    >>> x = Scene("t", panels=(Panel("ada", 1, 2, (Cell(0, 0, "R", "#fff", "R", detail="Residential"),),
    ...                             row_labels=("0",), col_labels=("0", "1"), marks=("board",)),))
    >>> y = Scene("t", panels=(Panel("ada", 1, 2, (Cell(0, 1, "C", "#fff", "C", detail="Commercial"),),
    ...                             row_labels=("0",), col_labels=("0", "1"), marks=("board",)),))
    >>> scene_differences(x, y)
    ['ada 0,0: Residential → empty', 'ada 0,1: empty → Commercial']
    """
    out: list[str] = []
    sa, sb = dict(a.scores), dict(b.scores)
    for name in sa:
        if name in sb and sa[name] != sb[name]:
            out.append(f"score {name}: {sa[name]} → {sb[name]}")
    for la, lb in zip(a.status, b.status):
        if la != lb:
            out.append(f"table: {la} → {lb}")
    pb = {p.title: p for p in b.panels}
    pa = {p.title: p for p in a.panels}
    for p in a.panels:
        q = pb.get(p.title)
        if q is None:
            out.append(f"only in A: {p.title}")
            continue
        ca = {(c.row, c.col): c for c in p.cells}
        cb = {(c.row, c.col): c for c in q.cells}
        grid = "board" in p.marks
        if grid:
            for key in sorted(set(ca) | set(cb)):
                wa, wb = _what(ca.get(key)), _what(cb.get(key))
                if wa != wb:
                    out.append(f"{p.title} {square_name(p, *key)}: {wa} → {wb}")
        else:
            xa = sorted(_what(c) for c in p.cells)
            xb = sorted(_what(c) for c in q.cells)
            if xa != xb:
                gone = [x for x in xa if x not in xb]
                new = [x for x in xb if x not in xa]
                out.append(f"{p.title}: A has {', '.join(gone) or 'nothing else'}; B has {', '.join(new) or 'nothing else'}")
        for na, nb in zip(p.notes, q.notes):
            if na != nb:
                out.append(f"{p.title}: {na} → {nb}")
    out += [f"only in B: {t}" for t in pb if t not in pa]
    return out
