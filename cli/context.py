"""The app's shared state: which store, opened once per invocation.

Read-only commands (``list``, ``show``, ``log``, ``export``, ``diff``,
``explain``, ``verify``, ``watch``) open the store read-only: a database in a
read-only directory can be read, and a missing file is an empty store that is
not created.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import typer

if TYPE_CHECKING:
    from events.service import GameService


@dataclass
class AppState:
    db: str | None = None
    """A SQLite path or a ``postgresql://`` URL; None: ``CITYLOG_DB`` or the default file."""
    durability: Literal["full", "normal"] = "full"
    _service: GameService | None = field(default=None, repr=False)
    _readonly: bool = field(default=False, repr=False)

    def service(self, readonly: bool = False) -> GameService:
        from events.service import GameService
        from events.backends import open_store

        if self._service is not None and self._readonly and not readonly:
            self._service.store.close()
            self._service = None
        if self._service is None:
            store = open_store(self.db, durability=self.durability, readonly=readonly)
            self._service = GameService(store)
            self._readonly = readonly
        return self._service


def data_dir() -> Path:
    """citylog's data directory: ``$XDG_DATA_HOME/citylog``, else ``~/.local/share/citylog``."""
    import os

    data_home = os.environ.get("XDG_DATA_HOME")
    base = Path(data_home).expanduser() if data_home else Path.home() / ".local" / "share"
    return base / "citylog"


def keys_folder(db: str | None) -> Path:
    """Where the keys of the store ``db`` live: beside a SQLite file
    (``DIR/keys`` for ``DIR/citylog.db``); for a ``postgresql://`` store, which
    has no folder, the data directory's ``keys`` (never a path made from the URL)."""
    from events.targets import default_db_target, is_url

    target = db or default_db_target()
    if is_url(target):
        return data_dir() / "keys"
    return Path(target).expanduser().parent / "keys"


def state(ctx: typer.Context) -> AppState:
    obj = ctx.find_root().obj
    if not isinstance(obj, AppState):
        obj = AppState()
        ctx.find_root().obj = obj
    return obj


def service(ctx: typer.Context, readonly: bool = False) -> GameService:
    return state(ctx).service(readonly)


def game_id(ctx: typer.Context, ref: str, readonly: bool = False) -> str:
    """The id of the game ``ref`` names: an id, a unique start of one (any case),
    or ``last`` (:meth:`GameService.resolve`)."""
    return service(ctx, readonly).resolve(ref)


def game_or_file(ctx: typer.Context, ref: str, readonly: bool = False) -> str:
    """``ref`` if it is an existing file (a file always wins, as before), else the
    id of the game it names; "no game or file" if neither."""
    from events.service import ServiceError
    from events.store import GameNotFound

    if Path(ref).is_file():
        return ref
    try:
        return service(ctx, readonly).resolve(ref)
    except GameNotFound:
        raise ServiceError(f"no game or file {ref!r}") from None
