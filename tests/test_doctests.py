"""The short examples in module docstrings are tests too (python-chess convention).

pytest runs them itself: ``pyproject.toml`` collects the packages with
``--doctest-modules``.  This file holds that configuration to its purpose: every
module whose text shows an example (``>>>``) lies under a collected path, and
doctest finds the example there (not in a comment or a plain string, where it
would never run).
"""

from __future__ import annotations

import doctest
import importlib
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "events", "replay", "cli")


def _pytest_config() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]


def _modules_with_examples() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                parts = path.relative_to(ROOT).with_suffix("").parts
                found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def test_pytest_collects_the_packages_as_doctest_modules() -> None:
    config = _pytest_config()
    assert "--doctest-modules" in str(config["addopts"]).split()
    assert set(PACKAGES) <= set(config["testpaths"])  # type: ignore[call-overload]


def test_there_are_examples() -> None:
    assert len(_modules_with_examples()) >= 29


@pytest.mark.parametrize("name", _modules_with_examples())
def test_every_example_is_one_doctest_runs(name: str) -> None:
    module = importlib.import_module(name)
    text = Path(module.__file__ or "").read_text(encoding="utf-8")
    tried = sum(len(t.examples) for t in doctest.DocTestFinder().find(module))
    shown = sum(line.lstrip().startswith(">>> ") for line in text.splitlines())
    assert tried >= shown > 0, f"{name}: {shown} examples in its text, doctest finds {tried}"
