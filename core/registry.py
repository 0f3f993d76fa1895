"""The games citylog knows, by name.  The only place that lists them."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from core.engine import Game

_MODULES: dict[str, str] = {
    "card-city": "core.card_city.game",
    "5x5-city": "core.five_by_five.game",
    "point-city": "core.point_city.game",
}


class UnknownGame(LookupError):
    pass


def names() -> list[str]:
    """Every registered game's name, in the registry's order, none imported.

    >>> names()[:1]
    ['card-city']
    """
    return list(_MODULES)


def kinds() -> str:
    """The registered names as a help text reads them: ``a, b or c``."""
    listed = names()
    return listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " or " + listed[-1]


def available() -> list[str]:
    """Names of the games whose package is installed."""
    out = []
    for name in _MODULES:
        try:
            get(name)
        except UnknownGame:
            continue
        out.append(name)
    return out


def get(name: str) -> Game[Any, Any, Any]:
    module = _MODULES.get(name)
    if module is None:
        raise UnknownGame(f"unknown game {name!r} (games: {', '.join(_MODULES)})")
    try:
        mod = import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            raise UnknownGame(f"game {name!r} is not available in this build") from None
        raise
    game: Game[Any, Any, Any] = mod.GAME
    return game
