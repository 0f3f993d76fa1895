"""The game service: the facade the CLI and the TUI call; neither holds a rule.

Each job lives in its own module, and :class:`GameService` puts them together
over one store (docs/architecture.md, section 2):

* :mod:`events.repository` — loading, the cache and the fast-forward;
* :mod:`events.writer` — the one path that writes (commands, chance and bots
  after them, new games, forks, imports, copies, notes, deletions);
* :mod:`events.admission` — play by email: whether a signed join or move may
  be written;
* :mod:`events.library` — forks, deletions, notes and tags;
* :mod:`events.seeds` — a game's chance source, shared with ``verify``;
* :mod:`events.refusals` — what the service refuses (:class:`ServiceError`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.chance import ChanceSource
from core.engine import Game
from events.admission import Admission
from events.envelope import Recorded
from events.library import Library
from events.limits import MAX_NOTE as _MAX_NOTE
from events.refusals import AmbiguousGame, Refused, ServiceError, StaleMove, check_players, check_text
from events.repository import CACHE_GAMES, Loaded, Repository, parse_command
from events.seeds import chance_source
from events.statements import AnyJoin, HandOver, MoveFile, Reveal
from events.store import EventStore, GameRecord
from events.writer import MAX_AUTO_STEPS, UpgradeReport, Writer

__all__ = [
    "CACHE_GAMES", "MAX_AUTO_STEPS", "AmbiguousGame", "GameService", "Loaded", "Refused", "ServiceError",
    "StaleMove", "chance_source", "check_players", "check_text", "parse_command",
]


class GameService:
    """One store's games: read (:attr:`repository`), written (:attr:`writer`),
    admitted (:attr:`admission`) and administered (:attr:`library`)."""

    LAST = Repository.LAST
    MAX_NOTE = _MAX_NOTE  # events.limits

    def __init__(self, store: EventStore, cache_games: int = CACHE_GAMES) -> None:
        self.store = store
        self.repository = Repository(store, cache_games)
        self.admission = Admission(self.repository)
        self.writer = Writer(self.repository, self.admission)
        self.library = Library(self.repository, self.writer)

    @property
    def cache_games(self) -> int:
        return self.repository.cache_games

    @property
    def _cache(self) -> dict[str, Loaded]:
        return self.repository.cache

    # -- reading -------------------------------------------------------------
    def resolve(self, ref: str) -> str:
        return self.repository.resolve(ref)

    def game_of(self, record: GameRecord) -> Game[Any, Any, Any]:
        return self.repository.game_of(record)

    @staticmethod
    def check_rules(loaded: Loaded) -> None:
        Repository.check_rules(loaded)

    def load(self, game_id: str, upto: int | None = None, history: bool = False) -> Loaded:
        return self.repository.load(game_id, upto, history)

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
        deadline: int = 0,
        on_timeout: str = "",
        entropy: int | None = None,
    ) -> str:
        """A new game (:meth:`events.writer.Writer.create`)."""
        return self.writer.create(
            game_name, players, seed=seed, options=options, bots=bots, table=table,
            game_id=game_id, host_key=host_key, salt=salt, deadline=deadline, on_timeout=on_timeout,
            entropy=entropy,
        )

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
        """Decide ``command`` for ``seat`` (with ``text``: as typed, parsed at the position
        it is decided at; ``player``: the name believed to sit there), play chance and
        bots after it, append it all."""
        return self.writer.submit(
            game_id, seat, command, expected_version=expected_version, expected_hash=expected_hash, text=text,
            player=player,
        )

    def autoplay(self, game_id: str, policy: str, seats: Sequence[int] | None = None) -> list[Recorded]:
        return self.writer.autoplay(game_id, policy, seats)

    def finish(self, record: GameRecord, game: Game[Any, Any, Any], state: Any) -> None:
        self.writer.finish(record, game, state)

    def upgrade(self, game_id: str, check: bool = False) -> UpgradeReport:
        """Switch a game to the current rules when they re-decide it alike (:meth:`Writer.upgrade`)."""
        return self.writer.upgrade(game_id, check)

    # -- play by email -------------------------------------------------------
    def waiting_to_join(self, loaded: Loaded) -> list[str]:
        return self.admission.waiting_to_join(loaded)

    def holds(self, loaded: Loaded, seat: int) -> list[int]:
        return self.admission.holds(loaded, seat)

    def holds_move(self, mv: MoveFile) -> list[int]:
        return self.admission.holds_move(mv)

    def join(self, jf: AnyJoin) -> list[Recorded]:
        return self.writer.join(jf)

    def reveal(self, rv: Reveal) -> list[Recorded]:
        """Record a seat's reveal of its committed entropy [CL-S7]."""
        return self.writer.reveal(rv)

    def waiting_to_reveal(self, loaded: Loaded) -> list[str]:
        return self.admission.waiting_to_reveal(loaded)

    def submit_move(self, mv: MoveFile) -> list[Recorded]:
        return self.writer.submit_move(mv)

    def hand_over(self, ho: HandOver) -> list[Recorded]:
        return self.writer.hand_over(ho)

    def timeout(self, game_id: str, seat: int, seq: int, since: int, at: int, sign: Any) -> list[Recorded]:
        return self.writer.timeout(game_id, seat, seq, since, at, sign)

    # -- the library ---------------------------------------------------------
    def fork(
        self, game_id: str, at: int, seed: str | None = None, take_over: Sequence[int] = (), supersede: bool = False
    ) -> str:
        return self.library.fork(game_id, at, seed, take_over, supersede)

    def with_forks(self, game_id: str) -> list[str]:
        return self.library.with_forks(game_id)

    def deletion(self, game_id: str, with_forks: bool = False) -> list[str]:
        return self.library.deletion(game_id, with_forks)

    def delete(self, game_id: str, with_forks: bool = False) -> list[str]:
        return self.library.delete(game_id, with_forks)

    def note(self, game_id: str, seq: int, text: str) -> None:
        self.library.note(game_id, seq, text)

    def tag(self, game_id: str, tags: Sequence[str]) -> list[str]:
        return self.library.tag(game_id, tags)

    def untag(self, game_id: str, tags: Sequence[str]) -> list[str]:
        return self.library.untag(game_id, tags)

    # -- for tests that drive the writer's steps one by one ---------------------
    def _auto(
        self, game: Game[Any, Any, Any], record: GameRecord, state: Any, seq: int,
        policies: Mapping[int, str] | None = None, *, source: ChanceSource,
    ) -> tuple[list[Any], Any]:
        return self.writer._auto(game, record, state, seq, policies, source=source)

    def _append(
        self, record: GameRecord, game: Game[Any, Any, Any], version: int, events: list[Any], state: Any = None
    ) -> list[Recorded]:
        return self.writer._append(record, game, version, events, state)
