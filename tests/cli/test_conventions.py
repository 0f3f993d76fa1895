"""Issue 14, part A: the conventions every command shares (help, global options,
JSON, errors), game ids by prefix and ``last``, and the library (delete, tag,
untag, list --tag, simulate's tag and --no-store)."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from events.service import GameService
from events.sqlite_store import SqliteStore

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


def ok(*args: str) -> str:
    code, out, err = run(*args)
    assert code == 0, f"{args} exited {code}: {err}{out}"
    return out


def refused(*args: str, code: int = 2) -> str:
    got, out, err = run(*args)
    assert got == code, f"{args} exited {got}, not {code}: {err}{out}"
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.fixture()
def db(tmp_path: Path) -> str:
    return str(tmp_path / "c.db")


def make(db: str, *ids: str) -> None:
    """Games with the given ids, oldest first (two-player Card City)."""
    store = SqliteStore(db)
    svc = GameService(store)
    for gid in ids:
        svc.create("card-city", ["alice", "bob"], seed="s", game_id=gid)
    store.close()


def listed(db: str, *extra: str) -> list[str]:
    return [json.loads(line)["game_id"] for line in ok("list", "--db", db, "--json", *extra).splitlines()]


# -- help ------------------------------------------------------------------------
def commands() -> list[list[str]]:
    """Every command as argv, from the root help's list (and the key group's)."""
    names = root_commands()
    out = [[n] for n in names if n != "key"]
    return out + [["key"], ["key", "new"], ["key", "show"]]


def root_commands() -> list[str]:
    text = ok("--help")
    block = text[text.index("Commands:") :].splitlines()[1:]
    return [line.split()[0] for line in block if line.startswith("  ") and line.split()]


@pytest.mark.parametrize("argv", commands(), ids=" ".join)
def test_every_help_has_a_summary_an_example_and_one_metavar_style(argv: list[str]) -> None:
    text = ok(*argv, "--help")
    assert "Example:\n" in text and f"citylog {argv[0]}" in text.split("Example:")[1], text
    assert "``" not in text  # no RST markup
    assert not re.search(r"<[a-z][a-z ]*>|\{\w", text), text  # <str>, <int range>, {game}: one style
    # squares as the boards label them [CL-10]: 'build R F5', not the old 'build R 0,1'
    assert not re.search(r"'(?:build|develop|buy)[^']*-?\d+,-?\d+'", text), text
    usage = text.splitlines()[0]
    assert usage.startswith(f"Usage: citylog {' '.join(argv)} [OPTIONS]")
    assert "{" not in usage and "<" not in usage, usage
    for line in text.splitlines():  # every --json option says what it does
        assert not re.fullmatch(r"\s+--json\s*", line), text
    assert "[default: no-" not in text


@pytest.mark.parametrize("argv", [a for a in commands() if a not in (["play"], ["tui"], ["key"], ["mail"], ["engine"])], ids=" ".join)  # engine: JSON is all it speaks
def test_every_command_that_prints_a_result_has_json(argv: list[str]) -> None:
    assert re.search(r"^  --json ", ok(*argv, "--help"), re.M)


def test_the_command_list_shows_whole_one_line_summaries() -> None:
    text = ok("--help")
    for line in text[text.index("Commands:") :].splitlines()[1:]:
        assert line.strip() and not line.rstrip().endswith("..."), line


def test_readme_lists_the_commands_of_help_in_its_order() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("## What you can do")
    block = readme[readme.index("```sh\n", start) + 6 : readme.index("```\n", readme.index("```sh\n", start) + 6)]
    named: list[str] = []
    for line in block.splitlines():
        words = line.split()
        if words[:1] == ["citylog"] and words[1] not in named:
            named.append(words[1])
    assert named == root_commands()


# -- global options, --version, completion, errors ---------------------------------
def test_global_options_work_after_the_command_too(tmp_path: Path) -> None:
    a, b = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    gid = json.loads(ok("new", "card-city", "--players", "2", "--json", "--db", a, "--durability", "normal"))["game_id"]
    assert listed(a) == [gid] and listed(b) == []
    assert [json.loads(x)["game_id"] for x in ok("--db", a, "list", "--json").splitlines()] == [gid]
    assert [json.loads(x)["game_id"] for x in ok("--db", b, "list", "--json", "--db", a).splitlines()] == [gid]
    assert json.loads(ok("show", gid[:4], "--json", "--db", a))["game_id"] == gid
    assert json.loads(ok("key", "new", "ada", "--json", "--db", a))["name"] == "ada"
    assert (tmp_path / "keys" / "ada.key").exists()
    assert "durability" in refused("list", "--durability", "fast", "--db", a)


def test_version_and_completion() -> None:
    from importlib.metadata import version

    assert ok("--version") == f"citylog {version('citylog')}\n"
    exe = Path(sys.executable).with_name("citylog")
    # the shell named, not detected from the processes above the test (which differ between
    # a run of this file alone and the whole suite's: detection found no shell there)
    shown = subprocess.run([str(exe), "--show-completion", "bash"], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"})
    assert shown.returncode == 0 and "_CITYLOG_COMPLETE" in shown.stdout, shown
    env = {**os.environ, "_CITYLOG_COMPLETE": "complete_bash", "COMP_WORDS": "citylog unt", "COMP_CWORD": "1"}
    done = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=60)
    assert "untag" in done.stdout.split(), done


def test_completion_offers_game_ids(db: str) -> None:
    make(db, "ab12cd34", "ab99ef00", "c0ffee00")
    exe = Path(sys.executable).with_name("citylog")

    def complete(words: str) -> list[str]:
        env = {**os.environ, "_CITYLOG_COMPLETE": "complete_bash", "COMP_WORDS": words,
               "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)), "CITYLOG_DB": db}
        done = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=60)
        return done.stdout.split()

    assert complete("citylog show AB") == ["ab12cd34", "ab99ef00"]
    assert complete("citylog tag l") == ["last"]
    assert complete("citylog show ./x") == []  # a path: the shell completes file names


@pytest.mark.parametrize(
    "argv",
    [
        ["nosuch"],
        ["key", "nosuch"],
        ["show"],
        ["show", "a", "b"],
        ["list", "--limit", "x"],
        ["list", "--db"],
        ["simulate", "card-city"],
        ["--bogus", "list"],
        ["new", "card-city", "--players", "9"],
        ["simulate", "point-city", "--players", "9", "--no-store"],
        ["demo", "--players", "9"],
    ],
    ids=" ".join,
)
def test_usage_errors_are_one_line_exit_2(argv: list[str], db: str) -> None:
    err = refused(*argv, "--db", db) if argv[0] not in ("--bogus",) else refused(*argv)
    if "--players" in argv:
        assert "takes 1–4 players, not 9" in err


def test_bots_default_to_greedy_and_simulate_prints_its_seed(db: str) -> None:
    text = ok("simulate", "card-city", "--players", "2", "--db", db, "--no-store")
    seed = re.search(r"repeat this run with --seed (\S+)\)", text)
    assert seed is not None and "bots greedy" in text
    again = ok("simulate", "card-city", "--players", "2", "--db", db, "--no-store", "--seed", seed.group(1))
    assert text.splitlines()[1:] == again.splitlines()  # the same games
    assert "(default greedy" in " ".join(ok("simulate", "--help").split())
    assert "greedy (default" in " ".join(ok("autoplay", "--help").split())


# -- game ids by prefix, and last ------------------------------------------------
def test_game_ids_by_unique_prefix_any_case(db: str) -> None:
    make(db, "ab12cd34", "ab99ef00", "c0ffee00")
    assert json.loads(ok("show", "AB1", "--json", "--db", db))["game_id"] == "ab12cd34"
    assert json.loads(ok("show", "c", "--json", "--db", db))["game_id"] == "c0ffee00"
    err = refused("show", "ab", "--db", db)
    assert "ab12cd34" in err and "ab99ef00" in err and "c0ffee00" not in err
    assert "no game or file 'zz'" in refused("show", "zz", "--db", db)
    assert "no game 'zz'" in refused("autoplay", "zz", "--db", db)
    for argv in (["autoplay", "ab9"], ["note", "ab9", "--at", "1", "x"], ["tag", "ab9", "t"]):
        ok(*argv, "--db", db)
    assert json.loads(ok("show", "ab9", "--json", "--db", db))["to_act"] == []  # autoplay finished it
    assert listed(db, "--tag", "t") == ["ab99ef00"]
    fork = json.loads(ok("fork", "AB99", "--at", "3", "--json", "--db", db))
    assert fork["parent"] == "ab99ef00" and fork["fork_at"] == 3


def test_last_is_the_newest_game_not_simulated(db: str) -> None:
    refused("show", "last", "--db", db)
    make(db, "11111111", "22222222")
    assert json.loads(ok("show", "last", "--json", "--db", db))["game_id"] == "22222222"
    ok("simulate", "card-city", "--players", "2", "--seed", "x", "--db", db)
    assert json.loads(ok("show", "LAST", "--json", "--db", db))["game_id"] == "22222222"
    gid = json.loads(ok("new", "point-city", "--players", "2", "--json", "--db", db))["game_id"]
    assert json.loads(ok("log", "last", "--json", "--db", db).splitlines()[0])["seq"] == 1
    assert json.loads(ok("show", "last", "--json", "--db", db))["game_id"] == gid


def test_an_existing_file_wins_over_a_game_prefix(db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make(db, "abcd0001", "ffff0002")
    monkeypatch.chdir(tmp_path)
    ok("export", "ffff", "-o", "abcd", "--db", db)  # a file named like the other game's prefix
    assert json.loads(ok("show", "abcd", "--json", "--db", db))["game_id"] == "ffff0002"
    assert json.loads(ok("show", "abc", "--json", "--db", db))["game_id"] == "abcd0001"


# -- the library -------------------------------------------------------------------
def test_delete_refuses_a_parent_of_forks_unless_with_forks(db: str) -> None:
    make(db, "aaaa0000", "bbbb0000")
    fork = json.loads(ok("fork", "aaaa", "--at", "3", "--json", "--db", db))["game_id"]
    ok("note", fork, "--at", "1", "a note", "--db", db)
    ok("tag", "aaaa", "keep", "--db", db)
    err = refused("delete", "aaaa", "--yes", "--db", db)
    assert "fork" in err and fork in err and "--with-forks" in err
    assert f"has 1 fork ({fork}); add --with-forks to delete it too, or delete it first" in err
    assert listed(db) == ["aaaa0000", "bbbb0000", fork]
    assert "--yes" in refused("delete", "bbbb", "--db", db)  # no terminal to confirm at: nothing deleted
    assert listed(db) == ["aaaa0000", "bbbb0000", fork]
    out = [json.loads(x) for x in ok("delete", "aaaa", "--with-forks", "--yes", "--json", "--db", db).splitlines()]
    assert [x["game_id"] for x in out] == [fork, "aaaa0000"]
    assert listed(db) == ["bbbb0000"]
    with sqlite3.connect(db) as conn:
        for table in ("events", "notes", "tags", "signed"):
            left = conn.execute(f"SELECT DISTINCT game_id FROM {table}").fetchall()
            assert set(left) <= {("bbbb0000",)}, table
    refused("delete", "aaaa", "--yes", "--db", db)


def test_tag_untag_and_list_by_tag(db: str) -> None:
    make(db, "aaaa0000", "bbbb0000")
    assert json.loads(ok("tag", "aaaa", "club", "final", "--json", "--db", db))["tags"] == ["club", "final"]
    ok("tag", "bbbb", "club", "--db", db)
    assert listed(db, "--tag", "club") == ["aaaa0000", "bbbb0000"]
    assert listed(db, "--tag", "final") == ["aaaa0000"]
    assert "tags: club, final" in ok("list", "--db", db)
    out = json.loads(ok("untag", "aaaa", "final", "nope", "--json", "--db", db))
    assert out == {"game_id": "aaaa0000", "tags": ["club"], "removed": ["final"]}
    assert listed(db, "--tag", "final") == []
    refused("tag", "aaaa", "bad tag", "--db", db)
    refused("list", "--tag", "a/b", "--db", db)


def test_simulate_tags_its_games_and_list_hides_them(db: str) -> None:
    make(db, "aaaa0000")
    lines = ok("simulate", "card-city", "--players", "2", "--games", "3", "--seed", "x", "--json", "--db", db)
    *games, summary = [json.loads(x) for x in lines.splitlines()]
    simulated = [g["game_id"] for g in games]
    assert list(summary) == ["summary"] and summary["summary"]["games"] == 3
    assert listed(db) == ["aaaa0000"]
    assert listed(db, "--tag", "sim") == simulated
    assert listed(db, "--all") == ["aaaa0000", *simulated]
    ok("delete", "--tag", "sim", "--yes", "--db", db)
    assert listed(db, "--all") == ["aaaa0000"]
    ok("simulate", "card-city", "--players", "2", "--seed", "x", "--tag", "mine", "--db", db)
    assert len(listed(db, "--tag", "mine")) == 1 and len(listed(db)) == 2


def test_simulate_no_store_writes_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "none.db")
    out = ok("simulate", "card-city", "--players", "2", "--games", "2", "--seed", "x", "--no-store", "--db", db)
    assert "2 games of card-city" in out and not Path(db).exists()
    stored = str(tmp_path / "stored.db")
    again = ok("simulate", "card-city", "--players", "2", "--games", "2", "--seed", "x", "--db", stored)
    assert out == again  # the same games, stored or not


def test_simulate_no_store_forgets_each_game_once_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    """--no-store keeps results only: the in-memory store holds at most one game at a time."""
    import cli.simulate

    most = [0]
    real = cli.simulate.GameService.delete

    def delete(self: GameService, game_id: str, with_forks: bool = False) -> list[str]:
        most[0] = max(most[0], len(self.store.list_games()))
        return real(self, game_id, with_forks)

    monkeypatch.setattr(cli.simulate.GameService, "delete", delete)
    ok("simulate", "card-city", "--players", "2", "--games", "3", "--seed", "x", "--no-store")
    assert most[0] == 1


def test_json_names_the_game_and_the_position_alike(db: str, tmp_path: Path) -> None:
    """game_id and seq mean the same in every command's JSON; player is a name."""
    made = json.loads(ok("new", "card-city", "--players", "alice,bob", "--seed", "s1", "--json", "--db", db))
    gid, seq = made["game_id"], made["seq"]
    shown = json.loads(ok("show", "last", "--json", "--db", db))
    assert (shown["game_id"], shown["seq"]) == (gid, seq)
    legal = json.loads(ok("legal", gid, "--as", "alice", "--json", "--db", db))
    assert (legal["player"], legal["seq"]) == ("alice", seq)
    moved = json.loads(ok("move", gid, "--as", "alice", legal["legal"][0], "--json", "--db", db))
    assert moved["game_id"] == gid and moved["seq"] > seq and moved["written"][0] == seq + 1
    whose = json.loads(ok("show", gid, "--json", "--db", db))["to_act"][0]
    choice = json.loads(ok("legal", gid, "--as", whose, "--json", "--db", db))["legal"][0]
    wrote = json.loads(ok("move", gid, "--as", whose, choice, "-o", str(tmp_path), "--json", "--db", db))
    assert wrote["game_id"] == gid and wrote["player"] == whose and Path(wrote["file"]).exists()
    done = json.loads(ok("autoplay", gid, "--json", "--db", db))
    assert done["game_id"] == gid and done["seq"] == done["events"] > moved["seq"]
    listed_ = json.loads(ok("list", "--json", "--db", db))
    assert (listed_["game_id"], listed_["events"]) == (gid, done["seq"])
    noted = json.loads(ok("note", gid, "--at", "2", "x", "--json", "--db", db))
    assert (noted["game_id"], noted["seq"]) == (gid, 2)
    out = tmp_path / "g.jsonl"
    exported = json.loads(ok("export", gid, "-o", str(out), "--json", "--db", db))
    assert exported["file"] == str(out) and out.exists()


def test_the_tui_library_leaves_simulated_games_out(db: str) -> None:
    from cli.tui.backend import Backend

    make(db, "aaaa0000")
    ok("simulate", "card-city", "--players", "2", "--seed", "x", "--db", db)
    assert [g.id for g in Backend(db).games()] == ["aaaa0000"]


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """citylog rules | head -1: no BrokenPipeError message, exit as SIGPIPE would (141).

    The reader is gone before citylog writes (its end of the pipe is closed
    before citylog starts), so the write fails every time, whatever the load."""
    exe = Path(sys.executable).with_name("citylog")
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.Popen([str(exe), "rules"], stdout=write_end, stderr=subprocess.PIPE,
                                env={**os.environ, "CITYLOG_DB": str(tmp_path / "c.db")})
    finally:
        os.close(write_end)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == "", err


def test_o_takes_a_file_or_a_directory(db: str, tmp_path: Path) -> None:
    """-o DIR/ (made if missing) holds the file under its default name; -o FILE is that file."""
    gid = json.loads(ok("new", "card-city", "--players", "alice,bob", "--seed", "s1", "--json", "--db", db))["game_id"]
    command = json.loads(ok("legal", gid, "--as", "alice", "--json", "--db", db))["legal"][0]
    made = json.loads(ok("move", gid, "--as", "alice", command, "-o", f"{tmp_path}/moves/", "--json", "--db", db))
    assert made["file"] == f"{tmp_path}/moves/{gid}-seq{made['seq']}-alice-move.json"
    assert Path(made["file"]).is_file()
    assert "exists" in refused("move", gid, "--as", "alice", command, "-o", f"{tmp_path}/moves", "--db", db)
    again = ok("move", gid, "--as", "alice", command, "-o", f"{tmp_path}/moves", "--force", "--json", "--db", db)
    assert json.loads(again)["file"] == made["file"]  # an existing directory, without the slash
    named = tmp_path / "mine.json"
    assert json.loads(ok("move", gid, "--as", "alice", command, "-o", str(named), "--json", "--db", db))["file"] == str(named)
    assert "exists" in refused("move", gid, "--as", "alice", command, "-o", str(named), "--db", db)


def test_delete_asks_at_a_terminal(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import cli.library

    make(db, "aaaa0000", "bbbb0000")
    monkeypatch.setattr(cli.library, "_interactive", lambda: True)
    code, out, err = run("delete", "aaaa", "--db", db, input="n\n")
    assert code == 1 and "delete 1 game: aaaa0000?" in out and "nothing deleted" in err
    assert listed(db) == ["aaaa0000", "bbbb0000"]
    code, out, _ = run("delete", "aaaa", "--db", db, input="y\n")
    assert code == 0 and "deleted aaaa0000" in out and listed(db) == ["bbbb0000"]


def test_every_option_the_readme_lists_exists() -> None:
    """Each line of README's command list names options its command's --help has."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("```sh\n", readme.index("## What you can do")) + 6
    for line in readme[start : readme.index("```\n", start)].splitlines():
        words = line.split("#")[0].split()
        argv = words[1:3] if words[1] in ("key", "mail") else words[1:2]
        helptext = ok(*argv, "--help")
        for option in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", " ".join(words[2:])):
            assert re.search(rf"(^|[\s,/]){re.escape(option)}[\s,]", helptext, re.M), (line, option)
