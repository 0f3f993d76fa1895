"""The play panel: the legal commands of a human seat to act at the end of the log.

Commands that place something on the board (``Game.square_of``) also get a
clickable square in a small grid above the list: a square narrows the list to
its commands, and submits at once when it holds only one.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from core.engine import RulesError
from cli.tui.model import LEGAL_LIMIT, GameModel, PlayModel, Square


def square_id(square: Square) -> str:
    """The stable widget id of a square's button: ``sq-2-m1`` is row 2, column -1."""
    return "sq-" + "-".join(f"m{-n}" if n < 0 else str(n) for n in square)


def square_label(square: Square) -> str:
    return f"{square[0]},{square[1]}"


class SquareButton(Button):
    """One square of the grid; knows its (row, col)."""

    def __init__(self, square: Square, selected: bool) -> None:
        super().__init__(
            square_label(square),
            variant="primary" if selected else "default",
            id=square_id(square),
            classes="square",
            compact=True,
        )
        self.square = square
        self.styles.line_pad = 0  # the label fills the narrow button (tcss will not parse 0 here)


class SquareGrid(Widget):
    """The squares of the legal commands over their bounding box; blanks elsewhere."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.play: PlayModel | None = None

    def show(self, play: PlayModel | None) -> None:
        """Rebuild the buttons for a new decision (a recompose waits for the old ones to go)."""
        self.play = play
        bounds = play.bounds() if play is not None else None
        self.styles.grid_size_columns = len(bounds[1]) if bounds else 1
        self.refresh(recompose=True)

    def mark(self) -> None:
        """Highlight the filtered square (no rebuild)."""
        chosen = self.play.square_filter if self.play is not None else None
        for button in self.query(SquareButton):
            button.variant = "primary" if button.square == chosen else "default"

    def compose(self) -> ComposeResult:
        play = self.play
        bounds = play.bounds() if play is not None else None
        if play is None or bounds is None:
            return
        present = set(play.grid_squares())
        rows, cols = bounds
        for r in rows:
            for c in cols:
                if (r, c) in present:
                    yield SquareButton((r, c), (r, c) == play.square_filter)
                else:
                    yield Static("", classes="square-blank")


class PlayPanel(Vertical):
    """Pick a legal command (Enter), a square, or type one; posts :class:`Chosen`, the screen submits."""

    BINDINGS = [Binding("a", "all_squares", "all commands", show=False)]

    class Chosen(Message):
        def __init__(self, seat: int, command: Any) -> None:
            self.seat = seat
            self.command = command
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model: GameModel | None = None
        self.play: PlayModel | None = None

    @property
    def seat(self) -> int | None:
        return self.play.seat if self.play is not None else None

    @property
    def commands(self) -> list[tuple[str, Any]]:
        """The commands listed now (narrowed to the filtered square, if any)."""
        return self.play.visible() if self.play is not None else []

    def compose(self) -> ComposeResult:
        yield Static("", id="play-title")
        with Horizontal(id="square-row"):
            yield SquareGrid(id="squares")
            everything = Button("all", id="sq-all", compact=True)
            everything.styles.line_pad = 0
            yield everything
        yield OptionList(id="legal")
        yield Input(placeholder="type a command, Enter submits", id="typed")
        yield Static("", id="play-message")

    def show(self, model: GameModel) -> None:
        """Show what may be played at the end of the log (hidden when nothing may)."""
        self.model = model
        seat = model.acting_seat()
        title = self.query_one("#play-title", Static)
        playing = seat is not None and model.at_end
        self.query_one("#legal", OptionList).display = playing
        self.query_one("#typed", Input).display = playing
        row = self.query_one("#square-row")
        row.display = False
        if seat is None:
            self.display = False
            return
        self.display = True
        if not model.at_end:
            title.update(Text(f"{model.names([seat])} to act at seq {model.version}: press End to play"))
            return
        title.update(Text(f"{model.names([seat])} to act — choose a command (Enter) or type one", style="bold"))
        play = model.play(seat)
        row.display = play.bounds() is not None
        if play is not self.play:
            self.play = play
            self.query_one(SquareGrid).show(play)
            self.list_commands()

    def list_commands(self) -> None:
        """Fill the list from the play model (all commands, or the filtered square's)."""
        play = self.play
        if play is None:
            return
        shown = play.visible()
        options = self.query_one("#legal", OptionList)
        options.clear_options()
        options.add_options([Option(Text(text)) for text, _ in shown])
        if shown:
            options.highlighted = 0
        self.query_one(SquareGrid).mark()
        if play.square_filter is None:
            more = " (first %d)" % LEGAL_LIMIT if len(play.commands) >= LEGAL_LIMIT else ""
            hint = " — or pick a square" if play.bounds() is not None else ""
            self.say(f"{len(play.commands)} legal command(s){more}{hint}")
        else:
            self.say(f"{len(shown)} command(s) on {square_label(play.square_filter)} — a: all")

    def say(self, message: str, error: bool = False) -> None:
        self.query_one("#play-message", Static).update(Text(message, style="bold red" if error else "dim"))

    def choose(self, command: Any) -> None:
        if self.play is not None:
            self.post_message(self.Chosen(self.play.seat, command))

    # -- events ------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if self.play is None:
            return
        if event.button.id == "sq-all":
            self.action_all_squares()
            return
        if isinstance(event.button, SquareButton):
            only = self.play.pick_square(event.button.square)
            self.list_commands()
            if only is not None:
                self.choose(only)
            else:
                self.query_one("#legal", OptionList).focus()

    def action_all_squares(self) -> None:
        if self.play is not None and self.play.square_filter is not None:
            self.play.clear_filter()
            self.list_commands()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        shown = self.commands
        if 0 <= event.option_index < len(shown):
            self.choose(shown[event.option_index][1])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.model is None or self.play is None or not event.value.strip():
            return
        try:
            command = self.model.parse(self.play.seat, event.value.strip())
        except RulesError as exc:
            self.say(f"illegal: {exc}", error=True)
            return
        self.choose(command)
