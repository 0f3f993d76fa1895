"""The play panel's focusable widgets, with the keys they take shown in the footer.

Textual's footer lists the bindings of the focused widget and its ancestors;
an :class:`~textual.widgets.Input` takes every printable key, so the screen's
letter shortcuts leave the footer while it has the focus.  These subclasses
name what Enter, Tab and Escape do there, so the footer is never blank
(issue 26, item 4).
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import Input, OptionList


class CommandList(OptionList):
    """The legal commands; typing a letter here moves to :class:`CommandInput` (cli/tui/play.py)."""

    BINDINGS = [
        Binding("enter", "select", "choose"),
        Binding("tab", "app.focus_next", "type a command", show=True),
        Binding("escape", "screen.back", "back to the events", show=True),
    ]


class CommandInput(Input):
    """A command typed in full: every printable key is text, never a shortcut; cleared
    once read, with a history of what was typed (Up/Down)."""

    BINDINGS = [
        Binding("up", "history(-1)", "earlier command", show=False),
        Binding("down", "history(1)", "later command", show=False),
        Binding("enter", "submit", "check and choose"),
        Binding("shift+tab", "app.focus_previous", "the list", show=True),
        Binding("escape", "screen.back", "back to the events", show=True),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # a letter typed on the list arrives here before the focus does: selecting the text on
        # focus would let the next key replace it
        kwargs.setdefault("select_on_focus", False)
        super().__init__(*args, **kwargs)
        self.history: list[str] = []
        self.back = 0
        """How far back in ``history`` the input shows (0: a new command)."""

    def taken(self) -> str:
        """The text typed, now cleared from the input and kept in the history."""
        text = self.value.strip()
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self.back = 0
        self.value = ""
        return text

    def action_history(self, step: int) -> None:
        self.back = max(0, min(len(self.history), self.back - step))
        self.value = self.history[-self.back] if self.back else ""
        self.cursor_position = len(self.value)
