"""Running the CLI in-process against a database file (CliRunner)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from cli.main import app


def run(db: Path | str, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", str(db), *args], input=input)
    # every failure ends as an exit code, never as an exception escaping the CLI
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.stdout, result.stderr


def ok(db: Path | str, *args: str, input: str | None = None) -> str:
    code, out, err = run(db, *args, input=input)
    assert code == 0, f"{args} exited {code}: {err}{out}"
    return out


def dump(db: Path) -> list[str]:
    """The database as SQL text: equal before and after means nothing was written."""
    with sqlite3.connect(db) as conn:
        return list(conn.iterdump())
