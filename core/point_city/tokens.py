"""The 26 civic tokens of PC-5 and what each scores.

Tokens count built (permanent) resources only; the Ingenuity token counts
unspent Ingenuity resource cards.  Pairs, full sets and missing types are
counted as PL-11 says.

>>> TOKENS[1].name, points(TOKENS[1], (0, 0, 0, 0, 0), 0)
('flat 5', 5)
"""

from __future__ import annotations

from itertools import combinations

import msgspec

from core.point_city.cards import TYPES

SHORT = {"community": "Com", "economy": "Eco", "energy": "Ene", "ecology": "Ecl", "industry": "Ind"}


class Token(msgspec.Struct, frozen=True):
    id: int
    kind: str
    """flat | each | ingenuity | pair | two | three | missing | set."""
    types: tuple[str, ...] = ()
    value: int = 0

    @property
    def name(self) -> str:
        k, t = self.kind, self.types
        if k == "flat":
            return f"flat {self.value}"
        if k == "each":
            return f"2 per {t[0]}"
        if k == "ingenuity":
            return "2 per Ingenuity card"
        if k == "pair":
            return f"3 per {SHORT[t[0]]}+{SHORT[t[1]]} pair"
        if k == "two":
            return "2 per type held 2+"
        if k == "three":
            return "3 per type held 3+"
        if k == "missing":
            return "4 per missing type"
        return "6 per full set"

    @property
    def key(self) -> tuple[str, tuple[str, ...], int]:
        """Equal for the two copies of a token (PC-5 second copies)."""
        return (self.kind, self.types, self.value)


def _build() -> dict[int, Token]:
    specs: list[tuple[str, tuple[str, ...], int]] = [("flat", (), 5), ("flat", (), 7)]
    specs += [("each", (t,), 0) for t in TYPES]
    specs += [("ingenuity", (), 0)]
    specs += [("pair", p, 0) for p in combinations(TYPES, 2)]
    specs += [("two", (), 0), ("three", (), 0), ("missing", (), 0), ("set", (), 0)]
    # PC-5: a second copy of flat 5, flat 7, missing type and full set.
    specs += [("flat", (), 5), ("flat", (), 7), ("missing", (), 0), ("set", (), 0)]
    return {i: Token(i, k, t, v) for i, (k, t, v) in enumerate(specs, start=1)}


TOKENS: dict[int, Token] = _build()
assert len(TOKENS) == 26
TOKEN_COUNT: dict[int, int] = {1: 10, 2: 10, 3: 12, 4: 14}
"""PC-2: tokens laid out by number of players."""


def points(token: Token, perms: tuple[int, ...], ingenuity: int) -> int:
    """What ``token`` scores for permanent resources ``perms`` (counts in TYPES order)."""
    k = token.kind
    if k == "flat":
        return token.value
    if k == "each":
        return 2 * perms[TYPES.index(token.types[0])]
    if k == "ingenuity":
        return 2 * ingenuity
    if k == "pair":
        a, b = (perms[TYPES.index(t)] for t in token.types)
        return 3 * min(a, b)
    if k == "two":
        return 2 * sum(1 for n in perms if n >= 2)
    if k == "three":
        return 3 * sum(1 for n in perms if n >= 3)
    if k == "missing":
        return 4 * sum(1 for n in perms if n == 0)
    return 6 * min(perms)
