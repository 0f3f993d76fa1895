"""Game facts are declared by each game, never branched on in the CLI (issue 27, item 2).

Every module of ``cli/`` and ``replay/`` is read token by token: no game's name
(``card-city``, ``5x5-city``, ``point-city``, their package names or their
titles) appears in its code, string literals or comments.  Docstrings may name
games (a command's docstring is its help page, and its examples name real
games).  One module is left out this round: the play prompt's per-game command
forms (``cli/prompt.py``'s ``FORMS`` and ``NOTATION``), owned by another change;
the TUI's play screen (``cli/tui/play.py``) names no game and is held to it.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAME_NAME = re.compile(r"card[-_ ]?city|5x5|five[-_ ]?by[-_ ]?five|point[-_ ]?city", re.IGNORECASE)
LEFT_OUT: set[str] = set()
"""Modules allowed to name a game: none (the prompt reads its forms from each game)."""
MODULES = sorted(
    str(p.relative_to(ROOT)) for d in ("cli", "replay") for p in (ROOT / d).rglob("*.py")
)


def docstring_lines(source: str) -> set[int]:
    """The lines of every module, class and function docstring."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                lines.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
        # an attribute's docstring: a string statement after an assignment
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            for before, stmt in zip(stmts, stmts[1:]):
                if isinstance(before, (ast.Assign, ast.AnnAssign)) and isinstance(stmt, ast.Expr) \
                        and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                    lines.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
    return lines


def game_names_in_code(source: str) -> list[tuple[int, str]]:
    """(line, token) for every token outside a docstring naming a game."""
    docs = docstring_lines(source)
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.NAME, tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", 3)) \
                and tok.start[0] not in docs and GAME_NAME.search(tok.string):
            out.append((tok.start[0], tok.string))
    return out


def test_the_scan_finds_a_game_name_in_code_and_not_in_a_docstring() -> None:
    source = '"""Card City, 5x5 City."""\nX = "point-city"  # Card City\nif g == "5x5-city":\n    pass\n'
    assert [line for line, _ in game_names_in_code(source)] == [2, 2, 3]


def test_the_scan_reads_the_modules() -> None:
    assert "cli/results.py" in MODULES and "replay/record.py" in MODULES and len(MODULES) > 30


@pytest.mark.parametrize("module", [m for m in MODULES if m not in LEFT_OUT])
def test_no_game_name_in_the_cli_outside_the_registry(module: str) -> None:
    found = game_names_in_code((ROOT / module).read_text(encoding="utf-8"))
    assert not found, f"{module} names a game (declare the fact in its GameSpec or the contract): {found}"
