"""Issue 22, item 8: the output layer's laws.

* No terminal control from foreign text survives ``clean`` (and so ``say``,
  ``plain``, ``say_markup``, the TUI's texts), and every printable character does.
* ``emit_json`` writes the same value, with DEL, C1 and bidi controls escaped.
* ``safe_name`` of any text is one path component inside the folder it is joined to.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cli import output
from cli.output import clean, emit_json, safe_name

FOREIGN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
NASTY = st.sampled_from(["\x1b[2J", "\x1b]0;pwned\x07", "\x9b31m", "\x9d8;;http://x\x9c", "\r", "\b", "\u202e",
                         "\u2066", "\x00", "\x7f", "\x85", "[bold]", "\\", "\n", "\t"])
TEXT = st.lists(st.text(max_size=6) | NASTY, max_size=12).map("".join)


@given(TEXT)
def test_clean_leaves_no_terminal_control_and_every_printable_character(text: str) -> None:
    out = clean(text)
    assert not FOREIGN.search(out)
    assert [c for c in out] == [c for c in text if not FOREIGN.match(c)]  # nothing else removed or added
    assert clean(out) == out


def _printed(fn, text: str) -> str:  # type: ignore[no-untyped-def]
    captured = io.StringIO()
    real = sys.stdout
    sys.stdout = captured
    try:
        fn(text)
    finally:
        sys.stdout = real
    return captured.getvalue()


@given(TEXT)
def test_every_printing_function_is_clean(text: str) -> None:
    for fn in (output.say, output.plain, output.say_markup):
        assert not FOREIGN.search(_printed(fn, text)), fn.__name__
    assert _printed(output.write_text, text) == text  # not a terminal: a document, byte for byte


@given(st.dictionaries(TEXT, TEXT | st.integers(), max_size=4))
def test_emit_json_is_the_same_value_without_raw_controls(value: dict[str, object]) -> None:
    line = _printed(emit_json, value)  # type: ignore[arg-type]
    assert not FOREIGN.search(line[:-1]) and line.endswith("\n")
    assert json.loads(line) == value


@given(TEXT.filter(lambda t: "\x00" not in t) | st.sampled_from(["..", ".", "../../../../x", "/etc/passwd", "a/../b"]))
def test_a_default_name_is_one_component_inside_its_folder(name: str) -> None:
    safe = safe_name(name)
    folder = Path("/srv/outbox")
    target = folder / safe
    assert target.parent == folder and safe not in ("", ".", "..") and "/" not in safe
    assert not FOREIGN.search(safe) and len(safe) <= 200


def test_the_tui_board_cleans_foreign_markup() -> None:
    pytest.importorskip("textual")
    from cli.tui.board import markup

    shown = markup("[bold]ann\x1b[2J[/bold] \x9b31m won").plain
    assert not FOREIGN.search(shown) and "ann" in shown and "won" in shown
