"""What a play-by-email log proves about its host and players (issue 10).

* **Seal.**  The host signs (game id, seq, head hash, view) of every export of
  a ``--pbem`` game with the key named in its definition; a cut-off or
  re-headed export no longer matches its seal.
* **Signed moves.**  Each human decision line carries the signed move file
  behind it (each join, the signed join file); anyone can check that every
  move was made by its seat's key, the one recorded when it joined.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from core import deadlines
from core.deadlines import Handed, TimedOut
from core.engine import CHANCE
from core import chance
from core.seats import Joined, Revealed, entropy_commitment
from core.upgrade import rules_per_line
from events import statements
from events.signing import KEY_HEX, same_hex, verify_signature
from events.statements import CommittedJoin, HandOver, JoinFile, MoveFile, Reveal
from replay.logfile import Header, LogFile

Sealer = Callable[[dict[str, Any]], str]
"""Signs a seal body (domain ``export``) with the host's key; returns hex."""

_dec = msgspec.json.Decoder(dict[str, Any])


def seal_body(log: LogFile) -> dict[str, Any]:
    last = log.lines[-1] if log.lines else None
    return {
        "game_id": log.header.game_id,
        "seq": last.seq if last else 0,
        "head": last.hash if last else "",
        "view": log.header.view,
    }


def seal(log: LogFile, sealer: Sealer) -> Header:
    return msgspec.structs.replace(log.header, seal=sealer(seal_body(log)))


def check_seal(log: LogFile) -> str | None:
    """Why the export's seal fails, or None (only play-by-email games are sealed)."""
    host = log.header.definition.host_key
    if not host:
        return None
    if not log.header.seal:
        return "the export is not sealed by the host (a play-by-email export must be)"
    if not verify_signature(host, "export", seal_body(log), log.header.seal):
        return (
            "the host's seal does not match this export's game, last seq, head hash and view "
            "(cut off, re-headed or not the host's)"
        )
    return None


def attach_signed(log: LogFile, signed: Mapping[int, bytes]) -> None:
    """Put each signed statement on the line it opened.  In a view of a game still
    going on, another seat's statement any of whose lines is redacted is left out
    (it would show the hidden cards); the viewer's own statements always travel
    (she wrote them), so her ``verify`` can tell that every decision of her seat
    was hers [CL-S3].  A view carrying the reveal (the game is over, its seed in
    the header) carries every statement: the reveal already lets its reader
    re-derive every hidden decision, and her ``verify`` must see that every seat's
    decisions were that seat's player's, not the host's [CL-S5]."""
    if not signed:
        return
    redacted = {x.seq for x in log.lines if x.redacted}
    viewer = log.header.view
    revealed = log.header.seed is not None
    hidden = set() if revealed else {st for seq, st in signed.items() if seq in redacted and not _by(st, viewer)}
    for i, line in enumerate(log.lines):
        st = signed.get(line.seq)
        if st is not None and st not in hidden:
            try:
                shown = _dec.decode(st)
            except (msgspec.DecodeError, RecursionError):
                continue  # a damaged stored statement: verify names the line that lacks it
            log.lines[i] = msgspec.structs.replace(line, signed=shown)


def _by(statement: bytes, player: str | None) -> bool:
    """Whether a stored statement is ``player``'s own (its ``player`` field)."""
    if player is None:
        return False
    try:
        return bool(_dec.decode(statement).get("player") == player)
    except (msgspec.DecodeError, RecursionError, AttributeError):
        return False


def signed_bytes(statement: dict[str, Any]) -> bytes:
    """A line's signed statement as the store keeps it (canonical JSON)."""
    return msgspec.json.Encoder(order="sorted").encode(statement) + b"\n"


class SignedMemo:
    """What one ``verify`` has already worked out about the signed statements on
    its lines, so a second pass over them (a view's, then the revealed game's
    [CL-S5]) decodes no statement and checks no signature twice.  Only the work is
    shared: every check is still made on every pass, from these results."""

    def __init__(self) -> None:
        self.statements: dict[tuple[bytes, str], statements.Statement | statements.StatementError] = {}
        """(the line's statement in its encoding, what it was read as) -> the decoded statement or why not."""
        self.signatures: dict[tuple[statements.Statement, str], bool] = {}
        """(decoded statement, key) -> whether the statement is signed by the key."""

    def statement(self, signed: dict[str, Any], source: str) -> statements.Statement:
        """:func:`events.statements.from_line`, each distinct statement decoded once."""
        data = statements.line_bytes(signed, source)
        at = (data, source)
        got = self.statements.get(at)
        if got is None:
            try:
                got = statements.decode(data, source)
            except statements.StatementError as exc:
                got = exc
            self.statements[at] = got
        if isinstance(got, statements.StatementError):
            raise got
        return got


def check_signed(
    log: LogFile, game: Any, events: Sequence[Any], memo: SignedMemo | None = None
) -> tuple[int, str] | tuple[None, int]:
    """Every join and human move against the signed file on its line.

    Returns ``(seq, why)`` of the first failure, else ``(None, number checked)``.
    A line of a view whose statement was left out (hidden cards) is not checked.

    Each statement must be in its one encoding (:func:`events.statements.decode`)
    and everything is compared as bytes.  A join must answer this log's genesis
    (the definition with its salted commitment and host key: a game re-created
    and re-dealt after the joins fails here) and, once the seed is known, prove
    its seat's invitation.  A move must be its seat's, signed by the key that
    joined, made on this chain before its line (game id, seq, the hash of that
    seq), from a position whose decision for the seat is the one pending at the
    line (it commutes with what came between), and used at most once (keyed by
    its signature's bytes); a file of several commands plays them in a row, no
    other decision between one and the next (the writer applies a file at once).

    ``memo``: statements decoded and signatures checked already in this
    ``verify``, so a second pass decodes and checks none of them twice.

    ``game``: any version's rules of the log's game.  Each line is judged by the
    rules in effect *at that line* (:func:`core.upgrade.rules_per_line`): after a
    rules upgrade, a bot's decision, a timeout and a command's one spelling are the
    new rules', before it the old ones' — never the definition's for the whole log,
    which would fail an honest game, or pass a host's line the rules in effect
    refuse [CL-U6].
    """
    memo = SignedMemo() if memo is None else memo
    d, h = log.header.definition, log.header
    if not d.host_key or not log.lines:
        return None, 0
    genesis = log.lines[0].prev_hash
    hashes = [genesis] + [x.hash for x in log.lines]
    """hashes[s]: the hash the chain has after seq s (the genesis for 0)."""
    own = d.players.index(h.view) if h.view in d.players else None
    states = _States(game, events, own)
    rules = rules_per_line(game, list(events))
    keys: dict[int, str] = {}
    used: dict[bytes, int] = {}
    last_use: dict[bytes, int] = {}
    """A move file's signature -> the seq of the line its latest command opened."""
    last_decision = 0
    """The seq of the latest line opening a human decision (of any seat)."""
    checked = 0
    bots: set[int] = set()
    """Seats the bot plays (handed over, or forfeited) [CL-T4, CL-T5]."""
    gave_up: set[int] = set()
    """Forfeited seats: the bot's to the end [CL-T4]."""
    timed: int | None = None
    """The seat a ``bot``/``forfeit`` timeout just timed out: the next decision is the bot's [CL-T2]."""
    commitments: dict[int, str] = {}
    """Seat -> its join's chained entropy commitment (entropy scheme 2) [CL-S7]."""
    revealed: set[int] = set()
    last_join = 0
    """The seq of the latest join line: the position every reveal answers [CL-S7]."""
    for i, (line, e) in enumerate(zip(log.lines, events, strict=True)):
        st = line.signed
        game = rules[i]  # the rules in effect at this line [CL-U6]
        if type(e) is TimedOut:
            why = _timeout_problem(log, game, events, i, line, e, hashes, states, timed)
            if why is not None:
                return line.seq, why
            timed = e.seat if e.action in ("bot", "forfeit") else None
            if e.action == "forfeit":
                bots.add(e.seat)
                gave_up.add(e.seat)
            continue
        if type(e) is Handed:
            why = _handover_problem(log, memo, line, e, hashes, keys, used, bots)
            if why is None:  # every view can check it: its seat's lines are never all hidden
                why = _stale_handover(game, events[:i], e.seat, line.signed)
            if why is None and e.seat in gave_up:
                why = f"{_name(d, e.seat)} forfeited the seat on timeout: it cannot be handed back [CL-T4]"
            if why is not None:
                return line.seq, why
            (bots.add if e.bot else bots.discard)(e.seat)
            checked += 1
            continue
        if type(e) is Joined:
            why = _join_problem(log, memo, line, e, genesis)
            if why is not None:
                return line.seq, why
            keys[e.seat] = e.public_key
            commitments[e.seat] = e.commitment
            last_join = line.seq
            checked += 1
            continue
        if type(e) is Revealed:
            why = _reveal_problem(log, memo, line, e, hashes, keys, commitments, revealed, last_join)
            if why is not None:
                return line.seq, why
            revealed.add(e.seat)
            checked += 1
            continue
        opened = game.command_of(e)
        if opened is None or opened[0] == CHANCE:
            continue
        seat, command = opened
        before, last_decision = last_decision, line.seq
        if timed is not None and seat != timed:
            return line.seq, f"a timeout of {_name(d, timed)} is not followed by the bot's decision for that seat [CL-T2]"
        if timed is not None or seat in bots:
            timed = None
            # [CL-T2] the bot played this decision from the seat's own view: re-derived
            # wherever that view can be folded (her own view, a full log, the reveal)
            if st is not None:
                return line.seq, f"a decision the bot played for {_name(d, seat)} carries a signed move file"
            if states.can_check(seat) and not line.redacted:
                # [CL-V10] its tie-breaks by the seat's decision count, which no placed line moves
                index = deadlines.decision_index(game, events[:i], seat)
                expected = deadlines.bot_command(game, states.state(line.seq - 1), seat, genesis, index)
                if expected != command:
                    return line.seq, (
                        f"the bot's decision for {_name(d, seat)} is not the one the bot makes from "
                        f"{_name(d, seat)}'s view ({game.format_command(expected)!r}) [CL-T2]"
                    )
            continue
        if st is None:
            if h.view is not None and seat != own:
                continue  # another seat's, left out of a view: it would show hidden cards
            if seat == own:
                # [CL-S3] a view always carries its own player's move files (they hide
                # nothing from her): a decision of hers without one was not made by her
                # (a bot or the host played her seat)
                return line.seq, f"a move of {h.view}'s seat without {h.view}'s signed move file (not made by her)"
            who = d.players[seat] if 0 <= seat < len(d.players) else f"seat {seat}"
            return line.seq, f"a move of {who}'s seat without {who}'s signed move file (not made by {who})"
        try:
            mv = memo.statement(st, "the move file")
        except statements.StatementError as exc:
            return line.seq, f"the signed statement on a move line is not a move file ({_why(exc)})"
        if not isinstance(mv, MoveFile):
            return line.seq, "the signed statement on a move line is not a move file"
        name = d.players[seat] if 0 <= seat < len(d.players) else ""
        if mv.player != name or mv.game_id != h.game_id:
            return line.seq, f"the move file on this line is {mv.player}'s for game {mv.game_id}, not {name}'s"
        if seat not in keys or not _checked(memo, mv, keys[seat]):
            return line.seq, f"the move is not signed by {name}'s key (a forgery)"
        sig = bytes.fromhex(mv.signature)
        k = used.get(sig, 0)
        used[sig] = k + 1
        cmds = mv.all_commands
        if k >= len(cmds):
            return line.seq, f"{name}'s move file is used again on this line (a replay of an older move)"
        if k == 0:
            where = _position_problem(mv, line.seq, hashes, states, seat)
            if where is not None:
                return line.seq, where
        elif last_use.get(sig) != before:
            # [CL-S3] a file's commands are applied together, one after the other (only
            # chance between them): a later command kept back and played elsewhere
            # answers a decision its player never saw
            return line.seq, (
                f"{name}'s move file's command {k + 1} is played apart from the one before it "
                "(another decision came between: a command kept back and used out of its place)"
            )
        last_use[sig] = line.seq
        if not line.redacted and cmds[k] != game.format_command(command):
            return line.seq, f"the move on this line is not the one {name} signed"
        checked += 1
    if timed is not None:
        return len(log.lines), f"a timeout of {_name(d, timed)} is not followed by the bot's decision [CL-T2]"
    return None, checked


def _join_problem(log: LogFile, memo: SignedMemo, line: Any, e: Joined, genesis: str) -> str | None:
    """Why a join line is not backed by its seat's signed join file: of the format the
    chained definition's entropy scheme takes (a clear-entropy join in a game of
    committed entropy fails [CL-S7]), this game's, this genesis', signed by the key
    it carries, and, once the seed is known, holding the seat's invitation."""
    d, h = log.header.definition, log.header
    st = line.signed
    if st is None:
        return "a join without its signed join file"
    try:
        jf = memo.statement(st, "the join file")
    except statements.StatementError as exc:
        return f"the signed statement on a join line is not a join file ({_why(exc)})"
    committed = d.entropy == chance.COMMITTED_ENTROPY
    if committed and isinstance(jf, JoinFile):
        return (f"a {statements.JOIN_FORMAT} join (its entropy in the clear) in a game whose joins commit "
                "to their entropy: the host saw it before the others were fixed [CL-S7]")
    if not isinstance(jf, CommittedJoin if committed else JoinFile):
        return "the signed statement on a join line is not a join file"
    name = d.players[e.seat] if 0 <= e.seat < len(d.players) else ""
    if isinstance(jf, CommittedJoin):
        same_entropy = e.entropy == "" and same_hex(jf.entropy_commitment, e.commitment, statements.HASH_HEX)
    else:
        same_entropy = e.commitment == "" and same_hex(jf.entropy, e.entropy, statements.ENTROPY_HEX)
    if (
        (jf.player, jf.game_id) != (name, h.game_id)
        or not same_hex(jf.public_key, e.public_key, KEY_HEX)
        or not same_entropy
    ):
        return "the join line differs from its signed join file"
    if not same_hex(jf.genesis, genesis, statements.HASH_HEX):
        return (
            f"{name}'s join answers another game definition (its genesis is not this log's: "
            "the game was re-created, or re-dealt, after the players joined)"
        )
    if not _checked(memo, jf, jf.public_key):
        return f"{name}'s join file is not signed by the key it carries"
    if h.seed is not None and not statements.proves_seat(jf, h.seed, h.salt, genesis, e.seat):
        return f"{name}'s join does not hold the seat's invitation (its seat proof is wrong)"
    return None


def _reveal_problem(
    log: LogFile, memo: SignedMemo, line: Any, e: Revealed, hashes: list[str],
    keys: dict[int, str], commitments: dict[int, str], revealed: set[int], last_join: int,
) -> str | None:
    """Why a reveal line is not backed by its seat's signed reveal [CL-S7]: a game of
    committed entropy, every seat joined before it, the seat's first reveal, its
    statement this game's and genesis', signed with the seat's joined key, made at
    the position after the last join, carrying the line's entropy and salt, which
    open the seat's chained commitment."""
    d, h = log.header.definition, log.header
    name = _name(d, e.seat)
    if line.redacted:
        return "a reveal line hides nothing: it is never redacted [CL-S7]"
    if d.entropy != chance.COMMITTED_ENTROPY:
        return "a reveal in a game whose joins carry their entropy in the clear [CL-S7]"
    if len(keys) < len(d.players) or e.seat not in keys:
        return f"{name}'s reveal comes before every seat has joined: no entropy is shown before every commitment is chained [CL-S7]"
    if e.seat in revealed:
        return f"{name} reveals a second time [CL-S7]"
    if line.signed is None:
        return f"a reveal of {name}'s entropy without {name}'s signed reveal file [CL-S7]"
    try:
        rv = memo.statement(line.signed, "the reveal file")
    except statements.StatementError as exc:
        return f"the signed statement on a reveal line is not a reveal ({_why(exc)})"
    if not isinstance(rv, Reveal):
        return "the signed statement on a reveal line is not a reveal"
    if (
        (rv.player, rv.game_id) != (name, h.game_id)
        or not same_hex(rv.entropy, e.entropy, statements.ENTROPY_HEX)
        or not same_hex(rv.salt, e.salt, statements.SALT_HEX)
    ):
        return f"the reveal line differs from {name}'s signed reveal file [CL-S7]"
    if not same_hex(rv.genesis, hashes[0], statements.HASH_HEX):
        return f"{name}'s reveal answers another game definition (its genesis is not this log's) [CL-S7]"
    if not _checked(memo, rv, keys[e.seat]):
        return f"the reveal is not signed by {name}'s key (a forgery) [CL-S7]"
    if rv.seq != last_join or not same_hex(rv.hash, hashes[rv.seq], statements.HASH_HEX):
        return f"{name}'s reveal was not made at the position after the last join (seq {last_join}) [CL-S7]"
    if entropy_commitment(e.entropy, e.salt) != commitments.get(e.seat):
        return f"{name}'s revealed entropy does not open the commitment chained at the join [CL-S7]"
    return None


def _name(d: Any, seat: int) -> str:
    return d.players[seat] if 0 <= seat < len(d.players) else f"seat {seat}"


def _timeout_problem(
    log: LogFile, game: Any, events: Sequence[Any], i: int, line: Any, e: TimedOut,
    hashes: list[str], states: _States, timed: int | None,
) -> str | None:
    """Why the timeout line ``i`` (event ``e``) is not one the host may write [CL-T1]:
    signed with the host's key, the game's policy, the decision pending for that seat
    and standing since the seq it names (whose hash is this chain's), and the
    deadline passed by the host's claimed clock, never going back."""
    d = log.header.definition
    if line.redacted:
        return "a timeout line hides nothing: it is never redacted"
    if timed is not None:
        return f"a timeout of {_name(d, timed)} is not followed by the bot's decision for that seat [CL-T2]"
    if not verify_signature(d.host_key, "timeout", deadlines.body(e), e.signature):
        return f"the timeout of {_name(d, e.seat)} is not signed by the host's key (a forged timeout) [CL-T1]"
    if e.action != d.on_timeout:
        return (
            f"the timeout of {_name(d, e.seat)} did {e.action!r}, but the game's policy is "
            f"{d.on_timeout or 'none (no deadline)'!r} [CL-T1]"
        )
    if not 1 <= e.seq <= line.seq - 1 or not same_hex(e.head, hashes[e.seq], statements.HASH_HEX):
        return f"the timeout names a position (seq {e.seq}) that is not this chain's before its line [CL-T1]"
    now = states.state(line.seq - 1)
    # another seat's decision in a view: whether it stood depends on what the view hides
    known = states.can_check(e.seat)
    why = deadlines.timeout_problem(
        game, d.deadline, d.on_timeout, events[:i], states.state(e.seq), now, e.seat, e.seq, e.since, e.at, known
    )
    return None if why is None else f"a timeout the rules refuse: {why}"


def _handover_problem(
    log: LogFile, memo: SignedMemo, line: Any, e: Handed, hashes: list[str],
    keys: dict[int, str], used: dict[bytes, int], bots: set[int],
) -> str | None:
    """Why a hand-over line is not backed by its player's signed hand-over [CL-T5]."""
    d, h = log.header.definition, log.header
    name = _name(d, e.seat)
    if line.redacted:
        return "a hand-over line hides nothing: it is never redacted"
    if line.signed is None:
        return f"a hand-over of {name}'s seat without {name}'s signed hand-over file [CL-T5]"
    try:
        ho = memo.statement(line.signed, "the hand-over file")
    except statements.StatementError as exc:
        return f"the signed statement on a hand-over line is not a hand-over ({_why(exc)})"
    if not isinstance(ho, HandOver):
        return "the signed statement on a hand-over line is not a hand-over"
    if (ho.player, ho.game_id, ho.bot) != (name, h.game_id, e.bot):
        return f"the hand-over line differs from {name}'s signed hand-over file"
    if e.seat not in keys or not ho.signs_with(keys[e.seat]):
        return f"the hand-over is not signed by {name}'s key (a forgery) [CL-T5]"
    sig = bytes.fromhex(ho.signature)
    if sig in used:
        return f"{name}'s hand-over is used again on this line (a replay) [CL-T5]"
    used[sig] = 1
    if not 0 <= ho.seq < line.seq or not same_hex(ho.hash, hashes[ho.seq], statements.HASH_HEX):
        return f"{name}'s hand-over was not made on this chain before its line [CL-T5]"
    if e.bot == (e.seat in bots):
        return f"the hand-over changes nothing: the bot {'already' if e.bot else 'does not'} play{'s' if e.bot else ''} {name}'s seat"
    return None


def _stale_handover(game: Any, before: Sequence[Any], seat: int, signed: Any) -> str | None:
    """[CL-T6] A hand-over holds at the position it was made at: no line of its seat
    between its seq and its own line (a timeout, another hand-over, a decision its
    player made; the bot's while it holds the seat do not count)."""
    made_at = signed.get("seq") if isinstance(signed, dict) else None
    if type(made_at) is not int:
        return None  # the hand-over's own check names what is wrong with its file
    moved = deadlines.handover_stale(game, before, seat, made_at)
    if moved is None:
        return None
    return (f"the hand-over was made at seq {made_at}, and the seat moved on since (seq {moved}): "
            "a hand-over kept back and applied out of its place [CL-T6]")


def _checked(memo: SignedMemo, st: MoveFile | JoinFile | CommittedJoin | Reveal, key: str) -> bool:
    """``st`` is signed by ``key`` (a join: by the key it carries), each check made once
    (keyed by the whole decoded statement, its signature included)."""
    at = (st, key)
    got = memo.signatures.get(at)
    if got is None:
        got = memo.signatures[at] = st.signs_with(key) if isinstance(st, (MoveFile, Reveal)) else st.signed()
    return got


def _why(exc: Exception) -> str:
    return str(exc).partition(": ")[2] or str(exc)


def _position_problem(mv: MoveFile, seq: int, hashes: list[str], states: _States, seat: int) -> str | None:
    """Why a move file's position does not fit the line it opens at ``seq``, or None.
    [CL-S3] The move was made on this chain before its line (the hash it names is
    the chain's at its seq), and, made at an older position, the seat's decision
    then is the one pending at the line (as the host's ``apply`` requires)."""
    if not 0 <= mv.seq < seq:
        return f"the move file was made at seq {mv.seq}, not before this line (seq {seq})"
    if not same_hex(mv.hash, hashes[mv.seq], statements.HASH_HEX):
        return f"the move file was made against another position (its hash is not this chain's at seq {mv.seq})"
    if mv.seq == seq - 1 or not states.can_check(seat):
        return None
    then, now = states.key(mv.seq, seat), states.key(seq - 1, seat)
    if then is None or then != now:
        return (
            f"the move file was made at seq {mv.seq}, and the seat's decision changed before this line "
            "(an old move applied out of its place)"
        )
    return None


class _States:
    """States after each seq of the log, folded on demand from its lines (only
    moves made at an older position need them).  In a view, only the view's own
    seat's decisions are compared (another seat's depends on what it hides)."""

    def __init__(self, game: Any, events: Sequence[Any], own: int | None) -> None:
        self.game, self.events, self.own = game, events, own
        self.after: list[Any] = []

    def can_check(self, seat: int) -> bool:
        return self.own is None or seat == self.own

    def state(self, seq: int) -> Any:
        """The state after ``seq`` (None before the first event)."""
        while len(self.after) < seq:
            prev = self.after[-1] if self.after else None
            self.after.append(self.game.apply(prev, self.events[len(self.after)]))
        return self.after[seq - 1] if seq else None

    def key(self, seq: int, seat: int) -> bytes | None:
        while len(self.after) < seq:
            prev = self.after[-1] if self.after else None
            self.after.append(self.game.apply(prev, self.events[len(self.after)]))
        if seq == 0:
            return None
        key: bytes | None = self.game.decision_key(self.after[seq - 1], seat)
        return key


def seat_key_note(log: LogFile, events: Sequence[Any], mine: str | None) -> tuple[bool, str]:
    """A player's check of her own view: her seat was taken (and so played) with
    *her* key.  ``mine``: her public key (hex; None when she has none at hand).
    Returns (ok, what to say)."""
    h, d = log.header, log.header.definition
    if not d.host_key or h.view not in d.players:
        return True, ""
    seat = d.players.index(h.view)
    joined = next((e for e in events if type(e) is Joined and e.seat == seat), None)
    if joined is None:
        return True, f"{h.view} has not joined yet"
    if mine is None:
        return True, (
            f"{h.view}'s seat played with key {joined.public_key[:12]}… (not compared: no key of "
            f"{h.view}'s at hand; give --key)"
        )
    if not same_hex(joined.public_key, mine, KEY_HEX):
        return False, (
            f"{h.view}'s seat was taken with key {joined.public_key[:12]}…, not with your key "
            f"{mine[:12]}… (someone else plays your seat)"
        )
    return True, f"{h.view}'s seat played with your key {mine[:12]}…"
