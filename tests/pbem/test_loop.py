"""Issue 10: the player's side of the loop — legal moves from a file, show --json
with them, interactive play on a file into a signed move file, readable names."""

from __future__ import annotations

import json
from pathlib import Path

from pbem_mail import Table, dump, to_act
from typer.testing import CliRunner

from cli.main import app
from tests.helpers.pbem import with_a_choice


def test_legal_show_and_play_from_a_file(tmp_path: Path) -> None:
    def build(n: int) -> Table:
        (tmp_path / f"deal{n}").mkdir()
        table = Table(tmp_path / f"deal{n}", "card-city", ["alice", "bob"])
        table.join_all()
        return table

    def first_moves(t: Table) -> list[str]:
        return json.loads(t.host.ok("legal", t.gid, "--as", to_act(t)[0], "--json"))["legal"]

    table = with_a_choice(build, first_moves)  # a second, different move is tried below
    first = to_act(table)[0]
    full = tmp_path / "full.jsonl"
    table.host.ok("export", table.gid, "-o", str(full))
    party = table.players[first]
    legal = json.loads(party.ok("legal", str(full), "--as", first, "--json"))["legal"]
    assert legal and legal == json.loads(table.host.ok("legal", table.gid, "--as", first, "--json"))["legal"]
    shown = json.loads(party.ok("show", str(full), "--as", first, "--json"))
    assert shown["legal"] == legal
    other = "bob" if first == "alice" else "alice"
    assert json.loads(party.ok("legal", str(full), "--as", other, "--json"))["legal"] == []
    outdir = tmp_path / "mine"
    outdir.mkdir()
    r = CliRunner().invoke(
        app, ["--db", str(party.db), "play", str(full), "--as", first, "--out", str(outdir)], input="1\n"
    )
    assert r.exit_code == 0, r.stdout + r.stderr
    [written] = list(outdir.iterdir())
    assert written.name == f"{table.gid}-seq{len(full.read_text().splitlines()) - 1}-{first}-move.json"
    data = json.loads(written.read_text())
    assert data["commands"] == [legal[0]] and data["signature"]
    table.host.ok("apply", str(written))
    # the same move again is the same file (left as it is); another move at the position is
    # refused [CL-S17]; made on purpose, its file is still never written over the first
    before = written.read_bytes()
    party.ok("move", str(full), "--as", first, legal[0], "--out", str(outdir))
    assert written.read_bytes() == before
    code, _, err = party.run("move", str(full), "--as", first, legal[1], "--out", str(outdir))
    assert code == 2 and "[CL-S17]" in err
    code, _, err = party.run("move", str(full), "--as", first, legal[1], "--out", str(outdir), "--replace-answered")
    assert code == 2 and "not overwritten" in err and written.read_bytes() == before


def test_the_inbox_refuses_junk_and_moves_it_aside(tmp_path: Path) -> None:
    table = Table(tmp_path, "card-city", ["alice", "bob"])
    (table.inbox / "junk.json").write_text("{not json")
    code, out, _ = table.host.run("inbox", str(table.inbox))
    assert code == 2 and "junk.json: refused" in out
    assert (table.inbox / "refused" / "junk.json").exists() and not (table.inbox / "junk.json").exists()
    table.join_all()
    code, out, _ = table.host.run("inbox", str(table.inbox))
    assert code == 0 and "inbox empty" in out


def test_a_game_waiting_for_its_players_says_so(tmp_path: Path) -> None:
    table = Table(tmp_path, "card-city", ["alice", "bob"])
    shown = json.loads(table.host.ok("show", table.gid, "--json"))
    assert shown["to_act"] == [] and shown["joining"] == ["alice", "bob"]
    assert "waiting for alice, bob to join" in table.host.ok("show", table.gid)
    assert "played by email" in table.host.run("autoplay", table.gid)[2]
    table.join_all()
    assert "joining" not in json.loads(table.host.ok("show", table.gid, "--json"))
    explained = table.host.ok("explain", table.gid, "--at", "2")
    assert "alice joins" in explained and "committed to its entropy" in explained  # [CL-S7]
    revealed = table.host.ok("explain", table.gid, "--at", "4")
    assert "alice reveals" in revealed and "CL-S7" in revealed


def test_an_old_move_file_format_is_refused_naming_it(tmp_path: Path) -> None:
    """Issue 22 [CL-S1]: older formats had no single encoding; they are refused
    with a one-line reason (a move file is remade from the view), even for a
    game without --pbem, and the database is unchanged."""
    table = Table(tmp_path, "card-city", ["alice", "bob"])
    gid = json.loads(table.host.ok("new", "card-city", "--players", "ann,bob", "--json"))["game_id"]
    shown = json.loads(table.host.ok("show", gid, "--json"))
    who = shown["to_act"][0]
    first = json.loads(table.host.ok("legal", gid, "--as", who, "--json"))["legal"][0]
    full = tmp_path / "full.jsonl"
    table.host.ok("export", gid, "-o", str(full))
    head = json.loads(full.read_text().splitlines()[-1])["hash"]
    old = {"format": "citylog-move/1", "game_id": gid, "player": who, "command": first, "seq": shown["seq"],
           "hash": head}
    (tmp_path / "old.json").write_text(json.dumps(old, sort_keys=True, separators=(",", ":")))
    before = dump(table.host.db)
    code, _, err = table.host.run("apply", str(tmp_path / "old.json"))
    assert code == 2 and "citylog-move/1" in err and err.count("\n") == 1, err
    assert dump(table.host.db) == before
    code, _, err = table.host.run("inbox", str(tmp_path / "nowhere"))
    assert code == 2 and "no directory" in err
