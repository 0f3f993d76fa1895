"""The writer: the one path that writes a game.

load → fold → decide → append, in one transaction with the expected version.
After a decision, chance (for seeded games, :mod:`events.seeds`) and bot seats
are played at once, in the same append, up to the next human decision.  Every
write to a store goes through this module — a new game, a command, a signed
join or move (admitted by :mod:`events.admission`), a fork, an import, a copy,
a note, tags, a deletion — so what checks a write is in one place
(tests/events/test_one_writer.py holds every other module to it).
"""

from __future__ import annotations

import secrets

import msgspec
from collections.abc import Iterable, Mapping, Sequence
from typing import Any


from core import chance, deadlines, registry
from core.autoplay import next_command
from core.chance import ChanceSource
from core.engine import CHANCE, Game, IllegalCommand, RulesError, checked_step, normalize_options, step_as
from core.rng import seed_commitment
from core.seats import Joined, Revealed
from core.redecide import Difference, redecide
from core.upgrade import Upgraded, newer, version_at
from events import statements
from events.admission import Admission
from events.codec import encode, to_item
from events.envelope import GameDefinition, Recorded
from events.refusals import Refused, ServiceError, StaleMove, check_players, check_text
from events.repository import Repository
from events.seeds import chance_source
from events.signing import is_public_hex
from events.statements import AnyJoin, CommittedJoin, HandOver, MoveFile, Reveal
from events.store import EventStore, GameRecord, new_game_id

MAX_AUTO_STEPS = 100_000


class UpgradeReport(msgspec.Struct, frozen=True):
    """What ``upgrade`` found (:meth:`Writer.upgrade`).  ``status``: ``current`` (already
    on the current rules: nothing written), ``upgradable`` (``--check``: it would be),
    ``upgraded`` (the :class:`~core.upgrade.Upgraded` line is at ``seq``), ``refused``
    (``reason`` says why; nothing written)."""

    game_id: str
    game: str
    from_version: str
    to_version: str
    status: str
    seq: int
    reason: str = ""
    difference: Difference | None = None
    over: bool = False
    """Whether the game is over (an upgrade then only records the rules it is verified by)."""


class Writer:
    """Writes to one store; reads through its :class:`~events.repository.Repository`."""

    def __init__(self, repository: Repository, admission: Admission | None = None) -> None:
        self.repository = repository
        self.store: EventStore = repository.store
        self.admission = admission or Admission(repository)

    def create(
        self,
        game_name: str,
        players: Sequence[str],
        *,
        seed: str | None = None,
        options: Mapping[str, str] | None = None,
        bots: Mapping[int, str] | None = None,
        table: bool = False,
        game_id: str | None = None,
        host_key: str = "",
        salt: str | None = None,
        deadline: int = 0,
        on_timeout: str = "",
        entropy: int | None = None,
    ) -> str:
        """A new game; with ``host_key`` (hex) a play-by-email game that waits for
        every seat to join (:meth:`join`), and (entropy scheme 2, the default for
        every new one) every seat to reveal (:meth:`reveal`), before any chance is
        drawn [CL-S7].  ``entropy``: 1 makes a game of the old clear-entropy scheme
        (tests of old games only)."""
        try:
            game = registry.get(game_name)
        except registry.UnknownGame as exc:
            raise ServiceError(str(exc)) from None
        check_players(players)
        if seed is not None:
            check_text("--seed", seed)
        bots = dict(bots or {})
        for seat, policy in bots.items():
            if policy not in game.bots:
                raise ServiceError(f"no bot policy {policy!r} for {game.spec.title} (bots: {', '.join(game.bots)})")
            if not 0 <= seat < len(players):
                raise ServiceError(f"no seat {seat} for a bot")
        if table and seed is not None:
            raise ServiceError("a --table game takes its chance from the table, not from a seed")
        if host_key and (table or bots):
            raise ServiceError("a play-by-email game has no bot seats and is not a --table game")
        if host_key and not is_public_hex(host_key):
            raise ServiceError("the host key is not an Ed25519 public key")
        if (deadline or on_timeout) and not host_key:
            raise ServiceError("a deadline and a timeout policy are for games played by email (--pbem)")
        if bool(deadline) != bool(on_timeout):
            raise ServiceError("a deadline needs a timeout policy and a policy a deadline (--deadline with --on-timeout)")
        if deadline and not deadlines.MIN_DEADLINE <= deadline <= deadlines.MAX_DEADLINE:
            raise ServiceError("a deadline is 1 minute to 366 days")
        if on_timeout:
            refused = deadlines.policy_problem(game.spec, on_timeout)
            if refused is not None:
                raise ServiceError(refused)
        scheme = (chance.CURRENT_ENTROPY if host_key else chance.CLEAR_ENTROPY) if entropy is None else entropy
        if scheme not in chance.ENTROPY_SCHEMES or (scheme != chance.CLEAR_ENTROPY and not host_key):
            raise ServiceError("an entropy scheme is 1 or 2, and 2 is for games played by email (--pbem) [CL-S7]")
        if seed is None:
            # a --table game's seed draws nothing; it only salts the log's digests
            seed = secrets.token_hex(16 if host_key else 8)
        # issue 10: a random salt, so the commitment cannot be brute-forced; it is
        # generated here at the edge and recorded in the definition (pass one to
        # reproduce a game's hashes exactly)
        salt = salt if salt is not None else secrets.token_hex(16)
        created = game.create(players, options or {}, table=table)
        normalized = normalize_options(game.spec, options or {})
        definition = GameDefinition(
            game=game.spec.name,
            rules_version=game.spec.rules_version,
            options=dict(sorted(normalized.items())),
            players=tuple(players),
            seed_commitment=seed_commitment(seed, salt),
            table=table,
            host_key=host_key,
            secrets=chance.CURRENT,  # nonces and chance from the seed and the salt [CL-V6]
            deadline=deadline,
            on_timeout=on_timeout,
            entropy=scheme,  # committed entropy, revealed after every join [CL-S7]
        )
        record = GameRecord.of(game_id or new_game_id(), definition, seed=seed, bots=bots, salt=salt)
        with self.store.transaction():
            self.store.create_game(record)
            state = game.apply(None, created)
            events = [created]
            if not record.pbem:  # a play-by-email game waits for its players to join
                more, state = self._auto(game, record, state, 2, source=chance_source(record, events))
                events += more
            self._append(record, game, 0, events, state)
        return record.id

    # -- play by email -------------------------------------------------------
    def join(self, jf: AnyJoin) -> list[Recorded]:
        """Record a player's join (key and entropy) that :meth:`Admission.admit_join`
        accepts; once every seat has joined, chance starts from the deal seed."""
        with self.store.transaction():
            loaded, seat = self.admission.admit_join(jf)
            rec, raw = loaded.record, statements.encode(jf)
            game, state = loaded.game, loaded.state
            if isinstance(jf, CommittedJoin):  # the entropy stays with its player until every seat joined [CL-S7]
                joined = Joined(seat=seat, public_key=jf.public_key, entropy="", commitment=jf.entropy_commitment)
            else:
                joined = Joined(seat=seat, public_key=jf.public_key, entropy=jf.entropy)
            events: list[Any] = [joined]
            source = chance_source(rec, loaded.events + events)
            if source.base is not None:
                more, state = self._auto(game, rec, state, loaded.version + 2, source=source,
                                         bot_seats=deadlines.bot_seats(loaded.events), history=[*loaded.events, *events])
                events += more
            written = self._append(rec, game, loaded.version, events, state)
            self.store.add_signed(rec.id, written[0].seq, raw)
        self.repository.extend(loaded, written, events, state)
        return written

    def reveal(self, rv: Reveal) -> list[Recorded]:
        """Record a seat's reveal that :meth:`Admission.admit_reveal` accepts (a
        chained ``seat.revealed`` line, its signed file kept beside it); once every
        seat has revealed, chance starts from the deal seed [CL-S7]."""
        with self.store.transaction():
            loaded, seat = self.admission.admit_reveal(rv)
            rec, game, state = loaded.record, loaded.game, loaded.state
            events: list[Any] = [Revealed(seat=seat, entropy=rv.entropy, salt=rv.salt)]
            source = chance_source(rec, loaded.events + events)
            if source.base is not None:
                more, state = self._auto(game, rec, state, loaded.version + 2, source=source,
                                         bot_seats=deadlines.bot_seats(loaded.events))
                events += more
            written = self._append(rec, game, loaded.version, events, state)
            self.store.add_signed(rec.id, written[0].seq, statements.encode(rv))
        self.repository.extend(loaded, written, events, state)
        return written

    def submit_move(self, mv: MoveFile) -> list[Recorded]:
        """Apply a move file :meth:`Admission.admit_move` accepts: each of its
        commands in turn, with chance and bots after each."""
        with self.store.transaction():
            loaded, seat = self.admission.admit_move(mv)
            rec, raw = loaded.record, statements.encode(mv)
            self.repository.check_rules(loaded)
            game, state, version = loaded.game, loaded.state, loaded.version
            source = chance_source(rec, loaded.events)
            all_events: list[Any] = []
            opened: list[int] = []
            for i, text in enumerate(mv.all_commands):
                try:
                    command = game.parse_command(state, seat, text)
                    if rec.pbem and game.format_command(command) != text:
                        # [CL-S1] one spelling per signed command: verify compares the signed text with
                        # the command's one formatting, so another spelling accepted here would fail
                        # every later export (a player framing the host)
                        raise Refused(
                            f"the command {text!r} is not in its one spelling ({game.format_command(command)!r}); "
                            "a signed move names each command exactly as citylog writes it"
                        )
                    produced, state = checked_step(game, state, seat, command)
                    recorded = game.command_of(produced[0]) if produced else None
                    if rec.pbem and (recorded is None or game.format_command(recorded[1]) != text):
                        # [CL-S1] the line holds the command its event records (Point City's
                        # 'take B1 A1' is recorded 'take A1 B1'): verify compares the signed text
                        # with that one, so any other text accepted here would fail every export
                        shown = game.format_command(recorded[1]) if recorded is not None else "no command"
                        raise Refused(
                            f"the command {text!r} is recorded as {shown!r}; a signed move names each "
                            "command exactly as its line will hold it"
                        )
                except RulesError as exc:
                    where = f" (command {len(opened) + 1} of {len(mv.all_commands)})" if len(mv.all_commands) > 1 else ""
                    raise ServiceError(f"{exc}{where}") from None
                opened.append(version + len(all_events) + 1)
                if rec.pbem and i + 1 < len(mv.all_commands) and game.to_act(state) == (CHANCE,):
                    # [GN-1] a command after a draw its player has not seen: whether the host applied
                    # it or refused it (and why) would tell her the draw before she committed to the
                    # move that leads to it (5x5 City's 'use' + 'replace T'); refused before drawing
                    raise Refused(
                        f"command {i + 2} of {len(mv.all_commands)} comes after a draw {mv.player} has not "
                        "seen yet: send the commands up to the draw, then the rest from the next view"
                    )
                more, state = self._auto(game, rec, state, version + len(all_events) + len(produced) + 1, source=source,
                                         bot_seats=deadlines.bot_seats(loaded.events),
                                         history=[*loaded.events, *all_events, *produced])
                all_events += [*produced, *more]
            written = self._append(rec, game, version, all_events, state)
            if rec.pbem:
                for seq in opened:
                    self.store.add_signed(rec.id, seq, raw)
        self.repository.extend(loaded, written, all_events, state)
        return written

    def timeout(
        self, game_id: str, seat: int, seq: int, since: int, at: int, sign: Any
    ) -> list[Recorded]:
        """Time out ``seat``'s pending decision (issue 24) [CL-T1]: a host-signed
        :class:`~core.deadlines.TimedOut` line claiming the decision has stood since
        line ``seq``, written at ``since``, until ``at`` (the host's clock, epoch
        seconds), then what the game's policy does: ``bot`` and ``forfeit`` play the
        decision with the bot from the seat's own view [CL-T2, CL-T4].
        ``sign(body) -> hex``: the host's signature (domain ``timeout``)."""
        with self.store.transaction():
            loaded = self.repository.load(game_id)
            self.repository.check_rules(loaded)
            rec, game, state = loaded.record, loaded.game, loaded.state
            if not rec.pbem:
                raise Refused(f"game {game_id} is not played by email: it has no deadlines")
            if self.admission.waiting_to_reveal(loaded):
                # [CL-S7] a reveal has no deadline: a game whose reveals never complete is never dealt
                raise Refused(f"game {game_id} waits for its reveals, which have no deadline: nothing times out [CL-S7]")
            then = game.fold(loaded.events[:seq]) if 1 <= seq <= loaded.version else state
            why = deadlines.timeout_problem(
                game, rec.deadline, rec.on_timeout, loaded.events, then, state, seat, seq, since, at
            )
            if why is not None:
                raise Refused(why)
            timed = deadlines.TimedOut(seat, seq, loaded.records[seq - 1].hash, since, at, rec.on_timeout, "")
            timed = msgspec.structs.replace(timed, signature=sign(deadlines.body(timed)))
            events: list[Any] = [timed]
            if rec.on_timeout in ("bot", "forfeit"):
                # [CL-V10] the bot's tie-breaks by the seat's own decision count, never a seq
                index = deadlines.decision_index(game, loaded.events, seat)
                command = deadlines.bot_command(game, state, seat, rec.genesis, index)
                try:
                    produced, state = checked_step(game, state, seat, command)
                except IllegalCommand as exc:  # the bot must never propose an illegal move
                    raise RuntimeError(f"the timeout bot proposed an illegal command: {exc}") from exc
                events += produced
            more, state = self._auto(
                game, rec, state, loaded.version + len(events) + 1,
                # the timeout line is a placed line: the draws after it count it out [CL-V9]
                source=chance_source(rec, [*loaded.events, timed]), bot_seats=deadlines.bot_seats([*loaded.events, timed]),
                history=[*loaded.events, *events],
            )
            events += more
            written = self._append(rec, game, loaded.version, events, state)
        self.repository.extend(loaded, written, events, state)
        return written

    def hand_over(self, ho: HandOver) -> list[Recorded]:
        """Record a player's signed hand-over of her seat to the bot, or back [CL-T5];
        the bot then plays her pending decisions at once (and every later one until
        she takes the seat back)."""
        with self.store.transaction():
            loaded, seat = self.admission.admit_handover(ho)
            rec, game, state = loaded.record, loaded.game, loaded.state
            handed = deadlines.Handed(seat, ho.bot)
            events: list[Any] = [handed]
            more, state = self._auto(
                game, rec, state, loaded.version + 2,
                # the hand-over line is a placed line: the draws after it count it out [CL-V9]
                source=chance_source(rec, [*loaded.events, handed]), bot_seats=deadlines.bot_seats([*loaded.events, handed]),
                history=[*loaded.events, handed],
            )
            events += more
            written = self._append(rec, game, loaded.version, events, state)
            self.store.add_signed(rec.id, written[0].seq, statements.encode(ho))
        self.repository.extend(loaded, written, events, state)
        return written

    # -- commands ------------------------------------------------------------
    def submit(
        self,
        game_id: str,
        seat: int,
        command: Any,
        *,
        expected_version: int | None = None,
        expected_hash: str | None = None,
        text: bool = False,
        player: str | None = None,
    ) -> list[Recorded]:
        """Decide ``command`` for ``seat``, play chance and bots after it, append it all.
        With ``text``, ``command`` is the command as typed, parsed against the position
        it is decided at; ``player`` is who the caller believes sits at ``seat`` (one
        load, in the same transaction: what an engine move needs)."""
        with self.store.transaction():
            loaded = self.repository.load(game_id)
            if player is not None and loaded.players[seat:seat + 1] != (player,):
                raise StaleMove(f"stale move: seat {seat} of game {game_id} is not {player!r} any more; "
                                "fetch the game again")
            if expected_version is not None and expected_version != loaded.version:
                raise StaleMove(
                    f"stale move: it was made at seq {expected_version}, the game is at seq "
                    f"{loaded.version}; fetch the game again and remake the move"
                )
            if expected_hash is not None and expected_hash != loaded.head_hash:
                raise StaleMove(
                    f"stale move: seq {loaded.version}'s hash does not match the one the move was made against"
                )
            self.repository.check_rules(loaded)
            if seat == CHANCE and not loaded.record.table_game:
                raise ServiceError("chance outcomes come from the seed; only --table games take them by hand")
            if loaded.record.pbem:
                raise Refused(
                    f"game {game_id} is played by email: moves come as signed move files ('citylog apply')"
                )
            game, state = loaded.game, loaded.state
            if text:
                command = game.parse_command(state, seat, command)
            produced, state = step_as(game, state, seat, command)
            events = list(produced)
            more, state = self._auto(
                game, loaded.record, state, loaded.version + len(events) + 1,
                source=chance_source(loaded.record, loaded.events),
            )
            events.extend(more)
            written = self._append(loaded.record, game, loaded.version, events, state)
        self.repository.extend(loaded, written, events, state)  # committed: the cache moves on
        return written

    def autoplay(self, game_id: str, policy: str, seats: Sequence[int] | None = None) -> list[Recorded]:
        """Bots play every remaining decision (of ``seats``, default all) to the end."""
        with self.store.transaction():
            loaded = self.repository.load(game_id)
            self.repository.check_rules(loaded)
            game = loaded.game
            if policy not in game.bots:
                raise ServiceError(f"no bot policy {policy!r} (bots: {', '.join(game.bots)})")
            if loaded.record.pbem:
                raise Refused(f"game {game_id} is played by email: its players make their own moves")
            policies = dict(loaded.record.bots)
            for seat in seats if seats is not None else range(len(loaded.players)):
                policies.setdefault(seat, policy)
            events, state = self._auto(
                game, loaded.record, loaded.state, loaded.version + 1, policies,
                source=chance_source(loaded.record, loaded.events),
            )
            if game.to_act(loaded.state) and not events and game.to_act(state) == (CHANCE,):
                raise ServiceError("a chance outcome must be entered first (a --table game)")
            return self._append(loaded.record, game, loaded.version, events, state)

    # -- rules upgrades (issue 24 item 4) --------------------------------------
    def upgrade(self, game_id: str, check: bool = False) -> UpgradeReport:
        """Switch ``game_id`` to the current rules version when they re-decide every
        recorded command alike (:func:`core.redecide.redecide`): a chained
        :class:`~core.upgrade.Upgraded` line, appended unless ``check`` [CL-U1].
        Otherwise (or with ``check``) nothing is written: the report names the first
        command the current rules decide differently [CL-U2].  In a game played by
        email only the host's store writes it (the host's seal attests it, like any
        line) and every ``verify`` re-checks the re-decision [CL-U4]."""
        with self.store.transaction():
            loaded = self.repository.load(game_id)
            rec = loaded.record
            base = self.repository.game_of(rec)
            current = base.spec.rules_version
            effective = version_at(rec.rules_version, loaded.events)
            over = not loaded.game.to_act(loaded.state)
            report = UpgradeReport(rec.id, rec.game, effective, current, "current", loaded.version, over=over)
            if effective == current:
                return report
            if not newer(current, effective):
                # [CL-U5] an upgrade only goes to newer rules: never back (no pc-3 → pc-2 → pc-3)
                return msgspec.structs.replace(
                    report, status="refused",
                    reason=f"the game is on rules {effective}, and {current} are not newer: an upgrade "
                    "only goes to newer rules, never back [CL-U5]")
            if base.for_rules(effective) is None:
                return msgspec.structs.replace(
                    report, status="refused",
                    reason=f"rules {effective} are not kept by this citylog (it can only replay them), "
                    "so its recorded decisions cannot be vouched for under them [CL-U2]")
            new = base.for_rules(current) or base
            found = redecide(new, loaded.events, encode, rec.players)
            if found is not None:
                return msgspec.structs.replace(
                    report, status="refused", difference=found, reason=found.text(rec.players, current))
            if check:
                return msgspec.structs.replace(report, status="upgradable")
            events: list[Any] = [Upgraded(from_version=effective, to_version=current)]
            written = self._append(rec, new, loaded.version, events, loaded.state)
        self.repository.extend(loaded, written, events, loaded.state)
        return msgspec.structs.replace(report, status="upgraded", seq=written[-1].seq)

    # -- whole games: forks, imports, copies -----------------------------------
    def write_game(
        self,
        record: GameRecord,
        game: Game[Any, Any, Any],
        events: list[Any],
        state: Any,
        signed: Iterable[tuple[int, bytes]] = (),
    ) -> list[Recorded]:
        """A new game ``record`` holding ``events`` (a fork), and the signed
        statements that travel with them, in one transaction."""
        with self.store.transaction():
            self.store.create_game(record)
            written = self._append(record, game, 0, events, state)
            for seq, statement in signed:
                self.store.add_signed(record.id, seq, statement)
        return written

    def write_lines(
        self,
        record: GameRecord,
        lines: Sequence[tuple[str, bytes]],
        hashes: Sequence[str],
        signed: Iterable[tuple[int, bytes]] = (),
        notes: Iterable[tuple[int, str]] = (),
        analyses: Sequence[tuple[str, bytes]] = (),
    ) -> list[Recorded]:
        """A new game ``record`` holding verified ``(type, payload)`` lines (an
        import), refused unless the store chains them to ``hashes``; its status
        from the fold, then its signed statements, notes and the judgements its
        file carried (checked by the caller [CL-X1]); all or nothing."""
        with self.store.transaction():
            self.store.create_game(record)
            written = self.store.append(record.id, 0, list(lines))
            if [w.hash for w in written] != list(hashes):
                raise ServiceError("not imported: the stored hashes differ from the file's")
            for seq, statement in signed:
                self.store.add_signed(record.id, seq, statement)
            loaded = self.repository.load(record.id)
            self.finish(record, loaded.game, loaded.state)
            for seq, text in notes:
                self.store.add_note(record.id, seq, text)
            if analyses:
                self.store.put_analyses(record.id, analyses)
        return written

    def copy_in(self, record: GameRecord, source: list[Recorded], start: int, exists: bool, batch: int) -> None:
        """Copy ``source`` (another store's records of ``record``) from seq
        ``start + 1`` on into this store; the game row first unless it ``exists``,
        its status if it differs.  The caller holds the transaction and checks what
        reads back (:func:`events.copy.copy_games`)."""
        if not exists:
            self.store.create_game(record)
        for i in range(start, len(source), batch):
            chunk = source[i : i + batch]
            self.store.append(record.id, i, [(r.type, r.payload) for r in chunk])

    def set_status(self, record: GameRecord) -> None:
        """The status and winners ``record`` holds (a copied game's)."""
        self.store.set_status(record.id, record.status, record.winners)

    # -- beside the chain: notes, tags, signed files, deletions ----------------
    def add_note(self, game_id: str, seq: int, text: str) -> None:
        self.store.add_note(game_id, seq, text)

    def put_analyses(self, game_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        self.store.put_analyses(game_id, items)

    def add_signed(self, game_id: str, seq: int, statement: bytes) -> None:
        self.store.add_signed(game_id, seq, statement)

    def add_tags(self, game_id: str, tags: Sequence[str]) -> list[str]:
        return self.store.add_tags(game_id, tags)

    def remove_tags(self, game_id: str, tags: Sequence[str]) -> list[str]:
        return self.store.remove_tags(game_id, tags)

    def delete_games(self, order: Sequence[str]) -> None:
        """Remove the games ``order`` names (forks first), in one transaction."""
        with self.store.transaction():
            for gid in order:
                self.store.delete_game(gid)
        self.repository.forget(list(order))

    # -- helpers -------------------------------------------------------------
    def _auto(
        self,
        game: Game[Any, Any, Any],
        record: GameRecord,
        state: Any,
        seq: int,
        policies: Mapping[int, str] | None = None,
        *,
        source: ChanceSource,
        bot_seats: frozenset[int] = frozenset(),
        history: Sequence[Any] = (),
    ) -> tuple[list[Any], Any]:
        """Chance (seeded games) and bot decisions from ``state`` on, until a human acts.
        ``source``: where chance comes from (:func:`chance_source`).  ``bot_seats``:
        play-by-email seats handed to the timeout bot or forfeited, played from their
        own views with public randomness (:func:`core.deadlines.bot_command`) [CL-T2],
        keyed by each seat's decision count over ``history`` (every line before
        ``state``'s next) and the lines played here [CL-V10]."""
        policies = record.bots if policies is None else policies
        out: list[Any] = []
        for _ in range(MAX_AUTO_STEPS):
            actors = game.to_act(state)
            if not actors or (actors == (CHANCE,) and record.table_game):
                break
            handed = next((a for a in actors if a in bot_seats), None) if record.pbem and bot_seats else None
            if handed is not None and actors != (CHANCE,):
                index = deadlines.decision_index(game, [*history, *out], handed)  # [CL-V10]
                command = deadlines.bot_command(game, state, handed, record.genesis, index)
                try:
                    produced, state = checked_step(game, state, handed, command)
                except IllegalCommand as exc:
                    raise RuntimeError(f"the timeout bot proposed an illegal command: {exc}") from exc
                out.extend(produced)
                seq += len(produced)
                continue
            if actors == (CHANCE,) and source.base is None and record.pbem:
                break  # waiting for players to join
            if actors == (CHANCE,):
                # the one derivation verify re-derives with: the draw index, not the seq, so
                # no line the host places (an upgrade, a timeout, a hand-over) picks a draw [CL-V9]
                rng = source.rng(seq)
                if rng is None:  # never chance from an empty seed [CL-V2]
                    raise ServiceError(f"game {record.id} has no seed to draw chance from")
                step: tuple[int, Any] | None = (CHANCE, game.chance(state, rng))
            else:
                step = next_command(game, state, source.seed_at(seq) or "", seq, policies)
            if step is None:
                break
            seat, command = step
            try:
                produced, state = checked_step(game, state, seat, command)
            except IllegalCommand as exc:  # a bot must never propose an illegal move
                raise RuntimeError(f"bot or chance proposed an illegal command: {exc}") from exc
            out.extend(produced)
            seq += len(produced)
        return out, state

    def _append(
        self,
        record: GameRecord,
        game: Game[Any, Any, Any],
        version: int,
        events: list[Any],
        state: Any = None,
    ) -> list[Recorded]:
        written = self.store.append(record.id, version, [to_item(e) for e in events])
        if state is None:
            state = game.fold(events)
        self.finish(record, game, state)
        return written

    def finish(self, record: GameRecord, game: Game[Any, Any, Any], state: Any) -> None:
        """If the game is over at ``state``: mark it so, with its winners, in its row."""
        if game.to_act(state):
            return
        result = game.result(state)
        winners = [record.players[w] for w in result.winners] if result is not None else []
        self.store.set_status(record.id, "over", winners)
