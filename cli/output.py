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


_FOREIGN_CONTROLS = dict.fromkeys(
    [c for c in range(0x20) if c not in (0x09, 0x0A)]  # C0 but tab and newline: ESC starts every sequence
    + list(range(0x7F, 0xA0))  # DEL and C1 (0x9B is CSI, 0x9D OSC on an 8-bit terminal)
    + [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]  # bidi marks and overrides
)
_FOREIGN_CONTROLS.update(CONTROL_CODES)


def clean(text: str) -> str:
    r"""``text`` without a single terminal control character: no escape sequence
    (ESC, CSI, OSC: colours, cursor moves, a rewritten title, a hyperlink), no
    carriage return or backspace that overprints, no bidi override that
    reorders what is shown — only printable text, tabs and line breaks.

    Every piece of text printed to the terminal goes through here (``say``,
    ``say_markup``, ``plain``, ``write_text``): a player's name, a note, a game
    id, a file's name or content from anyone can not drive the terminal.  The
    program's own colours are added after it (rich renders the cleaned markup).

    >>> clean("ann\x1b[2J\x1b]0;pwned\x07 \u202ewon\r")
    'ann[2J]0;pwned won'
    """
    return text.translate(_FOREIGN_CONTROLS)


def safe_name(name: str) -> str:
    """A default file name built from foreign parts (a host-given game id, a
    player's name), as one path component: separators, ``..``-style leading
    dots and control characters become ``_``, so ``../../x`` cannot leave the
    folder it is written into.  At most 200 characters.

    >>> safe_name("../../../../x-invite-ann.json")
    '_._.._.._.._x-invite-ann.json'
    """
    out = "".join(c if (c.isalnum() or c in "._-+@,=") and c.isprintable() else "_" for c in name)
    if out.startswith("."):
        out = "_" + out[1:]
    return out[:200] or "_"


def say(text: str) -> None:
    """Plain text, printed as it is: never interpreted as markup, so text from a
    file or a user (a path, a player's name, a log's content) can not break it.
    (Written directly, as rich would print it: control codes stripped (every
    one, :func:`clean`), tabs expanded; rich's import would cost a fifth of the
    start-up.)"""
    sys.stdout.write(clean(text).expandtabs(8) + "\n")


def say_markup(text: str) -> None:
    """Rich markup built by the program (a render), whose untrusted parts were
    escaped (``core.markup.escape``); coloured on a terminal, plain when piped
    (``core.markup.plain``, equal to rich's piped output without importing it)."""
    text = clean(text)  # foreign controls out; rich adds the program's own colours after
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
    """A line printed as it is, but for terminal controls (:func:`clean`)."""
    sys.stdout.write(clean(text) + "\n")


def write_text(text: str) -> None:
    """A document to stdout (an export, a picture): byte for byte into a pipe or
    a file; cleaned (:func:`clean`) when stdout is a terminal, where a note or a
    name in it could otherwise drive the terminal."""
    sys.stdout.write(clean(text) if is_terminal() else text)


JSON_KEYS = {
    "game_id": "the stored game's id (a file's: the id its header names) in every object about one game",
    "game_ids": "the ids of the games an object compares (diff: a's, then b's)",
    "game": "the kind of game (a registered name, as `citylog new` takes it), never its id",
    "seq": "the position the object speaks of (the last event's seq)",
    "player": "a player by name (never a seat number); several: players",
    "file": "a path written or read",
}
"""The ``--json`` convention every command follows (README, *Conventions*):
the same thing always under the same key; never ``id``, ``gid``, ``at``,
``version``, ``seat`` or ``name`` for one of them (``rules`` prints rulings by
their ``id``, ``key`` names a key pair).  Refusals under ``--json`` are one
object on stderr, ``{"error": …, "exit_code": N}`` (:func:`cli.errors.error_line`).
Tested by ``tests/cli/test_json_keys.py``."""

_JSON_ESCAPES = {c: f"\\u{c:04x}" for c in _FOREIGN_CONTROLS if c >= 0x7F}


def emit_json(value: Any) -> None:
    """One JSON value on a line.  The encoder escapes C0 controls; DEL, C1 and
    bidi controls (legal raw in JSON, and read by some terminals) are written
    as ``\\uXXXX`` too — the same value to any JSON reader, inert on a terminal."""
    sys.stdout.write(_json.encode(msgspec.to_builtins(value)).decode().translate(_JSON_ESCAPES) + "\n")


def is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except ValueError:  # a closed stream
        return False


def out_path(out: str | None, name: str) -> Path:
    """Where ``-o`` says: a file, or a directory (one that exists, or written
    with a trailing slash, then made) to hold the file under its default ``name``."""
    name = safe_name(name)  # built from a game id or a name someone else chose
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
