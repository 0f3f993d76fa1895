"""The play panel: the legal commands of a human seat to act at the end of the log.

Commands that place something on the board (``Game.square_of``) have their
squares marked on the board itself (cli/tui/sceneview.py): picking one narrows
the list to its commands.  Nothing is sent at once: a chosen command waits for
a confirmation (Enter on it again, ``y``, or the send button); Escape cancels.

A command chosen in two steps (cli/choices.py: a take, then its
payment) is listed once; choosing it holds its default (the cheapest) for the
confirmation and lists its variants in its place, any of which may be chosen
instead; Escape goes back to the whole list.  A typed command is cleared from
the input once read, accepted or refused, and kept in its history (Up/Down).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual import events
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from cli.choices import Choice
from cli.output import clean
from core.engine import RulesError
from core.scene import square_name
from core.words import plural
from cli.tui.inputs import CommandInput, CommandList
from cli.tui.model import LEGAL_LIMIT, GameModel, PlayModel, Square


def square_label(square: Square, model: GameModel | None = None, play: PlayModel | None = None) -> str:
    """A square as the board's labels name it (``E4``, ``B3``) [CL-10]; ``row,col`` without a board."""
    if model is not None and play is not None:
        scene = model.scene(play)
        index = model.target_panel(scene, play)
        if index is not None:
            return square_name(scene.panels[index], *square)
    return f"{square[0]},{square[1]}"


class PlayPanel(Vertical):
    """Pick a legal command (Enter), a square, or type one; posts :class:`Chosen`, the screen submits.

    Inside the panel every printable key is text (issue 26, item 4): typed on the
    list it moves to the command input with that letter, so a command's letters
    never fire the screen's shortcuts (``t`` forks, ``d`` diff); the footer shows
    the panel's own keys instead.  Escape leaves the panel for the events.
    """

    BINDINGS = [
        Binding("y", "confirm", "send"),
        Binding("n", "cancel", "cancel"),
    ]

    class Chosen(Message):
        def __init__(self, seat: int, command: Any) -> None:
            self.seat = seat
            self.command = command
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model: GameModel | None = None
        self.play: PlayModel | None = None
        self.pending: Any | None = None
        """The command chosen and waiting for a confirmation."""
        self.step: Choice | None = None
        """The two-step choice whose variants are listed (its default pending)."""
        self.note: tuple[str, str] | None = None
        """(title, message) shown in place of the commands: a view's move file written (issue 24)."""
        self._title: Text | None = None
        """The title while the seat is to act here (None: another title is shown)."""
        self._holds = ""

    @property
    def seat(self) -> int | None:
        return self.play.seat if self.play is not None else None

    @property
    def commands(self) -> list[tuple[str, Any]]:
        """The commands listed now: a two-step choice's variants, or the play model's
        (narrowed to the filtered square, if any)."""
        if self.step is not None:
            return list(zip(self.step.texts, self.step.commands, strict=True))
        return self.play.visible() if self.play is not None else []

    def compose(self) -> ComposeResult:
        yield Static("", id="play-title")
        yield CommandList(id="legal")
        with Horizontal(id="confirm-row"):
            yield Button("send", id="play-send", variant="success", compact=True)
            yield Button("cancel", id="play-cancel", compact=True)
        yield CommandInput(placeholder="or type a command here", id="typed")
        yield Static("", id="play-message")

    def show(self, model: GameModel) -> None:
        """Show what may be played at the end of the log (hidden when nothing may)."""
        self.model = model
        seat = model.acting_seat()
        title = self.query_one("#play-title", Static)
        self._title = None
        if self.note is not None:
            for part in ("#legal", "#typed", "#confirm-row"):
                self.query_one(part).display = False
            self.display = True
            title.update(Text(self.note[0], style="bold"))
            self.say(self.note[1])
            return
        playing = seat is not None and model.at_end
        self.query_one("#legal", OptionList).display = playing
        self.query_one("#typed", Input).display = playing
        self._confirming(self.pending is not None)
        if seat is None:
            self.display = False
            return
        self.display = True
        if not model.at_end:
            title.update(Text(f"{model.names([seat])} to act at seq {model.version}: press End to play"))
            return
        self._title = Text.assemble((f"{model.names([seat])} to act", "bold"))
        self._draw_title()
        play = model.play(seat)
        if play is not self.play:
            self.play = play
            self.pending = None
            self.step = None
            self._confirming(False)
            self.list_commands()

    def holds(self, summary: str) -> None:
        """After the title, what the seat's own panel holds that the commands name (a
        short screen, where that panel is scrolled off: Point City's cards for a payment)
        [issue 26, item 3]; "" shows the title alone."""
        self._holds = clean(summary)
        self._draw_title()

    def _draw_title(self) -> None:
        if self._title is None:
            return
        title = self._title.copy()
        if self._holds:
            title.append(" · " + self._holds, style="dim")
        self.query_one("#play-title", Static).update(title)

    def _confirming(self, on: bool) -> None:
        """The send/cancel row while a command waits for its confirmation; on a short
        screen the command input leaves the panel meanwhile (the lines it frees show the
        command whole; Escape brings it back)."""
        self.query_one("#confirm-row").display = on
        if self.short() and self.note is None:
            self.query_one("#typed", Input).display = not on and self.model is not None and self.model.at_end
        if on:
            options = self.query_one("#legal", OptionList)
            self.call_after_refresh(options.scroll_to_highlight)

    def short(self) -> bool:
        """A short terminal (80x24): the panel's lines say only what they must."""
        return self.screen.has_class("-short")

    def list_commands(self) -> None:
        """Fill the list from the play model (all commands, or the filtered square's)."""
        play = self.play
        if play is None:
            return
        shown = play.visible()
        options = self.query_one("#legal", OptionList)
        options.clear_options()
        step = self.model.game.syntax.second_step if self.model is not None else ""
        options.add_options([
            Option(Text(text + (f"  ({plural(len(play.steps[text].commands), step or 'variant')})"
                                if text in play.steps else "")))
            for text, _ in shown
        ])
        if shown:
            options.highlighted = 0
        if play.square_filter is None:
            more = " (first %d)" % LEGAL_LIMIT if len(play.commands) >= LEGAL_LIMIT else ""
            hint = " — or a + square" if play.bounds() is not None else ""
            self.say(f"{plural(len(play.commands), 'legal command')}{more}{hint}")
        else:
            self.say(f"{plural(len(shown), 'command')} on {square_label(play.square_filter, self.model, play)} — Escape: all")

    def say(self, message: str, error: bool = False) -> None:
        self.query_one("#play-message", Static).update(Text(message, style="bold red" if error else "dim"))

    def choose(self, command: Any) -> None:
        """Hold ``command`` for a confirmation (sent by :meth:`action_confirm`)."""
        if self.play is None or self.model is None:
            return
        self.pending = command
        self._confirming(True)
        text = self.model.game.format_command(command)
        if self.step is not None and self.short():  # the footer names the keys
            self.say(f"send «{text}»?")
        elif self.step is not None:
            syntax = self.model.game.syntax
            which = f" ({syntax.default or 'the default'})" if command == self.step.default else ""
            self.say(f"send «{text}»{which}? Enter/y sends · or choose another {syntax.second_step or 'variant'} "
                     f"in the list · Escape: back")
        else:
            self.say(f"send «{text}»? Enter/y sends · Escape cancels")
        self.query_one("#play-send", Button).focus()

    def open_step(self, choice: Choice) -> None:
        """List ``choice``'s variants in place of the commands, its default held to send."""
        self.step = choice
        options = self.query_one("#legal", OptionList)
        options.clear_options()
        syntax = self.model.game.syntax if self.model is not None else None
        default = f"  ({syntax.default})" if syntax is not None and syntax.default and not self.short() else "  (default)"
        options.add_options([Option(Text(choice.tail(i) + (default if i == 0 else "")))
                             for i in range(len(choice.commands))])
        options.highlighted = 0
        self.choose(choice.default)

    def close_step(self) -> bool:
        """Back from a choice's variants to the whole list (True if they were listed)."""
        if self.step is None:
            return False
        self.step = None
        self.list_commands()
        return True

    def select(self, text: str, command: Any) -> None:
        """A listed entry was chosen: its second step, or the command itself."""
        choice = self.play.steps.get(text) if self.play is not None and self.step is None else None
        if choice is not None:
            self.open_step(choice)
        else:
            self.choose(command)

    def cancel(self) -> bool:
        """Drop a pending command (True if there was one)."""
        if self.pending is None and self.step is None:
            return False
        self.pending = None
        self._confirming(False)
        self.close_step()
        self.say("cancelled")
        self.query_one("#legal", OptionList).focus()
        return True

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """Printable keys are the panel's (typed text, ``y``/``n`` at a confirmation): the
        screen's letter shortcuts neither fire nor show in the footer while it has the focus."""
        return character is not None and character.isprintable()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("confirm", "cancel"):
            return self.pending is not None
        return True

    def on_key(self, event: events.Key) -> None:
        """A printable key outside the input: ``y``/``n`` answer a confirmation; any other
        goes to the command input as text (never to a shortcut)."""
        char = event.character
        if char is None or not char.isprintable():
            return
        typed = self.query_one("#typed", Input)
        if self.screen.focused is typed:
            return
        if self.pending is not None and char in "yn":
            return  # the y/n bindings answer it
        event.stop()
        event.prevent_default()
        if not typed.display:
            return
        typed.focus()
        typed.insert_text_at_cursor(char)

    def action_cancel(self) -> None:
        self.cancel()

    def action_confirm(self) -> None:
        if self.play is not None and self.pending is not None:
            command, self.pending = self.pending, None
            self.step = None
            self._confirming(False)
            self.post_message(self.Chosen(self.play.seat, command))

    def pick_square(self, square: Square) -> None:
        """A board square was picked: list its commands; the only one waits for a confirmation."""
        if self.play is None:
            return
        if square not in self.play.grid_squares():
            self.say(f"no legal command on that square ({square_label(square, self.model, self.play)})", error=True)
            return
        only = self.play.pick_square(square)
        self.list_commands()
        if only is not None:
            self.select(self.play.on(square)[0][0], only)
        else:
            self.query_one("#legal", OptionList).focus()

    # -- events ------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "play-send":
            self.action_confirm()
        elif event.button.id == "play-cancel":
            self.cancel()

    def action_all_squares(self) -> None:
        if self.play is not None and self.play.square_filter is not None:
            self.play.clear_filter()
            self.list_commands()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        shown = self.commands
        if 0 <= event.option_index < len(shown):
            text, command = shown[event.option_index]
            if self.pending is not None and command == self.pending:
                self.action_confirm()
            else:
                self.select(text, command)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        typed = self.query_one("#typed", CommandInput).taken()  # cleared, kept in the history
        if self.model is None or self.play is None or not typed:
            return
        try:
            command = self.model.parse(self.play.seat, typed)
        except RulesError as exc:
            self.say(f"illegal: «{typed}»: {exc} (Up brings it back)", error=True)
            return
        self.choose(command)
