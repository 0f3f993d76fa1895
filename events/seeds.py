"""A stored or exported game's chance source: the one derivation the writer and ``verify`` share.

:mod:`core.chance` holds the rules of chance (secret schemes, reseeds, how
entropy is mixed); this module applies them to a game as it is kept — its
definition, the revealed seed and salt, the forks' reseeds and, play by email,
every seat's entropy from the events.  The writer (:mod:`events.writer`) draws
chance with it and ``verify`` (:mod:`replay.verify`) re-derives the deal with
it, so the two cannot come apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core import chance, table_events
from core.chance import ChanceSource
from events.envelope import GameDefinition


def chance_source_of(
    definition: GameDefinition,
    seed: str | None,
    salt: str | None,
    reseeds: Iterable[tuple[int, str]],
    events: Sequence[Any],
    bound: Mapping[int, str] | None = None,
) -> ChanceSource:
    """The chance of the game ``definition`` defines: its secret (``seed`` and
    ``salt`` under the definition's scheme), for a play-by-email game mixed with
    every seat's entropy in ``events`` (no seed until all have joined, and in a game
    of entropy scheme 2 until all have revealed entropy matching their chained
    commitments: no chance may be drawn before [CL-S7]), and a fork's ``reseeds`` from their seq on (``bound``:
    seq -> the chained commitment, as ``verify`` checks them; see
    :func:`core.chance.source`).  ValueError for a seed that cannot be used.

    ``events`` must hold every line up to the draws to come — a placed line the
    caller is about to write included — since no draw counts a placed line [CL-V9]."""
    pbem = bool(definition.host_key)
    entropies = chance.entropies(events, len(definition.players), definition.entropy) if pbem else None
    return chance.source(seed, salt, definition.secrets, pbem, entropies, reseeds, bound=bound,
                         placed=table_events.placed_seqs(events))


def chance_source(record: Any, events: Sequence[Any]) -> ChanceSource:
    """Where a stored game's chance comes from (``record``: its
    :class:`~events.store.GameRecord`)."""
    return chance_source_of(record.definition, record.seed, record.salt, record.reseeds, events)
