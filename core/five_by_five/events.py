"""The events of 5x5 City.  Tags are stable (``fc.*``); new fields only with defaults.

Decision events (the first event of a decision, see ``command_of``) and
automatic events (emitted by ``decide`` after them) are both listed here.
"""

from __future__ import annotations

import msgspec


class _Event(msgspec.Struct, frozen=True, tag_field="type"):
    pass


class GameCreated(_Event, frozen=True, tag="fc.game_created"):
    players: tuple[str, ...]
    options: tuple[tuple[str, str], ...]
    table: bool = False
    sides: str = ""
    """The sides in force, or ``""`` when they are to be drawn at random."""


class SidesDrawn(_Event, frozen=True, tag="fc.sides_drawn"):
    sides: str


class PlanDrawn(_Event, frozen=True, tag="fc.plan_drawn"):
    plan: int


class PlanningDrawn(_Event, frozen=True, tag="fc.planning_drawn"):
    card: int


class RoundStarted(_Event, frozen=True, tag="fc.round_started"):
    round: int


class PlotDrawn(_Event, frozen=True, tag="fc.plot_drawn"):
    plot: int


class SetsDrawn(_Event, frozen=True, tag="fc.sets_drawn"):
    sets: tuple[tuple[int, ...], ...]


class SetChosen(_Event, frozen=True, tag="fc.set_chosen"):
    seat: int
    index: int
    """1-based number of the set on offer."""


class TilePlaced(_Event, frozen=True, tag="fc.tile_placed"):
    seat: int
    tile: int
    square: int
    park: bool = False


class ParkTokenSpent(_Event, frozen=True, tag="fc.park_token_spent"):
    seat: int


class ParkSwapped(_Event, frozen=True, tag="fc.park_swapped"):
    seat: int
    a: int
    b: int


class ParkDeclined(_Event, frozen=True, tag="fc.park_declined"):
    seat: int


class ParkUsed(_Event, frozen=True, tag="fc.park_used"):
    seat: int


class ParkTilesDrawn(_Event, frozen=True, tag="fc.park_tiles_drawn"):
    seat: int
    tiles: tuple[int, ...]


class ParkReplaced(_Event, frozen=True, tag="fc.park_replaced"):
    seat: int
    tile: int
    square: int
    park: bool = False
    removed: int = -1
    """The tile taken off the board (it goes back to the bag)."""


class ParkKept(_Event, frozen=True, tag="fc.park_kept"):
    seat: int


class ParkTilesReturned(_Event, frozen=True, tag="fc.park_tiles_returned"):
    seat: int
    unused: tuple[int, ...]
    """Drawn tiles not used (hidden from the other players)."""
    removed: int = -1
    """The tile replaced on the board, if any (public)."""


class SetReturned(_Event, frozen=True, tag="fc.set_returned"):
    index: int
    tiles: tuple[int, ...]


class BagPassed(_Event, frozen=True, tag="fc.bag_passed"):
    start: int


class FinalScores(_Event, frozen=True, tag="fc.final_scores"):
    scores: tuple[int, ...]


class GameEnded(_Event, frozen=True, tag="fc.game_ended"):
    winners: tuple[int, ...]


Event = (
    GameCreated
    | SidesDrawn
    | PlanDrawn
    | PlanningDrawn
    | RoundStarted
    | PlotDrawn
    | SetsDrawn
    | SetChosen
    | TilePlaced
    | ParkTokenSpent
    | ParkSwapped
    | ParkDeclined
    | ParkUsed
    | ParkTilesDrawn
    | ParkReplaced
    | ParkKept
    | ParkTilesReturned
    | SetReturned
    | BagPassed
    | FinalScores
    | GameEnded
)
