"""The rulings, shipped with the package: the shared RULINGS.md (CC-/FC-/PC-) and
citylog's own (CL-/FL-/PL-, docs/rulings.md), copied here so ``citylog rules``
works from an installed package.  ``tests/cli/test_rules.py`` keeps the copies in
step with their sources.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources import files

SOURCES = ("RULINGS.md", "citylog-rulings.md")
_ID = re.compile(r"^- ((?:GN|CC|FC|PC|CL|FL|PL|GL|CB|FB)-[VSTUX]?\d+)\b")


@dataclass(frozen=True)
class Ruling:
    id: str
    section: str
    """The document's heading it sits under (``Card City (CC)``)."""
    text: str


def text(name: str) -> str:
    return files(__name__).joinpath(name).read_text(encoding="utf-8")


def rulings() -> dict[str, Ruling]:
    """Every ruling by id, in document order."""
    out: dict[str, Ruling] = {}
    for name in SOURCES:
        section = ""
        current: list[str] = []
        rid = ""

        def close() -> None:
            if rid:
                out[rid] = Ruling(rid, section, " ".join(" ".join(current).split()))

        for line in text(name).splitlines():
            if line.startswith("#"):
                close()
                rid, current = "", []
                section = line.lstrip("#").strip()
                continue
            m = _ID.match(line)
            if m:
                close()
                rid, current = m.group(1), [line[2:]]
            elif rid and line.strip() and (line.startswith("  ") or not line.startswith("-")):
                current.append(line.strip())
            elif rid and line.startswith("- "):
                close()
                rid, current = "", []
        close()
    return out


def find(query: str) -> Ruling | None:
    """A ruling by id (``CC-10``, ``[CC-10]``) or a rulebook section by its name (``Zoning Laws``,
    ``Phase 2`` — Card City's phases) [GL-2]."""
    every = rulings()
    key = query.strip().strip("[]()").strip()
    found = every.get(key.upper())
    if found is not None:
        return found
    name = " ".join(key.lower().split())
    if not name:
        return None
    for r in every.values():
        if r.id[:2] not in ("CB", "FB"):
            continue
        title = r.text[len(r.id):].strip().lower()
        parts = [title] + [p.strip() for p in title.split("/")]
        if any(p.startswith(name) for p in parts):
            return r
    return None
