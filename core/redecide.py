"""Re-deciding a recorded game under other rules: what ``citylog upgrade`` and
``verify`` check before rules switch mid-log [CL-U1, CL-U4] (:mod:`core.upgrade`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from core.engine import CHANCE, RulesError, checked_decide
from core.table_events import TABLE_EVENTS


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
        who = f"{players[self.seat]}'s" if 0 <= self.seat < len(players) else "the chance outcome"
        return (f"seq {self.seq}, {who} {self.command!r}: the recorded rules gave {self.old}; "
                f"{to_version} gives {self.new} [CL-U2]")


def _say(game: Any, events: Sequence[Any], players: Sequence[str]) -> str:
    if not events:
        return "nothing more (the decision ends there)"
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
    return type(event) in TABLE_EVENTS or game.command_of(event) is not None


def redecide(
    new: Any, events: Sequence[Any], encode: Callable[[Any], bytes], players: Sequence[str]
) -> Difference | None:
    """Re-decide every recorded command of a whole log (true events, the creation
    first) under ``new`` rules; None when each gives the recorded events byte for
    byte, else the first :class:`Difference` [CL-U1].  Table events (joins,
    reseeds, upgrades) pass through; a line that opens no decision where one is
    due is a difference too."""
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
