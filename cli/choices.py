"""What a seat is offered to choose: the play prompt's list and the TUI's play panel (issue 26).

Two rules, written once for both and for every game (the games declare their part
through the engine contract, :class:`core.engine.Syntax`):

* **A choice in two steps.** Commands sharing a first step
  (:meth:`core.engine.Game.first_step`, a take) are offered once, as
  that step; its variants (the payments) are a second, optional step whose
  default is the command the first step's text parses to (the cheapest).
* **The information boundary.** A seat choosing several commands from its view
  (a view received by email, all into one move file) stops where its next
  decision hangs on what the view does not show (:meth:`core.engine.Game.unseen`):
  what it chose so far goes into the file, and it is told what it will see in
  the next view.  It is never offered a command it could not sign
  (:func:`signed_texts`).

Law (tests/cli/test_choice_law.py): every command offered is accepted by
``decide`` on the true state and can be signed into a move file from the
seat's view.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from core.engine import Game, IllegalCommand, RulesError, checked_decide


@dataclass(frozen=True)
class Choice:
    """One entry of the list: a command, or the first step of several (the default first)."""

    text: str
    """What is listed: the command, or the first step the variants share."""
    commands: tuple[Any, ...]
    """The commands it leads to, the default first."""
    texts: tuple[str, ...]
    """``commands`` as text."""

    @property
    def default(self) -> Any:
        return self.commands[0]

    @property
    def two_step(self) -> bool:
        return len(self.commands) > 1

    def tail(self, i: int) -> str:
        """Variant ``i`` without the first step (``pay B1=12,p40``), as the second step lists it."""
        text = self.texts[i]
        return text[len(self.text):].strip() if text.startswith(self.text + " ") else text


def choices(game: Game[Any, Any, Any], state: Any, seat: int, commands: Iterable[Any] | None = None) -> list[Choice]:
    """``commands`` (default: the seat's legal commands in ``state``) grouped by first step,
    in the order each first step first appears; a group's default is the command its
    first step's text parses to (the game's default), else its first."""
    groups: dict[str, list[tuple[str, Any]]] = {}
    for command in game.legal(state, seat) if commands is None else commands:
        text = game.format_command(command)
        groups.setdefault(game.first_step(command) or text, []).append((text, command))
    out: list[Choice] = []
    for head, members in groups.items():
        if len(members) > 1:
            members = _default_first(game, state, seat, head, members)
        out.append(Choice(head, tuple(c for _, c in members), tuple(t for t, _ in members)))
    return out


def _default_first(game: Game[Any, Any, Any], state: Any, seat: int, head: str,
                   members: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    try:
        default = game.format_command(game.parse_command(state, seat, head))
    except RulesError:
        return members
    first = [m for m in members if m[0] == default]
    return first + [m for m in members if m[0] != default]


def unseen(game: Game[Any, Any, Any], state: Any, seat: int) -> str | None:
    """What the seat would decide next without seeing (None: it may go on choosing)."""
    return game.unseen(state, seat)


def signed_texts(game: Game[Any, Any, Any], view: Any, seat: int, texts: Sequence[str]) -> list[str]:
    """The commands ``texts`` as a move file holds them, checked from the seat's ``view``
    one after another as the host will (``RulesError`` names the first one refused).

    A later command whose position the view cannot work out (an automatic step
    needed a hidden card) is written unchecked, as a script may ask for
    (``move --out`` with several commands); the prompt never gets there
    (:meth:`core.engine.Game.unseen`)."""
    state = view
    formatted: list[str] = []
    checking = True
    for i, text in enumerate(texts):
        command = game.parse_command(state, seat, text)
        formatted.append(game.format_command(command))
        if not checking:
            continue
        where = f" (command {i + 1})" if len(texts) > 1 else ""
        try:  # from the view: the same verdict as the host's
            produced = checked_decide(game, state, seat, command)
        except IllegalCommand as exc:
            raise IllegalCommand(exc.rule, f"{exc.reason}{where}") from None
        recorded = game.command_of(produced[0]) if produced else None
        if recorded is not None and recorded[0] == seat:
            # the command as its line will record it (a take of two cells names them in board order):
            # the host accepts a signed move only in that spelling [CL-S1]
            formatted[-1] = game.format_command(recorded[1])
        try:
            for e in produced:
                state = game.view(game.apply(state, e), seat)
        except Exception:  # noqa: BLE001 - a later command may hang on chance the view cannot see
            checking = False
    return formatted
