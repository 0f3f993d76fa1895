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
    """A command typed in full: every printable key is text, never a shortcut."""

    BINDINGS = [
        Binding("enter", "submit", "check and choose"),
        Binding("shift+tab", "app.focus_previous", "the list", show=True),
        Binding("escape", "screen.back", "back to the events", show=True),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # a letter typed on the list arrives here before the focus does: selecting the text on
        # focus would let the next key replace it
        kwargs.setdefault("select_on_focus", False)
        super().__init__(*args, **kwargs)
