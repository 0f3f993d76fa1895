"""docs/trust.md, the threat model (issue 22), held to the code, the tests and the README.

Every claim names its law, its checks and the tests that attack it; every test it
cites exists; every ruling it cites is in docs/rulings.md; the README's trust
section lists the same claims and the same unprotected things, word for word;
the package ships the same text.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRUST = (ROOT / "docs/trust.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def claims(text: str) -> list[str]:
    return re.findall(r"^### \d+\. (.+)$", text, re.M)


def unprotected(text: str) -> list[str]:
    return re.findall(r"^- \*\*(.+?)\*\*", text[text.index("## Not protected"):], re.M)


def defined_tests() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                names.add(node.name)
    return names


def test_every_claim_has_a_law_checks_and_attacks() -> None:
    sections = re.split(r"^### \d+\. ", TRUST, flags=re.M)[1:]
    assert len(sections) == len(claims(TRUST)) >= 7
    for section in sections:
        title = section.splitlines()[0]
        assert "*Law:" in section, title
        assert re.search(r"^- Attacks:", section, re.M), title
        assert re.search(r"`test_\w+`", section[section.index("- Attacks:"):]), title


def test_every_test_it_cites_exists() -> None:
    known = defined_tests()
    cited = set(re.findall(r"`(test_\w+)`", TRUST))
    assert cited and not cited - known, sorted(cited - known)
    for path in re.findall(r"`?(tests/[\w/]+\.py)`?", TRUST):
        assert (ROOT / path).exists(), path


def test_every_ruling_it_cites_is_a_ruling() -> None:
    rulings = (ROOT / "docs/rulings.md").read_text(encoding="utf-8") + (
        ROOT / "cli/rulings/RULINGS.md").read_text(encoding="utf-8")
    for rid in set(re.findall(r"\[((?:GN|CL)-[VSTUX]?\d+)", TRUST)):
        assert re.search(rf"^- {rid}\b", rulings, re.M), rid


def test_the_readme_says_the_same_as_the_threat_model() -> None:
    section = README[README.index("### Trust model"):README.index("## Layout")]
    assert [line[2:].rstrip(".") for line in section.splitlines() if line.startswith("- ")][: len(claims(TRUST))] \
        == claims(TRUST)
    shown = section[section.index("Not protected:"):].split("\n\n")[1].splitlines()
    assert [line[2:] for line in shown] == unprotected(TRUST)


def test_the_package_ships_the_threat_model() -> None:
    assert (ROOT / "cli/rulings/trust.md").read_text(encoding="utf-8") == TRUST
