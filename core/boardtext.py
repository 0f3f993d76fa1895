"""Board files typed in from the table: 5 lines of 5 whitespace-separated tokens.

Shared by every game's ``score_board``: blank lines and ``#`` comments are
ignored, and every token keeps its line and column so an error can name them.

A board copied from ``citylog show`` reads the same: its column header (``A B
C D E`` or Card City's ``-2 -1 0 1 2``) and the row label starting each row are
skipped (and kept as the board's labels, :func:`board_labels`), and ``·`` is an
empty square like ``.``.

>>> shown = "      -1  0  1  2  3\\n" + "".join(f"  {r:>2}  ·  ·  H  ·  · \\n" for r in range(-2, 3))
>>> [t[2] for t in board_tokens(shown, "b.txt")[0]]
['.', '.', 'H', '.', '.']
>>> board_labels(shown)
(('-2', '-1', '0', '1', '2'), ('-1', '0', '1', '2', '3'))

Card City's boards are printed in part of a fixed lettered frame (``C D E F``
across, ``4 5 6`` down, any size up to the frame's): :func:`frame_tokens` reads them.

>>> shown = "      D  E  F\\n" + "  4   ·  R  ·\\n" + "  5   ·  H  ·\\n"
>>> top, left, rows = frame_tokens(shown, "b.txt", "ABCDEFGHI")
>>> (top, left, [t[2] for t in rows[1]])
(4, 3, ['.', 'H', '.'])

>>> grid = board_tokens("# a comment\\nH R . . .\\n" + ". . . . .\\n" * 4, "b.txt")
>>> grid[0]
[(2, 1, 'H'), (2, 3, 'R'), (2, 5, '.'), (2, 7, '.'), (2, 9, '.')]
"""

from __future__ import annotations

from core.engine import BoardFileError

Token = tuple[int, int, str]
"""(line, column, text), both counted from 1."""


def _is_header(words: list[str], size: int) -> bool:
    if len(words) != size:
        return False
    if words == list("ABCDEFGH"[:size]):
        return True
    try:
        numbers = [int(w) for w in words]
    except ValueError:
        return False
    return numbers == list(range(numbers[0], numbers[0] + size)) and numbers[0] != 1


def _layout(text: str, size: int) -> tuple[int | None, bool, frozenset[int]]:
    """The header line's number (None: no header), whether rows start with a label, and
    the numbers of the board's row lines when they do.

    A board copied from ``show`` is found wherever it is in the file: a header followed by
    ``size`` labelled rows; the lines around it (the player's name above, the next player
    or the legend below) are left out, as :func:`frame_tokens` leaves them.

    >>> _layout("ann (0 parks, token held)\\n   A B\\n 1 H .\\n 2 . P\\nlegend: …\\n", 2)
    (2, True, frozenset({3, 4}))
    """
    lines = [(n, raw.split("#", 1)[0].split()) for n, raw in enumerate(text.splitlines(), start=1)]
    lines = [(n, w) for n, w in lines if w]
    for i, (number, words) in enumerate(lines):
        rows = lines[i + 1:i + 2 + size]  # one more: a row too many is refused, not left out
        if _is_header(words, size) and len(rows) >= size and all(len(w) == size + 1 for _, w in rows[:size]):
            if len(rows) > size and (len(rows[size][1]) != size + 1 or not rows[size][1][0].lstrip("-").isdigit()):
                rows = rows[:size]
            return number, True, frozenset(n for n, _ in rows)
    return None, False, frozenset()


def board_labels(text: str, size: int = 5) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The row and column labels of a board copied from ``show`` (None: a bare board file)."""
    header, labelled, board = _layout(text, size)
    if header is None or not labelled:
        return None
    lines = [raw.split("#", 1)[0].split() for raw in text.splitlines()]
    cols = tuple(lines[header - 1])
    rows = tuple(lines[n - 1][0] for n in sorted(board))[:size]
    return rows, cols


def board_tokens(text: str, source: str, size: int = 5) -> list[list[Token]]:
    """The ``size`` × ``size`` tokens of a board file, or ``BoardFileError``."""
    rows: list[list[Token]] = []
    last_line = 0
    header, labelled, board = _layout(text, size)
    for number, raw in enumerate(text.splitlines(), start=1):
        last_line = number
        body = raw.split("#", 1)[0].replace("·", ".")
        if not body.strip() or number == header or (labelled and number not in board):
            continue
        if len(rows) == size:
            raise BoardFileError(source, number, 1, f"a board has {size} rows; this is a row too many")
        tokens: list[Token] = []
        col = 0
        for part in body.split():
            col = body.index(part, col)
            tokens.append((number, col + 1, part))
            col += len(part)
        if labelled and len(tokens) == size + 1:
            tokens = tokens[1:]
        if len(tokens) != size:
            column = tokens[size][1] if len(tokens) > size else len(body.rstrip()) + 1
            raise BoardFileError(
                source, number, column, f"a row has {size} squares, this one has {len(tokens)}"
            )
        rows.append(tokens)
    if len(rows) < size:
        raise BoardFileError(source, last_line + 1, 1, f"a board has {size} rows, this one has {len(rows)}")
    return rows


def _words(text: str) -> list[tuple[int, str, list[str]]]:
    """(line number, the line without its comment and with ``·`` as ``.``, its words), blank lines left out."""
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0].replace("·", ".")
        if body.strip():
            out.append((number, body, body.split()))
    return out


def _letters(words: list[str], letters: str) -> bool:
    """Consecutive column letters of ``letters`` (``C D E F``)."""
    if not all(len(w) == 1 and w.upper() in letters for w in words):
        return False
    first = letters.index(words[0].upper())
    return [w.upper() for w in words] == list(letters[first:first + len(words)])


def frame_tokens(text: str, source: str, letters: str) -> tuple[int, int, list[list[Token]]] | None:
    """A board printed in part of a lettered frame: a header of consecutive column letters
    (from ``letters``) and rows that each start with their number.

    Lines around the board (a player's name and coins above it, the next player
    below, as ``show`` prints them) are left out.  Returns ``(first row number,
    index in letters of the first column, rows of tokens)``, or None when there is
    no such header (a bare board file).
    """
    lines = _words(text)
    at = next((i for i in range(len(lines) - 1)
               if _letters(lines[i][2], letters) and lines[i + 1][2][0].isdigit()), None)
    if at is None:
        return None
    head = lines[at][2]
    first = letters.index(head[0].upper())
    rows: list[list[Token]] = []
    top = 0
    for number, body, words in lines[at + 1:]:
        if not words[0].isdigit():  # the board ends: the next player's name, the legend…
            break
        label = int(words[0])
        if not rows:
            top = label
        elif label != top + len(rows):
            raise BoardFileError(source, number, body.index(words[0]) + 1,
                                 f"row {label} follows row {top + len(rows) - 1}; rows are numbered in order")
        tokens: list[Token] = []
        col = body.index(words[0]) + len(words[0])
        for part in words[1:]:
            col = body.index(part, col)
            tokens.append((number, col + 1, part))
            col += len(part)
        if len(tokens) != len(head):
            column = tokens[len(head)][1] if len(tokens) > len(head) else len(body.rstrip()) + 1
            raise BoardFileError(source, number, column,
                                 f"the header names {len(head)} columns, this row has {len(tokens)} squares")
        rows.append(tokens)
    if not rows:
        raise BoardFileError(source, lines[0][0] + 1, 1, "the column header is not followed by any row")
    return top, first, rows
