"""Card City's events: frozen, tagged msgspec Structs (tags ``cc.*`` never change).

Every step of the game is one: chance outcomes, each decision, and every
automatic step (income, phase changes, pawn passes, final scores).  New fields
may only be added with defaults.
"""

from __future__ import annotations

import msgspec

from core.engine import Breakdown


class _Event(msgspec.Struct, frozen=True, tag_field="type"):
    pass


class GameCreated(_Event, frozen=True, tag="cc.created"):
    players: tuple[str, ...]
    options: dict[str, str]
    rules_version: str
    table: bool
    pool: tuple[int, ...]
    reserve: tuple[int, ...]
    coins: int
    first: int
    draw: int


class CardsDrawn(_Event, frozen=True, tag="cc.drawn"):
    """Chance: cards drawn from the pool by ``seat`` (hidden from the others)."""

    seat: int
    cards: tuple[str, ...]


class LeisureSetAside(_Event, frozen=True, tag="cc.leisure_set_aside"):
    """CC-8: round 1, the Leisure cards drawn are set aside and replaced."""

    seat: int
    count: int


class LeisureReturned(_Event, frozen=True, tag="cc.leisure_returned"):
    """CC-8: the set-aside Leisure cards are shuffled back into the pool."""

    count: int


class Split(_Event, frozen=True, tag="cc.split"):
    """CC-7: the divider's two groups, offered to ``to``."""

    seat: int
    pair: tuple[str, ...]
    up: tuple[str, ...]
    down: tuple[str, ...]
    to: int
    known_to: tuple[int, ...] = ()
    """Seats besides the divider that know the face-down cards [CL-8]: every
    earlier divider of the cards being split, the drawer first."""


class Taken(_Event, frozen=True, tag="cc.taken"):
    seat: int
    group: str
    """"pair" or "rest"."""


class Kept(_Event, frozen=True, tag="cc.kept"):
    """A player keeps cards for this round's construction."""

    seat: int
    up: tuple[str, ...]
    down: tuple[str, ...]
    source: str = "holding"
    """Where the cards come from: "holding", or the offer's "pair" or "rest"."""
    known_to: tuple[int, ...] = ()
    """Other seats that have seen the face-down cards: the divider [CC-7]."""


class Holding(_Event, frozen=True, tag="cc.holding"):
    """``seat`` now holds cards to divide: the rest of the offer."""

    seat: int
    up: tuple[str, ...]
    down: tuple[str, ...]
    known_to: tuple[int, ...] = ()
    """Other seats that have seen the face-down cards: the divider [CC-7]."""


class SoloChose(_Event, frozen=True, tag="cc.solo_chose"):
    """CC-9: solo, keep two of three; the third goes to the bottom of the pool."""

    seat: int
    keep: tuple[str, ...]
    bottom: str


class PhaseStarted(_Event, frozen=True, tag="cc.phase"):
    phase: str


class Built(_Event, frozen=True, tag="cc.built"):
    seat: int
    card: str
    row: int
    col: int
    paid: int = 0


class Discarded(_Event, frozen=True, tag="cc.discarded"):
    """The card goes to the reserve [CC-2] [CC-12]."""

    seat: int
    card: str
    rule: str
    reason: str
    chosen: bool = False
    """True when the player chose to discard it (an unbuildable card, CC-2)."""


class DevelopTurn(_Event, frozen=True, tag="cc.develop_turn"):
    seat: int


class Developed(_Event, frozen=True, tag="cc.developed"):
    seat: int
    card: str
    row: int
    col: int


class IncomePaid(_Event, frozen=True, tag="cc.income"):
    seat: int
    salary: int
    commercial: tuple[int, ...]
    meters: tuple[int, ...]
    total: int


class PurchaseTurn(_Event, frozen=True, tag="cc.purchase_turn"):
    seat: int
    cost: int


class PurchaseSkipped(_Event, frozen=True, tag="cc.purchase_skipped"):
    seat: int
    reason: str


class Bought(_Event, frozen=True, tag="cc.bought"):
    seat: int
    row: int
    col: int
    cost: int


class Passed(_Event, frozen=True, tag="cc.passed"):
    seat: int


class PawnPassed(_Event, frozen=True, tag="cc.pawn_passed"):
    to: int


class RoundStarted(_Event, frozen=True, tag="cc.round"):
    round: int
    draw: int


class Scored(_Event, frozen=True, tag="cc.scored"):
    seat: int
    breakdown: Breakdown


class GameEnded(_Event, frozen=True, tag="cc.ended"):
    scores: tuple[int, ...]
    winners: tuple[int, ...]


Event = (
    GameCreated
    | CardsDrawn
    | LeisureSetAside
    | LeisureReturned
    | Split
    | Taken
    | Kept
    | Holding
    | SoloChose
    | PhaseStarted
    | Built
    | Discarded
    | DevelopTurn
    | Developed
    | IncomePaid
    | PurchaseTurn
    | PurchaseSkipped
    | Bought
    | Passed
    | PawnPassed
    | RoundStarted
    | Scored
    | GameEnded
)
