"""Deadlines for the host (issue 24): who is due a timeout or a reminder, and
applying the timeouts that are due.

The host's clock is its own word: the store keeps, beside the chain, when the
host first saw each line of a game (``EventStore.mark_time``; :func:`mark`), and a
timeout line claims two of those times (``since``: when the line the seat's
decision has stood at was written; ``at``: now).  Events hold no clock; every
player's ``verify`` checks the claims only against each other and the deadline
(docs/trust.md, "Not protected").  This is the API the mail agent calls:

* :func:`due` — the seats whose deadline has passed at ``now``;
* :func:`reminders` — the seats whose deadline passes within ``before`` seconds;
* :func:`apply_due` — time out every due seat (``citylog timeout GAME``).

A seat whose move the host holds (``inbox`` holds a file of a seat acting at the
same time as another, until both are in) has answered: pass its player in
``answered`` (``cli.inbox.held_players(folder, game_id, svc)`` lists them: only files
the host would apply now, CL-S9), or it is
timed out as if silent.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

import msgspec

from core import deadlines as rules
from events.envelope import Recorded
from events.repository import Loaded


class Due(msgspec.Struct, frozen=True):
    """A seat whose pending decision has stood past the deadline."""

    game_id: str
    seat: int
    player: str
    seq: int
    """The line the decision has stood at since (a timeout names it)."""
    head: str
    since: int
    """When the host first saw that line (epoch seconds, its own clock)."""
    deadline_at: int
    """``since`` + the game's deadline."""
    policy: str


class Reminder(msgspec.Struct, frozen=True):
    """A seat whose deadline passes soon: remind its player."""

    game_id: str
    seat: int
    player: str
    seq: int
    deadline_at: int
    left: int
    """Seconds left at the time asked (0 once passed)."""


def mark(svc: Any, game_id: str, now: float) -> None:
    """Note ``now`` as when the host first saw the game's current last line (a line
    already noted keeps its first time).  The inbox and every deadline call do it."""
    version = svc.store.version(game_id)
    if version:
        svc.store.mark_time(game_id, version, int(now))


def _pending(
    svc: Any, game_id: str, now: float, answered: Collection[str] = ()
) -> tuple[Loaded, list[tuple[int, int, int]]]:
    """The loaded game and (seat, standing-since seq, since) of each seat the game
    waits for, in seat order, but for the players in ``answered`` (their move is
    in the host's hands, held for a seat acting at the same time); nothing for a
    game without a deadline or not begun."""
    loaded = svc.load(game_id)
    rec = loaded.record
    if (not rec.pbem or not rec.deadline or not loaded.game.to_act(loaded.state) or svc.waiting_to_join(loaded)
            or svc.waiting_to_reveal(loaded)):
        # no deadline, over, or still waiting for joins or reveals (neither has a deadline:
        # a game whose reveals never complete is never dealt [CL-S7])
        return loaded, []
    mark(svc, game_id, now)
    times = svc.store.times(game_id)
    bots = rules.bot_seats(loaded.events)
    out = []
    for seat in loaded.game.to_act(loaded.state):
        if seat < 0 or seat in bots or loaded.players[seat] in answered:
            continue
        seq = rules.pending_since(loaded.game, loaded.events, seat)
        # the earliest time the host noted from that line on (a later one only gives the seat more time)
        seen = [t for s, t in times.items() if s >= seq]
        since = min(seen) if seen else int(now)
        prev = rules.last_timeout(loaded.events)
        if prev is not None and prev[0] <= seq:
            since = max(since, prev[1].at)  # never before the clock the chain already claims
        out.append((seat, seq, since))
    return loaded, out


def due(svc: Any, game_id: str, now: float, answered: Collection[str] = ()) -> list[Due]:
    """The seats of ``game_id`` whose deadline has passed at ``now`` (epoch seconds);
    ``answered``: players whose move the host holds (not due)."""
    loaded, pend = _pending(svc, game_id, now, answered)
    rec = loaded.record
    return [
        Due(game_id, seat, loaded.players[seat], seq, loaded.records[seq - 1].hash, since,
            since + rec.deadline, rec.on_timeout)
        for seat, seq, since in pend
        if since + rec.deadline <= int(now)
    ]


def reminders(
    svc: Any, game_id: str, now: float, before: float, answered: Collection[str] = ()
) -> list[Reminder]:
    """The seats whose deadline passes within ``before`` seconds of ``now`` (and has
    not passed yet): the players to remind."""
    loaded, pend = _pending(svc, game_id, now, answered)
    rec = loaded.record
    out = []
    for seat, seq, since in pend:
        at = since + rec.deadline
        if int(now) < at <= now + before:
            out.append(Reminder(game_id, seat, loaded.players[seat], seq, at, max(0, at - int(now))))
    return out


def apply_due(
    svc: Any, game_id: str, now: float, sign: Callable[[dict[str, Any]], str], answered: Collection[str] = ()
) -> list[Recorded]:
    """Time out every seat due at ``now``, one after another (each timeout's lines
    are noted at ``now``); the lines written.  ``sign``: the host's signature of a
    timeout's body (domain ``timeout``)."""
    written: list[Recorded] = []
    for _ in range(64):
        found = due(svc, game_id, now, answered)
        if not found:
            break
        d = found[0]
        written += svc.timeout(game_id, d.seat, d.seq, d.since, int(now), sign)
        mark(svc, game_id, now)
    return written
