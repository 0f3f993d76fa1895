"""Piped output is written without rich (start-up cost); the law: what citylog
writes for a string is exactly what rich's console would have printed."""

from __future__ import annotations

import io

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.errors import MarkupError

from core.markup import CONTROL_CODES, escape, plain

_PIECES = st.sampled_from(
    ["[", "]", "\\", "/", "b", "bold", "[bold]", "[/]", "[red]", "[/red]", "[CC-10]", "[#fff]",
     "\t", "\r", "\x07", "\n", " ", "é", "ab", "[on blue]", "\\[", "x=1"]
)  # fmt: skip
_TEXT = st.lists(_PIECES, max_size=14).map("".join)


def rich_piped(text: str, markup: bool) -> str:
    out = io.StringIO()
    Console(file=out, highlight=False, soft_wrap=True, emoji=False, force_terminal=False).print(
        text, markup=markup
    )
    return out.getvalue()


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_plain_markup_is_what_rich_prints_when_piped(text: str) -> None:
    try:
        expected = rich_piped(text, markup=True)
    except MarkupError:
        assume(False)  # unbalanced closing tags: the program never writes them
        return
    assert plain(text) + "\n" == expected


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_plain_text_is_what_rich_prints_without_markup(text: str) -> None:
    assert text.translate(CONTROL_CODES).expandtabs(8) + "\n" == rich_piped(text, markup=False)


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_an_escaped_text_prints_as_itself(text: str) -> None:
    assume("\\" not in text)  # backslashes: escape() follows rich.markup.escape, quirks included
    assert plain(escape(text)) == text.translate(CONTROL_CODES).expandtabs(8)


def test_say_and_say_markup_write_plain_text_when_piped(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from cli.output import say, say_markup

    for var in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(var, raising=False)
    say("[bold]kept[/] \x07x")
    say_markup("[bold]dropped[/] \\[CC-10] y")
    assert capsys.readouterr().out == "[bold]kept[/] x\ndropped [CC-10] y\n"
