"""The conventions every command follows (issue 14), applied as its Click command is built.

Global options accepted after the command too (``--db``, ``--durability``), one
metavar style (GAME, FILE, PLAYER, N — never ``<str>`` or ``{game}``), help on
``--json``, flags without a ``--no-`` twin's ``[default: no-force]``.

What can be declared is declared in :mod:`cli.options` (``Json``, ``Game``,
``GameOrFile``, …); :func:`conventions` gives the same words to a parameter a
command module still declares by hand, and does what no declaration can: Click
has no public way to print an optional argument's metavar as ``[GAME]`` or to
add the global options to every subcommand.
"""

from __future__ import annotations

from typing import Any

import typer

from cli.context import state
from cli.options import JSON_HELP, complete_game

METAVARS = {
    "as_": "PLAYER", "player": "PLAYER", "at": "SEQ", "out": "FILE", "key": "FILE", "seed": "SEED",
    "players": "PLAYERS", "games": "N", "limit": "N", "budget": "N", "last": "N", "coins": "N",
    "planning": "N", "bots": "POLICY", "option": "KEY=VALUE", "game": "GAME", "status": "STATUS",
    "after": "GAME", "format": "FORMAT", "chance": "OUTCOME", "try_": "COMMAND", "from_": "STORE",
    "to": "STORE", "for_": "SECONDS", "variant": "VARIANT", "sides": "SIDES", "card": "CARD",
    "tag": "TAG", "db": "FILE|URL", "durability": "full|normal", "game_id": "GAME", "ref": "GAME|FILE",
}  # fmt: skip


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
    return complete_game(ctx, incomplete)


def _set_global(name: str) -> Any:
    def callback(ctx: Any, param: Any, value: Any) -> Any:
        if value is not None and not ctx.resilient_parsing:
            if name == "durability":
                value = check_durability(value)
            setattr(state(ctx), name, value)
        return value

    return callback


def check_durability(value: str) -> str:
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
            # a GAME completes the stored ids, in any case (cli.options.complete_game)
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
