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
    from click import exceptions as click_errors  # type: ignore[no-redef,unused-ignore]
    from click.utils import make_default_short_help  # type: ignore[no-redef,unused-ignore]

import importlib

from cli.context import AppState
from cli.conventions import check_durability, conventions
from cli.output import one_line

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
            from cli.errors import error_line

            argv = list(sys.argv[1:] if args is None else args)
            sys.stderr.write(error_line(message, e.exit_code, where, as_json="--json" in argv))
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
    check_durability(durability)
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
MODULES = ("games", "library", "play", "inspect", "files", "notes", "referee", "rules", "simulate", "stores", "tui", "keys", "mail", "mailcmd", "hint", "analyse", "engine", "upgrade")
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
    "join": ("mail", "Answer an invitation with your key and committed entropy."),
    "apply": ("mail", "Apply move or join files received by email."),
    "outbox": ("mail", "Write what each player needs now into DIR."),
    "inbox": ("mail", "Apply every move and join file in DIR."),
    "legal": ("mail", "A player's legal commands now (none if it is not their turn)."),
    "timeout": ("mail", "Time out every seat whose deadline has passed (the host)."),
    "handover": ("mail", "Hand your seat to the bot, or take it back (a signed file)."),
    "reveal": ("mail", "Reveal the entropy your join committed to (a signed file)."),
    "hint": ("hint", "What would a good player do here?"),
    "analyse": ("analyse", "Judge every decision of a game from what its mover knew."),
    "engine": ("engine", "A JSON-lines protocol on stdin/stdout, for bots and tournaments."),
    "upgrade": ("upgrade", "Switch a game to the current rules, if they re-decide it alike."),
    "key": ("keys", "Ed25519 keys for play by email."),
    "mail": ("mailcmd", "Play by real email: setup, sync, accept, status, invite."),
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

        from cli.errors import error_line

        sys.stderr.write(error_line(f"internal error: {type(exc).__name__}: {one_line(str(exc))}", 3,
                                    as_json="--json" in sys.argv[1:]))
        raise SystemExit(3) from None


if __name__ == "__main__":
    main()
