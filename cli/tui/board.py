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
from replay.analyses import MARK_SIGNS


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


BARS = "▁▂▃▄▅▆▇█"
MARK_STYLES = {"inaccuracy": "bold cyan", "mistake": "bold yellow", "blunder": "bold red"}


def sparkline(points: list[tuple[int, float]], events: int, width: int, cursor: int) -> Text:
    """A win chance over the game in ``width`` cells (cell ``c`` covers an equal share of
    the seqs; each shows the last judged chance up to its end), the cursor's cell reversed."""
    out = Text()
    if width < 1 or not points:
        return out
    k = 0
    value = points[0][1]
    for c in range(width):
        end = (c + 1) * events / width
        while k < len(points) and points[k][0] <= end:
            value = points[k][1]
            k += 1
        here = c * events / width < cursor <= end
        out.append(BARS[min(len(BARS) - 1, max(0, int(value * len(BARS))))], style="reverse" if here else "")
    return out


class StatusLine(Static):
    """Seq, round, whose turn or the result, and whose view is shown; under it, once the
    game is analysed (issue 25), each seat's win chance over the game as a sparkline."""

    def show(self, model: GameModel, game: str | None = None) -> None:
        """``game``: the game's name first (a short terminal hides the title row)."""
        text = Text()
        if game:
            text.append(f"{game} {model.game_id} · ", style="bold")
        text.append(clean(model.status()))
        series = model.win_series()
        self.set_class(bool(series), "-analysed")
        if series:  # two rows: the status, cut to one row, then the sparklines
            text.truncate(self._width(), overflow="ellipsis")
            text.append("\n")
            text.append_text(self.sparklines(model, series))
        self.update(text)

    def _width(self) -> int:
        return max(20, self.size.width - 2) if self.size.width else 78

    def sparklines(self, model: GameModel, series: dict[str, list[tuple[int, float]]]) -> Text:
        """``alice ▃▄▆▇ 62%  bob ▅▄▂▁ 38%``: each seat's own view, the chance at the cursor."""
        width = self._width()
        out = Text("win ", style="dim")
        room = width - 4
        share = room // len(series)
        for i, (player, points) in enumerate(series.items()):
            now = next((w for q, w in reversed(points) if q <= model.seq), points[0][1])
            label = f"{clean(player)} "
            tail = f" {now:.0%}" + ("  " if i + 1 < len(series) else "")
            cells = max(4, share - len(label) - len(tail))
            out.append(label, style="bold")
            out.append_text(sparkline(points, len(model.events), cells, model.seq))
            out.append(tail)
        return out


class Timeline(Widget, can_focus=True):
    """The events as readable lines, a window around the cursor (cheap on long logs).

    An event's whole text is shown: a line longer than the widget wraps onto
    indented continuation rows (never cut with ``…``), so the window holds as
    many events as fit around the cursor."""

    class Picked(Message):
        def __init__(self, index: int) -> None:
            self.index = index
            super().__init__()

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.model: GameModel | None = None
        self._rows: list[int] = []
        """The event index drawn on each row of the last render (a click picks its event)."""
        self._wrapped: dict[tuple[int | None, int, int, bool], list[Text]] = {}
        """Rows already wrapped, by (viewer, event, width, is the cursor's); cleared per model."""

    def show(self, model: GameModel) -> None:
        if model is not self.model:
            self._wrapped.clear()
        self.model = model
        self.refresh()

    def event_rows(self, index: int, width: int) -> list[Text]:
        """Event ``index`` as rows at most ``width`` cells wide: its number, then its whole text."""
        model = self.model
        assert model is not None
        key = (model.viewer, index, width, index == model.cursor)
        rows = self._wrapped.get(key)
        if rows is None:
            rows = self._wrapped[key] = self._event_rows(index, width)
        return rows

    def _event_rows(self, index: int, width: int) -> list[Text]:
        model = self.model
        assert model is not None
        head = Text(f"{index + 1:>5} ", style="dim")
        if model.notes.get(index + 1):  # a note here; its text is on the status line
            head += Text("✎ ", style="bold yellow")
        judged = model.judged_at(index) if model.judged else None
        mark = judged.mark if judged is not None else None
        if mark:  # citylog analyse's mark on the decision (issue 25)
            head += Text(f"{MARK_SIGNS[mark]} ", style=MARK_STYLES[mark])
        body = head + Text(clean(" ".join(model.line(index).split())))
        if mark and judged is not None:  # what the mark is for: the better move and the chance lost
            j = judged.judged
            body += Text(f" — {mark}: win {j.before[j.seat]:.0%} → {j.after[j.seat]:.0%}, best {clean(j.best)}",
                         style=MARK_STYLES[mark].replace("bold ", "italic "))
        indent = 6
        rows = body.wrap(self.app.console, max(indent + 8, width), overflow="fold")
        out = [rows[0]] if rows else [head]
        for r in rows:
            r.rstrip()
        if len(rows) > 1:  # continuation rows indented under the text
            rest = Text(" ").join(rows[1:])
            out += [Text(" " * indent) + r for r in rest.wrap(self.app.console, max(8, width - indent), overflow="fold")]
        if index == model.cursor:  # one bar across the widget, over every row of the event
            out = [Text(r.plain.ljust(width), style="bold reverse") for r in out]
        return out

    def window(self) -> range:
        """The events drawn: the cursor's, then earlier and later ones alternately while they fit."""
        model = self.model
        if model is None:
            return range(0)
        height = max(1, self.size.height)
        width = max(1, self.size.width)
        n = len(model.events)
        if n == 0:
            return range(0)
        cursor = min(max(model.cursor, 0), n - 1)
        lo, hi = cursor, cursor + 1
        used = len(self.event_rows(cursor, width))
        above = 0  # rows drawn above the cursor's event
        while used < height and (lo > 0 or hi < n):
            # keep the cursor near the middle: grow above while the rows above are fewer
            if lo > 0 and (above < height // 2 or hi >= n):
                rows = len(self.event_rows(lo - 1, width))
                if used + rows > height:
                    break
                lo, used, above = lo - 1, used + rows, above + rows
            elif hi < n:
                rows = len(self.event_rows(hi, width))
                if used + rows > height:
                    break
                hi, used = hi + 1, used + rows
            else:
                break
        return range(lo, hi)

    def render(self) -> Text:
        model = self.model
        if model is None:
            return Text("loading…")
        width = max(1, self.size.width)
        out: list[Text] = []
        self._rows = []
        for i in self.window():
            rows = self.event_rows(i, width)
            out += rows
            self._rows += [i] * len(rows)
        return Text("\n").join(out)

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if self.model is not None and offset is not None and 0 <= offset.y < len(self._rows):
            self.post_message(self.Picked(self._rows[offset.y]))
