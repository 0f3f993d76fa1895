"""Red team, round 10 [CL-S17]: a player's tools never sign, nor her agent send, two
different moves for one decision unless she passes --replace-answered; nor does the
record of her moves refuse a legitimate move, nor crash (exit codes: 0 ok, 1 check
failed, 2 bad input, 3 bug, 4 environment).  Each test is an attack (a cheating host,
a careless player, a co-player, a crash) and fails if it works."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.pbem.pbem_mail import Table, legal_of, move_file, to_act

ROOT = Path(__file__).resolve().parents[2]


def _to_construction(table: Table, tmp_path: Path) -> None:
    for i in range(50):
        actors = to_act(table)
        if len(actors) > 1:
            return
        f = move_file(table, actors[0], [legal_of(table, actors[0])[0]], tmp_path / f"pre{i}.json")
        table.host.ok("apply", str(f))
    raise AssertionError("never reached a simultaneous step")


def _export(table: Table, name: str, where: Path) -> Path:
    table.host.ok("export", table.gid, "--as", name, "-o", str(where))
    return where


def _legal(party, view: Path, name: str) -> list[str]:  # type: ignore[no-untyped-def]
    return json.loads(party.ok("legal", str(view), "--as", name, "--json"))["legal"]



def _bob_moved_after(construction: Any, tmp_path: Path) -> tuple[Any, Any, Path, Path, list[str]]:
    """alice's view before bob's move (``old``) and after it (``new``), and her legal
    commands on ``new``: the held-construction set-up of the older-view attacks."""
    t = _table(construction, tmp_path / "t")
    alice = t.players["alice"]
    old = _export(t, "alice", tmp_path / "old.jsonl")
    t.host.ok("apply", str(move_file(t, "bob", [legal_of(t, "bob")[0]], tmp_path / "bob.json")))
    new = _export(t, "alice", tmp_path / "new.jsonl")
    return t, alice, old, new, _legal(alice, new, "alice")

def _one_line_refusal(code: int, err: str, exit_code: int = 2) -> None:
    assert code == exit_code, (code, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


@pytest.fixture(scope="module")
def construction(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Card City game by files, both seats in construction (commuting decisions)."""
    root = tmp_path_factory.mktemp("cc")
    table = Table(root / "t", "card-city", ["alice", "bob"])
    table.join_all()
    _to_construction(table, root)
    assert to_act(table) == ["alice", "bob"]
    (root / "t" / "gid").write_text(table.gid)
    return root / "t"


def _table(src: Path, dst: Path) -> Table:
    import shutil

    from tests.helpers.pbem import Party

    shutil.copytree(src, dst)
    t = Table.__new__(Table)
    t.root, t.outbox, t.inbox = dst, dst / "outbox", dst / "inbox"
    t.host = Party(dst, "host")
    t.players = {n: Party(dst, n) for n in ("alice", "bob")}
    t.gid = (dst / "gid").read_text()
    t.answered = set()
    return t


# ---------------------------------------------------------------- a cheating host

def test_an_older_view_after_a_newer_answered_one_gets_no_second_move(construction: Path, tmp_path: Path) -> None:
    """ATTACK (cheating host, or a careless player with two view files): alice answers
    the view after bob's construction move (seq N+1, move B).  The host then sends (again)
    the view before it (seq N: 'your mail was lost').  Her decision there is the one B
    answers (it commutes), so a move A made on it lands too: the host holds two signed
    moves for one decision and applies whichever it likes.  still_pending looked only at
    records *before* the view's seq; a record at a later seq of the game was ignored."""
    t, alice, old, new, options = _bob_moved_after(construction, tmp_path)
    assert options == _legal(alice, old, "alice") and len(options) >= 2
    alice.ok("move", str(new), "--as", "alice", options[0], "--out", f"{tmp_path / 'b'}/")
    code, _, err = alice.run("move", str(old), "--as", "alice", options[-1], "--out", f"{tmp_path / 'a'}/")
    made = sorted((tmp_path / "a").glob("*.json")) if (tmp_path / "a").is_dir() else []
    if made:  # show the harm: the host could apply this one instead of B
        t.host.ok("apply", str(made[0]))
    assert code == 2 and "[CL-S17]" in err, "a second move for one decision was signed on an older view"
    _one_line_refusal(code, err)
    # --replace-answered is her way out
    alice.ok("move", str(old), "--as", "alice", options[-1], "--out", f"{tmp_path / 'a'}/", "--replace-answered")


# ---------------------------------------------------------------- a crash

_CRASH = """
import os, sys
import cli.reveals as reveals
real = reveals.append_record
def crash(path, item):
    if path.name == "answered.jsonl":
        os._exit(9)  # kill -9 between the move file and its record line
    real(path, item)
reveals.append_record = crash
from cli.main import app
sys.argv = ["citylog", *sys.argv[1:]]
app()
"""


def test_a_crash_between_the_move_file_and_its_record_leaves_no_unrecorded_move(
        construction: Path, tmp_path: Path) -> None:
    """ATTACK (a crash, a kill -9, a power cut): write_move_file wrote the move file,
    then the record line.  Killed between the two, the signed move is on disk (in the
    agent's queue, or in --out to mail by hand) and the record knows nothing of it: a
    second, different move at the position is signed without a word.  The record is
    written first now (a record of a move not written only refuses a different one
    later, with --replace-answered her way out); the file after."""
    t = _table(construction, tmp_path / "t")
    alice = t.players["alice"]
    view = _export(t, "alice", tmp_path / "view.jsonl")
    options = _legal(alice, view, "alice")
    first = tmp_path / "first"
    r = subprocess.run([sys.executable, "-c", _CRASH, "--db", str(alice.db), "move", str(view), "--as", "alice",
                        options[0], "--out", f"{first}/"], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert r.returncode == 9, (r.returncode, r.stderr)
    written = sorted(first.glob("*.json")) if first.is_dir() else []
    code, _, err = alice.run("move", str(view), "--as", "alice", options[-1], "--out", f"{tmp_path / 'second'}/")
    assert not (written and code == 0), "a move file was left without its record, and a second move was signed"


def test_play_and_the_tui_refuse_an_older_view_after_a_newer_answered_one(construction: Path, tmp_path: Path) -> None:
    """The same attack through `play` (before any choice) and the TUI (closed, its writer refuses)."""
    import click.testing

    from cli.tui.received import Received
    from events.service import ServiceError
    from replay.sources import open_log
    from tests.helpers.pbem import cli_command

    t, alice, old, new, options = _bob_moved_after(construction, tmp_path)
    alice.ok("move", str(new), "--as", "alice", options[0], "--out", f"{tmp_path / 'b'}/")
    r = click.testing.CliRunner().invoke(cli_command(), ["--db", str(alice.db), "play", str(old), "--as", "alice",
                                                         "--out", str(tmp_path / "p")], input="1\nsend\nq\n")
    _one_line_refusal(r.exit_code, r.stderr)
    assert "[CL-S17]" in r.stderr and "later than this view" in r.stderr, r.stderr
    received = Received(open_log(None, str(old), "alice"), str(old), "alice", str(tmp_path / "tui"),  # type: ignore[arg-type]
                        alice.home / "keys")
    assert received.written_before() == alice.home / "keys" / "answered.jsonl"
    with pytest.raises(ServiceError, match=r"CL-S17"):
        received.write([options[-1]])
    assert not (tmp_path / "tui").exists() or not list((tmp_path / "tui").glob("*.json"))


# ---------------------------------------------------------------- no false refusal

def test_two_seats_she_plays_each_get_their_move_at_one_seq(construction: Path, tmp_path: Path) -> None:
    """NO FALSE REFUSAL: one data directory signing for two seats (her own key for each)
    at the same seq: two positions, two moves, neither refused; each again is the same."""
    t = _table(construction, tmp_path / "t")
    alice = t.players["alice"]
    view_a = _export(t, "alice", tmp_path / "a.jsonl")
    view_b = _export(t, "bob", tmp_path / "b.jsonl")
    bob_key = t.players["bob"].key("bob")
    alice.ok("move", str(view_a), "--as", "alice", _legal(alice, view_a, "alice")[0], "--out", f"{tmp_path / 'o'}/")
    alice.ok("move", str(view_b), "--as", "bob", _legal(alice, view_b, "bob")[0], "--out", f"{tmp_path / 'o'}/",
             "--key", str(bob_key))
    assert len(list((tmp_path / "o").glob("*.json"))) == 2


def test_the_moves_of_a_turn_in_files_at_later_seqs_are_never_refused(construction: Path, tmp_path: Path) -> None:
    """NO FALSE REFUSAL: a whole construction by one file per command, each made on the
    view after the last was applied (CL-S17: a decision of its own each)."""
    t = _table(construction, tmp_path / "t")
    alice = t.players["alice"]
    n = 0
    while "alice" in to_act(t):
        view = _export(t, "alice", tmp_path / f"v{n}.jsonl")
        out = tmp_path / f"m{n}"
        alice.ok("move", str(view), "--as", "alice", _legal(alice, view, "alice")[0], "--out", f"{out}/")
        [made] = list(out.glob("*.json"))
        t.host.ok("apply", str(made))
        n += 1
    assert n >= 2


# ---------------------------------------------------------------- a broken record: one line, never a traceback

@pytest.mark.parametrize("shape", ["oversized", "directory", "dangling-link", "not-utf8", "lock-directory"])
def test_a_broken_record_refuses_in_one_line(construction: Path, tmp_path: Path, shape: str) -> None:
    """CRASH: the record of her moves oversized, a directory, a link, not UTF-8, or its
    lock a directory: nothing is signed, one line says why (2: the input; 4: the machine)."""
    t = _table(construction, tmp_path / "t")
    alice = t.players["alice"]
    view = _export(t, "alice", tmp_path / "view.jsonl")
    option = _legal(alice, view, "alice")[0]
    rec = alice.home / "keys" / "answered.jsonl"
    rec.unlink(missing_ok=True)
    if shape == "oversized":
        with rec.open("wb") as f:
            f.truncate((16 << 20) + 1)
    elif shape == "directory":
        rec.mkdir()
    elif shape == "dangling-link":
        rec.symlink_to(tmp_path / "nowhere.jsonl")
    elif shape == "not-utf8":
        rec.write_bytes(b"\xff\xfe{}\n")
    else:
        (alice.home / "keys" / "answered.jsonl.lock").mkdir()
    code, _, err = alice.run("move", str(view), "--as", "alice", option, "--out", f"{tmp_path / 'o'}/")
    _one_line_refusal(code, err, 4 if shape == "lock-directory" else 2)
    assert not list((tmp_path / "o").glob("*.json")) if (tmp_path / "o").is_dir() else True


def test_a_record_behind_a_link_is_one_record(construction: Path, tmp_path: Path) -> None:
    """keys/answered.jsonl a link (her own, to share it): read and written through it
    alike, so a second move is refused as with the file itself."""
    t = _table(construction, tmp_path / "t")
    alice = t.players["alice"]
    view = _export(t, "alice", tmp_path / "view.jsonl")
    options = _legal(alice, view, "alice")
    rec = alice.home / "keys" / "answered.jsonl"
    shared = tmp_path / "shared.jsonl"
    shared.write_bytes(rec.read_bytes() if rec.exists() else b"")
    rec.unlink(missing_ok=True)
    rec.symlink_to(shared)
    alice.ok("move", str(view), "--as", "alice", options[0], "--out", f"{tmp_path / 'o'}/")
    assert rec.is_symlink() and options[0] in shared.read_text()
    code, _, err = alice.run("move", str(view), "--as", "alice", options[-1], "--out", f"{tmp_path / 'o2'}/")
    _one_line_refusal(code, err)


def _other_games_line(party, gid: str, seq: int, name: str = "alice") -> None:  # type: ignore[no-untyped-def]
    """A line of ``name``'s record of her moves: a move at ``seq`` of an old game that had the id (another genesis)."""
    from events.signing import public_hex
    from cli.keys import load_key

    line = {"game_id": gid, "player": name, "public_key": public_hex(load_key(party.key(name))),
            "seq": seq, "hash": "ab" * 32, "move": "cd" * 32, "commands": ["an old game's move"],
            "replaces": False, "genesis": "ef" * 32}
    with (party.home / "keys" / "answered.jsonl").open("a") as f:
        f.write(json.dumps(line, sort_keys=True) + "\n")


def test_an_older_games_move_at_a_later_seq_never_refuses_a_new_game_with_its_id(
        construction: Path, tmp_path: Path) -> None:
    """NO FALSE REFUSAL (a new game with the same id after a restart): her record holds
    a move of the old game (another genesis) at a later seq than the new game's view."""
    t = _table(construction, tmp_path / "t")
    alice = t.players["alice"]
    view = _export(t, "alice", tmp_path / "view.jsonl")
    seq = json.loads(view.read_text().splitlines()[-1])["seq"]
    _other_games_line(alice, t.gid, seq + 5)
    alice.ok("move", str(view), "--as", "alice", _legal(alice, view, "alice")[0], "--out", f"{tmp_path / 'o'}/")


def test_an_older_games_move_at_the_same_seq_never_refuses_a_new_game_with_its_id(
        construction: Path, tmp_path: Path) -> None:
    """NO FALSE REFUSAL: her record holds a move of the old game (another genesis) at the
    very seq of the new game's view.  A position is (game, player, key, seq) *of one
    genesis*: nothing signed on the old chain lands on the new one [CL-S17].  The same
    line with this game's genesis is a move at this position, and refuses a second."""
    t = _table(construction, tmp_path / "t")
    alice = t.players["alice"]
    view = _export(t, "alice", tmp_path / "view.jsonl")
    seq = json.loads(view.read_text().splitlines()[-1])["seq"]
    _other_games_line(alice, t.gid, seq)
    alice.ok("move", str(view), "--as", "alice", _legal(alice, view, "alice")[0], "--out", f"{tmp_path / 'o'}/")
    code, _, err = alice.run("move", str(view), "--as", "alice", _legal(alice, view, "alice")[1],
                             "--out", f"{tmp_path / 'p'}/")
    assert code == 2 and "[CL-S17]" in err, err  # this game's own move at the position still counts
