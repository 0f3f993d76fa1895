"""Games survive upgrades (issue 24 item 4): a game switches to newer rules mid-log.

A game records its rules version in its chained definition (``pc-2``).  An
:class:`Upgraded` line later in its chain switches it to another version the
game keeps (:meth:`core.engine.Game.for_rules`): every line after it is decided
by those rules, every line before it by the rules in effect there.  The switch
is allowed only when the new rules re-decide *every* recorded command of the
game, from the first, to byte-identical events (:func:`redecide`) — so an
upgrade never changes a past decision, and the writer (``citylog upgrade``) and
``verify`` run this one check [CL-U1, CL-U2].

Like a fork's :class:`~core.chance.Reseeded`, an :class:`Upgraded` line is a
table event: it changes no game state (every game's fold passes it through,
:mod:`core.table_events`), it belongs to no decision and is never redacted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgspec


class Upgraded(msgspec.Struct, frozen=True, tag_field="type", tag="rules.upgraded"):
    """The game's rules switch from ``from_version`` to ``to_version`` after this line
    [CL-U1]; every recorded decision before it re-decides alike under both."""

    from_version: str
    to_version: str


def describe_upgraded(e: Upgraded) -> str:
    """
    >>> describe_upgraded(Upgraded("pc-2", "pc-3"))
    'the rules are upgraded from pc-2 to pc-3 (every recorded decision re-decided alike) [CL-U1]'
    """
    return (f"the rules are upgraded from {e.from_version} to {e.to_version} "
            "(every recorded decision re-decided alike) [CL-U1]")


def version_at(recorded: str, events: Iterable[Any]) -> str:
    """The rules version in effect after ``events``: the definition's (``recorded``),
    or the last upgrade's.

    >>> version_at("pc-2", [object(), Upgraded("pc-2", "pc-3")])
    'pc-3'
    >>> version_at("pc-2", [])
    'pc-2'
    """
    version = recorded
    for e in events:
        if type(e) is Upgraded:
            version = e.to_version
    return version


def rules_for(game: Any, recorded: str, events: Iterable[Any]) -> Any:
    """The rules deciding the next line of a log of ``game`` (any version's rules
    object) recorded under ``recorded`` with ``events``: the version in effect's,
    None when this citylog does not keep it (it can only replay)."""
    return game.for_rules(version_at(recorded, events))


class Difference(msgspec.Struct, frozen=True):
    """The first recorded command that the new rules decide differently."""

    seq: int
    """The seq of the decision's first event."""
    seat: int
    command: str
    """The command as the game writes it."""
    old: str
    """What the recorded log (the old rules) made of it."""
    new: str
    """What the new rules make of it."""

    def text(self, players: Sequence[str], to_version: str) -> str:
        who = players[self.seat] if 0 <= self.seat < len(players) else "chance"
        return (f"seq {self.seq}, {who}'s {self.command!r}: the recorded rules gave {self.old}; "
                f"{to_version} gives {self.new} [CL-U2]")


def _say(game: Any, events: Sequence[Any], players: Sequence[str]) -> str:
    if not events:
        return "no events"
    lines = [game.describe(e, players) for e in events]
    return f"{len(events)} event{'s' if len(events) != 1 else ''}: " + "; ".join(lines)


def compare(
    new: Any, state: Any, seat: int, command: Any, recorded: Sequence[Any],
    encode: Callable[[Any], bytes], players: Sequence[str], seq: int,
) -> tuple[Difference | None, int]:
    """Whether ``new`` rules decide ``command`` of ``seat`` at ``state`` to exactly the
    events ``recorded`` starts with (byte for byte): (None, how many), else the
    :class:`Difference`.  ``recorded``: the log from the decision's line on (a
    decision is as long as the rules make it, as ``verify`` reads it)."""
    from core.engine import RulesError, checked_decide

    def text() -> str:
        try:
            return str(new.format_command(command))
        except Exception:  # noqa: BLE001 - a chance outcome may have no text
            return repr(command)

    span = 1
    while span < len(recorded) and not _opens(new, recorded[span]):
        span += 1
    try:
        produced = tuple(checked_decide(new, state, seat, command))
    except RulesError as exc:
        return Difference(seq, seat, text(), f"a legal command ({_say(new, recorded[:span], players)})",
                          f"an illegal one: {exc}"), 0
    old_bytes = [encode(e) for e in recorded[: len(produced)]]
    new_bytes = [encode(e) for e in produced]
    if old_bytes == new_bytes and len(produced) >= span:
        return None, len(produced)
    k = 0
    while k < min(len(old_bytes), len(new_bytes)) and old_bytes[k] == new_bytes[k]:
        k += 1
    where = f" (from seq {seq + k} on)" if k else ""
    return Difference(seq, seat, text(), _say(new, recorded[k:max(span, k + 1)], players) + where,
                      _say(new, produced[k:], players) + where), 0


def _opens(game: Any, event: Any) -> bool:
    from core.table_events import TABLE_EVENTS

    return type(event) in TABLE_EVENTS or game.command_of(event) is not None


def redecide(
    new: Any, events: Sequence[Any], encode: Callable[[Any], bytes], players: Sequence[str]
) -> Difference | None:
    """Re-decide every recorded command of a whole log (true events, the creation
    first) under ``new`` rules; None when each gives the recorded events byte for
    byte, else the first :class:`Difference` [CL-U1].  Table events (joins,
    reseeds, upgrades) pass through; a line that opens no decision where one is
    due is a difference too."""
    from core.engine import CHANCE
    from core.table_events import TABLE_EVENTS

    if not events:
        return None
    state = new.apply(None, events[0])
    i, n = 1, len(events)
    while i < n:
        e = events[i]
        if type(e) in TABLE_EVENTS:
            state = new.apply(state, e)
            i += 1
            continue
        opened = new.command_of(e)
        if opened is None:
            return Difference(i + 1, CHANCE, type(e).__name__, "an automatic step here",
                              "no decision waiting here (the previous one ends sooner)")
        seat, command = opened
        found, length = compare(new, state, seat, command, events[i:], encode, players, i + 1)
        if found is not None:
            return found
        for x in events[i : i + length]:
            state = new.apply(state, x)
        i += length
    return None
