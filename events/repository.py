"""The repository: loads a game from the store, folds it, and keeps the latest folds.

As eventsourcing's ``Repository.get``: a game is read by id (or a ref that
names one), its events decoded and folded by its rules, and the latest fold of
each game is cached (docs/architecture.md, property 1: caches, keyed by game,
seq and rules version); a later load reads only the events appended since (the
fast-forward) and checks they chain onto the cached head.  Nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from msgspec.structs import replace

from core import registry
from core.engine import Game, RulesError
from core.upgrade import Upgraded, version_at
from events.codec import decoder_for
from events.envelope import Recorded
from events.refusals import AmbiguousGame, ServiceError
from events.store import SIM_TAG, EventStore, GameNotFound, GameRecord

CACHE_GAMES = 32
"""How many folded games a repository keeps (least recently used go first)."""


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


class Repository:
    """Loading, the cache and the fast-forward of one store's games."""

    def __init__(self, store: EventStore, cache_games: int = CACHE_GAMES) -> None:
        self.store = store
        self.cache: dict[str, Loaded] = {}
        """game id -> its latest fold; insertion order is recency (bounded, LRU)."""
        self.cache_games = max(0, cache_games)

    def remember(self, game_id: str, loaded: Loaded) -> None:
        cache = self.cache
        cache.pop(game_id, None)
        if self.cache_games == 0:
            return
        cache[game_id] = loaded
        while len(cache) > self.cache_games:
            del cache[next(iter(cache))]  # the least recently used

    def forget(self, game_ids: list[str]) -> None:
        """Drop the cached folds of ``game_ids`` (deleted games)."""
        for gid in game_ids:
            self.cache.pop(gid, None)

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
        """Only a game whose rules version in effect this citylog keeps may be continued
        (its definition's, or its last upgrade's: ``loaded.game`` is those rules) [CL-U3]."""
        effective = version_at(loaded.record.rules_version, loaded.events)
        if loaded.game.spec.rules_version != effective:
            current = registry.get(loaded.record.game).spec.rules_version
            raise ServiceError(
                f"game {loaded.record.id} is played under rules {effective}; "
                f"this citylog plays {current} and does not keep {effective}: it can be replayed, not continued"
            )

    @staticmethod
    def rules_of(game: Game[Any, Any, Any], record: GameRecord, events: list[Any]) -> Game[Any, Any, Any]:
        """The rules in effect after ``events`` (the definition's version, or the last
        upgrade's) where this citylog keeps them; else ``game`` (it only replays:
        :meth:`check_rules` refuses to continue) [CL-U3]."""
        kept = game.for_rules(version_at(record.rules_version, events))
        return kept if kept is not None else game

    def load(self, game_id: str, upto: int | None = None, history: bool = False) -> Loaded:
        """The game folded to ``upto`` (default: its end).

        The latest fold of each game is cached (docs/architecture.md, property 1: caches,
        keyed by game, seq and rules version); a load reads only the events
        appended since, and checks they chain onto the cached head.
        """
        cached = self.cache.get(game_id)
        if upto is None and not history and cached is not None:
            seq, head = self.store.head(game_id)
            if (seq, head) == (cached.version, cached.head_hash):
                self.remember(game_id, cached)
                return cached
            if seq > cached.version:
                new = self.store.read(game_id, after=cached.version)
                if new and new[0].prev_hash == cached.head_hash:
                    return self.extend(cached, new)
        record = self.store.get_game(game_id)
        game = self.game_of(record)
        records = self.store.read(game_id, upto)
        events, state, states = self.fold(game_id, game, records, history)
        if state is None:
            raise ServiceError(f"game {game_id} has no events")
        game = self.rules_of(game, record, events)
        loaded = Loaded(record, game, records, events, state, states)
        if upto is None:
            self.remember(game_id, Loaded(record, game, records, events, state))
        return loaded

    @staticmethod
    def fold(
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

    def extend(
        self, cached: Loaded, new: list[Recorded], events: list[Any] | None = None, state: Any = None
    ) -> Loaded:
        """The cached fold with ``new`` records on top (their events and state if known)."""
        if events is None:
            decoder = decoder_for(cached.game.event_type)
            events = [decoder.decode(r.payload) for r in new]
            state = cached.game.fold(events, cached.state)
        record = cached.record
        game = cached.game
        if any(type(e) is Upgraded for e in events):
            game = self.rules_of(game, record, cached.events + events)
        if not game.to_act(state) and record.status != "over":
            record = replace(record, status="over")
        loaded = Loaded(record, game, cached.records + new, cached.events + events, state)
        self.remember(record.id, loaded)
        return loaded


def parse_command(loaded: Loaded, seat: int, text: str) -> Any:
    """``text`` as a command of ``seat`` at ``loaded``'s position; ServiceError if it is not one."""
    try:
        return loaded.game.parse_command(loaded.state, seat, text)
    except RulesError as exc:
        raise ServiceError(str(exc)) from None
