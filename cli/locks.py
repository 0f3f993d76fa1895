"""One advisory lock for a run that must not overlap another (``flock`` on a file).

Used by ``inbox`` (one folder, one run at a time) and ``mail sync`` (one pass per
data directory): wait for the other run up to ``wait`` seconds, then exit 4.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from events.store import EnvironmentFailure


@contextlib.contextmanager
def held(lock: Path, wait: float, busy: str) -> Iterator[None]:
    """Hold ``lock`` (made mode 0600, never through a link) for the ``with`` block.

    ``busy`` says who holds it when the wait runs out (EnvironmentFailure, exit 4);
    so is a lock file that cannot be opened (a directory or a link in its place, no
    permission, a read-only disk): the machine, not the input, so a watching mail
    agent backs off and tries again, and a mail is never refused for it.  Without
    ``flock`` (Windows) the block runs unlocked: the callers' own checks (vanished
    files, signatures, the ledger's transactions) still keep runs apart."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(lock, flags, 0o600)
    except OSError as exc:
        raise EnvironmentFailure(f"{lock}: cannot open the lock ({exc.strerror or type(exc).__name__})") from None
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise EnvironmentFailure(f"{busy} for {wait:.0f} s") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock
