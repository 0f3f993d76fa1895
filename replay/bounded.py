"""Reading what a user or a sender hands citylog, bounded and regular files only.

Every file citylog reads from outside (logs, views, text records, move, join
and invitation files, key files, board files, inbox folders) comes through
:func:`read_regular`.  The law: whatever the path names — a FIFO, a device
such as ``/dev/zero``, a directory, a dangling link, a sparse multi-gigabyte
file, a file that grows while read — the answer is the file's bytes (at most
``limit``) or one :class:`FileRefused` line; never a hang, never more than
``limit + 1`` bytes in memory, never a traceback.

The check is race-free: the path is opened without blocking (``O_NONBLOCK``,
so a FIFO with no writer opens at once) and the *opened* file is checked
(``fstat``), so a file swapped between a look and the open is still caught;
the size limit is applied while reading, never after.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from events.service import ServiceError

MIB = 1 << 20

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileRefused(ServiceError):
    """A path that is not a readable regular file within its size limit (exit 2)."""


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _shown(path: Path | str) -> str:
    return str(path)


def read_regular(path: Path | str, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    ``FileRefused`` (one line naming ``path``) if it is missing, a dangling
    link, not a regular file, unreadable, or longer than ``limit`` — the
    length is checked before reading (``fstat``) and again while reading, so a
    file that grows or lies about its size is refused after ``limit + 1``
    bytes, never read whole.
    """
    name = _shown(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        before = os.stat(path)  # refuse a device or a FIFO before opening it at all
    except FileNotFoundError:
        link = " (a link to nothing)" if os.path.islink(path) else ""
        raise FileRefused(f"{name}: no such {what}{link}") from None
    except OSError as exc:
        raise FileRefused(f"{name}: cannot read it ({exc.strerror or type(exc).__name__})") from None
    if not stat.S_ISREG(before.st_mode):
        raise FileRefused(f"{name}: {kind_of(before.st_mode)}, not a {what}")
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileRefused(f"{name}: no such {what} (it went away)") from None
    except OSError as exc:
        raise FileRefused(f"{name}: cannot read it ({exc.strerror or type(exc).__name__})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped between the look and the open
            raise FileRefused(f"{name}: {kind_of(st.st_mode)}, not a {what}")
        if st.st_size > limit:
            raise FileRefused(f"{name}: {st.st_size} bytes, longer than the limit for a {what} ({limit} bytes)")
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            try:
                chunk = os.read(fd, min(limit + 1 - got, MIB))
            except BlockingIOError:  # not a regular file after all: never wait on it
                raise FileRefused(f"{name}: would block; not a {what}") from None
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            raise FileRefused(f"{name}: longer than the limit for a {what} ({limit} bytes)")
        return b"".join(chunks)
    except OSError as exc:
        raise FileRefused(f"{name}: cannot read it ({exc.strerror or type(exc).__name__})") from None
    finally:
        os.close(fd)


def read_text(path: Path | str, limit: int, what: str = "file") -> str:
    """:func:`read_regular` decoded as UTF-8 (a byte order mark dropped)."""
    data = read_regular(path, limit, what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FileRefused(f"{_shown(path)}: not a UTF-8 text file") from None


def entries(folder: Path, suffix: str, limit: int = 10_000) -> Iterator[Path]:
    """The names in ``folder`` ending in ``suffix``, sorted, at most ``limit``
    of them (a folder of a million names is refused, never listed whole).
    Whatever they are (files, FIFOs, links): the reader refuses what is not a
    regular file, one by one."""
    found: list[str] = []
    try:
        with os.scandir(folder) as it:
            for entry in it:
                if entry.name.endswith(suffix):
                    found.append(entry.name)
                    if len(found) > limit:
                        raise FileRefused(f"{folder}: more than {limit} {suffix} files; handle them in parts")
    except FileNotFoundError:
        raise FileRefused(f"no directory {folder}") from None
    except NotADirectoryError:
        raise FileRefused(f"{folder}: not a directory") from None
    except OSError as exc:
        raise FileRefused(f"{folder}: cannot list it ({exc.strerror or type(exc).__name__})") from None
    return iter(folder / n for n in sorted(found))
