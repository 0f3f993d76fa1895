"""Text that goes into a markup renderer (rich, Textual) from outside the program.

Renders mark up their own words (``[bold]…[/]``); any text that came from a user
or a file (player names, paths) is escaped first, so ``[/]`` in a name prints as
itself instead of breaking the render.  Same rule as ``rich.markup.escape``,
without importing rich into the pure core.

>>> escape("ann[/]")
'ann\\\\[/]'
>>> escape("plain [CC-3] text")
'plain [CC-3] text'
"""

from __future__ import annotations

import re

_TAG = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")


def escape(text: str) -> str:
    """``text`` with every would-be markup tag escaped."""

    def one(m: re.Match[str]) -> str:
        backslashes, tag = m.groups()
        return f"{backslashes}{backslashes}\\{tag}"

    out = _TAG.sub(one, text)
    if out.endswith("\\") and not out.endswith("\\\\"):
        out += "\\"
    return out
