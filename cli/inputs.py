"""Small input files a user hands citylog (board files, move files): read whole,
within a size limit, as UTF-8 with an optional byte order mark."""

from __future__ import annotations

from pathlib import Path

from cli.errors import fail

MAX_SMALL_FILE = 1 << 20
"""A board file or a move file longer than this (1 MiB) is refused unread."""


def read_small_text(path: Path, limit: int = MAX_SMALL_FILE) -> str:
    """The file's text; a one-line error (exit 2) if it is missing, too long or not UTF-8."""
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise fail(f"{path}: no such file") from None
    except IsADirectoryError:
        raise fail(f"{path}: is a directory") from None
    except OSError as exc:
        raise fail(f"{path}: cannot read it ({exc.strerror or type(exc).__name__})") from None
    if len(data) > limit:
        raise fail(f"{path}: longer than the limit for this kind of file ({limit} bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise fail(f"{path}: not a UTF-8 text file") from None
