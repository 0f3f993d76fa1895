"""Games survive upgrades (issue 24 item 4): a game switches to newer rules mid-log.

A game records its rules version in its chained definition (``pc-2``).  An
:class:`Upgraded` line later in its chain switches it to another version the
game keeps (:meth:`core.engine.Game.for_rules`): every line after it is decided
by those rules, every line before it by the rules in effect there.  The switch
is allowed only when the new rules re-decide *every* recorded command of the
game, from the first, to byte-identical events (:func:`core.redecide.redecide`)
— so an upgrade never changes a past decision, and the writer (``citylog
upgrade``) and ``verify`` run this one check [CL-U1, CL-U2].  This module is a
leaf (the engine and every game's fold import it); the re-decision is in
:mod:`core.redecide`.

Like a fork's :class:`~core.chance.Reseeded`, an :class:`Upgraded` line is a
table event: it changes no game state (every game's fold passes it through,
:mod:`core.table_events`), it belongs to no decision and is never redacted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import msgspec


class Upgraded(msgspec.Struct, frozen=True, tag_field="type", tag="rules.upgraded"):
    """The game's rules switch from ``from_version`` to ``to_version`` after this line
    [CL-U1]; every recorded decision before it re-decides alike under both."""

    from_version: str
    to_version: str


def describe_upgraded(e: Upgraded) -> str:
    """
    >>> describe_upgraded(Upgraded("pc-2", "pc-3"))
    'the rules are upgraded from pc-2 to pc-3 (every recorded decision re-decided alike) [CL-U1]'
    """
    return (f"the rules are upgraded from {e.from_version} to {e.to_version} "
            "(every recorded decision re-decided alike) [CL-U1]")


_VERSION = re.compile(r"(.*?)(\d+)")


def newer(version: str, than: str) -> bool:
    """Whether rules ``version`` are a later version of the same rules as ``than``
    (the same name, a higher number: ``pc-3`` after ``pc-2``) [CL-U5].

    An upgrade only ever goes to newer rules: were a switch back allowed, the host
    could go ``pc-3 → pc-2 → pc-3`` at will — lines it alone places, each a choice
    of its own in a game it should not steer — and a game could be moved to rules
    older than the ones its players joined under.

    >>> newer("pc-3", "pc-2"), newer("pc-2", "pc-3"), newer("pc-2", "pc-2")
    (True, False, False)
    >>> newer("pc-10", "pc-9"), newer("card-city/2", "pc-1"), newer("pc-x", "pc-1")
    (True, False, False)
    """
    a, b = _VERSION.fullmatch(version), _VERSION.fullmatch(than)
    if a is None or b is None or a.group(1) != b.group(1):
        return False
    return int(a.group(2)) > int(b.group(2))


def version_at(recorded: str, events: Iterable[Any]) -> str:
    """The rules version in effect after ``events``: the definition's (``recorded``),
    or the last upgrade's.

    >>> version_at("pc-2", [object(), Upgraded("pc-2", "pc-3")])
    'pc-3'
    >>> version_at("pc-2", [])
    'pc-2'
    """
    version = recorded
    for e in events:
        if type(e) is Upgraded:
            version = e.to_version
    return version


def rules_for(game: Any, recorded: str, events: Iterable[Any]) -> Any:
    """The rules deciding the next line of a log of ``game`` (any version's rules
    object) recorded under ``recorded`` with ``events``: the version in effect's,
    None when this citylog does not keep it (it can only replay)."""
    return game.for_rules(version_at(recorded, events))


def rules_at(game: Any, events: list[Any], index: int) -> Any:
    """The rules deciding line ``index + 1`` of a log whose end is decided by ``game``
    (any version's rules object of the game), from the log alone: the last upgrade
    before it says its version, else the first upgrade after it (its ``from``), else
    it is ``game``'s; ``game`` where this citylog does not keep that version."""
    version = None
    for e in events[:index]:
        if type(e) is Upgraded:
            version = e.to_version
    if version is None:
        version = next((e.from_version for e in events[index:] if type(e) is Upgraded), None)
    if version is None:
        return game
    return game.for_rules(version) or game


def rules_per_line(game: Any, events: list[Any]) -> list[Any]:
    """``rules_at(game, events, i)`` for every line ``i`` of the log, in one pass: the
    rules each line is decided by (a line after an upgrade by the rules it switched
    to) [CL-U6]."""
    first = next((e.from_version for e in events if type(e) is Upgraded), None)
    rules = game if first is None else (game.for_rules(first) or game)
    out = []
    for e in events:
        out.append(rules)
        if type(e) is Upgraded:
            rules = game.for_rules(e.to_version) or game
    return out
