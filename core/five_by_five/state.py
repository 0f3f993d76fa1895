"""The state of a 5x5 City game: frozen msgspec Structs of tuples, ints and strings.

Built only by :mod:`fold`; compared by value; ``msgspec.json`` round-trips it.
"""

from __future__ import annotations

import msgspec

from core.five_by_five.tiles import cell_of

EMPTY = -1
HIDDEN = -1
"""A tile id a viewer may not see (bag contents, another player's park draw)."""
HIDDEN_PARK = 999
"""On another player's board: a tile that Park action B put down Park side up,
whose building front only that player has seen [FL-5] [FL-10]."""

# phases
SETUP = "setup"
PLOT = "plot"
DRAW = "draw"
PLAY = "play"
OVER = "over"

# park-action sub-steps of the active player (FC-7)
PARK_NONE = ""
PARK_OFFER = "offer"
"""The token was just spent: use it (A: swap / B: draw) or decline."""
PARK_DRAW = "draw"
"""B: two tiles to draw (a chance node)."""
PARK_REPLACE = "replace"
"""B: replace one tile with a drawn one, or keep the board."""


class Board(msgspec.Struct, frozen=True):
    tiles: tuple[int, ...] = (EMPTY,) * 25
    """Tile id per square (reading order), ``EMPTY`` where nothing is built."""
    parks: tuple[bool, ...] = (False,) * 25
    """True where the tile lies Park side up."""
    token: bool = True
    """The Park Action token is still held."""
    secret: int = -1
    """The square of a tile that Park action B put down Park side up: its front
    is known to the board's owner only [FL-10]; -1 if none."""
    drawn_at: int = -1
    """The number of Park-B draws made before this board's own (its place in
    draw order, public), -1 if it has made none."""
    pool: tuple[int, ...] = ()
    """The tiles that could have been drawn by this board's Park-B draw: the
    bag and the Park-side fronts at that moment, less every tile seen since in
    a public draw (public knowledge by counting) [GN-1] [FL-10]."""
    drew: tuple[int, ...] = ()
    """The tiles this board's Park-B draw brought: its owner's knowledge only."""

    def cells(self) -> tuple[str, ...]:
        return tuple("" if t < 0 else cell_of(t, p) for t, p in zip(self.tiles, self.parks))

    def park_count(self) -> int:
        return sum(1 for t, p in zip(self.tiles, self.parks) if t >= 0 and p)

    def filled(self) -> int:
        return sum(1 for t in self.tiles if t >= 0)


class State(msgspec.Struct, frozen=True):
    players: tuple[str, ...]
    advanced: bool = False
    table: bool = False
    options: tuple[tuple[str, str], ...] = ()
    sides: str = ""
    """10 letters A/B (Factories…Park); ``""`` while a random draw is pending."""
    plan: int = 0
    planning: int = 0
    phase: str = SETUP
    round: int = 0
    start: int = 0
    """The start player (holds the bag)."""
    plots: tuple[int, ...] = tuple(range(1, 13))
    """Building Plot cards still in the deck."""
    plot: int = 0
    bag: tuple[int, ...] = ()
    """Tiles in the bag, sorted (a multiset: draws are random picks)."""
    sets: tuple[tuple[int, ...], ...] = ()
    """The sets on offer this round; a taken set is ``()`` (numbering is stable)."""
    active: int = -1
    """The seat that chose the last set (placing its hand / acting in the park)."""
    hand: tuple[int, ...] = ()
    """Tiles of the chosen set not yet placed."""
    park: str = PARK_NONE
    park_drawn: tuple[int, ...] = ()
    boards: tuple[Board, ...] = ()
    scores: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    draws: int = 0
    """Park-B draws made so far (the next draw's ``Board.drawn_at``)."""

    @property
    def n(self) -> int:
        return len(self.players)

    def taken(self) -> int:
        return sum(1 for s in self.sets if not s)


def without(bag: tuple[int, ...], tiles: tuple[int, ...]) -> tuple[int, ...]:
    """``bag`` less one copy of each of ``tiles`` (assumed present).

    In a player's view a tile may be ``HIDDEN`` (another player's park draw):
    once an unknown tile has left the bag, its make-up is unknown to that
    player, and the bag is only a count of ``HIDDEN`` tiles from then on.
    """
    if HIDDEN in tiles or HIDDEN in bag:
        return (HIDDEN,) * max(0, len(bag) - len(tiles))
    out = list(bag)
    for t in tiles:
        out.remove(t)
    return tuple(out)


def plus(bag: tuple[int, ...], tiles: tuple[int, ...]) -> tuple[int, ...]:
    """``bag`` with ``tiles`` put back, sorted; a bag of unknown tiles stays unknown."""
    if HIDDEN in tiles or HIDDEN in bag:
        return (HIDDEN,) * (len(bag) + len(tiles))
    return tuple(sorted(bag + tiles))


def missing_from(bag: tuple[int, ...], tiles: tuple[int, ...]) -> list[int]:
    """The tiles of ``tiles`` that ``bag`` cannot supply (multiset difference)."""
    pool = list(bag)
    missing = []
    for t in tiles:
        if t in pool:
            pool.remove(t)
        else:
            missing.append(t)
    return missing


def in_sight(state: State) -> set[int]:
    """Tile ids ``state`` shows anywhere outside the bag (sets, hand, park draw, boards)."""
    seen = {t for st in state.sets for t in st}
    seen.update(state.hand)
    seen.update(t for t in state.park_drawn if t >= 0)
    for b in state.boards:
        seen.update(t for t in b.tiles if 0 <= t != HIDDEN_PARK)
    return seen


def draw_pool(state: State) -> tuple[int, ...]:
    """What a Park-B draw may bring, as a seat without the drawer's knowledge counts
    it: every tile not in sight, and every Park-side front (sorted) [GN-1]."""
    seen = in_sight(state)
    fronts = {b.tiles[b.secret] for b in state.boards if b.secret >= 0}
    return tuple(t for t in range(108) if t not in seen or t in fronts)


def tile_count(state: State) -> int:
    """Tiles anywhere in the game: bag, sets on offer, hand, park draw, boards (always 108)."""
    return (
        len(state.bag)
        + sum(len(s) for s in state.sets)
        + len(state.hand)
        + len(state.park_drawn)
        + sum(b.filled() for b in state.boards)
    )
