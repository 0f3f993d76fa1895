"""``verify``: the hash chain, then every event re-decided from the start.

For a seeded game every chance outcome is re-derived from the seed; for a game
played at the table each outcome is checked for possibility.  A player's view
(redacted) can only be checked by its hash chain.  The first bad line is named;
nothing after it is trusted (python-chess #365: never keep going after an
illegal move).

What a header says about the log is checked too, since the header itself is not
chained: a full log holds no redacted line and, unless its chained definition
marks a table game, the seed its commitment names (:func:`header_problem`); a
log that says it is over must fold to a finished game, and one that says it is
active to an unfinished one (:func:`status_problem`).
"""

from __future__ import annotations

from typing import Any

import msgspec

from core import registry
from core.engine import CHANCE, IllegalCommand, checked_decide
from core.rng import Rng, seed_commitment
from events.codec import decoder_for
from events.service import seed_at
from replay.logfile import LogFile, first_bad_line


class Verdict(msgspec.Struct, frozen=True):
    ok: bool
    reason: str
    line: int | None = None
    """File line number (the header is line 1, event seq N is line N + 1)."""
    seq: int | None = None
    events: int = 0
    over: bool | None = None
    """Whether the log folds to a finished game (None when it was not folded)."""

    def message(self, source: str) -> str:
        if self.ok:
            return f"{source}: valid — {self.reason}"
        where = f":{self.line}" if self.line is not None else ""
        return f"{source}{where}: {self.reason}"


def _bad(seq: int, reason: str, n: int) -> Verdict:
    return Verdict(False, reason, line=seq + 1, seq=seq, events=n)


def decode_events(log: LogFile) -> tuple[Any, list[Any]] | Verdict:
    """The game and the decoded events, or the Verdict naming the first undecodable line."""
    d = log.header.definition
    try:
        game = registry.get(d.game)
    except registry.UnknownGame as exc:
        return Verdict(False, str(exc), line=1)
    decoder = decoder_for(game.event_type)
    events = []
    for line in log.lines:
        try:
            e = decoder.decode(bytes(line.payload))
        except (msgspec.DecodeError, RecursionError) as exc:
            why = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:200]
            return _bad(line.seq, f"payload is not a {game.spec.title} event ({why})", len(log.lines))
        if getattr(type(e), "__struct_config__").tag != line.type:
            return _bad(line.seq, f"type {line.type!r} does not match the payload", len(log.lines))
        events.append(e)
    return game, events


def header_problem(log: LogFile) -> Verdict | None:
    """What the (unchained) header claims that the chained lines or definition deny.

    - A full log (no ``view``) has no redacted line: a referee's log hides
      nothing, and a redacted line's payload would go unchecked.  [CL-V1]
    - A full log of a seeded game (its chained definition does not say
      ``table``) carries the seed its commitment names: without it chance could
      not be re-derived, only checked for possibility.  [CL-V2]
    - A view names one of the game's players and carries no seed.  [CL-V3]
    """
    h, d = log.header, log.header.definition
    n = len(log.lines)
    if h.view is None:
        for line in log.lines:
            if line.redacted or line.digest is not None:
                return _bad(line.seq, "a full log holds no redacted line (it hides a payload "
                            "that would go unchecked) [CL-V1]", n)
        if not d.seed_commitment:
            return Verdict(False, "the game's definition has no seed commitment [CL-V2]", line=1, events=n)
        if h.seed is None and not d.table:
            return Verdict(False, "a full log of a seeded game must carry its seed, or chance "
                           "could not be re-derived from it [CL-V2]", line=1, events=n)
        if h.seed is None:
            return Verdict(False, "a full log must carry the game's seed (a table game's seed salts "
                           "its digests, so its players' views cannot be brute-forced) [CL-V2]", line=1, events=n)
    else:
        if h.view not in d.players:
            return Verdict(False, f"the view's player {h.view!r} is not one of the game's players [CL-V3]",
                           line=1, events=n)
        if h.seed is not None or h.reseeds:
            return Verdict(False, "a player's view carries no seed [CL-V3]", line=1, events=n)
    if h.seed is not None and seed_commitment(h.seed) != d.seed_commitment:
        return Verdict(False, "the seed does not match the game's seed commitment", line=1, events=n)
    last = 1
    for start, seed in h.reseeds:
        if not last < start <= n + 1 or not seed:
            return Verdict(False, f"reseed at seq {start}: reseeds go in increasing seq order, "
                           f"within the log (2..{n + 1})", line=1, events=n)
        last = start
    return None


def status_problem(log: LogFile, over: bool) -> Verdict | None:
    """The header's status against the fold: ``over`` exactly when the fold is over.
    A log cut short (truncated at a decision boundary, or a stored game that lost
    its last events) is caught here, since its header still says it is over.  [CL-V4]"""
    claimed = log.header.status
    n = len(log.lines)
    if claimed not in ("active", "over"):
        return Verdict(False, f"unknown status {claimed!r} (active or over) [CL-V4]", line=1, events=n, over=over)
    if claimed == "over" and not over:
        return Verdict(False, f"the log says the game is over, but its {n} events stop before the end "
                       "(the log was cut) [CL-V4]", line=1, events=n, over=over)
    if claimed == "active" and over:
        return Verdict(False, "the log says the game is still going, but its events end it [CL-V4]",
                       line=1, events=n, over=over)
    return None


def verify(log: LogFile) -> Verdict:
    n = len(log.lines)
    if n == 0:
        return Verdict(False, "the log has no events", line=1)
    bad = first_bad_line(log)
    if bad is not None:
        return Verdict(False, bad[1], line=bad[0], seq=bad[0] - 1, events=n)
    problem = header_problem(log)
    if problem is not None:
        return problem
    decoded = decode_events(log)
    if isinstance(decoded, Verdict):
        return decoded
    game, events = decoded
    h, d = log.header, log.header.definition
    if h.view is not None:
        return verify_view(game, log, events)
    if game.spec.rules_version != d.rules_version:
        return Verdict(
            False,
            f"recorded under rules {d.rules_version}; this citylog plays {game.spec.rules_version}, "
            "so it can replay the log but not vouch for its legality",
            line=1,
            events=n,
        )
    try:
        expected_created = game.create(d.players, d.options, table=d.table)
    except Exception as exc:  # noqa: BLE001 - any failure here is a bad definition
        return Verdict(False, f"the game definition is not valid: {exc}", line=1, events=n)
    if expected_created != events[0]:
        return _bad(1, "the creation event does not match the game's definition", n)
    state = game.apply(None, events[0])
    i = 1
    while i < n:
        seq = i + 1
        opened = game.command_of(events[i])
        if opened is None:
            return _bad(seq, f"{type(events[i]).__name__} is not a decision the game was waiting for", n)
        seat, command = opened
        if seat == CHANCE and not d.table and h.seed is not None:
            seed = seed_at(h.seed, h.reseeds, seq) or ""
            derived = game.chance(state, Rng.derive(seed, seq))  # seed_at: never "" here [CL-V2]
            if derived != command:
                return _bad(seq, "chance outcome differs from the one the seed gives", n)
        try:
            produced = checked_decide(game, state, seat, command)
        except IllegalCommand as exc:
            return _bad(seq, f"illegal: {exc}", n)
        for j, e in enumerate(produced):
            if i + j >= n:
                return _bad(n, "the log stops in the middle of a decision's events", n)
            if events[i + j] != e:
                return _bad(seq + j, f"{type(events[i + j]).__name__} is not what the rules produce here", n)
            state = game.apply(state, e)
        i += len(produced)
    over = not game.to_act(state)
    wrong_status = status_problem(log, over)
    if wrong_status is not None:
        return wrong_status
    how = "chance checked for possibility (a table game)" if d.table else "chance re-derived from the seed"
    if h.reseeds and not d.table:
        starts = ", ".join(str(s) for s, _ in h.reseeds)
        how += f" (from seq {starts} on: from the fork's new seed, which the chain does not bind)"
    end = "the game is over" if over else "the game is not over"
    return Verdict(True, f"{n} events; hash chain verified; every event legal; {how}; {end}", events=n, over=over)


def verify_view(game: Any, log: LogFile, events: list[Any]) -> Verdict:
    """A player's view, as far as its knowledge allows (the chain is already checked).

    It must fold, event by event, to a view (DESIGN.md property 5), and each of
    the player's own decisions — never redacted for them — must be legal from
    what the player could see then and be the event the rules make of it.
    Other seats' moves and chance are covered by the chain (their digests), not
    re-decided: they may hold what the player cannot see.
    """
    n = len(events)
    players = log.header.definition.players
    if log.header.view not in players:
        return Verdict(False, f"the view names {log.header.view!r}, who is not a player", line=1, events=n)
    seat = players.index(log.header.view)
    state: Any = None
    own = 0
    for i, e in enumerate(events):
        seq = i + 1
        opened = game.command_of(e) if state is not None else None
        if opened is not None and opened[0] == seat:
            try:
                produced = checked_decide(game, game.view(state, seat), seat, opened[1])
            except IllegalCommand as exc:
                return _bad(seq, f"illegal from {players[seat]}'s view: {exc}", n)
            # the event may name what the move itself revealed to the player (the
            # cards taken), so the decision is compared, not the event's payload
            if not produced or game.command_of(produced[0]) != opened:
                return _bad(seq, f"{type(e).__name__} is not what the rules make of this move", n)
            own += 1
        try:
            state = game.apply(state, e)
            game.view(state, seat)
        except Exception as exc:  # noqa: BLE001 - a view that cannot be folded is a bad file
            return _bad(seq, f"{players[seat]}'s view does not fold here ({type(exc).__name__})", n)
    return Verdict(
        True,
        f"{n} events; hash chain verified; {log.header.view}'s view folds; {own} of their own "
        "decisions re-decided from their view (hidden lines are checked by their digests)",
        events=n,
    )
