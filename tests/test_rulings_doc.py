"""docs/rulings.md and the code agree: every project ruling cited is recorded there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULING = re.compile(r"\b([CFP]L-\d+)\b")


def _cited(*folders: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for rid in RULING.findall(path.read_text("utf-8")):
                out.setdefault(rid, set()).add(str(path.relative_to(ROOT)))
    return out


def _recorded() -> set[str]:
    text = (ROOT / "docs" / "rulings.md").read_text("utf-8")
    return set(re.findall(r"^- ([CFP]L-\d+) ", text, flags=re.MULTILINE))


def test_every_ruling_cited_in_the_code_is_recorded() -> None:
    cited = _cited("core", "cli", "events", "replay", "tests")
    missing = {rid: sorted(where) for rid, where in cited.items() if rid not in _recorded()}
    assert missing == {}


def test_the_point_city_rulings_the_audits_asked_for_are_recorded() -> None:
    text = (ROOT / "docs" / "rulings.md").read_text("utf-8")
    assert re.search(r"^- PL-13 Start player\.", text, re.MULTILINE)
    assert re.search(r"^- PL-14 The solo opponent gets no Ingenuity starting card", text, re.MULTILINE)
    assert re.search(r"^- PL-15 The card list", text, re.MULTILINE)
