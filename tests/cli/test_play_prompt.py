"""Issue 14 (part B): the play prompt, final results everywhere, simulate statistics."""

from __future__ import annotations

import json
import re
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
    from core.card_city.squares import square_label

    forms = {f.verb: (f.form, f.what) for f in registry.get("card-city").syntax.forms}
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


def _point_city_with_payments(db: Path) -> tuple[str, list[str], str, list[str]]:
    """A Point City game where p1 may take a pick in several ways: (game, legal, pick, its payments)."""
    gid = new(db, "point-city", "p1,p2,p3", "u/2", "--bots", "p2=greedy,p3=greedy")
    for _ in range(12):  # play on until some pick has several payments
        legal = json.loads(ok(db, "show", gid, "--as", "p1", "--json"))["legal"]
        pairs: dict[str, list[str]] = {}
        for c in legal:
            if " pay " in c:
                pairs.setdefault(" ".join(c.split()[:3]), []).append(c)
        several = {k: v for k, v in pairs.items() if len(v) > 1}
        if several:
            pick, payments = next(iter(several.items()))
            return gid, legal, pick, payments
        ok(db, "play", gid, "--as", "p1", input="1\nq\n")
    pytest.fail("no pick with several payments came up")


def _parsed(db: Path, gid: str, text: str) -> str:
    """``text`` as p1's command now, as the game reads it."""
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    store = SqliteStore(db)
    try:
        loaded = GameService(store).load(gid)
        game = loaded.game
        return game.format_command(game.parse_command(game.view(loaded.state, 0), 0, text))
    finally:
        store.close()


def _last_command(db: Path, gid: str, before: int) -> str:
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    store = SqliteStore(db)
    try:
        loaded = GameService(store).load(gid)
        opened = loaded.game.command_of(loaded.events[before])
        assert opened is not None
        return loaded.game.format_command(opened[1])
    finally:
        store.close()


NUMBERED = re.compile(r"^ +\d+\. (.*)$", re.M)


@pytest.mark.slow  # about 6 s: greedy bots play Point City until a pick has several payments
def test_point_city_takes_first_then_the_payment_cheapest_by_default(db: Path) -> None:
    """Issue 26 item 2: the list holds each take once (the cells, or the deck); its
    payments are a second, optional step whose default (Enter) is the cheapest —
    the command the take's text alone parses to [PC-3] — and every payment is reachable."""
    gid, legal, pick, payments = _point_city_with_payments(db)
    seq = json.loads(ok(db, "show", gid, "--json"))["seq"]
    third = json.loads(ok(db, "fork", gid, "--at", str(seq), "--json"))["game_id"]  # the same position
    cheapest = _parsed(db, gid, pick)  # the take without 'pay': the cheapest [PC-3]
    before = len(ok(db, "log", gid).splitlines())
    out = ok(db, "play", gid, "--as", "p1", input=f"{pick}\n\nq\n")
    page, step = out.split("p1> ")[0], prompts(out, "p1")[0].split("p1 (payment)> ")[0]
    heads = {" ".join(c.split()[:3]) if c.startswith("take ") else c for c in legal}
    listed = NUMBERED.findall(page)
    assert len(listed) == min(len(heads), 20) < len(legal) and not any(" pay " in c for c in listed)
    assert f"{pick}  ({len(payments)} payments)" in listed
    assert f"{pick}: {len(payments)} payments — Enter takes the cheapest" in step
    tails = NUMBERED.findall(step)
    assert sorted(tails) == sorted(p[len(pick) + 1:] for p in payments)  # every payment, by its tail
    played = _last_command(db, gid, before)
    assert played == f"{pick} {tails[0]}" == cheapest  # Enter: the first, the default
    # a payment other than the default, by its number in the second step
    ok(db, "play", third, "--as", "p1", input=f"{pick}\n{len(tails)}\nq\n")
    assert _last_command(db, third, before) == f"{pick} {tails[-1]}" != played


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
    # issue 26 item 8: the end of input says where the game stands, never silently
    ended = prompts(ok(db, "play", gid, "--as", "alice", input=""), "alice")[0]
    seq = json.loads(ok(db, "show", gid, "--json"))["seq"]
    assert ended == f"end of input: saved at seq {seq}, alice to act (every move made is recorded); " \
        f"continue with: citylog play {gid} --as alice\n"


def test_the_prompt_shows_the_legend_as_show_does(db: Path) -> None:
    """Issue 26 item 8: the table at the prompt ends with ``show``'s legend line."""
    for game in ("card-city", "point-city"):
        gid = new(db, game, "alice,bob", "s1", "--bots", "bob=greedy")
        legend = next(line for line in ok(db, "show", gid, "--as", "alice").splitlines()
                      if line.startswith("legend: "))
        assert f"\n{legend}\n" in ok(db, "play", gid, "--as", "alice", input="q\n").split("alice> ")[0]


def _card_city_offer(db: Path, tmp: Path) -> Path:
    """A two-player Card City game where bob is offered a split with a face-down half:
    bob's view, exported as it would arrive by email."""
    gid = new(db, "card-city", "alice,bob", "s1")
    legal = json.loads(ok(db, "show", gid, "--as", "alice", "--json"))["legal"]
    ok(db, "move", gid, "--as", "alice", next(c for c in legal if len(c.split()) == 4))  # PAIR UP DOWN
    view = tmp / "bob.jsonl"
    ok(db, "export", gid, "--as", "bob", "-o", str(view))
    return view


def test_a_view_prompt_stops_at_the_information_boundary(db: Path, tmp_path: Path) -> None:
    """Issue 26 item 1: after 'take rest' bob holds a card he has not seen; the prompt
    writes the move file for what he can decide now and says what comes next, and
    never lists a command on the unseen card ('build ? E4' cannot be signed)."""
    view = _card_city_offer(db, tmp_path)
    out_dir = tmp_path / "out"
    code, out, err = run(db, "play", str(view), "--as", "bob", "--out", f"{out_dir}/", input="take rest\n1\nsend\n")
    assert code == 0, err
    assert "that is all bob can decide now: you will see the face-down card you took in the next view" in out
    after = out.split("chosen: take rest")[1]
    assert not NUMBERED.findall(after) and "?" not in after.replace("(? for help)", "")
    [written] = list(out_dir.iterdir())
    assert json.loads(written.read_text())["commands"] == ["take rest"]


TAKE_REST_INTO_CONSTRUCTION = Path(__file__).parent / "data" / "card-city-take-rest-into-construction.jsonl"
"""carol's view at seq 178 of a 3-seat Card City game by email (tests/post/test_e2e_mail.py):
the last offer of the round, pair PR | rest P + a face-down card.  Her P has no legal square;
the face-down card was an R, which has none either, so at the host 'take rest' ends with
both discarded [CC-2] and carol out of the construction phase."""


def test_a_view_prompt_stops_at_a_face_down_card_taken_into_construction(db: Path, tmp_path: Path) -> None:
    """The view's counting [GN-1] says a hand that was not discarded in construction holds a
    card it can build; on the prompt's own 'take rest' no discard was decided at all (the
    card is unseen), so that counting named the card (an I, the one kind carol could build)
    and the prompt went on: 'build I D1; build P E1', which the host refused ('it is not
    carol's turn') and the game by email stalled.  The prompt stops at the card taken."""
    out_dir = tmp_path / "out"
    code, out, _ = run(db, "play", str(TAKE_REST_INTO_CONSTRUCTION), "--as", "carol", "--out", f"{out_dir}/",
                       input="take rest\n1\n1\nq\n")
    assert "that is all carol can decide now: you will see the face-down card you took in the next view" in out
    after = out.split("chosen: take rest")[1]
    assert "chosen:" not in after and not NUMBERED.findall(after), out[-2000:]
    # carol's key is not in this data directory: the file is not written, the choice is kept
    assert "your choices are kept (take rest)" in out and code == 2


def test_a_failed_send_keeps_the_choices(db: Path, tmp_path: Path) -> None:
    """Issue 26 item 1: a move file that cannot be written loses nothing: one line says
    why, the choices stay, 'send DIR' writes them elsewhere; quitting then says how to
    write them later, and the end of input says nothing was sent (exit 2 after a failure)."""
    view = _card_city_offer(db, tmp_path)
    taken = tmp_path / "taken.json"
    taken.write_text("in the way")
    code, out, _ = run(db, "play", str(view), "--as", "bob", "--out", str(taken),
                       input=f"take rest\nsend {tmp_path / 'elsewhere'}/\n")
    assert code == 0
    [failed] = [line for line in out.splitlines() if line.startswith("not sent:")]
    assert "exists; not overwritten" in failed and "your choices are kept (take rest)" in failed
    assert taken.read_text() == "in the way"
    [written] = list((tmp_path / "elsewhere").iterdir())
    assert json.loads(written.read_text())["commands"] == ["take rest"]
    code, out, _ = run(db, "play", str(view), "--as", "bob", "--out", str(taken), input="take rest\n")
    assert code == 2 and "end of input: nothing sent; bob's choices (take rest) are not written: " \
        f"citylog move {view} --as bob 'take rest' --out {taken} writes them" in out
    code, out, _ = run(db, "play", str(view), "--as", "bob", "--out", str(taken), input="")
    assert code == 0 and out.endswith(f"end of input: nothing sent; bob is to act at seq 6 of {view}\n")


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


def test_the_prompt_names_no_game() -> None:
    """Issue 27 item 2: each game's command syntax is the game's (``Game.syntax``, its
    ``forms.py``); the prompt and what it offers read it and name no game."""
    import cli.choices
    import cli.prompt

    for module in (cli.prompt, cli.choices):
        source = Path(module.__file__ or "").read_text(encoding="utf-8").lower()
        for name in registry.available():
            game = registry.get(name)
            assert name not in source and game.spec.title.lower() not in source, (module.__name__, name)
    for name in registry.available():
        syntax = registry.get(name).syntax
        assert syntax.forms and len({f.verb for f in syntax.forms if not f.chance}) == \
            len([f for f in syntax.forms if not f.chance])


def test_a_legal_verb_with_no_legal_rest_says_nothing_starts_so(db: Path) -> None:
    """A prefix no listed command starts with ('take Z9') is refused as such, with the
    closest commands, not as an unreadable text (the walkthrough found 'cannot read')."""
    gid = new(db, "point-city", "alice,bob", "p2", "--bots", "bob=greedy")
    answer = prompts(ok(db, "play", gid, "--as", "alice", input="take Z9\nq\n"), "alice")[0]
    assert answer.startswith("refused: no legal command starts with 'take Z9'"), answer
    assert "closest: take " in answer and "cannot read" not in answer
