"""Deterministic chance, independent of Python's ``random`` module.

Chance outcomes are drawn by the service from a stream derived from the
game's seed and the sequence number of the event about to be appended, then
recorded as events (docs/architecture.md, property 3).  The stream is SHA-256 in counter
mode, so the same seed and seq give the same outcome on every Python version
and platform; ``random.Random``'s ``shuffle``/``randrange`` algorithms are not
promised to stay stable, and a replay must never depend on them.

>>> a = Rng.derive("s1", 7); b = Rng.derive("s1", 7)
>>> [a.below(10) for _ in range(5)] == [b.below(10) for _ in range(5)]
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

SEED_COMMITMENT_PREFIX = b"citylog-seed-v1:"
SALTED_COMMITMENT_PREFIX = b"citylog-seed-v2:"


def seed_commitment(seed: str, salt: str | None = None) -> str:
    """The public commitment to a seed: exports without the seed carry this.

    With a ``salt`` (hex of 16 random bytes, every game since the salted
    commitment) it is ``sha256(prefix, salt, seed)``: a short or guessable seed
    cannot be found by trying seeds against it.  Without one: the unsalted
    commitment of older games, still checked for them.

    >>> seed_commitment("s1", "00" * 16) != seed_commitment("s1") != seed_commitment("s1", "01" * 16)
    True
    """
    if salt is None:
        return hashlib.sha256(SEED_COMMITMENT_PREFIX + seed.encode()).hexdigest()
    return hashlib.sha256(SALTED_COMMITMENT_PREFIX + bytes.fromhex(salt) + b":" + seed.encode()).hexdigest()


def deal_seed(seed: str, entropies: Sequence[str]) -> str:
    """The seed a play-by-email game's chance comes from once every seat joined:
    ``sha256(host seed, each seat's entropy in seat order)``.  The host committed
    to ``seed`` before seeing any entropy; the players never see the seed.

    >>> deal_seed("s", ["aa", "bb"]) != deal_seed("s", ["bb", "aa"])
    True
    """
    h = hashlib.sha256(b"citylog-deal-v1:" + seed.encode())
    for e in entropies:
        h.update(b":" + e.encode())
    return h.hexdigest()


class Rng:
    """A small, portable pseudo-random stream (SHA-256 counter mode)."""

    __slots__ = ("_key", "_counter", "_pool", "_bits")

    def __init__(self, key: bytes) -> None:
        self._key = hashlib.sha256(key).digest()
        self._counter = 0
        self._pool = 0
        self._bits = 0

    @classmethod
    def derive(cls, seed: str, seq: int, purpose: str = "chance") -> Rng:
        """The stream for the chance event at ``seq`` of a game seeded ``seed``."""
        return cls(f"citylog/{purpose}/{seed}/{seq}".encode())

    def _refill(self) -> None:
        block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
        self._counter += 1
        self._pool = (self._pool << 256) | int.from_bytes(block, "big")
        self._bits += 256

    def bits(self, k: int) -> int:
        while self._bits < k:
            self._refill()
        self._bits -= k
        value = self._pool >> self._bits
        self._pool &= (1 << self._bits) - 1
        return value

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)`` by rejection sampling (no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        if n == 1:
            return 0
        k = (n - 1).bit_length()
        while True:
            # self.bits(k), inlined: the search draws millions
            while self._bits < k:
                self._refill()
            self._bits -= k
            v = self._pool >> self._bits
            self._pool &= (1 << self._bits) - 1
            if v < n:
                return v

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A Fisher–Yates shuffle of a copy of ``items``."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        """``k`` distinct positions of ``items``, in draw order."""
        pool = list(items)
        out: list[T] = []
        for _ in range(k):
            out.append(pool.pop(self.below(len(pool))))
        return out
