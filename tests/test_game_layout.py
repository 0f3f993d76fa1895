"""The three game packages are shaped alike (issue 27, item 1; docs/architecture.md).

A newcomer adds a fourth game by copying one package, so every package lists
the same modules, and the names the engine contract is built from live in the
same module of every game with the same parameters.  Parsed with ``ast``:
nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("card_city", "five_by_five", "point_city")

OWN_MODULES: dict[str, dict[str, str]] = {
    "card_city": {
        "boardfile": "a scored-board file format (Point City has none)",
        "city": "the zoning grid and its districts [CC-2] [CC-6]",
        "knowledge": "what a seat can deduce of the unseen cards",
        "squares": "square labels in the frame [CL-10]",
    },
    "five_by_five": {
        "boardfile": "a scored-board file format (Point City has none)",
        "plans": "the plans' plot sections [FB-1]",
        "tiles": "the tile set",
    },
    "point_city": {
        "names": "display names, so rules, text and scene do not import one another",
        "older": "the pc-2 rules kept to verify old logs [PL-17]",
        "payment": "paying a building's cost [PC-3]",
        "solo": "the solo opponent [PC-7]",
        "tokens": "the civic tokens [PC-5]",
    },
}
"""The only modules a game has that another lacks: each is that game's own
material (its pieces, its geometry, its older rules), not a job every game
does.  Anything else must exist in all three."""

LAYOUT: dict[str, dict[str, int | None]] = {
    "game": {"GAME": None, "SPEC": None},
    "events": {"Event": None},
    "commands": {"Command": None},
    "state": {"State": None},
    "fold": {"apply": 2},
    "rules": {
        "to_act": 1, "legal": 2, "decide": 3, "step": 3, "random_command": 3,
        "chance": 2, "command_of": 1,
    },
    "view": {"view": 2, "redact": 2},
    "text": {"describe": 2, "render": 2, "parse_command": 3, "format_command": 1},
    "explain": {"explain": 3},
    "scene": {"scene": 2},
    "determinize": {"determinize": 3},
    "bots": {"greedy_bot": 4},
}  # fmt: skip
"""Module -> the names every game defines there (a function: its number of
required positional parameters; None: a class or a value)."""


def modules(game: str) -> dict[str, ast.Module]:
    folder = ROOT / "core" / game
    return {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.py"))}


def top_level(tree: ast.Module) -> dict[str, ast.AST]:
    """The module's own top-level definitions (functions, classes, assignments)."""
    out: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, ast.Assign):
            out.update((t.id, node) for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
    return out


def required_positional(node: ast.AST) -> int | None:
    if not isinstance(node, ast.FunctionDef):
        return None
    args = node.args
    return len(args.posonlyargs) + len(args.args) - len(args.defaults)


TREES = {game: modules(game) for game in GAMES}


def test_every_game_lists_the_same_modules() -> None:
    shared = set.union(*(set(TREES[g]) - set(OWN_MODULES[g]) for g in GAMES))
    for game in GAMES:
        missing = sorted(shared - set(TREES[game]))
        extra = sorted(set(TREES[game]) - shared - set(OWN_MODULES[game]))
        stale = sorted(set(OWN_MODULES[game]) - set(TREES[game]))
        assert not missing and not extra and not stale, (
            f"core/{game}: lacks {missing}, has {extra} that the others lack, "
            f"declares {stale} it does not have (OWN_MODULES in this test)"
        )
    assert set(LAYOUT) <= shared


@pytest.mark.parametrize("module", sorted(LAYOUT))
def test_the_contract_names_live_in_the_same_module_alike(module: str) -> None:
    for name, arity in LAYOUT[module].items():
        for game in GAMES:
            defined = top_level(TREES[game][module])
            assert name in defined, f"core/{game}/{module}.py does not define {name}"
            assert required_positional(defined[name]) == arity, (
                f"core/{game}/{module}.py: {name} takes {required_positional(defined[name])} "
                f"required arguments, not {arity} as in every other game"
            )
            elsewhere = sorted(
                m for m, tree in TREES[game].items()
                if m != module and isinstance(top_level(tree).get(name), ast.FunctionDef)
            )
            assert not elsewhere, f"core/{game}: {name} is defined in {elsewhere} too, not only {module}.py"


def test_the_game_classes_override_the_same_contract_methods() -> None:
    """Where a game's ``Game`` subclass answers a contract method, each game's
    answers it (or the difference is a feature the game lacks, listed here)."""
    optional = {"score_board", "where_board", "estimate", "leaf_estimate", "decision_key",
                "for_rules", "playout_command", "candidates", "flat_search", "search_budget",
                "first_step", "solo_opponent", "witnesses", "state_data"}
    # first_step: only a game whose commands take two steps (Point City's pay);
    # solo_opponent: only a game with a solo opponent who scores (Point City, PL-10);
    # witnesses, state_data: the squares an explanation names and a board as squares in
    # --json, so far only where a game has them (Card City; 5x5 City's board) [GL-4] [GL-5]

    def methods(game: str) -> set[str]:
        tree = TREES[game]["game"]
        classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
        main = next(c for c in classes if any(isinstance(b, ast.Name) and b.id == "Game" for b in c.bases)
                    or any(isinstance(b, ast.Subscript) and getattr(b.value, "id", "") == "Game" for b in c.bases))
        return {n.name for n in main.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}

    every = {game: methods(game) - optional for game in GAMES}
    union = set.union(*every.values())
    assert {game: sorted(union - names) for game, names in every.items()} == {g: [] for g in GAMES}
