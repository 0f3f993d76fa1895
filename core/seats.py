"""Seats joining a play-by-email game: an event every game's log may hold.

A ``--pbem`` game waits after its creation event until every seat has joined;
each join is a :class:`Joined` event in the chain carrying the player's public
key (their moves must be signed with it) and fresh entropy (mixed into the
deal, so the host, who committed to the seed before, cannot rig it).  A join
changes no game state: every game's ``apply`` passes it through, and its
``describe`` reads it with :func:`describe_joined` (both by :mod:`core.table_events`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec


class Joined(msgspec.Struct, frozen=True, tag_field="type", tag="seat.joined"):
    seat: int
    public_key: str
    """Hex of the player's Ed25519 public key (32 raw bytes)."""
    entropy: str
    """Hex of 16+ random bytes the player chose; the deal depends on it."""


def describe_joined(e: Joined, players: Sequence[str]) -> str:
    who = players[e.seat] if 0 <= e.seat < len(players) else f"seat {e.seat}"
    return f"{who} joins (key {e.public_key[:12]}…)"


def joins(events: Iterable[Any]) -> dict[int, Joined]:
    """Seat -> its join, from a game's events (the first join of a seat counts)."""
    out: dict[int, Joined] = {}
    for e in events:
        if type(e) is Joined and e.seat not in out:
            out[e.seat] = e
    return out
