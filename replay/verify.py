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
from core.rng import Rng, deal_seed, seed_commitment
from core.seats import Joined
from events.codec import decoder_for, encode
from events.envelope import line_nonce, payload_digest
from events.service import seed_at
from replay.logfile import LogFile, first_bad_line
from replay.trust import check_seal, check_signed


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
        if (h.seed is not None or h.reseeds) and h.status != "over":
            # the seed is revealed in every export once the game is over (issue 10);
            # the status is then checked against the fold [CL-V4]
            return Verdict(False, "a player's view carries no seed before the game is over [CL-V3]",
                           line=1, events=n)
    if h.seed is not None and seed_commitment(h.seed, h.salt) != d.seed_commitment:
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


def verify(log: LogFile, sealed: bool = True) -> Verdict:
    """Check a log as far as it can be checked, and say what was proved.

    ``sealed``: a play-by-email log must carry the host's seal (a file; a log read
    from the host's own store needs none).
    """
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
    if sealed:
        problem = check_seal(log)
        if problem is not None:
            return Verdict(False, problem, line=1, events=n)
    bad_seq, signed = check_signed(log, game, events)
    if bad_seq is not None:
        return _bad(bad_seq, str(signed), n)
    signed_note = f"; {signed} joins and moves signed by their players" if d.host_key else ""
    if h.view is not None:
        seen = verify_view(game, log, events)
        if not seen.ok:
            return seen
        if h.seed is None or d.table:
            # no seed yet (the game is not over), or chance typed in at a table: a
            # view's hidden lines cannot be re-derived, only chained
            return msgspec.structs.replace(seen, reason=seen.reason + signed_note)
    if game.spec.rules_version != d.rules_version:
        return Verdict(
            False,
            f"recorded under rules {d.rules_version}; this citylog plays {game.spec.rules_version}, "
            "so it can replay the log but not vouch for its legality",
            line=1,
            events=n,
        )
    if h.seed is not None and seed_commitment(h.seed, h.salt) != d.seed_commitment:
        return Verdict(False, "the seed does not match the game's seed commitment", line=1, events=n)
    try:
        expected_created = game.create(d.players, d.options, table=d.table)
    except Exception as exc:  # noqa: BLE001 - any failure here is a bad definition
        return Verdict(False, f"the game definition is not valid: {exc}", line=1, events=n)
    if expected_created != events[0]:
        return _bad(1, "the creation event does not match the game's definition", n)
    secret = h.seed if h.salted else None
    state = game.apply(None, events[0])
    joined: dict[int, Joined] = {}
    started = False
    chance_events = hidden = 0
    i = 1
    while i < n:
        seq = i + 1
        if type(events[i]) is Joined:
            j = events[i]
            if not d.host_key:
                return _bad(seq, "a join in a game that is not played by email", n)
            if started or not 0 <= j.seat < len(d.players) or j.seat in joined:
                return _bad(seq, "a join out of place (after play began, a second join, or no such seat)", n)
            joined[j.seat] = j
            i += 1
            continue
        started = True
        opened = game.command_of(events[i])
        if opened is None:
            return _bad(seq, f"{type(events[i]).__name__} is not a decision the game was waiting for", n)
        seat, command = opened
        if d.host_key and len(joined) < len(d.players):
            return _bad(seq, "play began before every seat had joined", n)
        base = h.seed
        if d.host_key and h.seed is not None:
            base = deal_seed(h.seed, [joined[k].entropy for k in range(len(d.players))])
        line = log.lines[i]
        if seat == CHANCE and not d.table and base is not None:
            chance_events += 1
            seed = seed_at(base, h.reseeds, seq) or ""
            derived = game.chance(state, Rng.derive(seed, seq))
            if not line.redacted and derived != command:
                return _bad(seq, "chance outcome differs from the one the seed gives", n)
            command = derived
        elif line.redacted:
            found = _hidden_decision(game, state, seat, line.digest or "", line_nonce(secret, seq))
            if found is None:
                return _bad(seq, "no legal move of this seat matches the hidden line's digest", n)
            command = found
        try:
            produced = checked_decide(game, state, seat, command)
        except IllegalCommand as exc:
            return _bad(seq, f"illegal: {exc}", n)
        for j, e in enumerate(produced):
            if i + j >= n:
                return _bad(n, "the log stops in the middle of a decision's events", n)
            shown = log.lines[i + j]
            if shown.redacted:
                hidden += 1
                if payload_digest(encode(e), line_nonce(secret, seq + j)) != shown.digest:
                    return _bad(seq + j, "the hidden line's digest does not match what the revealed deal gives", n)
            elif events[i + j] != e:
                return _bad(seq + j, f"{type(events[i + j]).__name__} is not what the rules produce here", n)
            state = game.apply(state, e)
        i += len(produced)
    over = not game.to_act(state)
    wrong_status = status_problem(log, over)
    if wrong_status is not None:
        return wrong_status
    if h.view is not None:
        return Verdict(
            True,
            f"{n} events; hash chain verified{signed_note}; deal proven: {chance_events} chance events, "
            f"{hidden} hidden lines",
            events=n,
            over=over,
        )
    how = "chance checked for possibility (a table game)" if d.table else "chance re-derived from the seed"
    if h.reseeds and not d.table:
        starts = ", ".join(str(s) for s, _ in h.reseeds)
        how += f" (from seq {starts} on: from the fork's new seed, which the chain does not bind)"
    if d.host_key and h.seed:
        how = f"deal proven: {chance_events} chance events from the committed seed and every player's entropy"
    end = "the game is over" if over else "the game is not over"
    return Verdict(
        True, f"{n} events; hash chain verified{signed_note}; every event legal; {how}; {end}", events=n, over=over
    )


def _hidden_decision(game: Any, state: Any, seat: int, digest: str, nonce: bytes) -> Any:
    """The legal command of ``seat`` whose first event has this (salted) digest."""
    for command in game.legal(state, seat):
        try:
            first = checked_decide(game, state, seat, command)[0]
        except IllegalCommand:
            continue
        if payload_digest(encode(first), nonce) == digest:
            return command
    return None


def verify_view(game: Any, log: LogFile, events: list[Any]) -> Verdict:
    """A player's view, as far as its knowledge allows (the chain is already checked).

    It must fold, event by event, to a view (docs/architecture.md, property 5), and each of
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
