"""Issue 14 (part B): the play prompt, final results everywhere, simulate statistics."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from tests.cli.clirun import ok, run
from cli.results import plural, verdict
from cli.simulate import outcome, spread, summarize
from core import registry
from core.engine import Breakdown, Result


def new(db: Path, game: str, players: str, seed: str, *extra: str) -> str:
    return json.loads(ok(db, "new", game, "--players", players, "--seed", seed, "--json", *extra))["game_id"]


def prompts(out: str, who: str) -> list[str]:
    """What the prompt printed after each answer (the text between two prompts)."""
    return out.split(f"{who}> ")[1:]


# -- the prompt -----------------------------------------------------------------------
def test_help_lists_only_the_forms_of_this_moment(db: Path) -> None:
    gid = new(db, "card-city", "alice,bob", "s1", "--bots", "bob=greedy")
    out = ok(db, "play", gid, "--as", "alice", input="?\nq\n")
    helped = prompts(out, "alice")[0]
    assert "split PAIR UP DOWN" in helped and "e.g. 'split " in helped
    # not the chance form, not the solo form, not the other phases' forms
    for absent in ("draw CARDS", "keep CARDS", "build CARD", "buy SQUARE"):
        assert absent not in helped
    for prompt_word in ("board", "log [N]", "score", "undo", "quit"):
        assert prompt_word in helped
    # two humans: no undo offered (it is for games against bots)
    two = new(db, "card-city", "alice,bob", "s1")
    helped = prompts(ok(db, "play", two, "--as", "alice", input="help\nq\n"), "alice")[0]
    assert "split PAIR UP DOWN" in helped and "undo" not in helped


def test_card_city_forms_write_squares_as_the_board_labels_them() -> None:
    """[CL-10]: the help's Card City forms name a SQUARE of the frame (D4), never
    the old City-Hall-relative ROW,COL, and the example square is on the frame."""
    from cli.prompt import FORMS
    from core.card_city.squares import square_label

    forms = FORMS["card-city"]
    for verb in ("build", "develop", "buy"):
        assert forms[verb][0].endswith(" SQUARE"), forms[verb]
    assert not any("ROW" in form or "0,0" in text for form, text in forms.values())
    assert "E5" in forms["build"][1] and square_label(0, 0) == "E5"


def test_a_refusal_is_one_line_with_the_closest_commands_and_no_board(db: Path) -> None:
    gid = new(db, "card-city", "alice,bob", "s1", "--bots", "bob=greedy")
    out = ok(db, "play", gid, "--as", "alice", input="build R 9,9\nsplt CI C R\nq\n")
    board_header = out.splitlines()[0]
    assert out.count(board_header) == 1  # the table is shown once, never reprinted
    first, second = prompts(out, "alice")[:2]
    for answer in (first, second):
        assert answer.count("\n") == 1 and answer.startswith("refused:")
        assert "closest: split " in answer and "commands:" not in answer
    assert "[CB-2]" in first  # the acquisition phase [GL-2]
    assert "'splt' is not a command here (now: split)" in second
    legal = json.loads(ok(db, "show", gid, "--as", "alice", "--json"))["legal"]
    closest = second.split("closest: ")[1].split(" (? for help)")[0].split(" · ")
    assert 1 <= len(closest) <= 3 and set(closest) <= set(legal)


def test_a_prefix_lists_the_matching_commands_and_more_pages_reach_them_all(db: Path) -> None:
    gid = new(db, "point-city", "alice,bob", "p2", "--bots", "bob=greedy")
    legal = json.loads(ok(db, "show", gid, "--as", "alice", "--json"))["legal"]
    assert len(legal) > 20  # more than one page
    out = ok(db, "play", gid, "--as", "alice", input="take B1\nmore\nmore\nq\n")
    listed = prompts(out, "alice")[0]
    takes = [c for c in legal if c.startswith("take B1")]
    assert f"{len(takes)} legal commands start with 'take B1'" in listed
    assert all(c in listed for c in takes) and "flip" not in listed
    # the first page and two more: every legal command with its number
    for i, command in enumerate(legal, start=1):
        assert f"{i:>3}. {command}\n" in out


def test_every_point_city_payment_is_listed_and_choosable(db: Path) -> None:
    gid = new(db, "point-city", "p1,p2,p3", "u/2", "--bots", "p2=greedy,p3=greedy")
    for _ in range(12):  # play on until some pick has several payments
        legal = json.loads(ok(db, "show", gid, "--as", "p1", "--json"))["legal"]
        pairs: dict[str, list[str]] = {}
        for c in legal:
            if " pay " in c:
                pairs.setdefault(" ".join(c.split()[:3]), []).append(c)
        several = {k: v for k, v in pairs.items() if len(v) > 1}
        if several:
            break
        ok(db, "play", gid, "--as", "p1", input="1\nq\n")
    else:
        pytest.fail("no pick with several payments came up")
    pick, payments = next(iter(several.items()))
    out = ok(db, "play", gid, "--as", "p1", input=f"{pick}\nq\n")
    listed = prompts(out, "p1")[0]
    assert all(p in listed for p in payments)
    last = payments[-1]  # not the cheapest: chosen by its number
    number = legal.index(last) + 1
    before = len(ok(db, "log", gid).splitlines())
    out = ok(db, "play", gid, "--as", "p1", input=f"{number}\nq\n")
    log = ok(db, "log", gid).splitlines()
    assert len(log) > before and "p1 takes" in log[before]


def test_undo_forks_at_your_previous_decision_and_keeps_the_original(db: Path) -> None:
    gid = new(db, "5x5-city", "alice,bob", "f2", "--bots", "bob=greedy")
    out = ok(db, "play", gid, "--as", "alice", input="choose 3\nq\n")
    original = ok(db, "log", gid)
    out = ok(db, "play", gid, "--as", "alice", input="undo\nscore\nlog 2\nq\n")
    undone = prompts(out, "alice")[0]
    assert "undone: alice's 'choose 3'" in undone
    child = out.strip().split("citylog play ")[-1].split()[0]
    assert child != gid and f"a fork of {gid}" in undone
    assert ok(db, "log", gid) == original  # the original log is never changed
    tree = ok(db, "tree", gid)
    assert child in tree
    forked = json.loads(ok(db, "show", child, "--as", "alice", "--json"))
    assert forked["to_act"] == ["alice"] and "choose 3" in forked["legal"]
    assert len(ok(db, "log", child).splitlines()) < len(original.splitlines())
    scored = prompts(out, "alice")[1]
    assert "if the game ended now" in scored and "alice: 0 points" in scored
    logged = prompts(out, "alice")[2].splitlines()
    assert logged == ok(db, "log", child, "--as", "alice").splitlines()[-2:]
    # nothing before the first decision to take back
    out = ok(db, "play", child, "--as", "alice", input="undo\nq\n")
    assert prompts(out, "alice")[0].startswith("refused: nothing to undo")


def test_5x5_commands_name_tiles_as_the_hand_does(db: Path) -> None:
    gid = new(db, "5x5-city", "alice,bob", "f2", "--bots", "bob=greedy")
    out = ok(db, "play", gid, "--as", "alice", input="choose 3\nplace O\nq\n")
    hand = next(line for line in out.splitlines() if line.startswith("alice places: "))
    names = hand.split(": ", 1)[1].split()
    listed = prompts(out, "alice")[1]
    o_tiles = [n for n in names if n.startswith("O#")]
    assert o_tiles and all(f"place {n} " in listed for n in o_tiles)


def test_quit_and_end_of_input_leave_with_exit_0(db: Path) -> None:
    gid = new(db, "card-city", "alice,bob", "s1", "--bots", "bob=greedy")
    out = ok(db, "play", gid, "--as", "alice", input="quit\n")
    assert f"continue with: citylog play {gid} --as alice" in out
    ok(db, "play", gid, "--as", "alice", input="")


# -- final results ----------------------------------------------------------------------
@pytest.mark.parametrize("game", ["card-city", "5x5-city", "point-city"])
def test_final_results_give_every_breakdown_and_the_winner(db: Path, game: str) -> None:
    gid = new(db, game, "ann,bob", "e", "--bots", "greedy")
    final = json.loads(ok(db, "show", gid, "--json"))
    text = ok(db, "show", gid)
    for b in final["breakdowns"]:
        name = final["players"][b["seat"]]
        assert f"{name}: {plural(b['total'], 'point')}" in text
        for line in b["lines"]:
            assert f"{line['points']:>5}  " in text
    assert final["verdict"] in text and final["verdict"].startswith(final["winners"][0])
    again = new(db, game, "ann,bob", "e", "--bots", "greedy")
    assert final["verdict"] in ok(db, "play", again)
    demo = ok(db, "demo", "--game", game, "--players", "2", "--quiet")
    assert "ada: " in demo and ("wins with" in demo or "tie" in demo)


def test_a_shared_win_and_a_broken_tie_name_the_rule(db: Path) -> None:
    # seeds found for pc-3 [PL-17] (its games differ from pc-2's where Ingenuity takes are listed)
    shared = new(db, "point-city", "p1,p2,p3", "u/4", "--bots", "greedy")
    text = ok(db, "show", shared)
    assert "a tie: p1 and p3 share the win with 39 points each" in text and "[PC-6]" in text
    broken = new(db, "point-city", "p1,p2,p3", "u/29", "--bots", "greedy")
    assert "p2 and p3 tie on 41 points, broken by unspent resource cards (2 vs 3) [PC-6]: p3 wins" in ok(
        db, "show", broken)
    coins = new(db, "card-city", "p1,p2,p3", "u/52", "--bots", "greedy")
    done = json.loads(ok(db, "autoplay", coins, "--json"))
    assert done["verdict"] == "p1 and p2 tie on 9 points, broken by coins left after the exchange (2 vs 0) " \
        "[CC-11]: p1 wins"


def test_solo_results(db: Path) -> None:
    lost = new(db, "point-city", "ann", "r1", "--bots", "greedy")
    shown = ok(db, "show", lost)
    assert "the solo opponent (level 1) wins (55 points to 35) [PL-10]" in shown
    assert "solo opponent (level 1): 55 points" in shown  # its breakdown too
    cc = new(db, "card-city", "ann", "r1", "--bots", "greedy")
    assert "ann scores 9 points: solo level Homestead [CC-9]" in ok(db, "show", cc)
    fc = new(db, "5x5-city", "ann", "r1", "--bots", "greedy")
    assert "ann scores 84 points: solo title “Good Mayor”" in ok(db, "show", fc)


def test_verdicts_and_plurals() -> None:
    game = registry.get("5x5-city")
    b = lambda seat, key: Breakdown(seat, (), 10, key)  # noqa: E731
    tie = Result((10, 10), (1,), (b(0, (3, 4)), b(1, (3, 6))))
    assert verdict(game, ("a", "b"), None, tie) == "a and b tie on 10 points, broken by Houses points (4 vs 6) " \
        "[FC-9, FL-9]: b wins"
    shared = Result((10, 10), (0, 1), (b(0, (3, 4)), b(1, (3, 4))))
    assert verdict(game, ("a", "b"), None, shared).startswith("a tie: a and b share the win with 10 points each")
    assert (plural(1, "point"), plural(0, "point"), plural(-1, "point")) == ("1 point", "0 points", "-1 points")


# -- simulate ---------------------------------------------------------------------------
def test_simulate_summary_sums_to_100_percent_and_matches_the_games(db: Path) -> None:
    out = ok(db, "simulate", "point-city", "--players", "3", "--seed", "u", "--games", "5", "--bots", "greedy",
             "--json")
    *games, last = [json.loads(x) for x in out.splitlines()]
    summary = last["summary"]
    assert len(games) == summary["games"] == 5 and summary["players"] == ["p1", "p2", "p3"]
    assert any(len(g["winners"]) == 2 for g in games)  # u/4: a shared win (pc-3)
    for seat, s in enumerate(summary["seats"]):
        assert s["wins"] + s["ties"] + s["losses"] == 5
        assert s["win_pct"] + s["tie_pct"] + s["loss_pct"] == pytest.approx(100)
        name = s["player"]
        assert s["wins"] == sum(g["winners"] == [name] for g in games)
        assert s["ties"] == sum(name in g["winners"] and len(g["winners"]) > 1 for g in games)
        scores = [g["scores"][seat] for g in games]
        assert s["score"]["mean"] == pytest.approx(statistics.fmean(scores), abs=1e-3)
        assert s["score"]["median"] == statistics.median(scores)
        margins = [g["scores"][seat] - max(x for i, x in enumerate(g["scores"]) if i != seat) for g in games]
        assert s["margin"]["mean"] == pytest.approx(statistics.fmean(margins), abs=1e-3)
        lo, hi = s["score"]["ci95"]
        assert lo <= s["score"]["mean"] <= hi
    assert sum(s["wins"] for s in summary["seats"]) + sum(s["ties"] for s in summary["seats"]) // 2 == 5
    text = ok(db, "simulate", "point-city", "--players", "3", "--seed", "u", "--games", "5", "--bots", "greedy")
    assert "a shared win counts as a tie" in text and "95% confidence interval" in text
    assert "1 (20.0%)" in text and "margin:" in text


def test_simulate_takes_options(db: Path) -> None:
    out = ok(db, "simulate", "point-city", "--players", "1", "--seed", "o", "--option", "solo-level=3", "--json")
    game, last = [json.loads(x) for x in out.splitlines()]
    assert last["summary"]["options"] == {"solo-level": "3"}
    assert "level 3" in ok(db, "show", game["game_id"])
    assert "margin" not in last["summary"]["seats"][0]  # no other seat to compare with
    code, out, err = run(db, "simulate", "card-city", "--players", "2", "--seed", "o", "--option", "nope=1")
    assert code == 2 and err.count("\n") == 1 and "no option 'nope'" in err and "Traceback" not in err


def test_spread_and_outcome() -> None:
    assert spread([1, 2, 3]) == {"mean": 2.0, "sd": 1.0, "median": 2, "ci95": [-0.484, 4.484]}
    assert spread([5])["ci95"] == [5.0, 5.0]
    assert [outcome(0, w) for w in ([0], [0, 1], [1], [])] == ["win", "tie", "loss", "loss"]
    rows = [{"scores": [3, 3], "winner_seats": [0, 1]}, {"scores": [4, 1], "winner_seats": [0]}]
    seats = summarize("x", ["a", "b"], {0: "r", 1: "r"}, {}, "s", rows)["seats"]
    assert [(s["wins"], s["ties"], s["losses"]) for s in seats] == [(1, 1, 0), (0, 1, 1)]
