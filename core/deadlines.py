"""Deadlines of play by email (issue 24): what a timeout does, as pure rules.

A ``--pbem`` game may be created with a deadline and a policy
(``new --deadline 3d --on-timeout bot``); both are in its chained definition.
When a seat's pending decision has stood for the deadline, the host appends a
:class:`TimedOut` event, signed with its key, naming the seat, the position
(seq and head hash) the decision was pending at, the times it claims and what
it did [CL-T1]:

* ``bot``: the seat's pending decision — one command — is played at once by a
  deterministic bot deciding from that seat's own view (:func:`bot_command`),
  so every player's ``verify`` re-derives the choice [CL-T2];
* ``forfeit``: the seat is given up: the bot plays that decision and every
  later one of the seat, to the end [CL-T4];
* ``skip``: the decision is passed without a command — which only a decision
  the rules let a seat decline allows; none of the three games can skip every
  decision, so none allows it (each game's :attr:`GameSpec.no_timeouts` says
  why) [CL-T3].

A seat can also hand itself to the bot and back by a signed statement; the
host records it as a :class:`Handed` event [CL-T5].  Both events change no game
state (every game's ``apply`` passes them through, :mod:`core.table_events`).

The clock is the host's word: events hold no clock, only the times the host
claims on its timeout lines (``since``: when the line before was written;
``at``: now), which ``verify`` checks only against each other and the deadline.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from core.engine import CHANCE, GameSpec
from core.rng import Rng

POLICIES = ("bot", "skip", "forfeit")
"""Every timeout policy a game may declare (``GameSpec.timeouts``)."""
TIMEOUT_BOT = "greedy"
"""The fixed policy that plays a timed-out or handed-over seat: every game has it,
and it decides from its seat's view alone (``core.autoplay``)."""
MIN_DEADLINE = 60
MAX_DEADLINE = 366 * 86400
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"([1-9][0-9]{0,6})([smhdw])")
MAX_TIME = 2**53
"""Claimed times are whole epoch seconds below this (exact in every JSON reader)."""


class TimedOut(msgspec.Struct, frozen=True, tag_field="type", tag="seat.timed_out"):
    """The host's signed word that ``seat``'s decision pending at (``seq``,
    ``head``) timed out: the game stood at that line from ``since`` to ``at``
    (host-claimed epoch seconds) and ``action`` (the game's policy) was done."""

    seat: int
    seq: int
    head: str
    since: int
    at: int
    action: str
    signature: str
    """The host's Ed25519 signature (domain ``timeout``) over every other field."""


class Handed(msgspec.Struct, frozen=True, tag_field="type", tag="seat.handed"):
    """``seat`` handed to the bot (``bot``) or taken back; its player's signed
    statement is kept beside the line [CL-T5]."""

    seat: int
    bot: bool


def parse_deadline(text: str) -> int:
    """Seconds of a deadline written ``90m``, ``12h``, ``3d`` or ``1w``; ValueError otherwise.

    >>> parse_deadline("3d")
    259200
    >>> parse_deadline("90m")
    5400
    """
    m = _DURATION.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"a deadline is a whole number and a unit (s, m, h, d, w), like 3d or 12h; not {text!r}")
    seconds = int(m.group(1)) * _UNITS[m.group(2)]
    if not MIN_DEADLINE <= seconds <= MAX_DEADLINE:
        raise ValueError(f"a deadline is 1 minute to 366 days; not {text!r}")
    return seconds


def format_deadline(seconds: int) -> str:
    """``259200`` -> ``3d`` (the largest unit that divides it)."""
    for unit in ("w", "d", "h", "m"):
        if seconds % _UNITS[unit] == 0:
            return f"{seconds // _UNITS[unit]}{unit}"
    return f"{seconds}s"


def format_wait(seconds: int) -> str:
    """How long a seat waited, as a person reads it: days, hours, minutes and seconds,
    the zero ones left out (a host's clock gives any number of seconds, rarely a whole unit).

    >>> format_wait(345601), format_wait(3 * 86400), format_wait(263021), format_wait(0)
    ('4d 1s', '3d', '3d 1h 3m 41s', '0s')
    """
    parts = []
    for unit in ("d", "h", "m", "s"):
        n, seconds = divmod(seconds, _UNITS[unit])
        if n:
            parts.append(f"{n}{unit}")
    return " ".join(parts) or "0s"


def policy_problem(spec: GameSpec, policy: str) -> str | None:
    """Why ``spec``'s game cannot honour ``policy`` on timeout, or None."""
    if policy not in POLICIES:
        return f"no timeout policy {policy!r} (policies: {', '.join(POLICIES)})"
    if policy in spec.timeouts:
        return None
    why = dict(spec.no_timeouts).get(policy, "its rules give no way to do it")
    return f"{spec.title} cannot honour --on-timeout {policy}: {why}"


def body(e: TimedOut) -> dict[str, Any]:
    """What the host signs of a timeout: every field but the signature."""
    fields: dict[str, Any] = msgspec.to_builtins(e)
    fields.pop("signature", None)
    return fields


def decision_index(game: Any, events: Iterable[Any], seat: int) -> int:
    """How many decisions of ``seat``'s ``events`` hold (lines whose command is the
    seat's): the index of the seat's next decision [CL-V10].

    The timeout bot's stream is keyed by it, never by a seq: a seq counts every
    line before it, and the host alone places some of them (a hand-over it applies
    now or later, an upgrade, a timeout of another seat first, another seat's move
    applied before or after the timeout) — each would re-pick the bot's tie-breaks,
    a chance outcome of the host's choosing.  The seat's own decisions are the one
    count no line of another's moves.

    >>> from core.point_city.game import GAME
    >>> decision_index(GAME, [Handed(0, True), TimedOut(0, 1, "", 0, 0, "bot", "")], 0)
    0
    """
    n = 0
    for e in events:
        try:
            opened = game.command_of(e)
        except Exception:  # noqa: BLE001 - a table event a game does not know: no decision
            opened = None
        if opened is not None and opened[0] == seat:
            n += 1
    return n


def bot_rng(genesis: str, index: int, seat: int) -> Rng:
    """The bot's stream for ``seat``'s decision number ``index``
    (:func:`decision_index`): from public values only (the game's genesis, the seat,
    how many decisions it made before), so any player re-derives it, and no line the
    host places, nor the order it applies other seats' moves in, changes it [CL-V10]."""
    return Rng.derive(genesis, index, f"timeout-bot/{seat}")


def bot_command(game: Any, state: Any, seat: int, genesis: str, index: int) -> Any:
    """The command the timeout bot plays for ``seat`` at ``state``, decided from the
    seat's own view (never the referee's state) [CL-T2], its tie-breaks from
    :func:`bot_rng` at the seat's decision ``index`` [CL-V10]; the same for the host
    and for every ``verify`` that can fold that view."""
    seen = game.view(state, seat)
    return game.bots[TIMEOUT_BOT](game, seen, seat, bot_rng(genesis, index, seat))


def pending(game: Any, state: Any, seat: int) -> bool:
    """``seat`` (a player, not chance) has a decision pending at ``state``."""
    return seat != CHANCE and seat in game.to_act(state)


def bot_seats(events: Iterable[Any]) -> frozenset[int]:
    """Seats the bot plays from here on: handed over (the last :class:`Handed`
    of the seat says ``bot``) or forfeited (a ``forfeit`` timeout)."""
    handed: dict[int, bool] = {}
    forfeited: set[int] = set()
    for e in events:
        t = type(e)
        if t is Handed:
            handed[e.seat] = e.bot
        elif t is TimedOut and e.action == "forfeit":
            forfeited.add(e.seat)
    return frozenset(forfeited | {s for s, b in handed.items() if b})


def handover_stale(game: Any, events: Sequence[Any], seat: int, made_at: int) -> int | None:
    """The seq of the first line of ``seat``'s after seq ``made_at`` among ``events``
    (the lines before the hand-over's own): a timeout of the seat, another hand-over
    of it, or a decision its player made (a decision the bot played while it held the
    seat does not count: a take-back is made while the bot plays on); None when there
    is none [CL-T6].

    A hand-over holds only at the position it was made at, as far as its seat goes:
    the host cannot keep a player's hand-over back and apply it after her seat moved
    on — after she took the seat back, say, when it would hand her seat to the bot
    against her latest word.  The host and every ``verify`` hold it to this."""
    bots_it = seat in bot_seats(events[: max(made_at, 0)])
    """The bot plays the seat from ``made_at`` on: no hand-over or timeout of the seat
    comes before the first line found, so it does till then."""
    for k in range(max(made_at, 0), len(events)):
        e = events[k]
        if type(e) in (Handed, TimedOut):
            if e.seat == seat:
                return k + 1
            continue
        try:
            opened = game.command_of(e)
        except Exception:  # noqa: BLE001 - a table event a game does not know: not the seat's decision
            opened = None
        if opened is not None and opened[0] == seat and not bots_it:
            return k + 1
    return None


def forfeited(events: Iterable[Any]) -> frozenset[int]:
    return frozenset(e.seat for e in events if type(e) is TimedOut and e.action == "forfeit")


def describe(e: Any, players: Sequence[str]) -> str | None:
    """How a timeout or hand-over line reads; None for any other event."""
    if type(e) is TimedOut:
        who = players[e.seat] if 0 <= e.seat < len(players) else f"seat {e.seat}"
        done = {
            "bot": "the bot plays the decision",
            "forfeit": f"{who} forfeits: the bot plays the seat to the end",
            "skip": "the decision is skipped",
        }.get(e.action, e.action)
        waited = format_wait(max(0, e.at - e.since))
        return f"{who}'s decision at seq {e.seq} timed out after {waited} (host's clock): {done} [CL-T1]"
    if type(e) is Handed:
        who = players[e.seat] if 0 <= e.seat < len(players) else f"seat {e.seat}"
        return f"{who} hands the seat to the bot [CL-T5]" if e.bot else f"{who} takes the seat back from the bot [CL-T5]"
    return None


def last_timeout(events: Iterable[Any]) -> tuple[int, TimedOut] | None:
    """(its seq, the event) of the last timeout line among ``events`` (seq 1 first)."""
    out = None
    for i, e in enumerate(events):
        if type(e) is TimedOut:
            out = (i + 1, e)
    return out


def standing(game: Any, then: Any, now: Any, seat: int, same_line: bool) -> bool:
    """``seat``'s decision pending ``now`` is the one pending at ``then`` (the game
    stood at it since): the same line, or a decision that commutes with what came
    between (the same ``decision_key``, as a move made there would still land)."""
    if not pending(game, now, seat):
        return False
    if same_line:
        return True
    key = game.decision_key(now, seat)
    return key is not None and pending(game, then, seat) and game.decision_key(then, seat) == key


def pending_since(game: Any, events: Sequence[Any], seat: int) -> int:
    """The earliest seq from which ``seat``'s decision pending after ``events`` has
    stood (:func:`standing`); the last seq when its decision does not commute."""
    n = len(events)
    states: list[Any] = []
    state = None
    for e in events:
        state = game.apply(state, e)
        states.append(state)
    now = states[-1]
    if not pending(game, now, seat) or game.decision_key(now, seat) is None:
        return n
    p = n
    while p > 1 and standing(game, states[p - 2], now, seat, False):
        p -= 1
    return p


def timeout_problem(
    game: Any,
    deadline: int,
    policy: str,
    events: Sequence[Any],
    then: Any,
    now: Any,
    seat: int,
    seq: int,
    since: int,
    at: int,
    known: bool = True,
) -> str | None:
    """Why ``seat``'s decision pending ``now`` (after ``events``), standing since
    line ``seq`` (``then``: the state after it), may not be timed out with the
    claimed times ``since`` (line ``seq`` was written) and ``at`` (now), or None.
    The host checks it before it writes a timeout and every ``verify`` checks it
    again on each timeout line [CL-T1]: the game has a deadline and a policy it
    honours, the seat's decision is pending, has stood since that line and is not
    the bot's already, and by the host's claimed clock it stood for the deadline,
    the clock never going back from the previous timeout's claimed time.
    ``known`` false: whether the decision stood since ``seq`` is not checked (a
    view of another seat, whose decision depends on what the view hides)."""
    if not deadline or not policy:
        return "the game has no deadline (it was created without --deadline and --on-timeout) [CL-T1]"
    refused = policy_problem(game.spec, policy)
    if refused is not None:
        return refused
    for name, value in (("since", since), ("at", at)):
        if type(value) is not int or not 0 <= value < MAX_TIME:
            return f"the claimed time {name} must be whole epoch seconds (0 to 2^53) [CL-T1]"
    players = game.players(now)
    if seat == CHANCE or not 0 <= seat < len(players):
        return f"no seat {seat} to time out"
    who = players[seat]
    if not pending(game, now, seat):
        return f"{who} has no decision pending: only a seat the game waits for can time out [CL-T1]"
    if seat in bot_seats(events):
        return f"the bot already plays {who}'s seat: it has nothing to time out [CL-T4]"
    if not 1 <= seq <= len(events) or (known and not standing(game, then, now, seat, seq == len(events))):
        return f"{who}'s pending decision has not stood since seq {seq} (it changed, or was not pending, there) [CL-T1]"
    if at - since < deadline:
        return (
            f"{who}'s deadline ({format_deadline(deadline)}) has not passed by the claimed clock: the decision "
            f"has stood since seq {seq} for {max(0, at - since)}s [CL-T1]"
        )
    prev = last_timeout(events)
    if prev is not None:
        prev_seq, prev_e = prev
        if at < prev_e.at or (prev_seq <= seq and since < prev_e.at):
            return (
                f"the claimed clock goes back: the timeout at seq {prev_seq} claimed {prev_e.at}, this one "
                f"{since} to {at} [CL-T1]"
            )
    return None
