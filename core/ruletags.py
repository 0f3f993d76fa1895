"""Rule tags in one style [GL-2]: ``[CC-10]``, an id ``citylog rules`` prints.

Messages written today cite rules that way.  Words recorded in events before
(a purchase skipped "… (CC-10)", a discard's rule) keep their bytes, because the
hash chain covers them; they are shown through :func:`tagged`.

>>> tagged("4 coins, the next Industrial card costs 5 (CC-10)")
'4 coins, the next Industrial card costs 5 [CC-10]'
>>> rule_id("Zoning Laws"), rule_id("engine"), rule_id("CC-2")
('CB-6', 'GL-1', 'CC-2')
"""

from __future__ import annotations

import re
from functools import lru_cache

SECTIONS = {
    # Card City's rulebook: its five phases and the Zoning Laws
    "Phase 1": "CB-1",
    "Phase 2": "CB-2",
    "Phase 3": "CB-3",
    "Phase 4": "CB-4",
    "Phase 5": "CB-5",
    "Zoning Laws": "CB-6",
    # 5x5 City's rulebook
    "Game Setup": "FB-1",
    "Building Plot Card Drawing Phase": "FB-2",
    "Tile Placement phase": "FB-3",
    "Placement rules": "FB-4",
    "End of Game Scoring": "FB-5",
    "Advanced Rules": "FB-6",
    "Upkeep Phase": "FB-7",
    "Flow of the Game": "FB-8",
    # the engine's guards: whose turn, game over
    "engine": "GL-1",
}
"""Section names older messages and events cite, by the id ``citylog rules`` knows them by."""

ID = r"(?:GN|CC|FC|PC|CL|FL|PL|GL|CB|FB)-[VSTU]?\d+"
_PARENS = re.compile(rf"\(({ID})\)")


def rule_id(rule: str) -> str:
    """The id of a rule named by id or by a rulebook section."""
    return SECTIONS.get(rule, rule)


@lru_cache(maxsize=4096)
def tagged(text: str) -> str:
    """``text`` with ``(CC-10)`` written ``[CC-10]`` (memoised: a pure function of
    a string; a log repeats its few recorded reasons)."""
    return _PARENS.sub(r"[\1]", text)
