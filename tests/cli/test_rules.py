"""``citylog rules``: the rulings ship with the package and stay in step with their sources."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from cli.main import app
from cli.rulings import rulings, text

ROOT = Path(__file__).resolve().parents[2]
SHARED = [ROOT.parent / "shared" / "rules" / "RULINGS.md", ROOT.parents[1] / "shared" / "rules" / "RULINGS.md"]


def test_citylog_rulings_copy_matches_docs() -> None:
    assert text("citylog-rulings.md") == (ROOT / "docs" / "rulings.md").read_text(encoding="utf-8"), (
        "cli/rulings/citylog-rulings.md must be a copy of docs/rulings.md"
    )


SHARED_SHA256 = "bf45e7d00104e12e64890a89f3ac1314cf7f70ea399ed5f151d807430797880c"
"""The shared RULINGS.md this copy was taken from: a clean checkout has no shared folder
beside it, so the copy is held to the digest, and the digest to the shared file where it is."""


def test_shared_rulings_copy_matches_the_shared_file() -> None:
    import hashlib

    assert hashlib.sha256(text("RULINGS.md").encode("utf-8")).hexdigest() == SHARED_SHA256, (
        "cli/rulings/RULINGS.md changed: it must be a copy of shared/rules/RULINGS.md"
    )
    source = next((p for p in SHARED if p.exists()), None)
    if source is not None:
        assert text("RULINGS.md") == source.read_text(encoding="utf-8"), (
            "cli/rulings/RULINGS.md must be a copy of shared/rules/RULINGS.md (and SHARED_SHA256 its digest)"
        )


def test_every_family_is_there() -> None:
    ids = rulings()
    for prefix in ("CC", "FC", "PC", "CL", "FL", "PL"):
        assert f"{prefix}-1" in ids, prefix
    assert ids["CC-10"].section == "Card City (CC)"
    assert ids["CC-10"].text.startswith("CC-10 Buying Industrial")
    assert "PC-2" in ids and "FC-7" in ids and "CL-4" in ids


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["rules", *args])
    return result.exit_code, result.stdout, result.stderr


def test_rules_prints_one_ruling_in_the_tag_style() -> None:
    code, out, _ = run("cc-10")
    assert code == 0 and out.startswith("[CC-10] Card City (CC)") and "Industrial" in out
    code, out, _ = run("[FL-1]")
    assert code == 0 and out.startswith("[FL-1]")


def test_rules_lists_all_and_refuses_an_unknown_id() -> None:
    code, out, _ = run()
    assert code == 0 and "Card City (CC):" in out and "PL-1 " in out
    code, _, err = run("CC-999")
    assert code == 2 and "no ruling" in err and "CC-1" in err
