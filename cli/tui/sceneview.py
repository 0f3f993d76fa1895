"""The board: a position's scene (core/scene.py) drawn as Textual widgets.

:class:`SceneView` holds a header (status lines, scores, caption) and one
:class:`PanelView` per panel in a grid whose column count follows the space
(boards side by side when they fit, stacked when not).  A panel is drawn with
``core.scene_text.layout``; a click or Enter on a board square posts
:class:`PanelView.Picked` with the square's game coordinates, which the play
panel turns into commands.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.containers import Grid, VerticalScroll
from textual.events import Click, Resize
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from cli.output import clean
from core.scene import Panel, Scene
from core.scene_text import Layout, Seg, cell_height, cell_width, layout

Square = tuple[int, int]


def _style(seg: Seg) -> Style:
    return Style(color=seg.fg or None, bgcolor=seg.bg or None, bold=seg.bold)


def _wrap(text: str, width: int) -> list[str]:
    out: list[str] = []
    line = ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = "  " + word
        else:
            line = f"{line} {word}" if line else word
    return out + [line]


class PanelView(Widget, can_focus=False):
    """One panel: its title, the grid of cells, its notes."""

    BINDINGS = [
        Binding("up", "move(-1, 0)", "↑", show=False),
        Binding("down", "move(1, 0)", "↓", show=False),
        Binding("left", "move(0, -1)", "←", show=False),
        Binding("right", "move(0, 1)", "→", show=False),
        Binding("enter,space", "pick", "pick square"),
    ]

    class Picked(Message):
        """A square of a board panel was clicked or chosen with Enter."""

        def __init__(self, index: int, square: Square) -> None:
            self.index = index
            self.square = square
            super().__init__()

    def __init__(self, index: int, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.index = index
        self.zoom = 1
        self.panel: Panel | None = None
        self.cursor: Square | None = None
        self._layout = Layout()
        self._top = 1
        self._cache: dict[int | None, tuple[list[Text], Layout]] = {}
        self._strips: list[Strip] = []
        self._strips_key: object = None

    def show(self, panel: Panel, zoom: int = 1) -> None:
        if panel == self.panel and zoom == self.zoom:
            return
        if zoom != self.zoom:
            self._cache.clear()
            self.panel = None  # a new size: lay out again
            self.zoom = zoom
        old = self.panel
        old_height = len(self._lines(self.size.width or None)[0]) if old is not None else 0
        old_width = self.natural_width()
        self.panel = panel
        self._cache.clear()
        self._strips_key = None
        self.can_focus = "board" in panel.marks and any("target" in c.marks for c in panel.cells)
        if self.cursor is None or not self._inside(self.cursor):
            targets = [(c.row, c.col) for c in panel.cells if "target" in c.marks]
            self.cursor = targets[0] if targets else None
        width = self.size.width or None
        height = len(self._lines(width)[0])
        same_shape = old is not None and old_height == height and old_width == self.natural_width()
        self.refresh(layout=not same_shape)

    def _inside(self, square: Square) -> bool:
        p = self.panel
        return p is not None and p.top <= square[0] < p.top + p.rows and p.left <= square[1] < p.left + p.cols

    def _lines(self, width: int | None) -> tuple[list[Text], Layout]:
        """The panel's lines at ``width`` (cached until the panel changes; copies, since render marks them)."""
        if width not in self._cache:
            self._cache[width] = self._draw(width)
        lines, grid = self._cache[width]
        return [t.copy() for t in lines], grid

    def _draw(self, width: int | None) -> tuple[list[Text], Layout]:
        p = self.panel
        if p is None:
            return [Text("")], Layout()
        grid = layout(p, width, self.zoom)
        title = Text()
        if "active" in p.marks:
            title.append("▶ ", style="bold yellow")
        title.append(clean(p.title), style="bold")
        if "you" in p.marks:
            title.append(" (you)", style="italic")
        lines = [title]
        for row in grid.lines:
            text = Text()
            for seg in row:
                text.append(seg.text, style=_style(seg))
            lines.append(text)
        # notes wrap at the width the panel takes (natural_width, or less when the space is
        # narrower): a grid measuring the panel at a wider column gets the height it draws
        natural = max((grid if width is None else self._lines(None)[1]).width, len(p.title) + 8, 24)
        wrap = max(10, min(width or natural, natural))
        for note in p.notes:
            lines += [Text(clean(x), style="dim") for x in _wrap(note, wrap)]
        return lines, grid

    def natural_width(self) -> int:
        """The grid's width (or the title's), unwrapped."""
        p = self.panel
        if p is None:
            return 20
        return max(self._lines(None)[1].width, len(p.title) + 8, 24)

    def get_content_width(self, container, viewport) -> int:  # type: ignore[no-untyped-def]
        return min(self.natural_width(), container.width) if container.width else self.natural_width()

    def get_content_height(self, container, viewport, width: int) -> int:  # type: ignore[no-untyped-def]
        return len(self._lines(width)[0])

    def render_line(self, y: int) -> Strip:
        """Line API: the panel's lines as cached strips (no markup parsing per frame)."""
        width = self.size.width
        key = (width, self.cursor if self.has_focus else None)
        if self._strips_key != key:
            lines, self._layout = self._lines(width or None)
            if key[1] is not None:
                for line, x0, x1, row, col in self._layout.hits:
                    if (row, col) == key[1] and 0 <= line + self._top < len(lines):
                        lines[line + self._top].stylize("reverse", x0, x1)
            console = self.app.console
            self._strips = [
                Strip(list(t.render(console)), t.cell_len).apply_style(self.rich_style).crop_extend(
                    0, width, self.rich_style
                )
                for t in lines
            ]
            self._strips_key = key
        if 0 <= y < len(self._strips):
            return self._strips[y]
        return Strip.blank(width, self.rich_style)

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self.panel is None or "board" not in self.panel.marks:
            return
        square = self._layout.cell_at(offset.x, offset.y - self._top)
        if square is not None:
            self.cursor = square
            self.refresh()
            self.post_message(self.Picked(self.index, square))

    def action_move(self, dr: int, dc: int) -> None:
        if self.cursor is None:
            return
        square = (self.cursor[0] + dr, self.cursor[1] + dc)
        if self._inside(square):
            self.cursor = square
            self.refresh()

    def action_pick(self) -> None:
        if self.cursor is not None:
            self.post_message(self.Picked(self.index, self.cursor))

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


class SceneView(VerticalScroll, can_focus=False):
    """A whole scene: header lines, then the panels in a grid sized to the space."""

    DEFAULT_CLASSES = "board"

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(Text("loading…"), classes="scene-head")
        yield Static(Text(""), classes="scene-extra")
        yield Grid(classes="panels")
        yield Static(Text(""), classes="scene-tail")

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.scene: Scene | None = None

    def show(self, scene: Scene, highlight: Text | None = None) -> None:
        """Draw ``scene``; ``highlight`` replaces the header (the diff's differences)."""
        self.scene = scene
        head = Text()
        for i, line in enumerate(scene.status):
            if not line.startswith("to act:"):  # the status bar names who is to act
                head.append(("\n" if head else "") + clean(line), style="bold" if i == 0 else "")
        extra = Text()
        if scene.scores:
            over = bool(scene.status) and scene.status[0].startswith("game over")
            extra.append("final scores: " if over else "scores if it ended now: ", style="dim")
            extra.append(clean(" · ".join(f"{name} {n}" for name, n in scene.scores)), style="dim")
        if scene.caption:
            extra.append(("\n" if extra else "") + clean(scene.caption), style="italic")
        if highlight is not None:
            head = highlight
        tail = Text()
        if self.short() and highlight is None:
            # a short terminal: the first status line above the boards, the rest below them,
            # so the boards a decision needs are on screen without scrolling [issue 26, item 3]
            first, *rest = head.split("\n") if head else [Text()]
            head = first
            tail = Text("\n").join([*rest, *([extra] if extra else [])])
            extra = Text()
        self.query_one(".scene-head", Static).update(head)
        self.query_one(".scene-extra", Static).update(extra)
        self.query_one(".scene-tail", Static).update(tail)
        grid = self.query_one(".panels", Grid)
        views = list(grid.query(PanelView))
        if len(views) != len(scene.panels):
            grid.remove_children()
            views = [PanelView(i, classes="panel") for i in range(len(scene.panels))]
            grid.mount_all(views)
        zoom = self.zoom()
        for view, panel in zip(views, scene.panels, strict=True):
            view.show(panel, zoom if "board" in panel.marks else 1)
        mine = next((v for v in views if v.can_focus), None)  # the board the seat to act places on
        if mine is not None:
            self.call_after_refresh(mine.scroll_visible, animate=False)
        if self.size.width:
            self.fit()
        else:
            self.call_after_refresh(self.fit)

    def short(self) -> bool:
        """A short terminal (App.VERTICAL_BREAKPOINTS' ``-short``)."""
        return self.screen.has_class("-short")

    def zoom(self) -> int:
        """Bigger squares when the terminal is wide and tall enough (200x60 uses its space), and
        only if every board still fits on screen zoomed: three Card City cities at 200x60 are
        better seen whole than one and a half big."""
        if not (self.size.width >= 110 and self.app.size.height >= 50):
            return 1
        boards = [p for p in self.scene.panels if "board" in p.marks] if self.scene is not None else []
        if not boards:
            return 2
        # the zoomed geometry of core.scene_text.layout: squares 4 wider and 2 taller
        wide = max(max((len(x) for x in p.row_labels), default=0) + 1 + p.cols * (cell_width(p) + 4) for p in boards)
        tall = max(3 + len(p.notes) + p.rows * (cell_height(p) + 2) for p in boards)
        columns = max(1, (self.size.width + 1) // (wide + 2))
        return 2 if -(-len(boards) // columns) * (tall + 1) <= self.size.height else 1

    def panels(self) -> list[PanelView]:
        return list(self.query(PanelView))

    def fit(self) -> None:
        """As many columns as the widest board allows (a wide terminal shows boards side by side)."""
        grid = self.query_one(".panels", Grid)
        views = self.panels()
        if not views:
            return
        boards = [v for v in views if v.panel is not None and "board" in v.panel.marks]
        widest = max((v.natural_width() for v in boards or views), default=20)
        gutter = 2
        columns = max(1, min(len(views), (self.size.width - 1 + gutter) // (widest + gutter)))
        if grid.styles.grid_size_columns != columns:
            grid.styles.grid_size_columns = columns
            grid.refresh(layout=True)

    def on_resize(self, event: Resize) -> None:
        if self.scene is not None:
            self.show(self.scene)
        self.fit()
