"""The options and arguments several commands share, declared once.

A command module writes ``json: Json = False`` or ``ref: GameOrFile`` instead
of repeating ``typer.Option("--json", help=…)``; the words (metavar, help,
completion) are the same everywhere because they are written here only.
Importing this module costs nothing beyond typer (start-up, issue 14): the
store is opened only when the shell asks for completions.
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

JSON_HELP = "Print the result as JSON (one object per line), for scripts."
FORCE_HELP = "Overwrite the output file"


def complete_game(ctx: Any, incomplete: str) -> list[str]:
    """Tab completion of a GAME: the stored ids starting with what was typed (and
    ``last``); none for a FILE-looking word, so the shell completes file names."""
    if "/" in incomplete or "." in incomplete:
        return []
    try:
        from events.backends import open_store

        store = open_store(ctx.find_root().params.get("db"), readonly=True)
        try:
            ids = store.ids_with_prefix(incomplete, 50) if incomplete else [g.id for g in store.list_games()][-50:]
        finally:
            store.close()
    except Exception:  # noqa: BLE001 - completion never fails loudly
        return []
    return ids + (["last"] if "last".startswith(incomplete.lower()) else [])


Json = Annotated[bool, typer.Option("--json", help=JSON_HELP)]
"""``--json``: the result as JSON, one object per line, the same keys everywhere."""

Force = Annotated[bool, typer.Option("--force", help=FORCE_HELP)]
"""``--force``: write over an existing output file."""

# A GAME argument completes the stored ids (complete_game), attached by
# cli.conventions: Typer's own ``autocompletion=`` keeps only the answers that
# start with what was typed, case-sensitively, and an id's start may be typed in
# any case; its ``shell_complete=`` is deprecated.
Game = Annotated[str, typer.Argument(metavar="GAME")]
"""A stored game: an id, a unique start of one, or ``last``."""

GameOrFile = Annotated[str, typer.Argument(metavar="GAME|FILE")]
"""A stored game or an exported file (an existing file wins)."""

ViewAs = Annotated[Optional[str], typer.Option("--as", help="Only what this player may see")]
"""``--as PLAYER``: that player's view (hidden cards hidden)."""
