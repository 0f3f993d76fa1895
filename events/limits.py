"""How long a field from outside may be: one table, used by every reader.

A name, a game id, a note or a command a sender chose is printed, stored,
put into file names and into messages; none of them has a reason to be long.
A longer one is refused in one line (``FieldTooLong``, exit 2) where it
enters: the command line, a log or view file, a move or join file, a text
record, a ``copy`` or ``import``.
"""

from __future__ import annotations

from collections.abc import Iterable

from events.store import StoreError

MAX_PLAYER_NAME = 40
"""Characters in a player's name."""
MAX_GAME_ID = 64
"""Characters in a game id (citylog's own are 8 hex digits)."""
MAX_NOTE = 2000
"""Characters in a note."""
MAX_COMMAND = 500
"""Characters in one command of a move (the longest real one is a few dozen)."""
MAX_COMMANDS = 200
"""Commands in one move file (a whole construction phase is a handful)."""
MAX_SEED = 200
"""Characters in a seed given on the command line."""


class FieldTooLong(StoreError, ValueError):
    """A field longer than its limit; the message names the field and the limit (exit 2)."""


def check_length(what: str, text: object, limit: int) -> None:
    """``FieldTooLong`` if ``text`` is a string longer than ``limit`` characters
    (its start shown, cut short, so the message stays one short line).

    >>> check_length("a note", "x" * 10, 10)
    >>> check_length("a note", "x" * 11, 10)
    Traceback (most recent call last):
    ...
    events.limits.FieldTooLong: a note is at most 10 characters, not 11 ('xxxxxxxxxxx')
    """
    if isinstance(text, str) and len(text) > limit:
        start = text[:20] + ("…" if len(text) > 20 else "")
        raise FieldTooLong(f"{what} is at most {limit} characters, not {len(text)} ({start!r})")


def check_names(what: str, names: Iterable[object], limit: int = MAX_PLAYER_NAME) -> None:
    for name in names:
        check_length(what, name, limit)
