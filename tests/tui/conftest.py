"""A small database with fixed game ids and seeds, so screens are deterministic."""

from __future__ import annotations

import asyncio
import inspect
import shutil
from pathlib import Path

import pytest

from core import registry
from events.service import GameService
from events.sqlite_store import SqliteStore

HAS_5X5 = "5x5-city" in registry.available()


def _all_bots(n: int) -> dict[int, str]:
    return {i: "random" for i in range(n)}


def build(path: Path) -> None:
    store = SqliteStore(path, durability="normal")
    svc = GameService(store)
    svc.create("card-city", ["ada", "ben", "cy"], seed="demo", bots=_all_bots(3), game_id="cc-demo")
    svc.create("card-city", ["ada", "ben", "cy"], seed="other", bots=_all_bots(3), game_id="cc-other")
    svc.create("point-city", ["pia", "quin"], seed="pc", bots=_all_bots(2), game_id="pc-demo")
    if HAS_5X5:
        svc.create("5x5-city", ["eve", "fay"], seed="55", bots=_all_bots(2), game_id="55-demo")
    # ada plays by hand, ben is a bot
    svc.create("card-city", ["ada", "ben"], seed="play", bots={1: "random"}, game_id="cc-play")
    store.close()


@pytest.fixture(scope="session")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tui-template") / "citylog.db"
    build(path)
    return path


@pytest.fixture
def db(template_db: Path, tmp_path: Path) -> str:
    """A fresh copy of the template database for each test (tests write to it)."""
    return fresh_copy(template_db, tmp_path)


def fresh_copy(template: Path, tmp_path: Path) -> str:
    """``template`` copied into the test's own folder: the database a test writes to."""
    target = tmp_path / "citylog.db"
    shutil.copy(template, target)
    return str(target)


@pytest.fixture
def service(db: str):
    store = SqliteStore(db)
    yield GameService(store)
    store.close()


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run ``async def`` tests here with asyncio (no async plugin is installed)."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = pyfuncitem._fixtureinfo.argnames
    asyncio.run(pyfuncitem.obj(**{n: pyfuncitem.funcargs[n] for n in names}))
    return True
