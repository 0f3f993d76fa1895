"""The commands of 5x5 City: players' decisions and chance outcomes (the ``CHANCE`` seat)."""

from __future__ import annotations

import msgspec


class _Command(msgspec.Struct, frozen=True, tag_field="type"):
    pass


# -- chance outcomes ------------------------------------------------------
class DrawSides(_Command, frozen=True, tag="fc.draw_sides"):
    sides: str


class DrawPlan(_Command, frozen=True, tag="fc.draw_plan"):
    plan: int


class DrawPlanning(_Command, frozen=True, tag="fc.draw_planning"):
    card: int


class DrawPlot(_Command, frozen=True, tag="fc.draw_plot"):
    plot: int


class DrawTiles(_Command, frozen=True, tag="fc.draw_tiles"):
    """Tiles out of the bag: all the round's sets in order, or two for park action B."""

    tiles: tuple[int, ...]


# -- players' decisions ---------------------------------------------------
class Choose(_Command, frozen=True, tag="fc.choose"):
    index: int
    """1-based number of the set on offer."""


class Place(_Command, frozen=True, tag="fc.place"):
    tile: int
    square: int
    park: bool = False


class Swap(_Command, frozen=True, tag="fc.swap"):
    """Park action A: swap two tiles of the board, faces kept."""

    a: int
    b: int


class UsePark(_Command, frozen=True, tag="fc.use_park"):
    """Park action B: draw two tiles."""


class Decline(_Command, frozen=True, tag="fc.decline"):
    """Decline the park action (the token is spent anyway, FC-7)."""


class Replace(_Command, frozen=True, tag="fc.replace"):
    """Park action B: put a drawn tile in place of a board tile."""

    tile: int
    square: int
    park: bool = False


class Keep(_Command, frozen=True, tag="fc.keep"):
    """Park action B: replace nothing; both drawn tiles go back to the bag."""


Command = (
    DrawSides
    | DrawPlan
    | DrawPlanning
    | DrawPlot
    | DrawTiles
    | Choose
    | Place
    | Swap
    | UsePark
    | Decline
    | Replace
    | Keep
)

