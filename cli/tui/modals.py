"""Modal screens: the fork seed prompt, a text panel (explain), the fork tree."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option


class SeedModal(ModalScreen[str | None]):
    """Ask for a fork's seed: the text ('' = the same seed), or None if cancelled."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, seq: int) -> None:
        super().__init__()
        self.seq = seq

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Fork after seq {self.seq}. New seed (blank = the same seed):")
            yield Input(placeholder="seed", id="seed")
            yield Label("Enter forks · Escape cancels", classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class TextModal(ModalScreen[None]):
    """A titled block of plain text; any of Escape, Enter or q closes it."""

    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("enter", "close", "close", show=False),
        Binding("q", "close", "close", show=False),
    ]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self.title_text, style="bold"))
            with VerticalScroll(classes="dialog-body"):
                yield Static(Text(self.body), id="modal-text")
            yield Label("Escape closes", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)


class TreeModal(ModalScreen[str | None]):
    """A game and its forks (``citylog tree``); Enter opens the chosen game."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, rows: list[tuple[str, str]], current: str) -> None:
        super().__init__()
        self.rows = rows
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text("the game and its forks", style="bold"))
            yield OptionList(*(Option(Text(line), id=gid) for gid, line in self.rows), id="tree")
            yield Label("Enter opens a game · Escape cancels", classes="hint")

    def on_mount(self) -> None:
        tree = self.query_one(OptionList)
        tree.highlighted = next((i for i, (gid, _) in enumerate(self.rows) if gid == self.current), 0)
        tree.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
