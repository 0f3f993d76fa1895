"""The play panel: the legal commands of a human seat to act at the end of the log."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from core.engine import RulesError
from cli.tui.model import LEGAL_LIMIT, GameModel


class PlayPanel(Vertical):
    """Pick a legal command (Enter) or type one; posts :class:`Chosen`, the screen submits."""

    class Chosen(Message):
        def __init__(self, seat: int, command: Any) -> None:
            self.seat = seat
            self.command = command
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model: GameModel | None = None
        self.seat: int | None = None
        self.commands: list[tuple[str, Any]] = []
        self._key: tuple[Any, ...] | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="play-title")
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
        if seat is None:
            bots = model.bots_to_act()
            self.display = bool(bots)
            if bots:
                title.update(Text(f"bots to act ({model.names(bots)}): press b to let them play"))
            return
        self.display = True
        if not model.at_end:
            title.update(Text(f"{model.names([seat])} to act at seq {model.version}: press End to play"))
            return
        title.update(Text(f"{model.names([seat])} to act — choose a command (Enter) or type one", style="bold"))
        key = (model.game_id, model.version, seat)
        if key != self._key:
            self._key, self.seat = key, seat
            self.commands = model.legal(seat)
            options = self.query_one("#legal", OptionList)
            options.clear_options()
            options.add_options([Option(Text(text)) for text, _ in self.commands])
            more = " (first %d)" % LEGAL_LIMIT if len(self.commands) >= LEGAL_LIMIT else ""
            self.say(f"{len(self.commands)} legal command(s){more}")
            if self.commands:
                options.highlighted = 0

    def say(self, message: str, error: bool = False) -> None:
        self.query_one("#play-message", Static).update(Text(message, style="bold red" if error else "dim"))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.seat is not None and 0 <= event.option_index < len(self.commands):
            self.post_message(self.Chosen(self.seat, self.commands[event.option_index][1]))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.model is None or self.seat is None or not event.value.strip():
            return
        try:
            command = self.model.parse(self.seat, event.value.strip())
        except RulesError as exc:
            self.say(f"illegal: {exc}", error=True)
            return
        self.post_message(self.Chosen(self.seat, command))
