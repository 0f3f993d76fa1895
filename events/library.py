"""Library administration: forks, deletions, notes and tags of a store's games.

Apart from the writer (:mod:`events.writer`): this module decides what a fork
holds, which games a deletion takes and whether a note is acceptable, and
hands every write to the writer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core import chance
from core.chance import Reseeded
from core.engine import decision_cut
from events.limits import MAX_NOTE as _MAX_NOTE
from events.refusals import ServiceError, check_text
from events.repository import Repository
from events.seeds import chance_source
from events.store import SUPERSEDED_TAG, GameRecord, new_game_id
from events.writer import Writer


class Library:
    """Forks, deletions, notes and tags, written through ``writer``."""

    def __init__(self, repository: Repository, writer: Writer) -> None:
        self.repository = repository
        self.store = repository.store
        self.writer = writer

    def fork(
        self, game_id: str, at: int, seed: str | None = None, take_over: Sequence[int] = (), supersede: bool = False
    ) -> str:
        """A new game holding events 1..``at`` of ``game_id``, with its lineage, then
        whatever chance (from the new seed, if any) and bot seats play next.

        ``take_over``: seats whose bot the fork drops, so a person plays them from
        ``at`` on ("continue from here"); the other seats keep their bots [GL-3].
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
        loaded = self.repository.load(game_id)
        events = loaded.events
        cut = decision_cut(loaded.game, events, at)
        if cut is not None:
            start, end = cut
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
        # the fork goes on under the rules in effect at its point (an upgrade after it is not in it)
        game = self.repository.rules_of(self.repository.game_of(parent), parent, events[:at])
        state = game.fold(events[:at])
        first: list[Any] = []
        if seed is not None:
            # the new seed is bound in the chain before it deals anything: a chained
            # reseed carrying its salted commitment, revealed like the game's [CL-V7]
            first = [Reseeded(commitment=chance.reseed_commitment(seed, parent.salt, at + 1))]
            state = game.apply(state, first[0])
        # like a new game, the fork plays its chance and bot seats up to a human decision
        more, state = self.writer._auto(game, child, state, at + 1 + len(first), source=chance_source(child, events[:at]))
        more = first + more
        # the prefix's signed joins and moves travel with it, so it verifies
        signed = sorted(self.store.signed(parent.id).items()) if parent.pbem else []
        with self.store.transaction():
            self.writer.write_game(child, game, events[:at] + more, state, [(s, x) for s, x in signed if s <= at])
            if supersede:
                self.writer.add_tags(parent.id, [SUPERSEDED_TAG])
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
            them = "them" if len(forks) != 1 else "it"
            raise ServiceError(
                f"game {game_id} has {len(forks)} fork{'s' if len(forks) != 1 else ''} "
                f"({', '.join(forks[:10])}{', …' if len(forks) > 10 else ''}); "
                f"add --with-forks to delete {them} too, or delete {them} first"
            )
        return order

    def delete(self, game_id: str, with_forks: bool = False) -> list[str]:
        """Remove a game, its events and what is kept beside them (notes, tags,
        signed files), in one transaction.  A game with forks is refused unless
        ``with_forks``: then its forks, and theirs, go too (lineage stays whole:
        no fork is left naming a missing parent).  The ids removed, forks first."""
        order = self.deletion(game_id, with_forks)
        self.writer.delete_games(order)
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
        self.writer.add_note(game_id, seq, text)

    def tag(self, game_id: str, tags: Sequence[str]) -> list[str]:
        """Add ``tags`` (checked by the store) to a game; the ones it did not have."""
        return self.writer.add_tags(game_id, tags)

    def untag(self, game_id: str, tags: Sequence[str]) -> list[str]:
        """Remove ``tags`` from a game; the ones it had."""
        return self.writer.remove_tags(game_id, tags)
