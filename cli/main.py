"""``citylog``: record, replay and adjudicate Card City, 5x5 City and Point City."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli import games, hint, inspect, files, play, referee, simulate, tui
from cli.context import AppState

app = typer.Typer(
    name="citylog",
    help="Record, replay and adjudicate Card City, 5x5 City and Point City games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root(
    ctx: typer.Context,
    db: Annotated[
        Optional[Path],
        typer.Option("--db", envvar="CITYLOG_DB", help="The database file (default: the user data dir)."),
    ] = None,
    durability: Annotated[
        str,
        typer.Option(
            help="'full' (synchronous=FULL, the default) or 'normal' (faster; may lose the last "
            "commits on power loss, never corrupts)."
        ),
    ] = "full",
) -> None:
    if durability not in ("full", "normal"):
        raise typer.BadParameter("--durability is 'full' or 'normal'")
    ctx.obj = AppState(db=db, durability="normal" if durability == "normal" else "full")


for module in (games, play, inspect, files, referee, simulate, tui, hint):
    module.register(app)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("citylog: interrupted\n")
        raise SystemExit(130) from None
    except Exception as exc:  # noqa: BLE001 - last line of defence: no traceback
        sys.stderr.write(f"citylog: internal error: {type(exc).__name__}: {exc}\n")
        raise SystemExit(3) from None


if __name__ == "__main__":
    main()
