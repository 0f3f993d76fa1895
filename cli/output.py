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

    return Console(highlight=False, soft_wrap=True)


def err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def say(text: str) -> None:
    """Rich markup on a terminal; the same text without markup when piped."""
    console().print(text)


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
