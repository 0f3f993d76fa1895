"""What the service refuses, and the checks of the text a request carries.

Every layer above (the CLI, the TUI, ``import``) catches :class:`ServiceError`
and prints its one line; ``exit_code`` 2 is bad input, 1 a failed check.
"""

from __future__ import annotations

from collections.abc import Sequence

from events.limits import MAX_PLAYER_NAME, MAX_SEED, check_length


class ServiceError(Exception):
    """A request the service refuses; ``exit_code`` 2 is bad input, 1 a failed check."""

    exit_code = 2


class AmbiguousGame(ServiceError):
    """A game id prefix that more than one game starts with."""


class StaleMove(ServiceError):
    """A move made against a position that is no longer the game's latest."""


class Refused(ServiceError):
    """A signed file refused: bad or missing signature, wrong key, a replay."""


def check_text(what: str, text: str) -> str:
    """``text`` if it is usable as a seed or a player's name: non-empty, valid
    UTF-8 (a non-UTF-8 command-line argument arrives with surrogates), no control
    characters.  ServiceError otherwise."""
    if not text:
        raise ServiceError(f"{what} must not be empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ServiceError(f"{what} is not valid UTF-8 text") from None
    if not text.isprintable():  # C0, DEL, C1, bidi overrides, zero-width marks: nothing that hides or drives
        raise ServiceError(f"{what} must not contain control characters")
    check_length(what, text, MAX_SEED)
    return text


def check_players(players: Sequence[str]) -> None:
    """Names: each usable text, none twice, none starting with '-' (an option's look)."""
    for name in players:
        check_text("a player's name", name)
        check_length("a player's name", name, MAX_PLAYER_NAME)
        if name != name.strip() or name.startswith("-"):
            raise ServiceError(f"player name {name!r}: no leading '-' and no surrounding spaces")
    if len(set(players)) != len(players):
        raise ServiceError("two players have the same name")
