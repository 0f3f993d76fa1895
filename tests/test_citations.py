"""The project carries its own design: nothing in it cites a file outside it.

Comments and docs once cited a ``DESIGN.md`` that is not in the repository;
the design is ``docs/architecture.md`` now, and a citation of a file outside
the checkout (``../shared/…``, an absolute path of the machine it was written
on) is a broken link for everyone else.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT = {".py", ".md", ".toml", ".txt", ".tcss", ".cfg", ".ini", ".sh", ""}
SKIP_DIRS = {".git", "__pycache__", "golden", "snapshots", "__snapshots__", ".hypothesis", "build", "dist"}
OUTSIDE = re.compile(r"DESIGN\.md|\.\./shared\b|/work/(?:shared|main|wt)\b")


def _files() -> list[Path]:
    out = []
    for path in sorted(ROOT.rglob("*")):
        rel = path.relative_to(ROOT)
        if not path.is_file() or SKIP_DIRS & set(rel.parts) or rel.parts[0].endswith(".egg-info"):
            continue
        if path.suffix in TEXT and path != Path(__file__).resolve():
            out.append(path)
    return out


def test_no_file_cites_a_file_outside_the_repository() -> None:
    found = []
    for path in _files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "cites a file outside the repository (cite docs/architecture.md):\n" + "\n".join(found)


def test_the_design_is_in_the_repository_and_the_readme_points_to_it() -> None:
    design = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for section in ("The layers", "The properties that matter", "The engine contract", "trust model", "Adding a game"):
        assert section in design
    layout = (ROOT / "README.md").read_text(encoding="utf-8").split("## Layout", 1)[1].split("\n## ", 1)[0]
    assert "docs/architecture.md" in layout


def test_every_property_cited_is_one_the_design_numbers() -> None:
    design = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    numbered = {int(n) for n in re.findall(r"^(\d)\. \*\*", design.split("## 2.", 1)[1].split("\n## ", 1)[0], re.M)}
    cited = set()
    for path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        cited |= {int(n) for n in re.findall(r"docs/architecture\.md,\s+property\s+(\d+)", text)}
    assert cited and cited <= numbered, f"cited {sorted(cited)}, the design numbers {sorted(numbered)}"
