"""Stored analyses where people look (issue 25): ``show``, ``log --analysis``, the
text record's annotations and the HTML page, all read through
:mod:`replay.analyses`, which never recomputes.

The law, for every game [CL-X2]: what ``show`` and ``log --analysis`` print for
``--as P`` from the database is what they print from P's exported file, and holds
P's own judgements only.  The record's annotations round-trip (export → import →
export gives the same record) and ones that do not fit the game are refused in
one line, exit 2, the store unchanged [CL-X1].
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core import registry
from tests.cli.clirun import dump, ok, run
from tests.cli.test_analyse import _prefix_game

GAMES = registry.available()
BUDGET = "4"


def _analysed(tmp_path: Path, name: str) -> tuple[Path, str]:
    db, gid, _ = _prefix_game(tmp_path, name)
    ok(db, "analyse", gid, "--budget", BUDGET, "--json")
    return db, gid


@pytest.mark.parametrize("name", GAMES)
def test_show_and_log_for_a_player_are_their_files(tmp_path: Path, name: str) -> None:
    db, gid = _analysed(tmp_path, name)
    view = tmp_path / "alice.jsonl"
    ok(db, "export", gid, "--as", "alice", "-o", str(view))
    full = tmp_path / "referee.jsonl"
    ok(db, "export", gid, "-o", str(full))
    carried = json.loads(view.read_text().splitlines()[0])["analyses"]
    assert carried and all(k.startswith("alice|") for k in carried)  # her own only [CL-X2]
    head = len(view.read_text().splitlines()) - 1
    for args in (["log", "--analysis"], ["log", "--analysis", "--json"], ["show"], ["show", "--json"],
                 *(["show", "--at", str(at)] for at in range(2, head + 1, max(1, head // 6))),
                 ["show", "--at", "3", "--json"]):
        from_db = ok(db, args[0], gid, "--as", "alice", *args[1:])
        assert ok(db, args[0], str(view), *args[1:]) == from_db, args
        assert ok(db, args[0], str(full), "--as", "alice", *args[1:]) == from_db, args
        assert "[bob " not in from_db and '"player": "bob"' not in from_db.replace('":"', '": "')
    text = ok(db, "log", gid, "--as", "alice", "--analysis")
    assert "[alice win" in text
    rows = [json.loads(x) for x in ok(db, "log", gid, "--as", "alice", "--analysis", "--json").splitlines()]
    judged = [j for r in rows for j in r.get("analysis", [])]
    assert judged and {j["player"] for j in judged} == {"alice"} and all(set(j["before"]) == {"alice", "bob"} for j in judged)
    shown = json.loads(ok(db, "show", gid, "--as", "alice", "--json"))
    assert shown["analysis"] and {r["player"] for r in shown["analysis"]} == {"alice"}
    # the referee sees every seat's judgement
    both = ok(db, "log", gid, "--analysis")
    assert "[alice win" in both and "[bob win" in both
    assert ok(db, "log", str(full), "--analysis") == both


def test_show_names_the_latest_judgement_with_its_mark(tmp_path: Path) -> None:
    db, gid = _analysed(tmp_path, "card-city")
    data = json.loads(ok(db, "analyse", gid, "--budget", BUDGET, "--json"))
    d = data["decisions"][-1]
    out = ok(db, "show", gid, "--at", str(d["seq"]))
    line = next(x for x in out.splitlines() if x.startswith(f"analysis at #{d['seq']}:"))
    p = d["player"]
    assert f"[{p} win {d['before'][p]:.0%} → {d['after'][p]:.0%}" in line
    assert (d["mark"] or "") in line
    # a game nobody analysed shows what it always showed
    (tmp_path / "x").mkdir()
    db2, gid2, _ = _prefix_game(tmp_path / "x", "card-city")
    assert "analysis" not in ok(db2, "show", gid2) and "analysis" not in json.loads(ok(db2, "show", gid2, "--json"))


def _record(db: Path | str, gid: str, path: Path) -> str:
    ok(db, "export", gid, "--format", "text", "-o", str(path))
    return path.read_text()


@pytest.mark.parametrize("name", GAMES)
def test_the_record_carries_the_annotations_and_import_reads_them_back(tmp_path: Path, name: str) -> None:
    db, gid = _analysed(tmp_path, name)
    first = _record(db, gid, tmp_path / "a.txt")
    notes = re.findall(r"^\{\[%an (\S+) ", first, re.M)
    assert notes and len(notes) == len(json.loads(ok(db, "analyse", gid, "--budget", BUDGET, "--json"))["decisions"]) + len(
        json.loads(ok(db, "analyse", gid, "--budget", BUDGET, "--json"))["chance"])
    other = tmp_path / "b.db"
    new = json.loads(ok(other, "import", str(tmp_path / "a.txt"), "--json"))["game_id"]
    again = _record(other, new, tmp_path / "b.txt")
    assert again == first
    # the imported game reads as the analysed one: the same marks, without analysing
    assert ok(other, "log", new, "--analysis") == ok(db, "log", gid, "--analysis").replace(gid, new)
    assert ok(db, "log", str(tmp_path / "a.txt"), "--analysis") == ok(db, "log", gid, "--analysis")


def _mutations(text: str) -> list[tuple[str, str]]:
    """(what, record) pairs: an annotation changed so that it no longer fits the game."""
    lines = text.splitlines(keepends=True)
    i = next(k for k, x in enumerate(lines) if x.startswith('{[%an ') and '"type":"decision"' in x)
    line = lines[i]
    played = re.search(r'"played":"([^"]*)"', line)
    assert played is not None
    key = re.match(r"\{\[%an (\S+) ", line)
    assert key is not None
    who, kind, seq, *rest = key.group(1).split("|")

    def at(new: str) -> str:
        return "".join(lines[:i] + [new] + lines[i + 1 :])

    def moved(new: str) -> str:  # the annotation after another line
        rest_ = lines[:i] + lines[i + 1 :]
        j = next(k for k in range(i + 1, len(rest_)) if rest_[k].startswith("R"))
        return "".join(rest_[: j + 1] + [new] + rest_[j + 1 :])

    return [
        ("played", at(line.replace(played.group(0), '"played":"nonsense"'))),
        ("best", at(line.replace('"best":', '"best":"nonsense","x":'))),
        ("win chance", at(line.replace('"before":[', '"before":[1.5,'))),
        ("mark", at(line.replace('"mark":null', '"mark":"blunder"') if '"mark":null' in line
                    else line.replace(re.search(r'"mark":"\w+"', line).group(0), '"mark":null'))),  # type: ignore[union-attr]
        ("loss", at(line.replace('"loss":', '"loss":0.987,"x":'))),
        ("worlds", at(line.replace('"worlds":', '"worlds":99,"x":'))),
        ("player", at(line.replace(f"{who}|", "carol|", 1))),
        ("seat", at(line.replace('"seat":', '"seat":7,"x":'))),
        ("key", at(line.replace(f"|{seq}|", "|x|", 1))),
        ("place", moved(line)),
        ("twice", at(line + line)),
        ("json", at(line.replace('"type":"decision"', '"type":"decision'))),
        ("rules", at(line.replace(f"|{rest[1]}|", "|other-9|", 1))),
    ]


def test_annotations_that_do_not_fit_are_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    db, gid = _analysed(tmp_path, "card-city")
    text = _record(db, gid, tmp_path / "a.txt")
    other = tmp_path / "b.db"
    ok(other, "list")
    before = dump(other)
    for what, bad in _mutations(text):
        path = tmp_path / f"bad-{what.replace(' ', '-')}.txt"
        path.write_text(bad)
        code, out, err = run(other, "import", str(path))
        assert code == 2 and not out, (what, code, out, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (what, err)
        assert dump(other) == before, what
        code, _, err = run(db, "log", str(path), "--analysis")
        assert code == 2 and len(err.strip().splitlines()) == 1, (what, err)
    # a JSON Lines file's judgements are checked alike [CL-X1]
    view = tmp_path / "alice.jsonl"
    ok(db, "export", gid, "--as", "alice", "-o", str(view))
    lines = view.read_text().splitlines()
    header = json.loads(lines[0])
    key = next(k for k, v in header["analyses"].items() if v["type"] == "decision")
    header["analyses"][key]["played"] = "nonsense"
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    for args in (["show", str(forged)], ["log", str(forged), "--analysis"]):
        code, _, err = run(db, *args)
        assert code == 2 and "CL-X1" in err and len(err.strip().splitlines()) == 1, err
    # a view holding another player's judgements is refused [CL-X2]
    full = json.loads(ok(db, "analyse", gid, "--budget", BUDGET, "--json"))
    bob = next(d for d in full["decisions"] if d["player"] == "bob")
    header = json.loads(lines[0])
    rules = header["definition"]["rules_version"]
    from core.analysis import ENGINE_VERSION

    bobs = f"bob|decision|{bob['seq']}|{BUDGET}|{rules}|{ENGINE_VERSION}"
    header["analyses"][bobs] = next(iter(header["analyses"].values()))
    forged.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    code, _, err = run(db, "show", str(forged))
    assert code == 2 and "CL-X2" in err, err


def test_a_postgresql_store_imports_the_annotations_as_sqlite_does(tmp_path: Path, pg_url: str) -> None:
    """The record's annotations into the PostgreSQL store: export → import → export
    gives the same record and the same marks without analysing; ones that do not fit
    are refused in one line and leave the store as it was [CL-X1]."""
    db, gid = _analysed(tmp_path, "card-city")
    first = _record(db, gid, tmp_path / "a.txt")
    new = json.loads(ok(pg_url, "import", str(tmp_path / "a.txt"), "--json"))["game_id"]
    assert _record(pg_url, new, tmp_path / "b.txt") == first
    assert ok(pg_url, "log", new, "--analysis") == ok(db, "log", gid, "--analysis").replace(gid, new)
    before = [ok(pg_url, "list", "--json"), _record(pg_url, new, tmp_path / "c.txt")]
    for what, bad in _mutations(first):
        path = tmp_path / f"bad-{what.replace(' ', '-')}.txt"
        path.write_text(bad)
        code, out, err = run(pg_url, "import", str(path))
        assert code == 2 and not out and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (what, err)
    assert [ok(pg_url, "list", "--json"), _record(pg_url, new, tmp_path / "d.txt")] == before


def test_a_note_that_looks_like_an_annotation_stays_a_note(tmp_path: Path) -> None:
    db, gid, _ = _prefix_game(tmp_path, "card-city")
    ok(db, "note", gid, "[%an not an annotation]", "--at", "6")
    text = _record(db, gid, tmp_path / "a.txt")
    assert "{\\[%an not an annotation]}" in text
    other = tmp_path / "b.db"
    new = json.loads(ok(other, "import", str(tmp_path / "a.txt"), "--json"))["game_id"]
    assert _record(other, new, tmp_path / "b.txt") == text
