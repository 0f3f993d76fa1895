"""Board files typed in from the table: 5 lines of 5 whitespace-separated tokens.

Shared by every game's ``score_board``: blank lines and ``#`` comments are
ignored, and every token keeps its line and column so an error can name them.

>>> grid = board_tokens("# a comment\\nH R . . .\\n" + ". . . . .\\n" * 4, "b.txt")
>>> grid[0]
[(2, 1, 'H'), (2, 3, 'R'), (2, 5, '.'), (2, 7, '.'), (2, 9, '.')]
"""

from __future__ import annotations

from core.engine import BoardFileError

Token = tuple[int, int, str]
"""(line, column, text), both counted from 1."""


def board_tokens(text: str, source: str, size: int = 5) -> list[list[Token]]:
    """The ``size`` × ``size`` tokens of a board file, or ``BoardFileError``."""
    rows: list[list[Token]] = []
    last_line = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        last_line = number
        body = raw.split("#", 1)[0]
        if not body.strip():
            continue
        if len(rows) == size:
            raise BoardFileError(source, number, 1, f"a board has {size} rows; this is a row too many")
        tokens: list[Token] = []
        col = 0
        for part in body.split():
            col = body.index(part, col)
            tokens.append((number, col + 1, part))
            col += len(part)
        if len(tokens) != size:
            column = tokens[size][1] if len(tokens) > size else len(body.rstrip()) + 1
            raise BoardFileError(
                source, number, column, f"a row has {size} squares, this one has {len(tokens)}"
            )
        rows.append(tokens)
    if len(rows) < size:
        raise BoardFileError(source, last_line + 1, 1, f"a board has {size} rows, this one has {len(rows)}")
    return rows
