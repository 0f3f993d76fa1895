"""The checks the code assumes run with the tests (issue 27 item 6): ``ruff`` and
``mypy`` as pyproject.toml configures them, so ``python -m pytest`` (what
``.ci/run`` runs) stays the one command.

Each tool runs once, on the whole project, in a subprocess.  mypy keeps its
cache in ``.mypy_cache``: without one it costs ~12 s of CPU, with one ~1 s.
Both are test dependencies (``.[test]``); under CI=true a missing tool fails.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(tool) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is not installed (pip install -e '.[test]')")
        pytest.skip(f"{tool} is not installed")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    done = _run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing() -> None:
    done = _run("mypy")  # the files and options of [tool.mypy]
    assert done.returncode == 0, done.stdout + done.stderr
