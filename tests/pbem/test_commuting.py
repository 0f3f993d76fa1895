"""Issue 10: moves that commute are not stale.  Card City's construction phase
(both players at once) works by mail in any order of arrival, and an inbox makes
the same log whichever file came first."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from pbem_mail import Table, legal_of, move_file, to_act


def _to_construction(table: Table, tmp_path: Path) -> None:
    for i in range(50):
        actors = to_act(table)
        if len(actors) > 1:
            return
        f = move_file(table, actors[0], [legal_of(table, actors[0])[0]], tmp_path / f"pre{i}.json")
        table.host.ok("apply", str(f))
    raise AssertionError("never reached a simultaneous step")


def _lines(db: Path, gid: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT seq, type, payload, hash FROM events WHERE game_id = ? ORDER BY seq", (gid,)
        ).fetchall()


def _copy_host(table: Table, dest: Path) -> Path:
    dest.mkdir()
    for f in table.host.home.glob("citylog.db*"):
        shutil.copy(f, dest / f.name)
    shutil.copytree(table.host.home / "keys", dest / "keys")
    return dest / "citylog.db"


def test_construction_by_mail_gives_one_log_whatever_the_order(tmp_path: Path) -> None:
    table = Table(tmp_path, "card-city", ["alice", "bob"])
    table.join_all()
    _to_construction(table, tmp_path)
    assert to_act(table) == ["alice", "bob"]
    files = {
        name: move_file(table, name, [legal_of(table, name)[0]], tmp_path / f"{name}-build.json")
        for name in ("alice", "bob")
    }
    logs = []
    for order in (("alice", "bob"), ("bob", "alice")):
        db = _copy_host(table, tmp_path / "-then-".join(order))
        inbox = db.parent / "inbox"
        inbox.mkdir()
        table.host.db, saved = db, table.host.db
        try:
            shutil.copy(files[order[0]], inbox)
            out = table.host.ok("inbox", str(inbox))
            assert "held" in out and f"waiting for {order[1]}" in out, out
            shutil.copy(files[order[1]], inbox)
            out = table.host.ok("inbox", str(inbox))
            assert out.count("applied") == 2, out
        finally:
            table.host.db = saved
        logs.append(_lines(db, table.gid))
    assert logs[0] == logs[1]
    assert len(logs[0]) > len(_lines(table.host.db, table.gid))


def test_construction_moves_made_at_one_position_both_land_in_either_order(tmp_path: Path) -> None:
    table = Table(tmp_path, "card-city", ["alice", "bob"])
    table.join_all()
    _to_construction(table, tmp_path)
    bob = move_file(table, "bob", [legal_of(table, "bob")[0]], tmp_path / "bob.json")
    alice = move_file(table, "alice", [legal_of(table, "alice")[0]], tmp_path / "alice.json")
    table.host.ok("apply", str(bob))
    table.host.ok("apply", str(alice))  # made before bob's landed: it commutes, not stale


def test_a_whole_construction_phase_in_one_file_equals_one_file_per_command(tmp_path: Path) -> None:
    table = Table(tmp_path, "card-city", ["alice", "bob"])
    table.join_all()
    _to_construction(table, tmp_path)
    base = _copy_host(table, tmp_path / "base")
    # one command per file, until alice has built her whole hand
    commands = []
    while "alice" in to_act(table):
        cmd = legal_of(table, "alice")[0]
        commands.append(cmd)
        table.host.ok("apply", str(move_file(table, "alice", [cmd], tmp_path / f"a{len(commands)}.json")))
    one_by_one = _lines(table.host.db, table.gid)
    table.host.db = base
    whole = move_file(table, "alice", commands, tmp_path / "whole.json")
    table.host.ok("apply", str(whole))
    together = _lines(base, table.gid)
    assert len(commands) >= 2
    assert [(s, t, p) for s, t, p, _ in together] == [(s, t, p) for s, t, p, _ in one_by_one]


def test_a_construction_move_after_the_seat_moved_on_is_stale_naming_why(tmp_path: Path) -> None:
    table = Table(tmp_path, "card-city", ["alice", "bob"])
    table.join_all()
    _to_construction(table, tmp_path)
    options = legal_of(table, "alice")
    first = move_file(table, "alice", [options[0]], tmp_path / "first.json")
    # two moves of one seat at one position are never one decision's parts (those go in one
    # file, or in files at later seqs, as above): a second is made only on purpose [CL-S17]
    second = move_file(table, "alice", [options[-1]], tmp_path / "second.json", replace=True)
    table.host.ok("apply", str(first))
    before = sqlite3.connect(table.host.db).execute("SELECT count(*) FROM events").fetchone()
    code, _, err = table.host.run("apply", str(second))
    assert code == 2 and "stale move" in err
    assert "alice's own position" in err or "no longer alice's turn" in err
    after = sqlite3.connect(table.host.db).execute("SELECT count(*) FROM events").fetchone()
    assert before == after


def test_a_later_view_never_gets_a_second_move_for_a_decision_a_held_move_answers(tmp_path: Path) -> None:
    """ATTACK [CL-S17]: alice's construction move (made at seq N) is held by a dishonest
    host, which applies bob's and shows her the position after it: her decision there is
    the one her held move answers (it commutes, so it still lands).  A move made on that
    view would be a second for one decision, and the host could apply either: refused in
    one line (exit 2, nothing written) unless she says --replace-answered."""
    table = Table(tmp_path, "card-city", ["alice", "bob"])
    table.join_all()
    _to_construction(table, tmp_path)
    options = legal_of(table, "alice")
    held = move_file(table, "alice", [options[0]], tmp_path / "held.json")
    table.host.ok("apply", str(move_file(table, "bob", [legal_of(table, "bob")[0]], tmp_path / "bob.json")))
    assert "alice" in to_act(table)
    key = table.players["alice"].home / "keys" / "alice.key"
    second = tmp_path / "second.json"
    code, _, err = table.host.run("move", table.gid, "--as", "alice", legal_of(table, "alice")[-1],
                                  "--out", str(second), "--key", str(key))
    assert code == 2 and "[CL-S17]" in err and "does not show applied" in err, err
    assert len(err.strip().splitlines()) == 1 and not second.exists()
    from cli.tui.received import Received  # the TUI on that view: closed, its writer refuses
    from replay.sources import open_log

    view = tmp_path / "alice-view.jsonl"
    table.host.ok("export", table.gid, "--as", "alice", "-o", str(view))
    received = Received(open_log(None, str(view), "alice"), str(view), "alice", str(tmp_path / "tui"),  # type: ignore[arg-type]
                        table.host.home / "keys", key)
    assert received.written_before() == table.host.home / "keys" / "answered.jsonl"
    move_file(table, "alice", [legal_of(table, "alice")[-1]], second, replace=True)  # her choice, at that risk
    table.host.ok("apply", str(held))  # the held one still lands: either could have been applied
