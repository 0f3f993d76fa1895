"""Small input files a user hands citylog (board files, move, join, invitation
and key files): regular files only, read within a size limit while reading
(:mod:`replay.bounded`), as UTF-8 with an optional byte order mark."""

from __future__ import annotations

from pathlib import Path

from replay.bounded import FileRefused, read_text

MAX_SMALL_FILE = 1 << 20
"""A board file or a move file longer than this (1 MiB) is refused unread."""


def read_small_text(path: Path, limit: int = MAX_SMALL_FILE, what: str = "file") -> str:
    """The file's text; a one-line error (``FileRefused``, exit 2) if it is
    missing, not a regular file, too long or not UTF-8."""
    return read_text(path, limit, what)


__all__ = ["MAX_SMALL_FILE", "FileRefused", "read_small_text"]
