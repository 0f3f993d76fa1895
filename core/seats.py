"""Seats joining a play-by-email game: an event every game's log may hold.

A ``--pbem`` game waits after its creation event until every seat has joined;
each join is a :class:`Joined` event in the chain carrying the player's public
key (their moves must be signed with it) and fresh entropy (mixed into the
deal, so the host, who committed to the seed before, cannot rig it).  A join
changes no game state: every game's ``apply`` passes it through, and its
``describe`` reads it with :func:`describe_joined` (both by :mod:`core.table_events`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec


class Joined(msgspec.Struct, frozen=True, tag_field="type", tag="seat.joined", omit_defaults=True):
    seat: int
    public_key: str
    """Hex of the player's Ed25519 public key (32 raw bytes)."""
    entropy: str
    """Hex of 16+ random bytes the player chose; the deal depends on it.  Empty in
    a game of entropy scheme 2, whose join carries only ``commitment`` [CL-S7]."""
    commitment: str = ""
    """Entropy scheme 2 (``citylog-join/3``): :func:`entropy_commitment` of the
    player's entropy and salt, revealed later by a :class:`Revealed` line.  Left
    out of the encoding when empty, so every older join line keeps its bytes."""


class Revealed(msgspec.Struct, frozen=True, tag_field="type", tag="seat.revealed"):
    """A seat's entropy, revealed once every seat's commitment is chained (entropy
    scheme 2, ruling CL-S7): the line carries the entropy and the salt its
    join's commitment was made with.  Never redacted; changes no game state."""

    seat: int
    entropy: str
    salt: str


def entropy_commitment(entropy: str, salt: str) -> str:
    """The commitment a join of entropy scheme 2 carries: sha256 of a domain tag,
    the 16-byte salt and the 16-byte entropy (fixed lengths: one reading) [CL-S7].

    >>> len(entropy_commitment("00" * 16, "11" * 16))
    64
    >>> entropy_commitment("00" * 16, "11" * 16) != entropy_commitment("11" * 16, "00" * 16)
    True
    """
    return hashlib.sha256(b"citylog-entropy-v1:" + bytes.fromhex(salt) + bytes.fromhex(entropy)).hexdigest()


def matches(j: Joined, r: Revealed) -> bool:
    """The reveal opens the join's commitment (hex compared as written: both are
    canonical lower-case hex, the statements' law)."""
    try:
        return bool(j.commitment) and entropy_commitment(r.entropy, r.salt) == j.commitment
    except ValueError:
        return False


def describe_revealed(e: Revealed, players: Sequence[str]) -> str:
    who = players[e.seat] if 0 <= e.seat < len(players) else f"seat {e.seat}"
    return f"{who} reveals the entropy committed at the join ({e.entropy[:12]}…)"


def reveals(events: Iterable[Any]) -> dict[int, Revealed]:
    """Seat -> its reveal, from a game's events (the first reveal of a seat counts)."""
    out: dict[int, Revealed] = {}
    for e in events:
        if type(e) is Revealed and e.seat not in out:
            out[e.seat] = e
    return out


def must_reveal(events: Sequence[Any], n: int, scheme: int) -> list[int]:
    """Seats that must reveal their entropy now: in a game of entropy scheme 2
    whose ``n`` seats have all joined, those that have not revealed (none before
    the last join: nobody reveals before every commitment is chained) [CL-S7]."""
    if scheme != 2:
        return []
    j = joins(events)
    if len(j) < n:
        return []
    r = reveals(events)
    return [s for s in range(n) if s not in r]


def last_join_seq(events: Sequence[Any]) -> int:
    """The seq of the last join line (0: none): the position every reveal answers."""
    last = 0
    for i, e in enumerate(events):
        if type(e) is Joined:
            last = i + 1
    return last


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
