"""The events any game's log may hold beside the game's own, handled once for all games.

A play-by-email seat's :class:`~core.seats.Joined` and
:class:`~core.seats.Revealed`, a fork's
:class:`~core.chance.Reseeded` and a rules upgrade's :class:`~core.upgrade.Upgraded`
are the table's events, not a game's: they
change no game state, and they read the same in every game.  Each game's
``apply`` and ``describe`` (its ``game.py``) hand them here first, so the rule
"pass them through, read them alike" is written in this one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

from core import deadlines
from core.chance import Reseeded, describe_reseeded
from core.deadlines import Handed, TimedOut
from core.seats import Joined, Revealed, describe_joined, describe_revealed
from core.upgrade import Upgraded, describe_upgraded

TABLE_EVENTS: tuple[type, ...] = (Joined, Revealed, Reseeded, TimedOut, Handed, Upgraded)
"""The event types every game's log may hold (its ``event_type`` unions them in)."""
_TABLE_TYPES = frozenset(TABLE_EVENTS)

PLACED: tuple[type, ...] = (TimedOut, Handed, Upgraded)
"""The table lines the host alone places — whether and where: an upgrade, a
timeout, a hand-over it applies or holds back.  No chance outcome depends on
them: a draw counts only the lines that are not placed ones
(:meth:`core.chance.ChanceSource.draw_index`) [CL-V9]."""


def placed_seqs(events: Sequence[Any]) -> tuple[int, ...]:
    """The seqs (the first event is seq 1) of the placed lines among ``events``.

    >>> placed_seqs([object(), Upgraded("pc-2", "pc-3"), object(), Handed(0, True)])
    (2, 4)
    """
    return tuple(i + 1 for i, e in enumerate(events) if type(e) in PLACED)


def passes_through(state: Any, event: Any) -> TypeGuard[Any]:
    """True when ``event`` is a table event after the creation: the state stays as it is.

    >>> passes_through(object(), Reseeded("ab"))
    True
    >>> passes_through(None, Reseeded("ab"))  # no game yet: the game's fold refuses it
    False
    """
    return state is not None and type(event) in TABLE_EVENTS


def describe_table_event(event: Any, players: Sequence[str]) -> str | None:
    """How a table event reads (the same in every game); None for a game's own event.

    >>> describe_table_event(Joined(0, "ab" * 32, "00"), ["ann"])
    'ann joins (key abababababab…)'
    >>> describe_table_event(object(), ["ann"]) is None
    True
    """
    if type(event) not in _TABLE_TYPES:  # a game's own event (most lines): one look-up
        return None
    if type(event) is Joined:
        return describe_joined(event, players)
    if type(event) is Revealed:
        return describe_revealed(event, players)
    if type(event) is Reseeded:
        return describe_reseeded(event)
    if type(event) is Upgraded:
        return describe_upgraded(event)
    return deadlines.describe(event, players)
