"""``verify``: the hash chain, then every event re-decided from the start.

For a seeded game every chance outcome is re-derived from the seed (through
:mod:`core.chance`, the module the writer draws with); for a game played at the
table each outcome is checked for possibility.  A player's view of a game still
going on can only be checked by its hash chain and its own moves; once the game
is over and the seed revealed, every line of the view is re-derived and must be
shown exactly as the one redaction path writes it.  The first bad line is named;
nothing after it is trusted (python-chess #365: never keep going after an
illegal move).

What a header says about the log is checked too, since the header itself is not
chained: a full log holds no redacted line and, unless its chained definition
marks a table game, the seed its commitment names (:func:`header_problem`); a
log that says it is over must fold to a finished game, and one that says it is
active to an unfinished one (:func:`status_problem`); a fork's reseed counts only
where the chain commits to it (:func:`chance_plan`, CL-V7).  Bots, lineage and
the ``salted`` flag of a scheme-2 game decide nothing here.
"""

from __future__ import annotations

from typing import Any

import msgspec

from core.words import plural
from core import registry
from core.engine import CHANCE, IllegalCommand, RulesError, checked_decide
from core import chance
from core.chance import ChanceSource, Reseeded
from core.deadlines import Handed, TimedOut
from core.rng import seed_commitment
from core.seats import Joined, Revealed, matches
from core.redecide import compare
from core.upgrade import Upgraded, newer
from events.seeds import chance_source_of
from events.codec import decoder_for, encode
from events.envelope import line_nonce, payload_digest
from events.signing import hex_bytes
from events.statements import ENTROPY_HEX, HASH_HEX, SALT_HEX
from replay.logfile import Line, LogFile, first_bad_line
from replay.trust import SignedMemo, check_seal, check_signed


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
        if type(e).__struct_config__.tag != line.type:
            return _bad(line.seq, f"type {line.type!r} does not match the payload", len(log.lines))
        events.append(e)
    # a log of an older rules version the game still keeps is checked by those rules
    return game.for_rules(d.rules_version) or game, events


def header_problem(log: LogFile) -> Verdict | None:
    """What the (unchained) header claims that the chained lines or definition deny.

    - A full log (no ``view``) has no redacted line: a referee's log hides
      nothing, and a redacted line's payload would go unchecked.  [CL-V1]
    - A full log of a seeded game (its chained definition does not say
      ``table``) carries the seed its commitment names: without it chance could
      not be re-derived, only checked for possibility.  [CL-V2]
    - A view names one of the game's players and carries no seed.  [CL-V3]
    - A game by email is never a table game: the host would type in its chance.  [CL-V2]
    """
    h, d = log.header, log.header.definition
    n = len(log.lines)
    if d.host_key and d.table:
        # citylog never makes one (new --pbem --table is refused): its chance would be
        # typed in by the host, who sees every card, and no deal could be proven [CL-V2]
        return Verdict(False, "a game by email whose definition says table: its chance would be typed in "
                       "by the host, not drawn from the committed seed and the players' entropy [CL-V2]",
                       line=1, events=n)
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
    if h.seed is not None and not _commits(h.seed, h.salt, d.seed_commitment):
        return Verdict(False, "the seed does not match the game's seed commitment", line=1, events=n)
    last = 1
    for start, seed in h.reseeds:
        if not last < start <= n + 1 or not seed:
            return Verdict(False, f"reseed at seq {start}: reseeds go in increasing seq order, "
                           f"within the log (2..{n + 1})", line=1, events=n)
        last = start
    if h.view is not None:
        for line in log.lines:
            # one spelling per line: a visible line carries no digest, a redacted one no nonce
            if (line.redacted and line.nonce is not None) or (not line.redacted and line.digest is not None):
                return _bad(line.seq, "a visible line carries no digest and a redacted line no nonce", n)
    return None


class ChancePlan(msgspec.Struct, frozen=True):
    """Where a log's chance comes from, as far as the chain binds it [CL-V7]."""

    source: ChanceSource
    starts: tuple[int, ...]
    """Every seq from which a reseed (bound or not) takes over, in order."""
    unbound: frozenset[int]
    """Reseeds only the header names (forks before reseeds were chained): from
    there on chance is checked for possibility only (not proven)."""


def chance_plan(log: LogFile, events: list[Any]) -> ChancePlan | Verdict:
    """The chance source of a log: the revealed seed (and, play by email, every
    player's entropy), and each fork's reseed whose revealed seed matches its
    chained commitment.  A chained reseed whose seed the reveal leaves out, or
    whose seed does not match, fails; a header reseed the chain does not hold
    fails for a game of secret scheme 2, and is used by no check for an older
    game (its draws are then only possible, not proven)."""
    h, d = log.header, log.header.definition
    n = len(events)
    bound = {i + 1: e.commitment for i, e in enumerate(events) if type(e) is Reseeded}
    revealed = dict(h.reseeds)
    if h.seed is not None:
        for seq, commitment in bound.items():
            seed = revealed.get(seq)
            if seed is None:
                return _bad(seq, "the fork's seed, committed here, is not revealed with the game's "
                            "(the header's reseeds) [CL-V7]", n)
            try:
                matches = chance.reseed_commitment(seed, h.salt, seq) == commitment
            except ValueError:
                matches = False
            if not matches:
                return _bad(seq, "the fork's revealed seed does not match the commitment chained "
                            "here [CL-V7]", n)
    unbound = frozenset(s for s in revealed if s not in bound)
    if unbound and d.secrets != chance.SEED_ALONE:
        return Verdict(False, f"the header names a reseed at seq {min(unbound)} that the chain does not "
                       "commit to [CL-V7]", line=1, events=n)
    if unbound and d.host_key:
        # an old scheme's header reseed is only "not proven" elsewhere; in a game by email any
        # new seed is the host's choice, made while it sees every card [CL-V7]
        return Verdict(False, f"a new seed in a game by email (the header's reseed at seq {min(unbound)}): "
                       "the host chose it while seeing every card, so its draws are not a fair deal [CL-V7]",
                       line=1, events=n)
    try:  # the writer's derivation (events.seeds), with the chained reseeds checked
        source = chance_source_of(d, h.seed, h.salt, h.reseeds, events, bound=bound)
    except ValueError as exc:
        return Verdict(False, f"the seed cannot be used: {exc}", line=1, events=n)
    return ChancePlan(source, tuple(sorted(set(bound) | set(revealed))), unbound)


def _reseed_before(plan: ChancePlan, seq: int) -> int | None:
    start = None
    for s in plan.starts:
        if s <= seq:
            start = s
    return start


def _commits(seed: str, salt: str | None, commitment: str) -> bool:
    """Whether ``seed`` (with ``salt``) is the one ``commitment`` names; a salt that
    is not hex names none."""
    try:
        return seed_commitment(seed, salt) == commitment
    except ValueError:
        return False


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
        unsealed = check_seal(log)
        if unsealed is not None:
            return Verdict(False, unsealed, line=1, events=n)
    early = _deal_before_reveals(game, log, events)
    if early is not None:
        return _bad(early, "play began before every seat had revealed its committed entropy: chance is dealt "
                    "only from revealed entropies, every one fixed before any was shown [CL-S7]", n)
    memo = SignedMemo()
    bad_seq, signed = check_signed(log, game, events, memo)
    if bad_seq is not None or not isinstance(signed, int):
        return _bad(bad_seq or 0, str(signed), n)
    signed_note = (f"; {plural(signed, 'line')} signed by their players (joins, reveals, moves, hand-overs)"
                   if d.host_key else "")
    timeouts = sum(type(e) is TimedOut for e in events)
    if timeouts:  # [CL-T1] each checked by check_signed: the host's signature, the policy, the claimed clock
        signed_note += f"; {timeouts} timeout{'s' if timeouts > 1 else ''} signed by the host (its clock is its word)"
    if d.host_key:
        for line, e in zip(log.lines, events, strict=True):
            if type(e) is Reseeded:
                # however well bound, a new seed in a game by email is the host's choice,
                # made while it sees every card: the deal it gives is not the players' [CL-V7]
                return _bad(line.seq, "a new seed in a game by email: the host chose it while seeing every card, "
                            "so the draws from here on are the host's choice, not a fair deal [CL-V7]", n)
    if h.view is not None:
        seen = verify_view(game, log, events)
        if not seen.ok:
            return seen
        if h.seed is None or d.table:
            # no seed yet (the game is not over), or chance typed in at a table: a
            # view's hidden lines cannot be re-derived, only chained
            if seen.over and not d.table:
                # the events end the game, so every export carries the reveal: one
                # without it (its header set back to active) proves nothing [CL-V4]
                return Verdict(False, "the game is over (its events end it), but this view carries no seed: "
                               "the reveal was withheld, so its deal cannot be proven [CL-V4]",
                               line=1, events=n, over=True)
            wrong = status_problem(log, bool(seen.over))
            if wrong is not None:
                return wrong
            return msgspec.structs.replace(seen, reason=seen.reason + signed_note)
    if game.spec.rules_version != d.rules_version:
        return Verdict(
            False,
            f"recorded under rules {d.rules_version}; this citylog plays {game.spec.rules_version}, "
            "so it can replay the log but not vouch for its legality",
            line=1,
            events=n,
        )
    if h.seed is not None and not _commits(h.seed, h.salt, d.seed_commitment):
        return Verdict(False, "the seed does not match the game's seed commitment", line=1, events=n)
    try:
        expected_created = game.create(d.players, d.options, table=d.table)
    except Exception as exc:  # noqa: BLE001 - any failure here is a bad definition
        return Verdict(False, f"the game definition is not valid: {exc}", line=1, events=n)
    if expected_created != events[0]:
        return _bad(1, "the creation event does not match the game's definition", n)
    secret = log.line_secret
    plan = chance_plan(log, events)
    if isinstance(plan, Verdict):
        return plan
    view_seat = d.players.index(h.view) if h.view is not None else None
    state = game.apply(None, events[0])
    joined: dict[int, Joined] = {}
    revealed: dict[int, Revealed] = {}
    committed = bool(d.host_key) and d.entropy == chance.COMMITTED_ENTROPY
    true_events = list(events)
    """The events as the reveal re-derives them (a view's redacted lines filled in)."""
    decided: list[Decided] = []
    """Every decision so far, as re-derived: what an upgrade's re-decision re-checks [CL-U4]."""
    started = False
    chance_events = hidden = unproven = 0
    i = 1
    while i < n:
        seq = i + 1
        line = log.lines[i]
        if type(events[i]) in (Joined, Revealed, Reseeded, TimedOut, Handed, Upgraded) and line.redacted:
            return _bad(seq, "a join, reveal, reseed, timeout, hand-over or upgrade line hides nothing: "
                        "it is never redacted", n)
        if type(events[i]) is Revealed:
            why = _revealed_problem(d, events[i], joined, revealed, started)
            if why is not None:
                return _bad(seq, why, n)
            revealed[events[i].seat] = events[i]
            i += 1
            continue
        if type(events[i]) in (TimedOut, Handed):
            if not d.host_key:  # checked line by line, signatures and all, by check_signed [CL-T1, CL-T5]
                return _bad(seq, "a timeout or hand-over in a game that is not played by email", n)
            state = game.apply(state, events[i])
            i += 1
            continue
        if type(events[i]) is Upgraded:
            switched = upgrade_problem(game, events[i], decided, d.players)
            if isinstance(switched, str):
                return _bad(seq, switched, n)
            game = switched
            state = game.apply(state, events[i])
            i += 1
            continue
        if type(events[i]) is Reseeded:
            state = game.apply(state, events[i])
            i += 1
            continue
        if type(events[i]) is Joined:
            j = events[i]
            if not d.host_key:
                return _bad(seq, "a join in a game that is not played by email", n)
            if started or revealed or not 0 <= j.seat < len(d.players) or j.seat in joined:
                return _bad(seq, "a join out of place (after play began or a reveal, a second join, or no such seat)", n)
            if committed and (j.entropy or hex_bytes(j.commitment, HASH_HEX) is None):
                return _bad(seq, "a join in a game of committed entropy carries its entropy, or no commitment "
                            "[CL-S7]", n)
            if not committed and j.commitment:
                return _bad(seq, "a join with an entropy commitment in a game whose joins carry their entropy [CL-S7]", n)
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
        if committed and len(revealed) < len(d.players):
            # [CL-S7] chance only from revealed entropies, every one of them fixed before any was shown
            return _bad(seq, "play began before every seat had revealed its committed entropy [CL-S7]", n)
        produced: tuple[Any, ...] | None = None
        if seat == CHANCE and not d.table:
            chance_events += 1
            start = _reseed_before(plan, seq)
            if start is not None and start in plan.unbound:
                unproven += 1  # an old fork's header reseed: only possible [CL-V7]
                if line.redacted:
                    return _bad(seq, "a hidden chance line after a reseed the chain does not bind", n)
            else:
                rng = plan.source.rng(seq)
                if rng is None:
                    return _bad(seq, "no seed to re-derive this chance event from [CL-V2]", n)
                try:
                    derived = game.chance(state, rng)
                except RulesError:  # the line says chance, the game has none pending: a forged line
                    return _bad(seq, "a chance event where the game has no chance outcome pending", n)
                if not line.redacted and derived != command:
                    return _bad(seq, "chance outcome differs from the one the seed gives", n)
                command = derived
        elif line.redacted:
            found = _hidden_decision(game, state, seat, line.digest or "", line_nonce(secret, seq), line.signed)
            if found is None:
                return _bad(seq, "no legal move of this seat matches the hidden line's digest", n)
            command, produced = found  # decided once: the search's events are the decision's
        if produced is None:
            try:
                produced = checked_decide(game, state, seat, command)
            except IllegalCommand as exc:
                return _bad(seq, f"illegal: {exc}", n)
        for j, e in enumerate(produced):
            if i + j >= n:
                return _bad(n, "the log stops in the middle of a decision's events", n)
            shown = log.lines[i + j]
            wrong_line = _shown_problem(game, shown, events[i + j], e, view_seat, line_nonce(secret, seq + j))
            if wrong_line is not None:
                return _bad(seq + j, wrong_line, n)
            hidden += shown.redacted
            true_events[i + j] = e
        decided.append(Decided(seq, state, seat, command, tuple(produced)))
        for e in produced:
            state = game.apply(state, e)
        i += len(produced)
    over = not game.to_act(state)
    wrong_status = status_problem(log, over)
    if wrong_status is not None:
        return wrong_status
    if h.view is not None and d.host_key:
        unsigned = revealed_signed_problem(log, game, true_events, memo)
        if unsigned is not None:
            return unsigned
    reseeded = _reseed_note(plan, bool(d.host_key), d.table)
    if h.view is not None:
        what = "deal proven" if not reseeded else "deal re-derived"
        return Verdict(
            True,
            f"{n} events; hash chain verified{signed_note}; {what}: {chance_events} chance events, "
            f"{hidden} hidden lines, each shown as the revealed deal gives it{reseeded}",
            events=n,
            over=over,
        )
    how = "chance checked for possibility (a table game)" if d.table else "chance re-derived from the seed"
    if d.host_key and h.seed and not reseeded:
        how = f"deal proven: {chance_events} chance events from the committed seed and every player's entropy"
        if committed:
            how += " (each committed before any was revealed)"
    end = "the game is over" if over else "the game is not over"
    return Verdict(
        True,
        f"{n} events; hash chain verified{signed_note}; every event legal; {how}{reseeded}; {end}",
        events=n,
        over=over,
    )


def _deal_before_reveals(game: Any, log: LogFile, events: list[Any]) -> int | None:
    """The seq of the first decision (chance included) of a game of committed entropy
    made before every seat revealed, or None: checked on every log and view [CL-S7]."""
    d = log.header.definition
    if not d.host_key or d.entropy != chance.COMMITTED_ENTROPY:
        return None
    seats: set[int] = set()
    for i, e in enumerate(events[1:], start=2):
        if type(e) is Revealed:
            seats.add(e.seat)
        elif len(seats) < len(d.players) and game.command_of(e) is not None:
            return i
        elif len(seats) >= len(d.players):
            return None
    return None


def _revealed_problem(
    d: Any, e: Revealed, joined: dict[int, Joined], revealed: dict[int, Revealed], started: bool
) -> str | None:
    """Why a reveal line is out of place or does not open its seat's commitment [CL-S7]
    (its signed file is checked by :func:`replay.trust.check_signed`)."""
    if not d.host_key or d.entropy != chance.COMMITTED_ENTROPY:
        return "a reveal in a game whose joins carry their entropy in the clear [CL-S7]"
    if started or len(joined) < len(d.players) or e.seat in revealed or e.seat not in joined:
        return "a reveal out of place (before every seat joined, after play began, a second one, or no such seat) [CL-S7]"
    if hex_bytes(e.entropy, ENTROPY_HEX) is None or hex_bytes(e.salt, SALT_HEX) is None:
        return "a reveal's entropy or salt is not fixed-length lower-case hex [CL-S7]"
    if not matches(joined[e.seat], e):
        return f"{d.players[e.seat]}'s revealed entropy does not open the commitment chained at the join [CL-S7]"
    return None


class Decided(msgspec.Struct, frozen=True):
    """One decision as ``verify`` re-made it: its first seq, the state before it, and
    the events the rules in effect made of it."""

    seq: int
    state: Any
    seat: int
    command: Any
    produced: tuple[Any, ...]


def upgrade_problem(game: Any, up: Upgraded, decided: list[Decided], players: Any) -> Any:
    """The rules an :class:`~core.upgrade.Upgraded` line switches to, or why it fails
    (a string) [CL-U4]: it upgrades from the rules in effect, to another version this
    citylog keeps, and those rules re-decide every decision before it — ``decided``,
    each from the state it was made at — to byte-identical events, as ``citylog
    upgrade`` checked before writing it.  So no upgrade changes a past decision.
    And it goes to newer rules than those in effect, never back [CL-U5]."""
    now = game.spec.rules_version
    if up.from_version != now:
        return f"the upgrade says the game was on rules {up.from_version!r}, but {now} are in effect here [CL-U4]"
    if up.to_version == now:
        return f"an upgrade from {now} to itself [CL-U4]"
    if not newer(up.to_version, now):
        # [CL-U5] only ever to newer rules: a switch back (and so pc-3 → pc-2 → pc-3) would
        # be a line the host places at will, moving the game off the rules its players joined
        return f"an upgrade from {now} back to {up.to_version}: an upgrade only goes to newer rules [CL-U5]"
    new = game.for_rules(up.to_version)
    if new is None:
        return (f"an upgrade to rules {up.to_version!r}, which this citylog does not keep: "
                "it cannot vouch for the lines after it [CL-U4]")
    for x in decided:
        found, _ = compare(new, x.state, x.seat, x.command, x.produced, encode, players, x.seq)
        if found is not None:
            return f"the upgrade to {up.to_version} changes a recorded decision: {found.text(players, up.to_version)} [CL-U4]"
    return new


def revealed_signed_problem(
    log: LogFile, game: Any, true_events: list[Any], memo: SignedMemo | None = None
) -> Verdict | None:
    """[CL-S5] A play-by-email view with the reveal, checked as the full log it
    re-derives: every human decision of *every* seat carries its seat's signed move
    file, made on this chain where that decision was pending, used once, and the
    command it signs is the one the line holds (hidden or not).

    Without this a host could hand each player a game of her own, playing every
    other seat itself: a view skips another seat's line whose file it lacks, and
    each player's own lines are hers (the "split views" attack)."""
    full = LogFile(
        msgspec.structs.replace(log.header, view=None),
        [msgspec.structs.replace(x, redacted=False) for x in log.lines],
    )
    bad_seq, why = check_signed(full, game, true_events, memo)
    if bad_seq is None:
        return None
    return _bad(bad_seq, f"in the game the reveal re-derives: {why} [CL-S5]", len(log.lines))


def _shown_problem(game: Any, shown: Line, decoded: Any, true: Any, seat: int | None, nonce: bytes) -> str | None:
    """Why a line does not show the true event ``true`` as it must, or None.

    A full log shows every event as it is.  A view with the reveal shows each
    line as the one redaction path writes it: visible exactly when redaction
    changes nothing, the visible payload the true event, a redacted line's digest
    the true payload's and its payload ``redact(true, seat)`` — so no line of a
    finished view can be re-labelled or re-filled without failing (issue 22)."""
    if seat is None:
        return None if decoded == true and not shown.redacted else (
            f"{type(decoded).__name__} is not what the rules produce here")
    seen = game.redact(true, seat)
    if not shown.redacted:
        if decoded != true:
            return f"{type(decoded).__name__} is not what the rules produce here"
        if seen != true:
            return "this line shows what the view's player may not see (it must be redacted)"
        return None
    if seen == true:
        return "a line the view's player may see is marked redacted"
    if payload_digest(encode(true), nonce) != shown.digest:
        return "the hidden line's digest does not match what the revealed deal gives"
    if decoded != seen:
        return "the redacted line's payload is not the true event as this player may see it"
    return None


def _reseed_note(plan: ChancePlan, pbem: bool, table: bool) -> str:
    """What the verdict says of a fork's reseeds [CL-V7]."""
    if table or not plan.starts:
        return ""
    parts = []
    for start in plan.starts:
        if start in plan.unbound:
            parts.append(f"from seq {start} on: the fork's seed is in the header only, not bound by the "
                         "chain, so those draws are only checked for possibility — not proven")
        elif pbem:
            parts.append(f"from seq {start} on: from the fork's seed, committed in the chain at seq {start} "
                         "but chosen by the host after the players' entropy was known — not proven fair")
        else:
            parts.append(f"from seq {start} on: from the fork's seed, committed in the chain at seq {start}")
    return " (" + "; ".join(parts) + ")"


def _hidden_decision(
    game: Any, state: Any, seat: int, digest: str, nonce: bytes, signed: Any = None
) -> tuple[Any, tuple[Any, ...]] | None:
    """The legal command of ``seat`` whose first event has this (salted) digest,
    with the events it decides (so the caller need not decide it again).

    ``signed``: the line's signed move file, where the view carries it (a view
    with the reveal carries every seat's [CL-S5]): its commands are tried first,
    each parsed and decided by the rules and held to the same digest, so a
    wrong or hostile one only falls through to the search of every legal move."""
    hints = signed.get("commands") if isinstance(signed, dict) else None
    if isinstance(hints, list) and len(hints) <= 64:
        for text in hints:
            try:
                command = game.parse_command(state, seat, text)
                produced = checked_decide(game, state, seat, command)
            except Exception:  # noqa: BLE001 - any text a sender put there: not this decision
                continue
            if produced and payload_digest(encode(produced[0]), nonce) == digest:
                return command, tuple(produced)
    for command in game.legal(state, seat):
        try:
            produced = checked_decide(game, state, seat, command)
        except IllegalCommand:
            continue
        if produced and payload_digest(encode(produced[0]), nonce) == digest:
            return command, tuple(produced)
    return None


def _redaction_of_itself(game: Any, shown: Any, seat: int) -> bool:
    """Whether a redacted line's payload is already as ``seat`` may see it (a forged
    payload the game cannot even redact is not)."""
    try:
        return game.redact(shown, seat) == shown
    except Exception:  # noqa: BLE001 - a payload no real event has
        return False


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
    seen: Any = None
    """``game.view(state, seat)``, made once per event (its own decisions are decided from it)."""
    own = 0
    mine: list[Decided] = []
    """The player's own decisions, from her view: what an upgrade re-checks here [CL-U4]."""
    for i, e in enumerate(events):
        seq = i + 1
        if type(e) is Upgraded and state is not None:
            if log.lines[i].redacted:
                return _bad(seq, "an upgrade line hides nothing: it is never redacted", n)
            switched = upgrade_problem(game, e, mine, players)
            if isinstance(switched, str):
                return _bad(seq, f"{switched} (re-checked from {players[seat]}'s view)", n)
            game = switched
        if log.lines[i].redacted and not _redaction_of_itself(game, e, seat):
            # a redacted line shows the event as the player may see it: what it hides
            # stays hidden (a payload showing cards there was put in) [CL-V8]
            return _bad(seq, "the redacted line's payload shows what the player may not see", n)
        opened = game.command_of(e) if state is not None else None
        if opened is not None and opened[0] == seat:
            if log.lines[i].redacted:
                # no game hides a player's own decision from her: a redacted line of hers
                # would keep her file's command unchecked against what the chain holds [CL-S3]
                return _bad(seq, f"a decision of {players[seat]}'s own is marked redacted in her view "
                            "(nothing she decided is hidden from her)", n)
            try:
                produced = checked_decide(game, seen, seat, opened[1])
            except IllegalCommand as exc:
                return _bad(seq, f"illegal from {players[seat]}'s view: {exc}", n)
            # the event may name what the move itself revealed to the player (the
            # cards taken), so the decision is compared, not the event's payload
            if not produced or game.command_of(produced[0]) != opened:
                return _bad(seq, f"{type(e).__name__} is not what the rules make of this move", n)
            mine.append(Decided(seq, seen, seat, opened[1], tuple(produced)))
            own += 1
        try:
            state = game.apply(state, e)
            seen = game.view(state, seat)
        except Exception as exc:  # noqa: BLE001 - a view that cannot be folded is a bad file
            return _bad(seq, f"{players[seat]}'s view does not fold here ({type(exc).__name__})", n)
    return Verdict(
        True,
        f"{n} events; hash chain verified; {log.header.view}'s view folds; {own} of their own "
        "decisions re-decided from their view (hidden lines are checked by their digests)",
        events=n,
        over=state is not None and not game.to_act(state),
    )
