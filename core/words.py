"""Counted words for the texts people read: ``1 card``, ``2 cards``, never ``2 card(s)``
(issue 26: ugly or confusing is a bug).

Pure and imports nothing of citylog, so every layer may use it (the rules' refusal
messages, the explanations, the CLI, the TUI, the replay page).  What is already
recorded keeps its bytes: Card City's final-score details say ``6 empty square(s)``
inside the ``cc.scored`` event, and :func:`plurals` reads such a detail out.
"""

from __future__ import annotations

import re


def plural(n: int, word: str, words: str | None = None) -> str:
    """``n`` and the word it counts, singular for exactly one.

    >>> plural(1, "point"), plural(2, "point"), plural(0, "point"), plural(-1, "point")
    ('1 point', '2 points', '0 points', '-1 points')
    >>> plural(3, "difference"), plural(1, "tile"), plural(2, "city", "cities")
    ('3 differences', '1 tile', '2 cities')
    """
    return f"{n} {word if n == 1 else (words or word + 's')}"


_MAYBE_PLURAL = re.compile(r"(-?\d+) ([A-Za-z ]*?)([A-Za-z]+)\(s\)")


def plurals(text: str) -> str:
    """A recorded ``1 empty square(s)`` read out as ``1 empty square`` (``2 …squares``).

    >>> plurals("City Hall 1 row(s) and 0 column(s) off centre")
    'City Hall 1 row and 0 columns off centre'
    >>> plurals("1 empty square(s), 5 coin(s)")
    '1 empty square, 5 coins'
    """
    return _MAYBE_PLURAL.sub(
        lambda m: f"{m[1]} {m[2]}{m[3]}{'' if abs(int(m[1])) == 1 else 's'}", text)
