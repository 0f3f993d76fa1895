"""``citylog``: record, replay and adjudicate Card City, 5x5 City and Point City."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup

try:  # typer ≥ 0.20 carries its own copy of Click
    from typer._click import exceptions as click_errors
    from typer._click.utils import make_default_short_help
except ImportError:  # pragma: no cover - older typer on plain Click
    from click import exceptions as click_errors  # type: ignore[no-redef]
    from click.utils import make_default_short_help  # type: ignore[no-redef]

import importlib

from cli.context import AppState, state
from cli.output import one_line

# -- conventions every command follows (issue 14) -------------------------------
# Applied to the Click commands as they are built: global options accepted after
# the command too, one metavar style (GAME, FILE, PLAYER, N — never <str> or
# {game}), help on --json, flags without a --no- twin's "[default: no-force]".
METAVARS = {
    "as_": "PLAYER", "player": "PLAYER", "at": "SEQ", "out": "FILE", "key": "FILE", "seed": "SEED",
    "players": "PLAYERS", "games": "N", "limit": "N", "budget": "N", "last": "N", "coins": "N",
    "planning": "N", "bots": "POLICY", "option": "KEY=VALUE", "game": "GAME", "status": "STATUS",
    "after": "GAME", "format": "FORMAT", "chance": "OUTCOME", "try_": "COMMAND", "from_": "STORE",
    "to": "STORE", "for_": "SECONDS", "variant": "VARIANT", "sides": "SIDES", "card": "CARD",
    "tag": "TAG", "db": "FILE|URL", "durability": "full|normal", "game_id": "GAME", "ref": "GAME|FILE",
}  # fmt: skip
JSON_HELP = "Print the result as JSON (one object per line), for scripts."


def _metavar(param: Any) -> str:
    name = param.name or ""
    return METAVARS.get(name, name.strip("_").upper())


def _plain_argument_metavar(self: Any, ctx: Any, *, usage: bool = False) -> str:
    """``GAME``, ``[GAME]``, ``FILE...``: no braces, no ``:type``."""
    var = self.metavar or _metavar(self)
    if self.nargs != 1 and not var.endswith(("...", "…")):
        var += "..."
    return f"[{var}]" if usage and not self.required else var


_PLAIN_CLASSES: dict[type, type] = {}


def _complete_game(ctx: Any, param: Any, incomplete: str) -> list[str]:
    """Tab completion of a GAME: the stored ids starting with what was typed (and
    ``last``); none for a FILE-looking word, so the shell completes file names."""
    if "/" in incomplete or "." in incomplete:
        return []
    try:
        from events.store import open_store

        store = open_store(ctx.find_root().params.get("db"), readonly=True)
        try:
            ids = store.ids_with_prefix(incomplete, 50) if incomplete else [g.id for g in store.list_games()][-50:]
        finally:
            store.close()
    except Exception:  # noqa: BLE001 - completion never fails loudly
        return []
    return ids + (["last"] if "last".startswith(incomplete.lower()) else [])


def _set_global(name: str) -> Any:
    def callback(ctx: Any, param: Any, value: Any) -> Any:
        if value is not None and not ctx.resilient_parsing:
            if name == "durability":
                value = _check_durability(value)
            setattr(state(ctx), name, value)
        return value

    return callback


def _check_durability(value: str) -> str:
    if value not in ("full", "normal"):
        raise typer.BadParameter("--durability is 'full' or 'normal'")
    return value


def _global_options() -> list[Any]:
    """--db and --durability for a subcommand: the same as before the command."""
    from typer.core import TyperOption

    return [
        TyperOption(
            param_decls=["--db"], type=str, default=None, expose_value=False, is_eager=True,
            callback=_set_global("db"), metavar="FILE|URL", show_default=False,
            help="The database (also before the command; default: $CITYLOG_DB or the user data dir).",
        ),
        TyperOption(
            param_decls=["--durability"], type=str, default=None, expose_value=False, is_eager=True,
            callback=_set_global("durability"), metavar="full|normal", show_default=False,
            help="'full' (default) or 'normal' (faster; also before the command).",
        ),
    ]


def conventions(cmd: Any, root: bool = False) -> None:
    """Apply the CLI's conventions to a built Click command (and its subcommands)."""
    for sub in getattr(cmd, "commands", {}).values():
        conventions(sub)
    for param in cmd.params:
        if param.param_type_name == "argument":
            cls = type(param)
            if cls not in _PLAIN_CLASSES:
                _PLAIN_CLASSES[cls] = type(f"Plain{cls.__name__}", (cls,), {"make_metavar": _plain_argument_metavar})
            param.__class__ = _PLAIN_CLASSES[cls]
            if (param.metavar or "").startswith("GAME") and param._custom_shell_complete is None:
                param._custom_shell_complete = _complete_game
            continue
        if param.is_flag:
            param.show_default = False
            if param.name == "json" and not param.help:
                param.help = JSON_HELP
        elif param.metavar is None:
            param.metavar = _metavar(param)
    if not root:
        names = {p.name for p in cmd.params}
        cmd.params.extend(o for o in _global_options() if o.name not in names)


class OneLineErrors(TyperGroup):
    """Usage errors as one line on stderr, exit 2 (not Click's multi-line box).
    Its commands follow :func:`conventions`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for sub in self.commands.values():
            conventions(sub)
        conventions(self, root=True)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The command list; for the top-level help built without any command
        (:func:`make_app`), from the table :data:`COMMANDS`, as Click would."""
        if self.commands:
            return super().format_commands(ctx, formatter)
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, make_default_short_help(summary, limit).strip()) for name, (_, summary) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

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
            where = e.ctx.command_path if isinstance(e, click_errors.UsageError) and e.ctx else None
            if where is None:  # a parser error carries no context: name the command from argv
                name = invoked_name(sys.argv[1:] if args is None else args)
                where = f"citylog {name}" if name in COMMAND_MODULES else "citylog"
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
            metavar="FILE|URL",
            help="The SQLite file (default: the user data dir) or a postgresql:// URL; "
            "also accepted after the command.",
        ),
    ] = None,
    durability: Annotated[
        str,
        typer.Option(
            metavar="full|normal",
            help="'full' (synchronous=FULL, the default) or 'normal' (faster; may lose the last "
            "commits on power loss, never corrupts).",
        ),
    ] = "full",
    version: Annotated[
        bool,
        typer.Option("--version", is_eager=True, callback=_print_version, help="Print citylog's version and exit."),
    ] = False,
) -> None:
    """Record, replay and adjudicate Card City, 5x5 City and Point City games.

    A GAME is a game id, a unique start of one (git-style, any case), or
    'last' (the newest game not made by simulate).  --db and --durability may
    also follow the command.

    \b
    Example:
      citylog demo
      citylog new card-city --players alice,bob --bots bob=greedy
      citylog play last --as alice
    """
    _check_durability(durability)
    ctx.obj = AppState(db=db, durability="normal" if durability == "normal" else "full")


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as dist_version

        try:
            number = dist_version("citylog")
        except PackageNotFoundError:  # pragma: no cover - run from a source tree
            number = "unknown"
        sys.stdout.write(f"citylog {number}\n")
        raise typer.Exit(0)


# The modules that register commands, in the order their commands are built.
MODULES = ("games", "library", "play", "inspect", "files", "notes", "referee", "rules", "simulate", "stores", "tui", "keys", "mail", "hint", "engine")
# Every command, in the order ``--help`` lists them: the module that registers
# it and its summary (the first paragraph of its help).  Start-up imports only
# the invoked command's module; the top-level ``--help`` (and ``--version``)
# import none and list the commands from this table.  tests/cli/test_startup.py
# holds the table equal to what the modules register and the lazy ``--help``
# byte-equal to the one built from every command.
COMMANDS: dict[str, tuple[str, str]] = {
    "new": ("games", "Create a game."),
    "list": ("games", "Games in the database, oldest first, a page at a time."),
    "show": ("games", "The table: boards, coins, hands and whose turn."),
    "log": ("games", "The numbered events, readable."),
    "delete": ("library", "Delete games from the database, with their notes and tags."),
    "tag": ("library", "Label a game with tags, to find it with 'list --tag'."),
    "untag": ("library", "Take tags off a game."),
    "move": ("play", "Make one move, non-interactively (scripts, email)."),
    "autoplay": ("play", "Bots play every remaining decision to the end."),
    "play": ("play", "Play at a prompt: the board and numbered legal commands."),
    "explain": ("inspect", "Who did what at SEQ, and why it was legal."),
    "diff": ("inspect", "Compare two games: where they part, if they do."),
    "verify": ("inspect", "Check a game: hash chain, every event legal, chance re-derived."),
    "export": ("files", "Export a game: JSON Lines, a text record or an HTML replay."),
    "import": ("files", "Verify a log file or text record, then store it as a new game."),
    "fork": ("files", "A new game holding events 1..SEQ of GAME: what if?"),
    "picture": ("files", "The position as an SVG picture."),
    "note": ("notes", "Attach a note to a point of a game, or list its notes."),
    "tree": ("notes", "A game with its forks as a tree."),
    "score": ("referee", "Score finished boards typed in from the table."),
    "where": ("referee", "Where may this card be built?"),
    "rules": ("rules", "Print a ruling by its id, or every ruling's id and first words."),
    "simulate": ("simulate", "Many complete bot games, with statistics per seat."),
    "demo": ("simulate", "A seeded bot game, recorded and printed as it plays."),
    "copy": ("stores", "Copy games between stores (SQLite, PostgreSQL), verified."),
    "watch": ("stores", "Follow a game as other processes append to it, until it ends."),
    "tui": ("tui", "Browse, replay, fork, diff and play games in a terminal UI."),
    "invite": ("mail", "Write a signed invitation for a seat of a play-by-email game."),
    "join": ("mail", "Answer an invitation with your key and fresh entropy, signed."),
    "apply": ("mail", "Apply move or join files received by email."),
    "outbox": ("mail", "Write what each player needs now into DIR."),
    "inbox": ("mail", "Apply every move and join file in DIR."),
    "legal": ("mail", "A player's legal commands now (none if it is not their turn)."),
    "hint": ("hint", "What would a good player do here?"),
    "engine": ("engine", "A JSON-lines protocol on stdin/stdout, for bots and tournaments."),
    "key": ("keys", "Ed25519 keys for play by email."),
}  # fmt: skip
COMMAND_MODULES = {name: module for name, (module, _) in COMMANDS.items()}

_ROOT_OPTIONS_WITH_VALUES = ("--db", "--durability")
_COMPLETE_VAR = "_CITYLOG_COMPLETE"
"""Set by the shell when it asks for completions (Click's protocol): every command is built."""


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
        no_args_is_help=True,
        add_completion=True,  # --install-completion / --show-completion (the full app answers completions)
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # plain Click help and errors: no rich/markdown import at start-up
    )
    app.callback()(_root)
    return app


def make_app(argv: Sequence[str] | None = None) -> typer.Typer:
    """The application with the command ``argv`` invokes (if it names a known
    one); with no command at all when ``argv`` names none (the top-level help and
    ``--version``: the help lists :data:`COMMANDS`); else (no ``argv``, an
    unknown name, shell completion) with every command.  Start-up imports and
    builds one command's module and parameters, or none, instead of every one."""
    app = new_app()
    name = invoked_name(argv or ())
    if name in COMMAND_MODULES:
        wanted = [COMMAND_MODULES[name]]
    elif argv is not None and name is None and _COMPLETE_VAR not in os.environ:
        wanted = []
    else:
        wanted = list(MODULES)
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
    except BrokenPipeError:
        from cli.output import reader_went_away

        reader_went_away()
    except Exception as exc:  # noqa: BLE001 - last line of defence: no traceback
        from cli.output import one_line

        sys.stderr.write(f"citylog: internal error: {type(exc).__name__}: {one_line(str(exc))}\n")
        raise SystemExit(3) from None


if __name__ == "__main__":
    main()
