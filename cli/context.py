"""The app's shared state: which database, opened once per invocation."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import typer

from events.service import GameService
from events.store import SqliteStore, default_db_path


@dataclass
class AppState:
    db: Path | None = None
    durability: Literal["full", "normal"] = "full"
    _service: GameService | None = field(default=None, repr=False)

    def service(self) -> GameService:
        if self._service is None:
            path = self.db or default_db_path()
            self._service = GameService(SqliteStore(path, durability=self.durability))
        return self._service


def state(ctx: typer.Context) -> AppState:
    obj = ctx.find_root().obj
    if not isinstance(obj, AppState):
        obj = AppState()
        ctx.find_root().obj = obj
    return obj


def service(ctx: typer.Context) -> GameService:
    return state(ctx).service()
