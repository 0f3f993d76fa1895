"""Widgets that render a :class:`GameModel`: the board, the status line, the timeline."""

from __future__ import annotations

from rich.errors import MarkupError
from rich.text import Text
from textual.containers import VerticalScroll
from textual.events import Click
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from cli.output import clean
from cli.tui.model import GameModel


def markup(text: str) -> Text:
    """The game's rich markup as coloured text (plain if the markup is malformed);
    terminal controls from foreign text (names, notes) stripped first (cli.output.clean)."""
    text = clean(text)
    try:
        return Text.from_markup(text)
    except MarkupError:
        return Text(text)


class Board(VerticalScroll):
    """The game's own ``render`` of a state, scrollable."""

    DEFAULT_CLASSES = "board"

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(Text("loading…"), classes="board-text")

    def show(self, text: Text) -> None:
        self.query_one(".board-text", Static).update(text)


class StatusLine(Static):
    """Seq, round, whose turn or the result, and whose view is shown."""

    def show(self, model: GameModel) -> None:
        self.update(Text(clean(model.status())))


class Timeline(Widget, can_focus=True):
    """The events as readable lines, a window around the cursor (cheap on long logs)."""

    class Picked(Message):
        def __init__(self, index: int) -> None:
            self.index = index
            super().__init__()

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.model: GameModel | None = None
        self._start = 0

    def show(self, model: GameModel) -> None:
        self.model = model
        self.refresh()

    def window(self) -> range:
        model = self.model
        if model is None:
            return range(0)
        height = max(1, self.size.height)
        n = len(model.events)
        start = max(0, min(model.cursor - height // 2, n - height))
        return range(start, min(start + height, n))

    def render(self) -> Text:
        model = self.model
        if model is None:
            return Text("loading…")
        rows = self.window()
        self._start = rows.start
        width = max(1, self.size.width)
        out = []
        for i in rows:
            line = Text(f"{i + 1:>5} ", style="dim")
            if model.notes.get(i + 1):  # a note here; its text is on the status line
                line += Text("✎ ", style="bold yellow")
            line += Text(clean(" ".join(model.line(i).split())))
            line.truncate(width, overflow="ellipsis")
            if i == model.cursor:
                line.stylize("reverse")
            out.append(line)
        return Text("\n").join(out)

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if self.model is not None and offset is not None:
            self.post_message(self.Picked(self._start + offset.y))
