"""One path that writes (issue 27, item 3): only :mod:`events.writer` calls a
store's write methods.

Every module of citylog is parsed (``ast``; nothing is imported) and each call
of a store write method is listed: ``create_game``, ``append`` (on a store),
``set_status``, ``add_note``, ``add_signed``, ``add_tags``, ``remove_tags``,
``delete_game``.  Outside the writer and the stores themselves there must be
none: a new game, a command, a fork, an import, a copy, a note, a tag and a
deletion all go through the writer.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WRITES = {"create_game", "set_status", "add_note", "add_signed", "add_tags", "remove_tags", "delete_game"}
ALLOWED = {
    "events/writer.py",  # the one path that writes
    "events/store.py", "events/sqlite_store.py", "events/pg_store.py", "events/side_tables.py",  # the stores
}


def store_writes(source: str) -> list[str]:
    """``receiver.method`` of each store write call in ``source``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = ast.unparse(node.func.value)
            name = node.func.attr
            if receiver.endswith("writer"):  # a Writer's own methods: the one path
                continue
            on_store = "store" in receiver.lower() or receiver in {"dst", "src", "target"}
            if name in WRITES or (name == "append" and on_store):
                out.append(f"{receiver}.{name}")
    return out


def test_the_walk_finds_a_store_write() -> None:
    code = ("def f(svc, dst, xs):\n    svc.store.append('g', 0, [])\n    dst.add_note('g', 1, 'x')\n"
            "    xs.append(1)\n    svc.writer.add_note('g', 1, 'x')\n")
    assert store_writes(code) == ["svc.store.append", "dst.add_note"]


def test_only_the_writer_writes_to_a_store() -> None:
    found = {
        str(path.relative_to(ROOT)): calls
        for package in ("core", "events", "replay", "cli")
        for path in sorted((ROOT / package).rglob("*.py"))
        if str(path.relative_to(ROOT)) not in ALLOWED
        and (calls := store_writes(path.read_text(encoding="utf-8")))
    }
    assert not found, f"store writes outside events/writer.py: {found}"
