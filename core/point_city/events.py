"""Events: the log.  Frozen, tagged ``pc.*``; new fields only with defaults."""

from __future__ import annotations

import msgspec

from core.point_city.commands import Pay


class Created(msgspec.Struct, frozen=True, tag="pc.created"):
    players: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()
    table: bool = False


class TokensLaidOut(msgspec.Struct, frozen=True, tag="pc.tokens_laid_out"):
    tokens: tuple[int, ...]


class CardsRemoved(msgspec.Struct, frozen=True, tag="pc.cards_removed"):
    """PC-2: how many cards of each tier leave the game unseen [PL-1]."""

    counts: tuple[int, int, int]


class StartCardsDealt(msgspec.Struct, frozen=True, tag="pc.start_cards_dealt"):
    cards: tuple[int, ...]
    """One Ingenuity starting card per seat, in seat order."""


class CardRevealed(msgspec.Struct, frozen=True, tag="pc.card_revealed"):
    card: int


class MarketDealt(msgspec.Struct, frozen=True, tag="pc.market_dealt"):
    cell: int
    card: int


class TurnStarted(msgspec.Struct, frozen=True, tag="pc.turn_started"):
    seat: int
    round: int


class Flipped(msgspec.Struct, frozen=True, tag="pc.flipped"):
    seat: int
    cell: int
    card: int


class CardsTaken(msgspec.Struct, frozen=True, tag="pc.cards_taken"):
    seat: int
    cells: tuple[int, int]
    cards: tuple[int, int]
    buildings: tuple[bool, bool]
    """Which of the two showed its building side."""
    pays: tuple[Pay, ...] = ()


class DeckTaken(msgspec.Struct, frozen=True, tag="pc.deck_taken"):
    seat: int
    card: int
    """The known top card; the second follows as ``SecondTaken``."""


class SecondTaken(msgspec.Struct, frozen=True, tag="pc.second_taken"):
    seat: int
    card: int


class Refilled(msgspec.Struct, frozen=True, tag="pc.refilled"):
    cell: int
    card: int
    building: bool


class OpponentTook(msgspec.Struct, frozen=True, tag="pc.opponent_took"):
    """PC-7: the solo opponent's take; markers move to (col, row)."""

    cells: tuple[int, int]
    cards: tuple[int, int]
    buildings: tuple[bool, bool]
    tokens: tuple[int, ...] = ()
    col: int = 0
    row: int = 0


class GameEnded(msgspec.Struct, frozen=True, tag="pc.game_ended"):
    reason: str


class Scored(msgspec.Struct, frozen=True, tag="pc.scored"):
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    opponent: int = 0
    """Solo: the opponent's score [PC-7]."""
    opponent_won: bool = False


Event = (
    Created | TokensLaidOut | CardsRemoved | StartCardsDealt | CardRevealed | MarketDealt
    | TurnStarted | Flipped | CardsTaken | DeckTaken | SecondTaken | Refilled | OpponentTook
    | GameEnded | Scored
)
