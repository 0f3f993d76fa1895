"""The PostgreSQL test server: skipped locally without one, never under CI=true."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import pg_server
from tests.helpers.pg_server import ClusterLeftRunning, NoServer, no_server


def test_no_server_skips_locally(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no PostgreSQL server: initdb not found"):
        no_server("initdb not found")


@pytest.mark.parametrize("ci", ["true", "1", "TRUE"])
def test_no_server_fails_under_ci(monkeypatch: pytest.MonkeyPatch, ci: str) -> None:
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception, match="CI must run the PostgreSQL tests"):
        no_server("initdb not found")


@pytest.mark.skipif(bool(__import__("os").environ.get("CITYLOG_TEST_PG")), reason="an existing server is used")
def test_the_server_runs_as_a_non_root_user(pg_cluster: str) -> None:
    import psycopg

    with psycopg.connect(pg_cluster) as conn:
        row = conn.execute("SELECT current_setting('data_directory')").fetchone()
    assert row is not None
    owner = Path(row[0]).stat().st_uid
    assert owner != 0  # initdb refuses root; the data directory belongs to the server's user
    assert "unix_socket" not in pg_cluster and "host=/" in pg_cluster  # a local socket, no TCP port


def _fake_server(data: Path) -> subprocess.Popen[bytes]:
    """A process standing for a postmaster: its pid in ``data/postmaster.pid``."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    data.mkdir()
    (data / "postmaster.pid").write_text(f"{proc.pid}\n{data}\n")
    return proc


def test_a_failed_stop_kills_the_server_and_says_so(tmp_path: Path) -> None:
    proc = _fake_server(tmp_path / "data")

    def failing_stop() -> None:
        raise NoServer("pg_ctl stop… failed: server does not shut down")

    try:
        with pytest.warns(RuntimeWarning, match="pg_ctl stop failed .*was killed"):
            pg_server.stop(tmp_path / "data", failing_stop)
        assert proc.poll() is not None  # killed (and reaped)
    finally:
        proc.kill()
        proc.wait()


def test_a_server_that_survives_the_kill_fails_loudly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    proc = _fake_server(tmp_path / "data")
    monkeypatch.setattr(pg_server, "_kill", lambda pid: None)  # the kill has no effect
    monkeypatch.setattr(pg_server, "_pause", lambda: None)

    def failing_stop() -> None:
        raise subprocess.TimeoutExpired("pg_ctl", 120)

    try:
        with pytest.raises(ClusterLeftRunning, match="still runs after pg_ctl stop failed"):
            pg_server.stop(tmp_path / "data", failing_stop)
    finally:
        proc.kill()
        proc.wait()


def test_a_clean_stop_is_quiet(tmp_path: Path, recwarn: pytest.WarningsRecorder) -> None:
    stopped = []
    pg_server.stop(tmp_path / "data", lambda: stopped.append(True))
    assert stopped == [True] and not recwarn.list
