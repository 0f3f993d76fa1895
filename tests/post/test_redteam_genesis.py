"""Red team, stop 36 [CL-S17]: a position is (game, player, key, seq) *of one
genesis*.  Each test is an attack by a cheating host (or a careless player) that
uses the genesis to get two signed moves of hers for one decision, and fails if it
works."""

from __future__ import annotations

import json
from pathlib import Path

from tests.post import test_agent_local as agent_tests
from tests.post import test_redteam_second_move as second_move
from tests.post.test_redteam_second_move import _bob_moved_after, _export, _legal, _one_line_refusal, _table

construction = second_move.construction  # the fixtures: a Card City game by files, one by mail
started = agent_tests.started
table = agent_tests.table


def _reheaded(view: Path, where: Path) -> Path:
    """``view`` under another genesis: its header names another seed commitment (another
    game that had the id), its lines are the real chain's.  The seal covers the game id,
    the last seq, the head hash and the view, never the definition, so it still holds."""
    lines = view.read_text().splitlines()
    header = json.loads(lines[0])
    header["definition"]["seed_commitment"] = "5e" * 32
    where.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return where


def test_a_reheaded_view_gets_no_second_move_at_one_position(construction: Path, tmp_path: Path) -> None:
    """ATTACK (cheating host): the view it sends at seq N claims another genesis in its
    header while its lines are the real chain's.  Her move A on it signs the real line's
    hash at N (it lands on the real game) but was recorded under the header's genesis;
    on the real view at N her record then showed nothing, so a move B was signed too:
    two signed moves at one position of the real chain."""
    t = _table(construction, tmp_path / "t")
    alice = t.players["alice"]
    real = _export(t, "alice", tmp_path / "real.jsonl")
    forged = _reheaded(real, tmp_path / "forged.jsonl")
    options = _legal(alice, real, "alice")
    assert len(options) >= 2
    code, _, err = alice.run("move", str(forged), "--as", "alice", options[0], "--out", f"{tmp_path / 'a'}/")
    if code == 0:  # signed on the forged view: then the real one must refuse
        code, _, err = alice.run("move", str(real), "--as", "alice", options[-1], "--out", f"{tmp_path / 'b'}/")
        made = sorted((tmp_path / "b").glob("*.json")) if (tmp_path / "b").is_dir() else []
        if made:  # the harm: A (from the forged view) lands on the real chain, B too
            t.host.ok("apply", str(next((tmp_path / "a").glob("*.json"))))
        assert code == 2 and "[CL-S17]" in err, "a second move at one position, through a re-headed view"
    assert code == 2 and "[CL-S17]" in err, err
    _one_line_refusal(code, err)


def test_a_reheaded_later_view_gets_no_second_move_for_a_held_decision(
        construction: Path, tmp_path: Path) -> None:
    """ATTACK (cheating host holding her construction move A at seq N): it sends the view
    after bob's move (N+1) under another genesis in its header.  The record of A carries
    the real genesis, so ``still_pending`` did not count it, and a move B for the same
    decision was signed on the real chain's line N+1: both land."""
    t, alice, old, new, options = _bob_moved_after(construction, tmp_path)
    alice.ok("move", str(old), "--as", "alice", options[0], "--out", f"{tmp_path / 'a'}/")
    forged = _reheaded(new, tmp_path / "forged.jsonl")
    code, _, err = alice.run("move", str(forged), "--as", "alice", options[-1], "--out", f"{tmp_path / 'b'}/")
    made = sorted((tmp_path / "b").glob("*.json")) if (tmp_path / "b").is_dir() else []
    if made:
        t.host.ok("apply", str(made[0]))  # B lands on the real game; A would have too
    assert code == 2 and "[CL-S17]" in err, "a second move for a held decision, through a re-headed view"
    _one_line_refusal(code, err)


def test_play_refuses_a_reheaded_view(construction: Path, tmp_path: Path) -> None:
    """ATTACK (as above) through ``play`` on the file: refused before any choice."""
    t = _table(construction, tmp_path / "t")
    alice = t.players["alice"]
    real = _export(t, "alice", tmp_path / "real.jsonl")
    forged = _reheaded(real, tmp_path / "forged.jsonl")
    code, out, err = alice.run("play", str(forged), "--as", "alice", "--out", f"{tmp_path / 'a'}/")
    assert code == 2 and "[CL-S17]" in err, (code, out, err)


def test_the_agent_keeps_no_view_whose_header_names_another_genesis(table) -> None:  # type: ignore[no-untyped-def]
    """ATTACK (cheating host, through the mail): a view mail whose header names another
    genesis than its lines start from.  The agent's backstop reads the game's genesis
    from the newest view it received (``_genesis_of``); a re-headed one would hide the
    real game's record from it, and ``play GAME`` would sign on it.  The agent keeps
    no such view (one line says why) [CL-S17]."""
    import email
    import email.policy

    t = table
    alice = t.players["alice"]
    found = None
    for path in sorted([*(alice.maildir / "cur").glob("*"), *(alice.maildir / "new").glob("*")]):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        for part in msg.iter_attachments():
            if str(part.get_filename() or "").endswith(".jsonl"):
                found = (msg, part)
    assert found is not None, "no view mail to alice"
    msg, part = found
    lines = part.get_payload(decode=True).decode().splitlines()
    header = json.loads(lines[0])
    header["definition"]["seed_commitment"] = "5e" * 32
    data = ("\n".join([json.dumps(header), *lines[1:]]) + "\n").encode()
    part.set_content(data, maintype="application", subtype="octet-stream", filename=part.get_filename())
    del msg["Message-ID"]
    msg["Message-ID"] = "<reheaded-view@example.test>"
    alice.deliver(msg.as_bytes(), "reheaded.eml")
    said = json.dumps(alice.sync())
    assert "does not chain from the genesis" in said and "received alice's view" not in said, said


def test_the_agents_backstop_reads_the_genesis_of_the_chain_the_move_lands_on(
        construction: Path, tmp_path: Path) -> None:
    """ATTACK (cheating host with a second, genuine game under the id): its view, newer
    than every view of the real game, was where the agent's backstop read the genesis,
    so her record of real moves stopped counting for a file made by other means.  The
    genesis now comes from a received view holding the line the move signs."""
    from types import SimpleNamespace

    from cli.post.ledger import View
    from cli.post.player_side import PlayerSide
    from events import statements
    from events.envelope import genesis_hash
    from replay import logfile
    from tests.pbem.pbem_mail import Table

    t = _table(construction, tmp_path / "t")
    alice = t.players["alice"]
    real = _export(t, "alice", tmp_path / "real.jsonl")
    alice.ok("move", str(real), "--as", "alice", _legal(alice, real, "alice")[0], "--out", f"{tmp_path / 'm'}/")
    [made] = (tmp_path / "m").glob("*.json")
    mv = statements.decode(made.read_bytes(), made.name)
    other_table = Table(tmp_path / "u", "card-city", ["alice", "bob"])
    other_table.join_all()
    other = _export(other_table, "alice", tmp_path / "other.jsonl")
    newest = View(mv.game_id, "alice", mv.seq + 100, "final", other, "<m2>", False)
    side = PlayerSide.__new__(PlayerSide)
    side.ledger = SimpleNamespace(  # type: ignore[assignment]
        views=lambda game: [View(mv.game_id, "alice", mv.seq, "view", real, "<m1>", True), newest])
    with real.open() as f:
        assert side._genesis_of(mv) == genesis_hash(logfile.read(f, "real").header.definition)  # type: ignore[arg-type]
    side.ledger = SimpleNamespace(views=lambda game: [newest])  # type: ignore[assignment]
    assert side._genesis_of(mv) is None  # no view here holds its line: every record counts  # type: ignore[arg-type]
