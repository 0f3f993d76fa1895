"""Text that goes into a markup renderer (rich, Textual) from outside the program.

Renders mark up their own words (``[bold]…[/]``); any text that came from a user
or a file (player names, paths) is escaped first, so ``[/]`` in a name prints as
itself instead of breaking the render.  Same rule as ``rich.markup.escape``,
without importing rich into the pure core.

>>> escape("ann[/]")
'ann\\\\[/]'
>>> escape("plain [CC-3] text")
'plain [CC-3] text'
>>> plain("[bold]ann\\\\[/] [red]won[/red] [CC-3]")
'ann[/] won [CC-3]'
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


CONTROL_CODES = dict.fromkeys((7, 8, 11, 12, 13))  # what rich strips from printed text


def plain(markup: str) -> str:
    """The text a markup renderer prints for ``markup`` without colour: tags
    dropped, escaped tags and backslashes kept as text, control codes stripped
    and tabs expanded (rich's rules; a test holds this equal to rich's output,
    so piped output needs no rich import)."""
    out: list[str] = []
    position = 0
    for m in _RICH_TAG.finditer(markup):
        full, escapes, _tag = m.groups()
        start, end = m.span()
        out.append(markup[position:start].replace("\\[", "["))  # a bracket that opens no tag
        if escapes:
            backslashes, escaped = divmod(len(escapes), 2)
            out.append("\\" * backslashes)
            if escaped:
                out.append(full[len(escapes) :])
        position = end
    out.append(markup[position:].replace("\\[", "["))
    return "".join(out).translate(CONTROL_CODES).expandtabs(8)


_RICH_TAG = re.compile(r"((\\*)\[([a-z#/@][^[]*?)])")
