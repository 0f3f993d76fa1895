"""Printing: coloured on a terminal, plain when piped; JSON on request."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:  # rich is imported when something is printed through it
    from rich.console import Console

_json = msgspec.json.Encoder()


def console() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, emoji=False)


def err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def say(text: str) -> None:
    """Plain text, printed as it is: never interpreted as markup, so text from a
    file or a user (a path, a player's name, a log's content) can not break it."""
    console().print(text, markup=False)


def say_markup(text: str) -> None:
    """Rich markup built by the program (a render), whose untrusted parts were
    escaped (``core.markup.escape``); plain when piped."""
    console().print(text)


def one_line(text: str) -> str:
    """``text`` with every line break and control character escaped (``\\n``,
    ``\\x1e``): a message quoting a path or a file's content stays one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def plain(text: str) -> None:
    sys.stdout.write(text + "\n")


def emit_json(value: Any) -> None:
    sys.stdout.write(_json.encode(msgspec.to_builtins(value)).decode() + "\n")


def is_terminal() -> bool:
    return sys.stdout.isatty()


def write_file(path: Path, data: bytes, force: bool = False) -> None:
    """Write ``path``; an existing file is never overwritten without ``force``
    (``ServiceError``: exit 2, nothing written)."""
    from events.service import ServiceError

    if path.exists() and not force:
        raise ServiceError(f"{path} exists; not overwritten (use --force)")
    path.write_bytes(data)
