"""Hypothesis profiles: ``ci`` (default) keeps the suite fast; ``thorough`` is on demand.

    HYPOTHESIS_PROFILE=thorough python -m pytest tests
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# -- PostgreSQL: one throwaway cluster per session, a fresh schema per test ------
import uuid  # noqa: E402
from collections.abc import Iterator  # noqa: E402

import pytest  # noqa: E402

from tests.helpers import pg_server  # noqa: E402
from tests.helpers.pg_server import no_server  # noqa: E402


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[str]:
    """The URL of a PostgreSQL server for this session.  Locally, without one,
    PostgreSQL tests skip with the reason; under CI=true they fail instead."""
    try:
        with pg_server.throwaway_cluster() as url:
            yield url
    except pg_server.NoServer as exc:
        no_server(str(exc))


@pytest.fixture
def pg_url(pg_cluster: str) -> Iterator[str]:
    """A URL whose connections use a fresh, empty schema (dropped afterwards)."""
    import psycopg

    schema = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(pg_cluster, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    yield pg_server.with_schema(pg_cluster, schema)
    with psycopg.connect(pg_cluster, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")
