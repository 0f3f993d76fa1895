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


MAX_ENTROPY_HEX = 128
"""Hex digits of a join's entropy (64 bytes; a join carries 16): longer would
ride in every later view of the game."""


def check_statement(st: object, source: str) -> None:
    """``FieldTooLong`` (one line naming ``source``) if a move, join or invitation
    file carries a field longer than :mod:`events.limits` allows: a game id, a
    player's name, a command or too many of them, a join's entropy."""
    from events.limits import (
        MAX_COMMAND,
        MAX_COMMANDS,
        MAX_GAME_ID,
        MAX_PLAYER_NAME,
        FieldTooLong,
        check_length,
    )

    try:
        check_length("the game id", getattr(st, "game_id", None), MAX_GAME_ID)
        check_length("the player's name", getattr(st, "player", None), MAX_PLAYER_NAME)
        check_length("a command", getattr(st, "command", None), MAX_COMMAND)
        commands = getattr(st, "commands", ())
        if len(commands) > MAX_COMMANDS:
            raise FieldTooLong(f"a move file holds at most {MAX_COMMANDS} commands, not {len(commands)}")
        for command in commands:
            check_length("a command", command, MAX_COMMAND)
        check_length("a join's entropy", getattr(st, "entropy", None), MAX_ENTROPY_HEX)
    except FieldTooLong as exc:
        raise FieldTooLong(f"{source}: {exc}") from None
