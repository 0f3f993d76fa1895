"""A throwaway PostgreSQL cluster for tests and benches.

Started from the machine's ``initdb``/``pg_ctl`` (on PATH, or
``/usr/lib/postgresql/*/bin``) in a fresh temporary directory, listening only
on a Unix socket in that directory, run as a non-root user (``postgres``, else
``nobody``) when we are root.  ``CITYLOG_TEST_PG=postgresql://…`` uses an
existing server instead.

    with throwaway_cluster() as url:   # or None when no server can be started
        ...
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path


class NoServer(Exception):
    """No PostgreSQL could be started here; the message says why."""


def _pg_bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    for candidate in sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True):
        return candidate
    raise NoServer(f"{name} not found (install PostgreSQL: bash .ci/setup)")


def _run_as(user: pwd.struct_passwd | None, argv: list[str]) -> None:
    if user is not None:
        argv = ["runuser", "-u", user.pw_name, "--", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise NoServer(f"{' '.join(argv[:4])}… failed: {(done.stderr or done.stdout).strip()[-400:]}")


def _server_user() -> pwd.struct_passwd | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise NoServer("running as root and no non-root user (postgres, nobody) to run the server")


@contextlib.contextmanager
def throwaway_cluster(durable: bool = False) -> Iterator[str]:
    """Yield a ``postgresql://`` URL of a fresh cluster; stop and delete it after.

    ``durable``: fsync and synchronous commits on (benches); off for tests."""
    existing = os.environ.get("CITYLOG_TEST_PG")
    if existing:
        yield existing
        return
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    user = _server_user()
    base = Path(tempfile.mkdtemp(prefix="clpg-", dir="/tmp"))  # short: socket paths are limited
    data = base / "data"
    if user is not None:
        os.chown(base, user.pw_uid, user.pw_gid)
    base.chmod(0o755)
    started = False
    try:
        _run_as(user, [initdb, "-D", str(data), "-A", "trust", "-U", "citylog", "-E", "UTF8",
                       "--no-sync", "--no-instructions"])
        opts = f"-c listen_addresses='' -c unix_socket_directories={base} -c max_connections=60"
        if not durable:
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        _run_as(user, [pg_ctl, "-D", str(data), "-o", opts, "-l", str(base / "log"), "-w",
                       "-t", "60", "start"])
        started = True
        yield f"postgresql://citylog@/postgres?host={base}"
    finally:
        try:
            if started:
                stop(data, lambda: _run_as(user, [pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]))
        finally:
            shutil.rmtree(base, ignore_errors=True)


class ClusterLeftRunning(RuntimeError):
    """The throwaway server could not be stopped, not even by a kill."""


def stop(data: Path, pg_ctl_stop: Callable[[], None]) -> None:
    """Stop the server of ``data`` with ``pg_ctl_stop``; if that fails, kill it.

    A failed stop is never silent (a cluster was once left running after a run):
    the server is killed (SIGKILL to the postmaster named in ``postmaster.pid``)
    and a warning says why; if it still runs, :class:`ClusterLeftRunning`."""
    try:
        pg_ctl_stop()
        return
    except (NoServer, subprocess.TimeoutExpired) as exc:
        why = str(exc)
    pid = _postmaster_pid(data)
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            _kill(pid)
        for _ in range(100):
            if not _alive(pid):
                break
            _pause()
        if _alive(pid):
            raise ClusterLeftRunning(f"PostgreSQL (pid {pid}, {data}) still runs after pg_ctl stop failed ({why}) and a kill")
    message = f"pg_ctl stop failed ({why}); the server (pid {pid}) was killed"
    sys.stderr.write(f"WARNING: {message}\n")
    warnings.warn(message, RuntimeWarning, stacklevel=2)


def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)


def _pause() -> None:
    time.sleep(0.05)


def _postmaster_pid(data: Path) -> int | None:
    try:
        first = (data / "postmaster.pid").read_text().split("\n", 1)[0].strip()
    except OSError:
        return None
    return int(first) if first.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)  # our own child (tests): reap it
        if done == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def no_server(reason: str) -> None:
    """Skip (locally) or fail (CI=true: the PostgreSQL tests must run there)."""
    import pytest

    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"CI must run the PostgreSQL tests, but no server could be started: {reason}")
    pytest.skip(f"no PostgreSQL server: {reason}")


def with_schema(url: str, schema: str) -> str:
    """``url`` whose connections use ``schema`` (created by the caller)."""
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}"
