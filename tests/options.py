"""Drawing a game's options for property tests: every option, every kind of value."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

FREE_OPTIONS = {"sides": ["A", "B", "random", "BABABABABA"]}
"""Values to try for options that take free text (5x5 City's card sides)."""


def draw_options(game: Any, draw: st.DrawFn) -> dict[str, str]:
    """Every option of the game, each with a drawn value (variants, sides, solo levels)."""
    out = {}
    for o in game.spec.options:
        values = list(o.choices) or FREE_OPTIONS.get(o.key, [])
        if values:
            out[o.key] = draw(st.sampled_from(values), label=o.key)
    return out
