"""The short examples in module docstrings are tests too (python-chess convention)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "core.rng",
    "core.boardtext",
    "core.card_city.cards",
    "core.card_city.city",
    "core.card_city.scoring",
    "core.card_city.text",
    "core.card_city.boardfile",
    "core.card_city.squares",
    "core.ruletags",
    "core.scene",
    "core.scene_text",
    "cli.results",
    "cli.simulate",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0, f"{name} has no examples"
    assert failures == 0
