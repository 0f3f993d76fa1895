"""``citylog rules [ID]``: any ruling by its id, or the list of them."""

from __future__ import annotations

import textwrap
from typing import Annotated, Optional

import typer

from cli.errors import fail, guarded
from cli.output import emit_json, say
from cli.rulings import find, rulings
from cli.options import Json


def rules(
    rule: Annotated[Optional[str], typer.Argument(metavar="ID", help="A ruling id (CC-3, FC-7, PC-2, CL-4, FL-1, PL-13, GL-1), a rulebook section's id (CB-6) or name ('Zoning Laws')")] = None,
    json: Json = False,
) -> None:
    """Print a ruling by its id, or every ruling's id and first words.

    An error naming [CC-10] points at one.  CC-/FC-/PC- rulings complete the
    Card City, 5x5 City and Point City rulebooks; CL-/FL-/PL-/GL- are
    citylog's own readings where neither decides; CB-/FB- name the Card City
    and 5x5 City rulebooks' sections (citylog rules "Zoning Laws").

    \b
    Example:
      citylog rules CC-10
    """
    every = rulings()
    if json:
        chosen = list(every.values()) if rule is None else []
        if rule is not None:
            found = find(rule)
            chosen = [found] if found is not None else []
        for r in chosen:
            emit_json({"id": r.id, "section": r.section, "text": r.text})
        if chosen or rule is None:
            return
    if rule is None:
        section = None
        for r in every.values():
            if r.section != section:
                section = r.section
                say(f"{section}:")
            say(textwrap.shorten(f"  {r.text}", 100, placeholder=" …"))
        return
    key = rule.strip().strip("[]()").upper()
    found = find(rule)
    if found is None:
        prefix = key.split("-")[0]
        ids = [i for i in every if i.startswith(prefix + "-")]
        hint = f" ({prefix} rulings: {', '.join(ids)})" if ids else (
            " (ids look like CC-3, FC-7, PC-2, CL-4, FL-1, PL-13, GL-1, CB-6; or a rulebook section"
            " such as 'Zoning Laws')"
        )
        raise fail(f"no ruling {rule!r}{hint}")
    say(f"[{found.id}] {found.section}")
    say(textwrap.fill(found.text, 88))


def register(app: typer.Typer) -> None:
    app.command("rules")(guarded(rules))
