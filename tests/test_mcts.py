"""Information-set MCTS laws, for every registered game.

* From any reachable position of a random game, the search returns a legal
  command of the seat to act.
* Same seed and same view → same command (a bot is deterministic).
* Two true states with the same view for the seat → the same command: the
  search sees only the view (the second state is a different sample of the
  hidden information, made by ``determinize``).
Budgets are tiny: the laws do not depend on strength.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import registry
from core.autoplay import play_game
from core.bots import parse_budget
from core.engine import CHANCE, checked_step
from core.mcts import Budget, playout, rewards, search
from core.rng import Rng

GAMES = registry.available()
BUDGET = Budget(playouts=6)


def _position(game, data):
    n = data.draw(st.integers(max(2, game.spec.min_players), min(3, game.spec.max_players)), label="players")
    seed = data.draw(st.text("abcdef0123456789", min_size=1, max_size=6), label="seed")
    states = []

    def keep(before, seat, command, produced):  # positions where a player decides
        if seat != CHANCE:
            states.append((before, seat))

    play_game(game, [f"p{i}" for i in range(n)], seed, ["random"] * n, keep_events=False, hook=keep)
    return seed, data.draw(st.sampled_from(states), label="position")


@pytest.mark.parametrize("name", GAMES)
@given(data=st.data())
def test_search_is_legal_deterministic_and_blind(name: str, data: st.DataObject) -> None:
    game = registry.get(name)
    seed, (real, seat) = _position(game, data)
    seen = game.view(real, seat)
    choice = search(game, seen, seat, Rng.derive(seed, 1, "mcts"), BUDGET)[0].command
    assert game.is_legal(real, seat, choice)
    assert search(game, seen, seat, Rng.derive(seed, 1, "mcts"), BUDGET)[0].command == choice
    # another true state behind the same view: the bot cannot tell them apart
    other = game.determinize(seen, seat, Rng.derive(seed, 2, "other"))
    assert game.view(other, seat) == seen
    bot = game.bots["mcts:6"]
    assert bot(game, game.view(other, seat), seat, Rng.derive(seed, 1, "mcts")) == choice


@pytest.mark.parametrize("name", GAMES)
@given(data=st.data())
def test_playouts_play_legal_commands(name: str, data: st.DataObject) -> None:
    """``random_command`` (Point City's samples a move, then a payment) is legal, and
    seeded by its ``Rng`` alone."""
    game = registry.get(name)
    seed, (state, seat) = _position(game, data)
    command = game.search.random_command(state, seat, Rng.derive(seed, 3, "playout"))
    assert game.is_legal(state, seat, command)
    assert game.search.random_command(state, seat, Rng.derive(seed, 3, "playout")) == command
    # a flat search's playouts: the searching seat and the others (5x5 City: two policies)
    for searcher in {seat, (seat + 1) % len(game.players(state))}:
        command = game.search.playout_command(state, seat, searcher, Rng.derive(seed, 4, "playout"))
        assert game.is_legal(state, seat, command)
        assert game.search.playout_command(state, seat, searcher, Rng.derive(seed, 4, "playout")) == command


@pytest.mark.parametrize("name", GAMES)
@given(data=st.data())
def test_a_playout_plays_what_the_rules_would(name: str, data: st.DataObject) -> None:
    """A playout (through ``SearchModel.random_step`` and ``chance_step``, which a game
    may make without the referee's checks, issue 25) ends where the rules' checked
    ``step`` of ``random_command`` and ``chance`` leads, with the same draws."""
    game = registry.get(name)
    seed, (state, _seat) = _position(game, data)
    fast, slow = Rng.derive(seed, 5, "playout"), Rng.derive(seed, 5, "playout")
    end = playout(game, state, fast)
    s = state
    while actors := game.to_act(s):
        actor = actors[0]
        command = game.chance(s, slow) if actor == CHANCE else game.search.random_command(s, actor, slow)
        s = checked_step(game, s, actor, command)[1]
    assert end == s
    assert fast.below(1 << 30) == slow.below(1 << 30)  # the same draws were made


@pytest.mark.parametrize("name", GAMES)
@given(data=st.data())
def test_candidates_are_some_of_the_legal_commands(name: str, data: st.DataObject) -> None:
    """What the search expands (``Game.candidates``): None (every legal command) or a
    non-empty list of legal ones, the same from the seat's view as from the true state."""
    game = registry.get(name)
    _, (state, seat) = _position(game, data)
    chosen = game.search.candidates(state, seat)
    if chosen is None:
        return
    legal = list(game.legal(state, seat))
    assert chosen and all(c in legal for c in chosen)
    assert game.search.candidates(game.view(state, seat), seat) == chosen


@pytest.mark.parametrize("name", GAMES)
def test_the_bot_plays_whole_games(name: str) -> None:
    game = registry.get(name)
    state, _ = play_game(game, ["a", "b"], "mcts-whole", ["mcts:2", "random"], keep_events=False)
    assert game.result(state) is not None


def test_search_statistics_cover_every_root_command() -> None:
    game = registry.get("5x5-city")
    state, _ = play_game(game, ["a", "b"], "stats", ["random", "random"], keep_events=False)
    created = game.apply(None, game.create(["a", "b"], {}))
    real = created
    while game.to_act(real) == (CHANCE,):
        for e in game.decide(real, CHANCE, game.chance(real, Rng(b"c"))):
            real = game.apply(real, e)
    seat = game.to_act(real)[0]
    choices = search(game, game.view(real, seat), seat, Rng(b"s"), Budget(40))
    assert sorted(map(game.format_command, (c.command for c in choices))) == sorted(
        map(game.format_command, game.legal(real, seat))
    )
    searched = game.search.candidates(game.view(real, seat), seat) or []
    if game.search.flat and game.search.halving and len(searched) == 3:
        # sequential halving: 6 worlds for all three, then 10 more for the better two
        assert sorted(c.visits for c in choices if c.visits) == [6, 16, 16]
    elif game.search.flat:  # every option played out in the same whole worlds: 13 each
        assert sorted(c.visits for c in choices if c.visits) == [40 // len(searched)] * len(searched)
    else:
        assert sum(c.visits for c in choices) == 40
    assert [c.visits for c in choices] == sorted((c.visits for c in choices), reverse=True)
    assert all(0.0 <= c.value <= 1.0 for c in choices)


def test_flat_rewards_are_a_win_share_then_the_margin() -> None:
    from core.engine import Result
    from core.mcts import _played

    won = _played(Result(scores=(80, 70), winners=(0,), breakdowns=()), 0)
    just = _played(Result(scores=(71, 70), winners=(0,), breakdowns=()), 0)
    lost = _played(Result(scores=(69, 70), winners=(1,), breakdowns=()), 0)
    tie = _played(Result(scores=(70, 70), winners=(0, 1), breakdowns=()), 0)
    assert 1.0 >= won > just > 0.9 > tie == 0.5 > 0.1 > lost >= 0.0


def test_rewards_favour_the_winner_then_the_margin() -> None:
    from core.engine import Result

    r = rewards(Result(scores=(10, 4, 7), winners=(0,), breakdowns=()), 3)
    assert r[0] == 1.0 and r[1] == 0.0 and 0 < r[2] < 0.2
    tie = rewards(Result(scores=(5, 5), winners=(0, 1), breakdowns=()), 2)
    assert tie[0] == tie[1] == 0.4


@pytest.mark.parametrize(
    ("spec", "budget"),
    [
        ("mcts", Budget()),
        ("mcts:250", Budget(250)),
        ("mcts:250:800ms", Budget(250, 800)),
        ("mcts:0", None),
        ("mcts:x", None),
        ("mcts:5:8s", None),
        ("greedy", None),
    ],
)
def test_policy_names(spec: str, budget: Budget | None) -> None:
    assert parse_budget(spec) == budget
    game = registry.get("card-city")
    assert (spec in game.bots) == (budget is not None or spec == "greedy")


def test_estimated_rewards_are_smooth_in_the_lead() -> None:
    from core.mcts import _estimated

    ahead, behind = _estimated((50.0, 40.0), 2)
    assert ahead > 0.5 > behind and abs(ahead + behind - 1) < 1e-9
    closer, _ = _estimated((50.0, 48.0), 2)
    assert 0.5 < closer < ahead  # a bigger lead is worth more, not just "ahead"
    assert _estimated((80.0,), 1)[0] > _estimated((78.0,), 1)[0]  # solo: the score itself


@pytest.mark.parametrize("name", GAMES)
def test_plain_mcts_searches_the_game_s_own_budget(name: str) -> None:
    """``mcts`` (no N) searches the game's ``search.playouts``: the figure the
    bench holds under 1 s of CPU a move (hints: tests/cli/test_hint.py)."""
    game = registry.get(name)
    assert 1 <= game.search.playouts <= 1000
    real = game.apply(None, game.create(["a", "b"], {}))
    while game.to_act(real) == (CHANCE,):
        for e in game.decide(real, CHANCE, game.chance(real, Rng(b"c"))):
            real = game.apply(real, e)
    seat = game.to_act(real)[0]
    seen = game.view(real, seat)
    plain = search(game, seen, seat, Rng(b"s"), Budget())
    assert plain == search(game, seen, seat, Rng(b"s"), Budget(game.search.playouts))
    assert parse_budget("mcts") == Budget() and game.bots["mcts"](game, seen, seat, Rng(b"s")) == plain[0].command
