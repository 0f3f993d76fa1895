"""``citylog``: record, replay and adjudicate Card City, 5x5 City and Point City."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup

try:  # typer ≥ 0.20 carries its own copy of Click
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - older typer on plain Click
    from click import exceptions as click_errors  # type: ignore[no-redef]

from cli import files, games, hint, inspect, keys, mail, notes, play, referee, rules, simulate, stores, tui
from cli.context import AppState
from cli.output import one_line

class OneLineErrors(TyperGroup):
    """Usage errors as one line on stderr, exit 2 (not Click's multi-line box)."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except click_errors.NoArgsIsHelpError as e:
            sys.stdout.write(e.ctx.get_help() + "\n" if e.ctx else "")
            sys.exit(0)
        except click_errors.ClickException as e:
            message = one_line(" ".join(e.format_message().split()))
            where = e.ctx.command_path if isinstance(e, click_errors.UsageError) and e.ctx else "citylog"
            sys.stderr.write(f"{where}: {message}\n")
            sys.exit(e.exit_code)
        except typer.Abort:
            sys.stderr.write("citylog: aborted\n")
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(
    cls=OneLineErrors,
    name="citylog",
    help="Record, replay and adjudicate Card City, 5x5 City and Point City games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain Click help and errors: no rich/markdown import at start-up
)


@app.callback()
def _root(
    ctx: typer.Context,
    db: Annotated[
        Optional[str],
        typer.Option(
            "--db",
            envvar="CITYLOG_DB",
            help="The SQLite file (default: the user data dir) or a postgresql:// URL.",
        ),
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


for module in (games, play, inspect, files, notes, referee, rules, simulate, stores, tui, keys, mail, hint):
    module.register(app)


_ROOT_OPTIONS_WITH_VALUES = ("--db", "--durability")


def only_invoked(argv: list[str]) -> None:
    """Keep only the command ``argv`` invokes (if it names one), so that Typer
    builds one command's parameters at start-up instead of every command's."""
    name = None
    args = iter(argv)
    for arg in args:
        if arg in _ROOT_OPTIONS_WITH_VALUES:
            next(args, None)
        elif not arg.startswith("-"):
            name = arg
            break
    if name is None:
        return
    chosen = [c for c in app.registered_commands if c.name == name]
    if chosen:
        app.registered_commands[:] = chosen


def main() -> None:
    only_invoked(sys.argv[1:])
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
