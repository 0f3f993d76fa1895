"""The game service: the only path that writes.

load → fold → decide → append, in one transaction with the expected version.
After a decision, chance (for seeded games) and bot seats are played at once,
in the same append, up to the next human decision.  The CLI and the TUI both
call this; neither holds a rule.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from msgspec.structs import replace

from core import registry
from core.autoplay import next_command
from core.engine import (
    CHANCE,
    Game,
    IllegalCommand,
    RulesError,
    checked_step,
    normalize_options,
    step_as,
)
from core import chance
from core.chance import ChanceSource, Reseeded
from core.rng import seed_commitment
from core.seats import Joined, joins
from events import statements
from events.codec import decoder_for, to_item
from events.envelope import GameDefinition, Recorded
from events.limits import MAX_NOTE as _MAX_NOTE
from events.limits import MAX_SEED, check_length
from events.signing import SIG_HEX, hex_bytes, is_public_hex, same_hex
from events.statements import JoinFile, MoveFile
from events.store import SIM_TAG, SUPERSEDED_TAG, EventStore, GameNotFound, GameRecord, new_game_id

class _Signature(msgspec.Struct):
    signature: str = ""


_peek_signature = msgspec.json.Decoder(_Signature)

MAX_AUTO_STEPS = 100_000
CACHE_GAMES = 32
"""How many folded games a service keeps (least recently used go first)."""


class ServiceError(Exception):
    """A request the service refuses; ``exit_code`` 2 is bad input, 1 a failed check."""

    exit_code = 2


class AmbiguousGame(ServiceError):
    """A game id prefix that more than one game starts with."""


class StaleMove(ServiceError):
    """A move made against a position that is no longer the game's latest."""


class Refused(ServiceError):
    """A signed file refused: bad or missing signature, wrong key, a replay."""


def chance_source(record: GameRecord, events: Sequence[Any]) -> ChanceSource:
    """Where a stored game's chance comes from (:mod:`core.chance`, the one module
    ``verify`` derives it with too): its secret, for a play-by-email game mixed with
    every seat's entropy (no seed until all have joined: no chance may be drawn
    before), and a fork's reseeds from their seq on."""
    n = len(record.players)
    return chance.source(
        record.seed, record.salt, record.secrets, record.pbem,
        chance.entropies(events, n) if record.pbem else None, record.reseeds,
    )


def check_text(what: str, text: str) -> str:
    """``text`` if it is usable as a seed or a player's name: non-empty, valid
    UTF-8 (a non-UTF-8 command-line argument arrives with surrogates), no control
    characters.  ServiceError otherwise."""
    if not text:
        raise ServiceError(f"{what} must not be empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ServiceError(f"{what} is not valid UTF-8 text") from None
    if not text.isprintable():  # C0, DEL, C1, bidi overrides, zero-width marks: nothing that hides or drives
        raise ServiceError(f"{what} must not contain control characters")
    check_length(what, text, MAX_SEED)
    return text


def check_players(players: Sequence[str]) -> None:
    """Names: each usable text, none twice, none starting with '-' (an option's look)."""
    from events.limits import MAX_PLAYER_NAME

    for name in players:
        check_text("a player's name", name)
        check_length("a player's name", name, MAX_PLAYER_NAME)
        if name != name.strip() or name.startswith("-"):
            raise ServiceError(f"player name {name!r}: no leading '-' and no surrounding spaces")
    if len(set(players)) != len(players):
        raise ServiceError("two players have the same name")


@dataclass
class Loaded:
    """A game read from the store and folded."""

    record: GameRecord
    game: Game[Any, Any, Any]
    records: list[Recorded]
    events: list[Any]
    state: Any
    history: list[Any] = field(default_factory=list)
    """States after each event, when asked for (``load(..., history=True)``)."""

    @property
    def version(self) -> int:
        return self.records[-1].seq if self.records else 0

    @property
    def head_hash(self) -> str:
        return self.records[-1].hash if self.records else self.record.genesis

    @property
    def players(self) -> tuple[str, ...]:
        return self.record.players

    def seat(self, player: str) -> int:
        """A seat by player name or by number (0-based)."""
        if player in self.record.players:
            return self.record.players.index(player)
        if player.isdigit() and int(player) < len(self.record.players):
            return int(player)
        raise ServiceError(
            f"no player {player!r} in game {self.record.id} (players: {', '.join(self.record.players)})"
        )


class GameService:
    def __init__(self, store: EventStore, cache_games: int = CACHE_GAMES) -> None:
        self.store = store
        self._cache: dict[str, Loaded] = {}
        """game id -> its latest fold; insertion order is recency (bounded, LRU)."""
        self.cache_games = max(0, cache_games)

    def _remember(self, game_id: str, loaded: Loaded) -> None:
        cache = self._cache
        cache.pop(game_id, None)
        if self.cache_games == 0:
            return
        cache[game_id] = loaded
        while len(cache) > self.cache_games:
            del cache[next(iter(cache))]  # the least recently used

    # -- finding a game --------------------------------------------------------
    LAST = "last"

    def resolve(self, ref: str) -> str:
        """The id of the game ``ref`` names: an exact id; ``last``, the newest game
        (simulated games, tagged ``sim``, left out); or a unique prefix of an id,
        git-style and case-insensitive.  GameNotFound if none; AmbiguousGame
        (exit 2) naming the candidates if several start with it."""
        try:
            return self.store.get_game(ref).id
        except GameNotFound:
            pass
        if ref.lower() == self.LAST:
            latest = self.store.latest_id(hidden_tag=SIM_TAG)
            if latest is None:
                raise GameNotFound(ref)
            return latest
        found = self.store.ids_with_prefix(ref, 11)
        if not found:
            raise GameNotFound(ref)
        if len(found) > 1:
            more = ", …" if len(found) > 10 else ""
            raise AmbiguousGame(
                f"{ref!r} is the start of {'more than 10' if more else len(found)} game ids: "
                f"{', '.join(found[:10])}{more}; give more of the id"
            )
        return found[0]

    # -- reading -------------------------------------------------------------
    def game_of(self, record: GameRecord) -> Game[Any, Any, Any]:
        """The game's rules.  Any rules version can be read (the fold never validates)."""
        try:
            return registry.get(record.game)
        except registry.UnknownGame as exc:
            raise ServiceError(str(exc)) from None

    @staticmethod
    def check_rules(loaded: Loaded) -> None:
        """Only a game recorded under the current rules may be continued."""
        current = loaded.game.spec.rules_version
        if loaded.record.rules_version != current:
            raise ServiceError(
                f"game {loaded.record.id} was recorded under rules {loaded.record.rules_version}; "
                f"this citylog plays {current}: it can be replayed, not continued"
            )

    def load(self, game_id: str, upto: int | None = None, history: bool = False) -> Loaded:
        """The game folded to ``upto`` (default: its end).

        The latest fold of each game is cached (docs/architecture.md, property 1: caches,
        keyed by game, seq and rules version); a load reads only the events
        appended since, and checks they chain onto the cached head.
        """
        cached = self._cache.get(game_id)
        if upto is None and not history and cached is not None:
            seq, head = self.store.head(game_id)
            if (seq, head) == (cached.version, cached.head_hash):
                self._remember(game_id, cached)
                return cached
            if seq > cached.version:
                new = self.store.read(game_id, after=cached.version)
                if new and new[0].prev_hash == cached.head_hash:
                    return self._extend(cached, new)
        record = self.store.get_game(game_id)
        game = self.game_of(record)
        records = self.store.read(game_id, upto)
        events, state, states = self._fold(game_id, game, records, history)
        if state is None:
            raise ServiceError(f"game {game_id} has no events")
        loaded = Loaded(record, game, records, events, state, states)
        if upto is None:
            self._remember(game_id, Loaded(record, game, records, events, state))
        return loaded

    @staticmethod
    def _fold(
        game_id: str, game: Game[Any, Any, Any], records: list[Recorded], history: bool
    ) -> tuple[list[Any], Any, list[Any]]:
        """(events, the state after them, the state after each if ``history``).

        The rows are checked in bulk (seqs 1…n, every payload bytes), decoded,
        then folded; should anything fail, the rows are gone through one by one
        to name the first that cannot be read (a row edited in the database:
        named, not a crash)."""
        decode, apply = decoder_for(game.event_type).decode, game.apply
        state: Any = None
        states: list[Any] = []
        try:
            if [r.seq for r in records] != list(range(1, len(records) + 1)):
                raise ValueError("a damaged events row")
            events = [decode(r.payload) for r in records if type(r.payload) is bytes]
            if len(events) != len(records):
                raise ValueError("a damaged events row")
            if history:
                for e in events:
                    state = apply(state, e)
                    states.append(state)
            else:
                for e in events:
                    state = apply(state, e)
            return events, state, states
        except Exception:  # noqa: BLE001 - decode errors, or an event that does not fit
            pass
        state = None
        for i, r in enumerate(records, start=1):
            try:
                if r.seq != i or type(r.payload) is not bytes:
                    raise ValueError("a damaged events row")
                state = apply(state, decode(r.payload))
            except Exception as exc:  # noqa: BLE001
                raise ServiceError(
                    f"game {game_id}: seq {r.seq} cannot be read ({type(exc).__name__}); "
                    f"'citylog verify {game_id}' names the first bad line"
                ) from None
        raise RuntimeError(f"game {game_id}: a fold failed once and not again")  # pragma: no cover

    def _extend(
        self, cached: Loaded, new: list[Recorded], events: list[Any] | None = None, state: Any = None
    ) -> Loaded:
        """The cached fold with ``new`` records on top (their events and state if known)."""
        if events is None:
            decoder = decoder_for(cached.game.event_type)
            events = [decoder.decode(r.payload) for r in new]
            state = cached.game.fold(events, cached.state)
        record = cached.record
        if not cached.game.to_act(state) and record.status != "over":
            record = replace(record, status="over")
        loaded = Loaded(record, cached.game, cached.records + new, cached.events + events, state)
        self._remember(record.id, loaded)
        return loaded

    # -- writing -------------------------------------------------------------
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
    ) -> str:
        """A new game; with ``host_key`` (hex) a play-by-email game that waits for
        every seat to join (:meth:`join`) before any chance is drawn."""
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
    def waiting_to_join(self, loaded: Loaded) -> list[str]:
        """Players of a play-by-email game who have not joined yet."""
        if not loaded.record.pbem:
            return []
        joined = joins(loaded.events)
        return [p for i, p in enumerate(loaded.players) if i not in joined]

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

    def join(self, jf: JoinFile) -> list[Recorded]:
        """Record a player's join (key and entropy); once every seat has joined,
        chance starts from the deal seed.

        Refused unless the join answers this game's exact genesis, is signed by
        the key it carries, and proves it holds the seat's invitation (its
        one-time secret, bound to the player's key when the host knew it,
        ``invite --player-key``): a player cannot take another's seat with a
        second key of his."""
        self._well_formed(jf)
        with self.store.transaction():
            loaded = self.load(jf.game_id)
            rec = loaded.record
            raw = statements.encode(jf)
            if not rec.pbem:
                raise Refused(f"game {rec.id} is not a play-by-email game (created without --pbem)")
            if not same_hex(jf.genesis, rec.genesis, statements.HASH_HEX):
                raise Refused("the join was made for another game definition (genesis differs)")
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
            game, state = loaded.game, loaded.state
            events: list[Any] = [Joined(seat=seat, public_key=jf.public_key, entropy=jf.entropy)]
            all_events = loaded.events + events
            source = chance_source(rec, all_events)
            if source.base is not None:
                more, state = self._auto(game, rec, state, loaded.version + 2, source=source)
                events += more
            written = self._append(rec, game, loaded.version, events, state)
            self.store.add_signed(rec.id, written[0].seq, raw)
        self._extend(loaded, written, events, state)
        return written

    def submit_move(self, mv: MoveFile) -> list[Recorded]:
        """Apply a move file: its signature (play-by-email games), its position
        (stale unless the seat's decision commutes with what happened since), then
        each of its commands in turn, with chance and bots after each.

        A move file is used at most once: one whose signature (as bytes) or
        signed statement is already in the game is a replay."""
        self._well_formed(mv)
        with self.store.transaction():
            loaded = self.load(mv.game_id)
            rec = loaded.record
            raw = statements.encode(mv)
            seat = self._named_seat(loaded, mv.player) if rec.pbem else loaded.seat(mv.player)
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
            self._check_position(loaded, seat, mv.seq, mv.hash)
            self.check_rules(loaded)
            game, state, version = loaded.game, loaded.state, loaded.version
            source = chance_source(rec, loaded.events)
            all_events: list[Any] = []
            opened: list[int] = []
            for text in mv.all_commands:
                try:
                    command = game.parse_command(state, seat, text)
                    produced, state = checked_step(game, state, seat, command)
                except RulesError as exc:
                    where = f" (command {len(opened) + 1} of {len(mv.all_commands)})" if len(mv.all_commands) > 1 else ""
                    raise ServiceError(f"{exc}{where}") from None
                opened.append(version + len(all_events) + 1)
                more, state = self._auto(game, rec, state, version + len(all_events) + len(produced) + 1, source=source)
                all_events += [*produced, *more]
            written = self._append(rec, game, version, all_events, state)
            if rec.pbem:
                for seq in opened:
                    self.store.add_signed(rec.id, seq, raw)
        self._extend(loaded, written, all_events, state)
        return written

    def _already_used(self, game_id: str, mv: MoveFile) -> bool:
        """``mv``'s signature (decoded bytes) is already in the game: a replay.
        (The store keeps every statement in its one encoding.)"""
        sig = hex_bytes(mv.signature, SIG_HEX)
        for stored in self.store.signed(game_id).values():
            try:
                old = _peek_signature.decode(stored).signature
            except (msgspec.DecodeError, msgspec.ValidationError):
                continue
            if hex_bytes(old, SIG_HEX) == sig:
                return True
        return False

    def _check_position(self, loaded: Loaded, seat: int, seq: int, head: str) -> None:
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

    def holds(self, loaded: Loaded, seat: int) -> list[int]:
        """Seats acting at once with ``seat`` (a simultaneous step): an inbox applies
        their files together, in seat order, so the log does not depend on which
        arrived first."""
        actors = loaded.game.to_act(loaded.state)
        if seat not in actors or len(actors) < 2 or loaded.game.decision_key(loaded.state, seat) is None:
            return []
        return [a for a in actors if a != seat]

    def submit(
        self,
        game_id: str,
        seat: int,
        command: Any,
        *,
        expected_version: int | None = None,
        expected_hash: str | None = None,
    ) -> list[Recorded]:
        """Decide ``command`` for ``seat``, play chance and bots after it, append it all."""
        with self.store.transaction():
            loaded = self.load(game_id)
            if expected_version is not None and expected_version != loaded.version:
                raise StaleMove(
                    f"stale move: it was made at seq {expected_version}, the game is at seq "
                    f"{loaded.version}; fetch the game again and remake the move"
                )
            if expected_hash is not None and expected_hash != loaded.head_hash:
                raise StaleMove(
                    f"stale move: seq {loaded.version}'s hash does not match the one the move was made against"
                )
            self.check_rules(loaded)
            if seat == CHANCE and not loaded.record.table_game:
                raise ServiceError("chance outcomes come from the seed; only --table games take them by hand")
            if loaded.record.pbem:
                raise Refused(
                    f"game {game_id} is played by email: moves come as signed move files ('citylog apply')"
                )
            game, state = loaded.game, loaded.state
            produced, state = step_as(game, state, seat, command)
            events = list(produced)
            more, state = self._auto(
                game, loaded.record, state, loaded.version + len(events) + 1,
                source=chance_source(loaded.record, loaded.events),
            )
            events.extend(more)
            written = self._append(loaded.record, game, loaded.version, events, state)
        self._extend(loaded, written, events, state)  # committed: the cache moves on
        return written

    def autoplay(self, game_id: str, policy: str, seats: Sequence[int] | None = None) -> list[Recorded]:
        """Bots play every remaining decision (of ``seats``, default all) to the end."""
        with self.store.transaction():
            loaded = self.load(game_id)
            self.check_rules(loaded)
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

    def fork(
        self, game_id: str, at: int, seed: str | None = None, take_over: Sequence[int] = (), supersede: bool = False
    ) -> str:
        """A new game holding events 1..``at`` of ``game_id``, with its lineage, then
        whatever chance (from the new seed, if any) and bot seats play next.

        ``take_over``: seats whose bot the fork drops, so a person plays them from
        ``at`` on ("continue from here"); the other seats keep their bots [CL-F1].
        The bots are the header's, outside the chain: the fork's events up to
        ``at`` are the parent's either way.

        ``supersede`` (the play prompt's ``undo``): in the same transaction the
        parent is tagged ``superseded``, outside the chain like every tag, so
        ``list`` no longer shows it among the games going on [GL-3].

        With a new ``seed``, seq ``at + 1`` is a :class:`~core.chance.Reseeded`
        event committing to it (salted), and chance from there on comes from it.
        A play-by-email game is never forked with a new seed: the host would choose
        it while seeing every card, and every ``verify`` fails such a line [CL-V7]."""
        parent = self.store.get_game(game_id)
        version = self.store.version(game_id)
        if not 1 <= at <= version:
            raise ServiceError(f"--at must be between 1 and {version}, not {at}")
        if seed is not None:
            check_text("--seed", seed)
        if seed is not None and parent.table_game:
            raise ServiceError("a --table game has no seed to change")
        if seed is not None and parent.pbem:
            raise ServiceError("a game by email cannot be forked with a new seed: the host, who sees every card, "
                               "would choose the draws [CL-V7]")
        loaded = self.load(game_id)
        events = loaded.events
        if at < version and loaded.game.command_of(events[at]) is None and type(events[at]) is not Reseeded:
            start = at
            while start > 1 and loaded.game.command_of(events[start - 1]) is None:
                start -= 1
            end = at + 1
            while end < version and loaded.game.command_of(events[end]) is None:
                end += 1
            raise ServiceError(
                f"seq {at} is inside the decision of seqs {start}..{end}: "
                f"fork at {start - 1} (before it) or {end} (after it)"
            )
        for seat in take_over:
            if not 0 <= seat < len(parent.players):
                raise ServiceError(f"no seat {seat} in game {game_id}")
        if take_over and parent.pbem:
            raise ServiceError("a game by email has no bot seats to take over: every seat is its player's")
        reseeds = tuple((s, v) for s, v in parent.reseeds if s <= at)
        if seed is not None:
            reseeds = reseeds + ((at + 1, seed),)
        child = GameRecord.of(
            new_game_id(),
            parent.definition,
            seed=parent.seed,
            bots={s: p for s, p in parent.bots.items() if s not in take_over},
            parent=parent.id,
            fork_at=at,
            reseeds=reseeds,
            salted=parent.salted,
            salt=parent.salt,
        )
        game = loaded.game
        state = game.fold(events[:at])
        first: list[Any] = []
        if seed is not None:
            # the new seed is bound in the chain before it deals anything: a chained
            # reseed carrying its salted commitment, revealed like the game's [CL-V7]
            first = [Reseeded(commitment=chance.reseed_commitment(seed, parent.salt, at + 1))]
            state = game.apply(state, first[0])
        # like a new game, the fork plays its chance and bot seats up to a human decision
        more, state = self._auto(game, child, state, at + 1 + len(first), source=chance_source(child, events[:at]))
        more = first + more
        with self.store.transaction():
            self.store.create_game(child)
            self._append(child, game, 0, events[:at] + more, state)
            if supersede:
                self.store.add_tags(parent.id, [SUPERSEDED_TAG])
            if parent.pbem:  # the prefix's signed joins and moves travel with it, so it verifies
                for seq, statement in sorted(self.store.signed(parent.id).items()):
                    if seq <= at:
                        self.store.add_signed(child.id, seq, statement)
        return child.id

    def with_forks(self, game_id: str) -> list[str]:
        """``game_id`` and every game forked from it (and from those), forks
        first: the order they can be deleted in."""
        self.store.get_game(game_id)  # GameNotFound
        order: list[str] = []

        def walk(gid: str) -> None:
            for child in self.store.forks_of(gid):
                walk(child)
            order.append(gid)

        walk(game_id)
        return order

    def deletion(self, game_id: str, with_forks: bool = False) -> list[str]:
        """What :meth:`delete` would remove, forks first; ServiceError naming the
        forks of a game that has some, unless ``with_forks``."""
        order = self.with_forks(game_id)
        if len(order) > 1 and not with_forks:
            forks = [g for g in order if g != game_id]
            raise ServiceError(
                f"game {game_id} has {len(forks)} fork{'s' if len(forks) != 1 else ''} "
                f"({', '.join(forks[:10])}{', …' if len(forks) > 10 else ''}); "
                "add --with-forks to delete them too, or delete them first"
            )
        return order

    def delete(self, game_id: str, with_forks: bool = False) -> list[str]:
        """Remove a game, its events and what is kept beside them (notes, tags,
        signed files), in one transaction.  A game with forks is refused unless
        ``with_forks``: then its forks, and theirs, go too (lineage stays whole:
        no fork is left naming a missing parent).  The ids removed, forks first."""
        order = self.deletion(game_id, with_forks)
        with self.store.transaction():
            for gid in order:
                self.store.delete_game(gid)
        for gid in order:
            self._cache.pop(gid, None)
        return order

    MAX_NOTE = _MAX_NOTE  # events.limits

    def note(self, game_id: str, seq: int, text: str) -> None:
        """Attach a note to event ``seq`` (outside the hash chain: the game is unchanged)."""
        version = self.store.version(game_id)
        if not 1 <= seq <= version:
            raise ServiceError(f"--at must be between 1 and {version}, not {seq}")
        if not text.strip():
            raise ServiceError("a note needs some text")
        if not text.replace("\n", "").replace("\t", "").isprintable():
            raise ServiceError("a note must not contain control characters (line breaks and tabs are fine)")
        if len(text) > self.MAX_NOTE:
            raise ServiceError(f"a note is at most {self.MAX_NOTE} characters, not {len(text)}")
        self.store.add_note(game_id, seq, text)

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
    ) -> tuple[list[Any], Any]:
        """Chance (seeded games) and bot decisions from ``state`` on, until a human acts.
        ``source``: where chance comes from (:func:`chance_source`)."""
        policies = record.bots if policies is None else policies
        out: list[Any] = []
        for _ in range(MAX_AUTO_STEPS):
            actors = game.to_act(state)
            if not actors or (actors == (CHANCE,) and record.table_game):
                break
            if actors == (CHANCE,) and source.base is None and record.pbem:
                break  # waiting for players to join
            seed = source.seed_at(seq)
            if not seed and actors == (CHANCE,):  # never chance from an empty seed [CL-V2]
                raise ServiceError(f"game {record.id} has no seed to draw chance from")
            step = next_command(game, state, seed or "", seq, policies)
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


def parse_command(loaded: Loaded, seat: int, text: str) -> Any:
    try:
        return loaded.game.parse_command(loaded.state, seat, text)
    except RulesError as exc:
        raise ServiceError(str(exc)) from None
