"""Printing: coloured on a terminal, plain when piped; JSON on request."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from core.markup import CONTROL_CODES
from core.markup import plain as markup_plain

if TYPE_CHECKING:  # rich is imported when something is printed through it
    from rich.console import Console

_json = msgspec.json.Encoder()


def console() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, emoji=False)


def say(text: str) -> None:
    """Plain text, printed as it is: never interpreted as markup, so text from a
    file or a user (a path, a player's name, a log's content) can not break it.
    (Written directly, as rich would print it: control codes stripped, tabs
    expanded; rich's import would cost a fifth of the start-up.)"""
    sys.stdout.write(text.translate(CONTROL_CODES).expandtabs(8) + "\n")


def say_markup(text: str) -> None:
    """Rich markup built by the program (a render), whose untrusted parts were
    escaped (``core.markup.escape``); coloured on a terminal, plain when piped
    (``core.markup.plain``, equal to rich's piped output without importing it)."""
    if _colour():
        console().print(text)
    else:
        sys.stdout.write(markup_plain(text) + "\n")


def _colour() -> bool:
    """Whether rich would colour stdout (a terminal, or FORCE_COLOR / TTY_COMPATIBLE set)."""
    env = os.environ
    if env.get("FORCE_COLOR") or env.get("TTY_COMPATIBLE") == "1" or env.get("TTY_INTERACTIVE") == "1":
        return True
    try:
        return sys.stdout.isatty()
    except ValueError:  # a closed stream
        return False


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


def out_path(out: str | None, name: str) -> Path:
    """Where ``-o`` says: a file, or a directory (one that exists, or written
    with a trailing slash, then made) to hold the file under its default ``name``."""
    if out is None:
        return Path(name)
    if Path(out).is_dir() or out.endswith(("/", os.sep)):
        Path(out).mkdir(parents=True, exist_ok=True)
        return Path(out) / name
    return Path(out)


def reader_went_away() -> None:
    """stdout's reader closed the pipe (``citylog list | head -1``): stop quietly,
    as a Unix tool killed by SIGPIPE does (exit 141), with no error message."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # nothing more reaches the closed pipe at exit
    except (OSError, ValueError):  # not a real file (a test's capture)
        pass
    raise SystemExit(141)


def write_file(path: Path, data: bytes, force: bool = False) -> None:
    """Write ``path``; an existing file is never overwritten without ``force``
    (``ServiceError``: exit 2, nothing written)."""
    from events.service import ServiceError

    if path.exists() and not force:
        raise ServiceError(f"{path} exists; not overwritten (use --force)")
    path.write_bytes(data)
