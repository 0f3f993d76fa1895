"""Issue 26 ("ugly or confusing is a bug"): citylog counts in words — ``1 card``,
``3 commands``, ``you vs 1 bot`` — and never says ``3 command(s)``.

Two laws:

* no string literal in cli/, core/, replay/ or events/ says ``word(s)``, but for
  the few :data:`ALLOWED` (each with its reason: Card City's final-score details
  are recorded that way in the ``cc.scored`` events, whose bytes and hashes must
  not change, and are read out through :func:`core.words.plurals`);
* on the shared corpus of seeded random games of every game
  (tests/helpers/corpus.py), nothing the rules, the explanations, the scenes,
  the results and the commands show says it: ``describe`` and ``explain`` of
  every event, ``render`` and the scene from every seat's view at sampled
  positions, the scores so far and the result, the refusals of commands tried
  out of place, the syntax errors of every command form, Card City's ``where``
  on boards from the games; and through the CLI (one corpus game of each game,
  replayed into a store by its bots) ``show``, ``log``, ``legal``, ``explain``
  (with ``--try`` refused too), ``score``, ``where``, ``picture`` and the HTML
  page; the TUI's palette entries and every recorded TUI snapshot.
"""

from __future__ import annotations

import ast
import functools
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from cli.results import breakdown_lines, opponent_lines, result_lines
from core import registry
from core.engine import CHANCE, RulesError, checked_decide
from core.words import plural, plurals
from replay.explain import explain_at
from replay.html import unpack
from tests.cli.clirun import ok, run
from tests.helpers.corpus import Played, corpus

ROOT = Path(__file__).resolve().parents[2]
MAYBE = re.compile(r"\b[A-Za-z]+\(s\)")
"""``card(s)``, ``square(s)``: a word with a maybe-plural ending (``f(s)`` of code is
no word: an identifier with ``_`` before it does not match, ``show(s)`` would)."""

ALLOWED: dict[str, tuple[set[str], str]] = {
    "core/card_city/scoring.py": (
        {"square(s)", "row(s)", "column(s)", "district(s)"},
        "final-score details inside the recorded cc.scored events (event bytes, hash chain, golden logs); "
        "every reader says them through core.words.plurals (core.card_city.game._framed)",
    ),
    "core/words.py": (
        {"card(s)", "square(s)", "row(s)", "column(s)", "coin(s)"},
        "the docstrings and doctests of plurals, which reads the recorded form out",
    ),
    "core/card_city/game.py": ({"square(s)"}, "_framed's docstring quotes the recorded form it reads out"),
}


def _said(where: str, text: str) -> None:
    found = MAYBE.search(text)
    assert found is None, f"{where} says {found.group()!r}: …{text[max(0, found.start() - 80):found.end() + 40]}…"


# -- the source -----------------------------------------------------------------------
@functools.cache
def _literals() -> tuple[tuple[str, int, str], ...]:
    return tuple(_each_literal())


def _each_literal() -> Iterator[tuple[str, int, str]]:
    for package in ("cli", "core", "replay", "events"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):  # an f-string's literal parts are Constants too
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    yield path.relative_to(ROOT).as_posix(), node.lineno, node.value


def test_no_string_literal_says_a_maybe_plural() -> None:
    found = [(f, line, m.group()) for f, line, text in _literals() for m in MAYBE.finditer(text)
             if m.group() not in ALLOWED.get(f, (set(), ""))[0]]
    assert found == [], "say the count in words (core.words.plural), or allow it with a reason: " + repr(found)


def test_every_allowance_is_still_needed() -> None:
    used = {(f, m.group()) for f, _, text in _literals() for m in MAYBE.finditer(text)}
    for f, (words, _) in ALLOWED.items():
        assert {(f, w) for w in words} <= used, f"{f}: {words} allowed but no longer there"


def test_the_words() -> None:
    assert [plural(n, "card") for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
    assert plural(1, "city", "cities") == "1 city" and plural(3, "city", "cities") == "3 cities"
    assert plurals("6 empty square(s); City Hall 1 row(s) and 0 column(s) off centre; 1 Industrial district(s)") == (
        "6 empty squares; City Hall 1 row and 0 columns off centre; 1 Industrial district")


def test_one_of_a_thing_is_said_singular() -> None:
    """Where the count is one: ``1 coin`` in Card City's table and scene, ``bag 1 tile``
    in 5x5 City's (the words the corpus rarely reaches)."""
    from msgspec.structs import replace

    if "card-city" in registry.available():
        game = registry.get("card-city")
        state = game.fold(corpus("card-city")[0].events[:10])
        state = replace(state, players=tuple(replace(p, coins=1) for p in state.players))
        shown = game.render(state, None) + msgspec.json.encode(game.scene(state, None)).decode()
        assert "1 coin" in shown and "1 coins" not in shown
    if "5x5-city" in registry.available():
        game = registry.get("5x5-city")
        state = game.fold(corpus("5x5-city")[0].events[:10])
        state = replace(state, bag=state.bag[:1])
        shown = game.render(state, None) + msgspec.json.encode(game.scene(state, None)).decode()
        assert "bag 1 tile:" in shown and "1 tiles" not in shown


# -- the games' texts, in process, on the corpus ----------------------------------------
def _positions(played: Played, game: Any) -> list[tuple[Any, Any, Any]]:
    """(state before, event, state after) for every event of a corpus game."""
    out, state = [], None
    for e in played.events:
        after = game.apply(state, e)
        out.append((state, e, after))
        state = after
    return out


def _tried(game: Any, state: Any, seat: int, command: Any) -> str | None:
    """The refusal of ``command`` by ``seat`` at ``state`` (None: it is legal)."""
    try:
        checked_decide(game, state, seat, command)
    except RulesError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("name", registry.available())
def test_what_the_rules_and_the_readers_say_counts_in_words(name: str) -> None:
    game = registry.get(name)
    rnd = random.Random(f"maybe-plurals:{name}")
    for k, played in enumerate(corpus(name)):
        players = played.players
        steps = _positions(played, game)
        opened = [x for x in map(game.command_of, played.events) if x is not None]
        for i, (before, e, _after) in enumerate(steps):
            _said(f"{name} #{k} describe {i + 1}", game.describe(e, players))
            if before is not None:
                _said(f"{name} #{k} explain {i + 1}", game.explain(before, e, players))
        sampled = sorted(rnd.sample(range(len(steps)), min(10, len(steps))))
        for i in sampled:
            state = steps[i][2]
            for seat in [None, *range(len(players))]:
                seen = state if seat is None else game.view(state, seat)
                where = f"{name} #{k} at {i + 1} as {seat}"
                _said(f"{where} render", game.render(seen, seat))
                _said(f"{where} scene", msgspec.json.encode(game.scene(seen, seat)).decode())
                _said(f"{where} score", "\n".join(breakdown_lines(players, game.score_now(seen))))
                if seat is not None:
                    _said(f"{where} unseen", game.unseen(seen, seat) or "")
            for seat in [CHANCE, *range(len(players))]:  # commands of elsewhere in the game, tried here
                for _, command in rnd.sample(opened, min(6, len(opened))):
                    _said(f"{name} #{k} at {i + 1} seat {seat} refusal", _tried(game, state, seat, command) or "")
        final = steps[-1][2]
        result = game.result(final)
        assert result is not None
        _said(f"{name} #{k} result", "\n".join(result_lines(game, players, final, result)))
        _said(f"{name} #{k} opponent", "\n".join(opponent_lines(game, final)))
        for seq in sorted(rnd.sample(range(1, len(steps) + 1), 4)) + [len(steps)]:
            _said(f"{name} #{k} explain_at {seq}", explain_at(game, list(played.events), players, seq, True))


@pytest.mark.parametrize("name", registry.available())
def test_a_command_with_the_wrong_arguments_is_refused_in_words(name: str) -> None:
    game = registry.get(name)
    played = corpus(name)[0]
    state = game.fold(played.events[:3])
    for form in game.syntax.forms:
        for text in (form.verb, f"{form.verb} x", f"{form.verb} x y z w v"):
            for seat in (0, CHANCE):
                try:
                    game.parse_command(state, seat, text)
                except RulesError as exc:
                    _said(f"{name} {text!r}", str(exc))


def _card_city_boards(played: Played) -> Iterator[str]:
    """Each seat's city at a few points of a Card City corpus game, as a bare 5 × 5 board file."""
    game = registry.get("card-city")
    for i in (20, len(played.events) // 2, len(played.events)):
        state = game.fold(played.events[:i])
        for p in state.players:
            grid = {(r, c): k for r, c, k in p.city}
            rows = [r for r, _ in grid] or [0]
            cols = [c for _, c in grid] or [0]
            top, left = min(min(rows), max(rows) - 4), min(min(cols), max(cols) - 4)
            yield "\n".join(" ".join(grid.get((r, c), ".") for c in range(left, left + 5))
                            for r in range(top, top + 5)) + "\n"


def test_where_and_score_say_counts_in_words() -> None:
    if "card-city" not in registry.available():
        pytest.skip("card-city is not available in this build")
    game = registry.get("card-city")
    boards = [b for played in corpus("card-city")[:4] for b in _card_city_boards(played)]
    for n, board in enumerate(boards):
        for card in "RCLIP":
            for coins in ("0", "9"):
                _said(f"where {card} on board {n}", game.where_board(board, f"b{n}", card, {"coins": coins}).text)
        for params in ({"coins": "7"}, {"coins": "1", "variant": "decentralization"}):
            shown = game.score_board(board, f"b{n}", params)
            _said(f"score board {n}", shown.text + json.dumps(shown.data))


# -- through the CLI ------------------------------------------------------------------
def _replayed(db: Path, name: str, played: Played) -> str:
    """The corpus game played again into the store by the same bots (the same seed: the same game)."""
    options = [x for k, v in played.options for x in ("--option", f"{k}={v}")]
    bots = ",".join(f"{p}={b}" for p, b in zip(played.players, played.policies))
    gid: str = json.loads(ok(db, "new", name, "--players", ",".join(played.players), "--seed", played.seed,
                             *options, "--bots", bots, "--json"))["game_id"]
    assert json.loads(ok(db, "show", gid, "--json"))["seq"] == len(played.events)
    return gid


def _printed_board(show: str, title: str) -> str:
    """The board ``show`` prints under the line starting with ``title`` (its header and rows)."""
    lines = show.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith(title))
    rows = [lines[at + 1]]
    for line in lines[at + 2:]:
        if not line.split() or not line.split()[0].isdigit():
            break
        rows.append(line)
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize("name", registry.available())
def test_the_commands_say_counts_in_words(name: str, db: Path, tmp_path: Path) -> None:
    game = registry.get(name)
    played = corpus(name)[0]
    gid = _replayed(db, name, played)
    rnd = random.Random(f"maybe-plurals-cli:{name}")
    total = len(played.events)
    decided = [i for i in range(2, total) if game.command_of(played.events[i]) is not None]
    seqs = sorted(rnd.sample(decided, 2))  # seq + 1 is a decision: --try asks before it
    tries = [game.format_command(c) for _, c in rnd.sample([x for x in map(game.command_of, played.events)
                                                            if x is not None and x[0] != CHANCE], 3)]
    first = played.players[0]

    def said(*args: str, codes: tuple[int, ...] = (0, 1)) -> str:
        code, out, err = run(db, *args)
        assert code in codes, f"{args} exited {code}: {err}{out}"
        _said(f"citylog {' '.join(args)}", out + err)
        return out

    said("show", gid)
    said("show", gid, "--as", first)
    said("log", gid)
    said("log", gid, "--as", first)
    said("legal", gid, "--as", first)
    said("explain", gid, "--at", str(total))
    forks = []
    for seq in seqs:
        said("show", gid, "--at", str(seq))
        said("explain", gid, "--at", str(seq))
        for text in tries:  # mostly refused: another point's command
            said("explain", gid, "--at", str(seq + 1), "--try", text)
        taking = [x for p in played.players for x in ("--as", p)]  # every seat, so no bot plays on
        forks.append(json.loads(ok(db, "fork", gid, "--at", str(seq), *taking, "--json"))["game_id"])
    for fork in forks:
        actors = json.loads(ok(db, "show", fork, "--json"))["to_act"]
        for player in played.players:
            said("legal", fork, "--as", player)
            for text in tries[:2]:  # refused as a move (1: a rule, 2: not this seat's to write)
                said("move", fork, "--as", player, text, codes=(0, 1, 2))
        if actors:
            said("move", fork, "--as", actors[0], said("legal", fork, "--as", actors[0]).splitlines()[0].strip())
    said("picture", gid, "--at", str(seqs[0]), "-o", str(tmp_path / "p.svg"))
    _said("picture", (tmp_path / "p.svg").read_text(encoding="utf-8"))
    said("export", forks[0], "--format", "html", "-o", str(tmp_path / "g.html"))  # a short game: a cheap page
    _said("the replay page", json.dumps(unpack((tmp_path / "g.html").read_text(encoding="utf-8")), ensure_ascii=False))
    if name == "card-city":
        board = tmp_path / "board.txt"
        board.write_text(_printed_board(ok(db, "show", gid), first), encoding="utf-8")
        said("score", "card-city", str(board), "--coins", "6")
        said("score", "card-city", str(board), "--coins", "6", "--variant", "decentralization", "--json")
        early = tmp_path / "early.txt"
        early.write_text(_printed_board(ok(db, "show", gid, "--at", "20"), first), encoding="utf-8")
        for card in "RCI":
            said("where", "card-city", str(early), "--card", card, "--coins", "0")


# -- the TUI --------------------------------------------------------------------------
def test_the_palette_counts_the_bots_in_words() -> None:
    pytest.importorskip("textual")
    from cli.tui.palette import _new_game_entries

    entries = _new_game_entries()
    assert entries
    for text, _, _ in entries:
        _said("palette", text)


def test_no_recorded_snapshot_shows_a_maybe_plural() -> None:
    """The TUI's snapshots are its screens as the tests drive it (play panel, diff, replay);
    the pictures' are ``citylog picture`` of the golden logs."""
    tui = sorted((ROOT / "tests" / "tui" / "__snapshots__").rglob("*.svg"))
    pictures = sorted((ROOT / "tests" / "replay" / "snapshots").glob("*.svg"))
    assert tui and pictures
    shots = [*tui, *pictures, ROOT / "docs" / "picture-card-city.svg"]
    for shot in shots:
        text = shot.read_text(encoding="utf-8").replace("&#160;", " ")
        _said(shot.name, text)
