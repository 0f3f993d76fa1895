"""Play-by-email admission: whether a signed join or move file may be written.

A join must answer the game's exact genesis, be signed by the key it carries
and prove it holds the seat's invitation; a move must be signed by its seat's
joined key, be used once, and land on its position (the same one, or an older
one after which the seat's decision did not change).  Nothing here writes:
:class:`~events.writer.Writer` writes what this admits, in the same transaction.
"""

from __future__ import annotations

import msgspec

from core import chance
from core.seats import entropy_commitment, joins, last_join_seq, must_reveal, reveals
from events import statements
from events.refusals import Refused, ServiceError, StaleMove
from events.repository import Loaded, Repository
from events.signing import SIG_HEX, hex_bytes, same_hex
from core import deadlines
from events.statements import AnyJoin, CommittedJoin, HandOver, JoinFile, MoveFile, Reveal


class _Signature(msgspec.Struct):
    signature: str = ""


_peek_signature = msgspec.json.Decoder(_Signature)


MEMO_ROWS = 20_000
"""The replay check remembers the signatures of at most this many rows (a row is some
600 bytes: about 12 MB; then it starts afresh)."""

_UNREAD = b"unread"
"""No signature decodes to these bytes (a signature is 64 bytes): a row not decoded yet."""


class Admission:
    """The checks of signed files against one repository's games."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository
        self.store = repository.store
        self._signature_of: dict[bytes, bytes | None] = {}
        """A signed row's bytes -> the signature they decode to (None: none), for the
        replay check, which reads every row each time but decodes each once [CL-S13]."""

    def waiting_to_join(self, loaded: Loaded) -> list[str]:
        """Players of a play-by-email game who have not joined yet."""
        if not loaded.record.pbem:
            return []
        joined = joins(loaded.events)
        return [p for i, p in enumerate(loaded.players) if i not in joined]

    def waiting_to_reveal(self, loaded: Loaded) -> list[str]:
        """Players of a game of entropy scheme 2 who must reveal their entropy now
        (every seat has joined; no chance is dealt until all have) [CL-S7]."""
        if not loaded.record.pbem:
            return []
        return [loaded.players[s] for s in must_reveal(loaded.events, len(loaded.players), loaded.record.entropy)]

    def _no_reveal_pending(self, loaded: Loaded, what: str) -> None:
        """[CL-S7] Nothing is played while the game waits for its reveals."""
        waiting = self.waiting_to_reveal(loaded)
        if waiting:
            raise Refused(
                f"game {loaded.record.id} waits for every seat to reveal its entropy ({', '.join(waiting)} "
                f"must still reveal): no {what} before the deal [CL-S7]"
            )

    @staticmethod
    def _named_seat(loaded: Loaded, player: str) -> int:
        """A signed file names its seat by the player's name exactly as the
        definition spells it (never a number: one spelling per statement)."""
        if player not in loaded.players:
            raise Refused(
                f"no player {player!r} in game {loaded.record.id} (players: {', '.join(loaded.players)}); "
                "a signed file names its player exactly"
            )
        return loaded.players.index(player)

    @staticmethod
    def _well_formed(st: statements.Statement) -> None:
        bad = statements.problem(st)
        if bad is not None:
            raise Refused(f"not a well-formed {type(st).__name__} ({bad})")

    def admit_join(self, jf: AnyJoin) -> tuple[Loaded, int]:
        """The game and seat of a join that may be recorded; Refused otherwise.

        Refused unless the join answers this game's exact genesis, is signed by
        the key it carries, and proves it holds the seat's invitation (its
        one-time secret, bound to the player's key when the host knew it,
        ``invite --player-key``): a player cannot take another's seat with a
        second key of his.  Call it inside the write's transaction."""
        self._well_formed(jf)
        loaded = self.repository.load(jf.game_id)
        rec = loaded.record
        if not rec.pbem:
            raise Refused(f"game {rec.id} is not a play-by-email game (created without --pbem)")
        if not same_hex(jf.genesis, rec.genesis, statements.HASH_HEX):
            raise Refused("the join was made for another game definition (genesis differs)")
        if rec.entropy == chance.COMMITTED_ENTROPY and not isinstance(jf, CommittedJoin):
            raise Refused(
                f"game {rec.id} takes only joins that commit to their entropy ({statements.COMMITTED_JOIN_FORMAT}); "
                f"a {jf.format} shows its entropy to the host before the others are fixed [CL-S7]"
            )
        if rec.entropy != chance.COMMITTED_ENTROPY and not isinstance(jf, JoinFile):
            raise Refused(f"game {rec.id} is of the clear-entropy scheme: it takes {statements.JOIN_FORMAT} joins [CL-S7]")
        seat = self._named_seat(loaded, jf.player)
        if not jf.signed():
            raise Refused(f"the join of {jf.player} is not signed by the key it carries")
        if seat in joins(loaded.events):
            raise Refused(f"{jf.player} has already joined game {rec.id}")
        if rec.seed is None or not statements.proves_seat(jf, rec.seed, rec.salt, rec.genesis, seat):
            raise Refused(
                f"the join does not prove it holds {jf.player}'s invitation (its seat secret): "
                "only the invited player can take a seat"
            )
        key = bytes.fromhex(jf.public_key)
        if key in {bytes.fromhex(j.public_key) for j in joins(loaded.events).values()}:
            raise Refused("another seat already joined with this key")
        return loaded, seat

    def admit_reveal(self, rv: Reveal) -> tuple[Loaded, int]:
        """The game and seat of a reveal that may be recorded [CL-S7]: a game of
        entropy scheme 2 every seat of which has joined; signed with the seat's
        joined key; answering the position after the last join (its seq and hash);
        the seat's first reveal (not a replay); and opening the seat's chained
        commitment.  Call it inside the write's transaction."""
        self._well_formed(rv)
        loaded = self.repository.load(rv.game_id)
        rec = loaded.record
        if not rec.pbem or rec.entropy != chance.COMMITTED_ENTROPY:
            raise Refused(f"game {rec.id} does not take reveals: its joins carry their entropy in the clear [CL-S7]")
        if not same_hex(rv.genesis, rec.genesis, statements.HASH_HEX):
            raise Refused("the reveal was made for another game definition (genesis differs) [CL-S7]")
        seat = self._named_seat(loaded, rv.player)
        joined = joins(loaded.events)
        if seat not in joined:
            raise Refused(f"{rv.player} has not joined game {rec.id}; there is no commitment to reveal [CL-S7]")
        if not rv.signs_with(joined[seat].public_key):
            raise Refused(
                f"the reveal's signature does not verify against {rv.player}'s key "
                "(forged, altered, or signed with another key) [CL-S7]"
            )
        if self._already_used(rec.id, rv):
            raise Refused("this reveal was already applied (a replay) [CL-S7]")
        if len(joined) < len(loaded.players):
            waiting = ", ".join(self.waiting_to_join(loaded))
            raise Refused(
                f"a reveal before every seat has joined ({waiting} not yet): no entropy is shown "
                "before every commitment is chained [CL-S7]"
            )
        if seat in reveals(loaded.events):
            raise Refused(f"{rv.player} has already revealed in game {rec.id} [CL-S7]")
        at = last_join_seq(loaded.events)
        if rv.seq != at or not same_hex(rv.hash, loaded.records[at - 1].hash, statements.HASH_HEX):
            raise Refused(
                f"the reveal answers seq {rv.seq}, not the position after the last join (seq {at}, "
                "its hash) [CL-S7]"
            )
        if entropy_commitment(rv.entropy, rv.salt) != joined[seat].commitment:
            raise Refused(
                f"the reveal does not match {rv.player}'s chained commitment: an entropy chosen after "
                "the join is refused [CL-S7]"
            )
        return loaded, seat

    def admit_move(self, mv: MoveFile) -> tuple[Loaded, int]:
        """The game and seat of a move file that may be applied: its signature
        (play-by-email games), its position (stale unless the seat's decision
        commutes with what happened since).  A move file is used at most once:
        one whose signature (as bytes) or signed statement is already in the
        game is a replay.  Call it inside the write's transaction."""
        self._well_formed(mv)
        loaded = self.repository.load(mv.game_id)
        rec = loaded.record
        seat = self._named_seat(loaded, mv.player) if rec.pbem else loaded.seat(mv.player)
        self._no_reveal_pending(loaded, "move")
        if rec.pbem:
            joined = joins(loaded.events)
            if seat not in joined:
                raise Refused(f"{mv.player} has not joined game {rec.id}; no key to check the move against")
            if not mv.signature:
                raise Refused(f"the move is not signed; {mv.player}'s moves must be signed with their key")
            if not mv.signs_with(joined[seat].public_key):
                raise Refused(
                    f"the move's signature does not verify against {mv.player}'s key "
                    "(forged, altered, or signed with another key)"
                )
            if self._already_used(rec.id, mv):
                raise Refused("this move file was already applied (a replay)")
        if not mv.all_commands:
            raise ServiceError("the move file holds no command")
        self.check_position(loaded, seat, mv.seq, mv.hash)
        return loaded, seat

    def admit_handover(self, ho: HandOver) -> tuple[Loaded, int]:
        """The game and seat of a hand-over that may be recorded [CL-T5]: signed with
        the seat's joined key, made on this chain (its seq and hash), used once, and
        changing who plays the seat (to the bot when the player plays it, back when
        the bot does; a forfeited seat stays the bot's).  Call it inside the write's
        transaction."""
        self._well_formed(ho)
        loaded = self.repository.load(ho.game_id)
        rec = loaded.record
        if not rec.pbem:
            raise Refused(f"game {rec.id} is not a play-by-email game: it has no seats to hand over")
        seat = self._named_seat(loaded, ho.player)
        joined = joins(loaded.events)
        if seat not in joined:
            raise Refused(f"{ho.player} has not joined game {rec.id}; no key to check the hand-over against")
        self._no_reveal_pending(loaded, "hand-over")
        if not ho.signs_with(joined[seat].public_key):
            raise Refused(
                f"the hand-over's signature does not verify against {ho.player}'s key "
                "(forged, altered, or signed with another key)"
            )
        if self._already_used(rec.id, ho):
            raise Refused("this hand-over was already applied (a replay)")
        if not 0 <= ho.seq <= loaded.version:
            raise StaleMove(f"stale hand-over: made at seq {ho.seq}, but the game is at seq {loaded.version}")
        then_hash = loaded.records[ho.seq - 1].hash if ho.seq else rec.genesis
        if not same_hex(then_hash, ho.hash, statements.HASH_HEX):
            raise StaleMove(f"stale hand-over: seq {ho.seq}'s hash does not match the one it was made against")
        moved = deadlines.handover_stale(loaded.game, loaded.events, seat, ho.seq)
        if moved is not None:
            # [CL-T6] a hand-over holds at the position it was made at: none kept back for later
            raise StaleMove(f"stale hand-over: made at seq {ho.seq}, but {ho.player}'s seat moved on since "
                            f"(seq {moved}); make it again from the game as it is now [CL-T6]")
        if not loaded.game.to_act(loaded.state):
            raise Refused(f"game {rec.id} is over: there is no seat left to hand over")
        if seat in deadlines.forfeited(loaded.events):
            raise Refused(f"{ho.player} forfeited the seat on timeout: the bot plays it to the end [CL-T4]")
        bots = deadlines.bot_seats(loaded.events)
        if ho.bot and seat in bots:
            raise Refused(f"the bot already plays {ho.player}'s seat")
        if not ho.bot and seat not in bots:
            raise Refused(f"{ho.player} already plays the seat: there is nothing to take back from the bot")
        return loaded, seat

    def _already_used(self, game_id: str, mv: MoveFile | HandOver | Reveal) -> bool:
        """``mv``'s signature (decoded bytes) is already in the game: a replay.
        (The store keeps every statement in its one encoding.)

        [CL-S13] Law: the decision is the one computed from scratch, whatever was done
        to the store's signed rows between two checks (rows deleted, rewritten,
        inserted behind the last, a game re-created or imported under the same id):
        every row the game holds now is read, every time.  What is remembered is only
        a function of a row's bytes — the signature they decode to — so a row is
        decoded once per process, and a changed row is a new key."""
        sig = hex_bytes(mv.signature, SIG_HEX)
        memo = self._signature_of
        if len(memo) > MEMO_ROWS:
            memo.clear()
        for stored in self.store.signed(game_id).values():
            raw = memo.get(stored, _UNREAD)
            if raw is _UNREAD:
                try:
                    raw = hex_bytes(_peek_signature.decode(stored).signature, SIG_HEX)
                except (msgspec.DecodeError, msgspec.ValidationError):
                    raw = None
                memo[stored] = raw
            if raw is not None and raw == sig:
                return True
        return False

    def check_position(self, loaded: Loaded, seat: int, seq: int, head: str) -> None:
        """A move made at (seq, head) may land now: the same position, or an older one
        of this chain after which ``seat``'s decision did not change (the moves
        commute).  Hashes are compared as bytes."""
        if not 0 <= seq <= loaded.version:
            raise StaleMove(f"stale move: made at seq {seq}, but the game is at seq {loaded.version}")
        then_hash = loaded.records[seq - 1].hash if seq else loaded.record.genesis
        if not same_hex(then_hash, head, statements.HASH_HEX):
            raise StaleMove(f"stale move: seq {seq}'s hash does not match the one the move was made against")
        if seq == loaded.version:
            return
        game = loaded.game
        then = game.fold(loaded.events[:seq])
        key = game.decision_key(then, seat)
        name = loaded.players[seat]
        if key is None:
            raise StaleMove(
                f"stale move: it was made at seq {seq}, the game is at seq {loaded.version}; "
                "fetch the game again and remake the move"
            )
        now = game.decision_key(loaded.state, seat)
        if key != now:
            if seat not in game.to_act(loaded.state):
                what = f"it is no longer {name}'s turn"
            elif now is None:
                what = "the step it answered is over"
            else:
                what = f"{name}'s own position (hand, board, round or phase) changed"
            raise StaleMove(
                f"stale move: made at seq {seq}, the game is at seq {loaded.version} and {what}; "
                "fetch the game again and remake the move"
            )

    def holds_move(self, mv: MoveFile) -> list[int]:
        """Seats whose files an inbox must wait for before applying ``mv``: those
        acting at once with its seat (:meth:`holds`), and none when ``mv`` would be
        refused anyway.  [CL-S6] A file is held only if :meth:`admit_move` accepts it
        now, so a file that can never apply (stale, another chain, a forged
        signature, a replay) is decided at once and never waits for ever."""
        try:
            loaded, seat = self.admit_move(mv)
        except Exception:  # noqa: BLE001 - refused, with its reason, when the inbox applies it
            return []
        return self.holds(loaded, seat)

    def holds(self, loaded: Loaded, seat: int) -> list[int]:
        """Seats acting at once with ``seat`` (a simultaneous step): an inbox applies
        their files together, in seat order, so the log does not depend on which
        arrived first."""
        actors = loaded.game.to_act(loaded.state)
        if seat not in actors or len(actors) < 2 or loaded.game.decision_key(loaded.state, seat) is None:
            return []
        return [a for a in actors if a != seat]
