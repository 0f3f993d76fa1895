"""``import events.envelope`` (the chain's format) loads no store and no backend
(issue 27, item 3): the package re-exports nothing and the store protocol
names no backend, so a reader of logs never imports SQLite's module or psycopg.
Run in a fresh interpreter, since this test session has long imported them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STORES = {"events.store", "events.sqlite_store", "events.pg_store", "events.backends", "psycopg", "sqlite3"}


def loaded_after(statement: str) -> set[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={"PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, check=True,
    )
    return set(json.loads(out.stdout))


def test_the_envelope_loads_no_store() -> None:
    assert loaded_after("import events.envelope") & STORES == set()


def test_the_store_protocol_loads_no_backend() -> None:
    assert loaded_after("import events.store") & (STORES - {"events.store"}) == set()


def test_the_check_sees_a_store_when_one_is_loaded() -> None:
    assert {"events.store", "events.sqlite_store"} <= loaded_after("import events.backends, events.sqlite_store")
