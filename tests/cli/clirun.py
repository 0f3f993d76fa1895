"""Running the CLI in-process against a database file (CliRunner)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from cli.main import app


def run(db: Path, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", str(db), *args], input=input)
    return result.exit_code, result.stdout, result.stderr


def ok(db: Path, *args: str, input: str | None = None) -> str:
    code, out, err = run(db, *args, input=input)
    assert code == 0, f"{args} exited {code}: {err}{out}"
    return out
