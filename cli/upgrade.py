"""``citylog upgrade``: a game switches to the current rules when they re-decide it alike (issue 24)."""

from __future__ import annotations

from typing import Annotated

import msgspec
import typer

from cli.context import game_id, service
from cli.errors import CHECK_FAILED, guarded
from cli.output import emit_json, one_line, say
from cli.options import Json


def upgrade(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(metavar="GAME")],
    check: Annotated[bool, typer.Option("--check", help="Only say whether it would upgrade; write nothing.")] = False,
    json: Json = False,
) -> None:
    """Switch a game to the current rules, if they re-decide it alike.

    Every recorded command of GAME is re-decided under the current rules; if
    each is still legal and gives byte-identical events, a chained line records
    the switch (from, to) and play goes on under the new rules [CL-U1].
    Otherwise the first command they decide differently is named, with what the
    old and the new rules make of it, and the game stays on its rules, which
    it can still be played by (exit 1) [CL-U2].  A game already on the current
    rules: nothing to do (exit 0).  --check only reports.  In a game played by
    email only the host upgrades, and every player's verify re-checks it [CL-U4].

    \b
    Example:
      citylog upgrade last --check
      citylog upgrade 3f2a9c
    """
    gid = game_id(ctx, ref, readonly=check)
    report = service(ctx, readonly=check).upgrade(gid, check=check)
    if report.status == "current":
        text = f"game {gid} is already on the current rules {report.to_version}: nothing to upgrade"
    elif report.status == "upgradable":
        text = (f"game {gid} can be upgraded from {report.from_version} to {report.to_version}: "
                f"every recorded command re-decides alike (--check: nothing written) [CL-U1]")
    elif report.status == "upgraded":
        text = (f"game {gid} upgraded from {report.from_version} to {report.to_version} at seq {report.seq}: "
                f"every recorded command re-decides alike; play goes on under {report.to_version} [CL-U1]")
    elif report.difference is not None:
        goes_on = "" if report.over else " (play goes on under it)"
        text = (f"game {gid} stays on {report.from_version}{goes_on}: "
                f"{report.to_version} decides a recorded command differently — {report.reason}")
    else:
        text = f"game {gid} stays on {report.from_version}: {report.reason}"
    if json:
        emit_json({**msgspec.to_builtins(report), "message": text})
    else:
        say(one_line(text))
    if report.status == "refused":
        raise typer.Exit(CHECK_FAILED)


def register(app: typer.Typer) -> None:
    app.command("upgrade")(guarded(upgrade))
