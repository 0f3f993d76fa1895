"""The PostgreSQL test server: skipped locally without one, never under CI=true."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("citylog_conftest", Path(__file__).with_name("conftest.py"))
assert _spec is not None and _spec.loader is not None
conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conftest)


def test_no_server_skips_locally(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no PostgreSQL server: initdb not found"):
        conftest.no_server("initdb not found")


@pytest.mark.parametrize("ci", ["true", "1", "TRUE"])
def test_no_server_fails_under_ci(monkeypatch: pytest.MonkeyPatch, ci: str) -> None:
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception, match="CI must run the PostgreSQL tests"):
        conftest.no_server("initdb not found")


@pytest.mark.skipif(bool(__import__("os").environ.get("CITYLOG_TEST_PG")), reason="an existing server is used")
def test_the_server_runs_as_a_non_root_user(pg_cluster: str) -> None:
    import psycopg

    with psycopg.connect(pg_cluster) as conn:
        row = conn.execute("SELECT current_setting('data_directory')").fetchone()
    assert row is not None
    owner = Path(row[0]).stat().st_uid
    assert owner != 0  # initdb refuses root; the data directory belongs to the server's user
    assert "unix_socket" not in pg_cluster and "host=/" in pg_cluster  # a local socket, no TCP port
