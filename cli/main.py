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

import importlib

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


# The modules that register commands, in the order ``--help`` lists them, and
# which module registers each command: start-up imports only the module of the
# command invoked (every module for the top-level ``--help`` or an unknown name).
# tests/cli/test_startup.py checks this table against what the modules register.
MODULES = ("games", "play", "inspect", "files", "notes", "referee", "rules", "simulate", "stores", "tui", "keys", "mail", "hint")
COMMAND_MODULES = {
    "new": "games", "list": "games", "show": "games", "log": "games",
    "move": "play", "autoplay": "play", "play": "play",
    "explain": "inspect", "diff": "inspect", "verify": "inspect",
    "export": "files", "import": "files", "fork": "files", "picture": "files",
    "note": "notes", "tree": "notes",
    "score": "referee", "where": "referee",
    "rules": "rules",
    "simulate": "simulate", "demo": "simulate",
    "copy": "stores", "watch": "stores",
    "tui": "tui",
    "key": "keys",
    "invite": "mail", "join": "mail", "apply": "mail", "outbox": "mail", "inbox": "mail", "legal": "mail",
    "hint": "hint",
}  # fmt: skip

_ROOT_OPTIONS_WITH_VALUES = ("--db", "--durability")


def invoked_name(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names, if any (skipping the root options)."""
    args = iter(argv)
    for arg in args:
        if arg in _ROOT_OPTIONS_WITH_VALUES:
            next(args, None)
        elif not arg.startswith("-"):
            return arg
    return None


def new_app() -> typer.Typer:
    """The bare application: root options, no commands yet."""
    app = typer.Typer(
        cls=OneLineErrors,
        name="citylog",
        help="Record, replay and adjudicate Card City, 5x5 City and Point City games.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # plain Click help and errors: no rich/markdown import at start-up
    )
    app.callback()(_root)
    return app


def make_app(argv: Sequence[str] | None = None) -> typer.Typer:
    """The application with the command ``argv`` invokes (if it names a known
    one), else with every command: start-up imports and builds one command's
    module and parameters instead of every command's."""
    app = new_app()
    name = invoked_name(argv or ())
    wanted = [COMMAND_MODULES[name]] if name in COMMAND_MODULES else list(MODULES)
    for module in wanted:
        importlib.import_module(f"cli.{module}").register(app)
    if name in COMMAND_MODULES:
        app.registered_commands[:] = [c for c in app.registered_commands if c.name == name]
        app.registered_groups[:] = [g for g in app.registered_groups if g.name == name]
    return app


_full_app: typer.Typer | None = None


def __getattr__(name: str) -> Any:
    """``cli.main.app``: the application with every command (tests, embedding)."""
    global _full_app
    if name != "app":
        raise AttributeError(name)
    if _full_app is None:
        _full_app = make_app()
    return _full_app


def main() -> None:
    app = make_app(sys.argv[1:])
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
