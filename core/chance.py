"""The chance source: where a game's chance (and its line nonces) come from.

One module, used by the writer (:mod:`events.service`) and by ``verify``
(:mod:`replay.verify`), so the two can never derive chance differently.  Today a
game's chance comes from the host's committed seed, mixed (play by email) with
every player's entropy, and re-seeded by a fork's own committed seed; a later
source (a deal by commutative encryption between the players) can replace
:class:`ChanceSource` without touching the games, which only ever receive an
:class:`~core.rng.Rng` for a seq.

**Secret schemes** (the definition's ``secrets`` field, chained in the genesis,
so no header flag can weaken them) [CL-V6]:

* ``1`` — games before issue 22: chance and line nonces derive from the seed
  alone.  A person-chosen seed (``--seed s1``) can be tested against any
  visible draw or nonce; still verified, never made any more.
* ``2`` — every new game: line nonces (and, play by email, chance) derive from
  :func:`game_secret`, a hash of the seed *and* its commitment's 128-bit
  random salt, so no nonce or play-by-email draw tests a guess of the seed
  (the salt is revealed with the seed).  Outside play by email chance still
  comes from the seed alone: there the seed is the host's word and is given
  to repeat a game (``--seed``); a seed nobody gave is random.

**Reseeds.**  A fork with a new seed holds a chained :class:`Reseeded` event at
the fork point carrying the salted commitment to that seed, before any chance
it deals; the seed is revealed later like the game's (the header's
``reseeds``), and ``verify`` re-derives the fork's chance only from a revealed
seed that matches a chained commitment [CL-V7].

**Placed lines choose no draw** [CL-V9].  The host alone decides whether and
where some table lines go — a rules upgrade, a timeout, a hand-over it applies
or holds back (:data:`core.table_events.PLACED`).  Were a draw derived from its
line's seq, each such line would shift every later draw, and the host could
pick among several deals by placing one (or by padding with upgrades) while
``verify`` still said "deal proven".  So the chance event at seq ``s`` draws
from its *draw index*: ``s`` less the placed lines before it
(:meth:`ChanceSource.draw_index`).  Law: inserting or removing a placed line
never changes any chance outcome.  A log without placed lines draws at its
seqs, as every game did before (golden hashes unchanged).  Joins are not
placed lines (all of them come before any chance, one per seat) and a reseed
replaces the chance that follows it anyway.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from core.rng import Rng, deal_seed, seed_commitment

SEED_ALONE = 1
"""Secret scheme 1: chance and nonces from the seed alone (games before issue 22)."""
SALTED = 2
"""Secret scheme 2: chance and nonces from the seed and the commitment's salt."""
SCHEMES = (SEED_ALONE, SALTED)
CURRENT = SALTED
"""The scheme every new game is created with."""


def repeatable_salt(seed: str) -> str:
    """A salt derived from the seed itself, for games that must repeat byte for
    byte from their seed alone (tests, fixtures): the same seed gives the same
    commitment, nonces and hashes.  Never for a game people play: its salt is
    random, so its seed stays secret even if short [CL-V6].

    >>> repeatable_salt("x") == repeatable_salt("x") != repeatable_salt("y")
    True
    """
    return hashlib.sha256(b"citylog-repeatable-salt:" + seed.encode()).hexdigest()[:32]


class Reseeded(msgspec.Struct, frozen=True, tag_field="type", tag="chance.reseeded"):
    """A fork's new seed, bound before it deals: chance after this line comes
    from the seed whose salted commitment this is (:func:`reseed_commitment`).
    Changes no game state (every game's ``apply`` passes it through)."""

    commitment: str


def describe_reseeded(e: Reseeded) -> str:
    return f"chance is re-seeded (commitment {e.commitment[:12]}…)"


def game_secret(seed: str, salt: str | None, scheme: int) -> str:
    """The secret chance and line nonces derive from.

    >>> game_secret("s1", "00" * 16, SEED_ALONE)
    's1'
    >>> game_secret("s1", "00" * 16, SALTED) != game_secret("s1", "01" * 16, SALTED)
    True
    """
    if scheme == SEED_ALONE:
        return seed
    if scheme != SALTED or salt is None:
        raise ValueError(f"secret scheme {scheme} needs the commitment's salt")
    return hashlib.sha256(b"citylog-secret-v2:" + bytes.fromhex(salt) + b":" + seed.encode()).hexdigest()


def nonce_secret(seed: str | None, salt: str | None, scheme: int, salted: bool = True) -> str | None:
    """The secret line nonces derive from (None: no nonces, or no seed known).

    Scheme 1 honours the old ``salted`` flag (games chained before line nonces);
    scheme 2 always salts, whatever any flag says."""
    if seed is None:
        return None
    if scheme == SEED_ALONE:
        return seed if salted else None
    return game_secret(seed, salt, scheme)


def reseed_salt(salt: str | None, seq: int) -> str | None:
    """The salt of the commitment to a fork's seed at ``seq``: derived from the
    game's own (secret until the reveal) salt, so it needs no storage of its own."""
    if salt is None:
        return None
    return hmac.digest(bytes.fromhex(salt), f"citylog-reseed:{seq}".encode(), "sha256")[:16].hex()


def reseed_commitment(seed: str, salt: str | None, seq: int) -> str:
    """The commitment a :class:`Reseeded` event at ``seq`` carries."""
    return seed_commitment(seed, reseed_salt(salt, seq))


def reseed_secret(seed: str, salt: str | None, seq: int, scheme: int, pbem: bool = True) -> str:
    """The seed chance after a reseed at ``seq`` comes from (as :func:`base_seed`:
    salted in a play-by-email game of scheme 2, the seed itself otherwise)."""
    if scheme == SEED_ALONE or not pbem:
        return seed
    return game_secret(seed, reseed_salt(salt, seq), scheme)


class ChanceSource(msgspec.Struct, frozen=True):
    """Which seed the chance event at each seq comes from.

    ``base``: the game's own chance seed (None: no seed known, or a play-by-email
    game not yet joined by every seat); ``reseeds``: ``(from_seq, seed)`` from a
    fork's reseed on (already the derived secret)."""

    base: str | None
    reseeds: tuple[tuple[int, str], ...] = ()
    placed: tuple[int, ...] = ()
    """The seqs of the log's placed lines (:data:`core.table_events.PLACED`), in
    order: no draw depends on them [CL-V9]."""

    def draw_index(self, seq: int) -> int:
        """What the chance event at ``seq`` draws from: its seq less the placed lines
        before it [CL-V9].

        >>> ChanceSource("s", placed=(4, 9)).draw_index(12)
        10
        >>> ChanceSource("s").draw_index(12)
        12
        """
        return seq - sum(1 for s in self.placed if s < seq)

    def seed_at(self, seq: int) -> str | None:
        seed = self.base
        for start, new in self.reseeds:
            if seq >= start:
                seed = new
        return seed

    def rng(self, seq: int) -> Rng | None:
        """The stream of the chance event at ``seq`` (None: no seed to draw from): the
        writer draws with it and ``verify`` re-derives with it [CL-V9]."""
        seed = self.seed_at(seq)
        return None if not seed else Rng.derive(seed, self.draw_index(seq))


CLEAR_ENTROPY = 1
"""Entropy scheme 1 (``citylog-join/2``): each join carries its entropy in the
clear.  Games made before ruling CL-S7; still verified, never made any more."""
COMMITTED_ENTROPY = 2
"""Entropy scheme 2 (``citylog-join/3`` + ``citylog-reveal/1``): each join carries
a salted commitment; the entropies are revealed only once every commitment is
chained, so no party can choose its entropy after seeing another's [CL-S7]."""
ENTROPY_SCHEMES = (CLEAR_ENTROPY, COMMITTED_ENTROPY)
CURRENT_ENTROPY = COMMITTED_ENTROPY
"""The entropy scheme every new game by email is created with."""


def entropies(events: Iterable[Any], n: int, scheme: int = CLEAR_ENTROPY) -> list[str] | None:
    """Every seat's entropy in seat order, None until all ``n`` have it.

    Scheme 1: the joins' entropy, once all ``n`` joined.  Scheme 2: only revealed
    entropies that open their seat's chained commitment, once every seat has
    revealed one [CL-S7]; a reveal that does not match is never used (no chance
    can then be derived: ``verify`` names the line)."""
    from core.seats import joins, matches, reveals

    events = list(events)
    j = joins(events)
    if len(j) < n:
        return None
    if scheme == CLEAR_ENTROPY:
        return [j[i].entropy for i in range(n)]
    if scheme != COMMITTED_ENTROPY:
        raise ValueError(f"entropy scheme {scheme} is not one this citylog knows")
    r = reveals(events)
    if any(i not in r or not matches(j[i], r[i]) for i in range(n)):
        return None
    return [r[i].entropy for i in range(n)]


def base_seed(
    seed: str | None, salt: str | None, scheme: int, pbem: bool, joined: Sequence[str] | None
) -> str | None:
    """The game's chance seed: its secret, or for a play-by-email game the deal
    seed from the secret and every seat's entropy (``joined``; None until all
    joined: no chance may be drawn before)."""
    if seed is None:
        return None
    if not pbem:
        # outside play by email a game's seed is the host's word and is given to
        # repeat a game (simulate, tests, what-if forks): chance from it alone [CL-V6]
        return seed
    secret = game_secret(seed, salt, scheme)
    if joined is None:
        return None
    return deal_seed(secret, joined)


def source(
    seed: str | None,
    salt: str | None,
    scheme: int,
    pbem: bool,
    joined: Sequence[str] | None,
    reseeds: Iterable[tuple[int, str]] = (),
    bound: Mapping[int, str] | None = None,
    placed: Iterable[int] = (),
) -> ChanceSource:
    """The chance source of a game.

    ``reseeds``: revealed ``(from_seq, seed)``; with ``bound`` (seq -> the chained
    commitment, as ``verify`` passes it) only a reseed whose seed matches its
    chained commitment is used — the rest is left out (the caller says so).
    Without ``bound`` (the writer, which holds its own seeds) every reseed of a
    scheme-1 game is used as it is (old forks, before reseeds were chained), and a
    scheme-2 game's reseeds derive from their salted secret.  ``placed``: the
    seqs of the placed lines, which no draw counts [CL-V9]."""
    out: list[tuple[int, str]] = []
    for start, new in reseeds:
        if bound is not None:
            if bound.get(start) != reseed_commitment(new, salt, start):
                continue
            out.append((start, reseed_secret(new, salt, start, scheme, pbem)))
        else:
            out.append((start, reseed_secret(new, salt, start, scheme, pbem)))
    return ChanceSource(base_seed(seed, salt, scheme, pbem, joined), tuple(out), tuple(sorted(placed)))
