"""The canonical-statement law for log files, views and text records (issue 22):
**a mutated file is either refused (by reading, ``verify`` or ``import``), or
means the same** — the same verdict and the same decoded events, so the same
folded state and outcome.

Files: the full log, every seat's view of the finished game (checked against
the reveal, CL-V8) and the text record, of random bot games of every game, some
of them forks with a new seed (a chained reseed, CL-V7), and the full log and
views of a game by email of committed entropy (its reveal lines, CL-S7).  Mutations: one
field of the header or of a line set to a nearby value (a digit changed, hex
upper-cased, a flag flipped, a number moved by one, a key dropped or added), a
line dropped, duplicated or swapped, and byte-level edits.  A view of a game
still going on is not in this law: what it hides can only be checked once
revealed (its hidden payloads are held to their own redaction, CL-V8).
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import chance, registry
from events.codec import decoder_for
from events.service import GameService
from events.sqlite_store import SqliteStore
from replay import logfile
from replay import record as text_record
from replay.sources import export, export_record
from replay.verify import verify

GAMES = registry.available()
THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"


def examples(ci: int) -> settings:
    return settings(
        max_examples=ci * 120 if THOROUGH else ci,  # thorough: 7,200 per game, 21,600 in all (issue 22)
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


def _documents(root: Path, game: str) -> dict[str, bytes]:
    """A finished bot game of ``game`` and a fork of it with a new seed: their full
    logs, every seat's view and their text records."""
    svc = GameService(SqliteStore(root / f"{game}.db"))
    names = ["ann", "bob"]
    gid = svc.create(game, names, seed="law", bots={0: "greedy", 1: "random"}, salt=chance.repeatable_salt("law"))
    loaded = svc.load(gid)
    at = next(i for i in range(3, loaded.version) if loaded.game.command_of(loaded.events[i]) is not None)
    fork = svc.fork(gid, at, seed="other")
    docs: dict[str, bytes] = {}
    for label, g in (("game", gid), ("fork", fork)):
        for who in (None, *names):
            out = io.StringIO()
            logfile.write(export(svc, g, who), out)
            docs[f"{label}.{who or 'full'}"] = out.getvalue().encode()
        docs[f"{label}.record"] = export_record(svc, g).encode()
    docs.update(_pbem_documents(root, game))
    return docs


def _pbem_documents(root: Path, game: str) -> dict[str, bytes]:
    """A finished game by email of committed entropy (ruling CL-S7: its joins, its
    ``seat.revealed`` lines and their signed reveals, every move signed), its full
    log and every seat's view, each sealed by the host (a text record holds no
    signed file, so none is made)."""
    import random

    from events.signing import new_private_key, public_hex, sign
    from events.statements import seat_secret, signed_move
    from tests.helpers.pbem import join_seats

    svc = GameService(SqliteStore(root / f"{game}-pbem.db"))
    host = new_private_key()
    names = ["ann", "bob"]
    gid = svc.create(game, names, seed="law-pbem", salt=chance.repeatable_salt("law-pbem"), host_key=public_hex(host))
    rec = svc.store.get_game(gid)
    keys = [new_private_key() for _ in names]
    join_seats(svc, gid, [(keys[i], p, f"{i + 5:032x}", seat_secret(rec.seed or "", rec.salt, rec.genesis, i))
                          for i, p in enumerate(names)])
    rules = registry.get(game)
    rng = random.Random(game)
    while True:
        loaded = svc.load(gid)
        actors = rules.to_act(loaded.state)
        if not actors:
            break
        seat = rng.choice(actors)
        command = rules.format_command(rng.choice(list(rules.legal(loaded.state, seat))))
        svc.submit_move(signed_move(keys[seat], gid, names[seat], loaded.version, loaded.head_hash, (command,)))
    docs: dict[str, bytes] = {}
    for who in (None, *names):
        out = io.StringIO()
        logfile.write(export(svc, gid, who, lambda b: sign(host, "export", b)), out)
        docs[f"pbem.{who or 'full'}"] = out.getvalue().encode()
    return docs


class Documents(dict):  # type: ignore[type-arg]
    """game -> its documents; a short repr, so a falsifying example stays readable."""

    def __repr__(self) -> str:
        return f"<documents of {', '.join(self)}>"


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, bytes]]:
    root = tmp_path_factory.mktemp("canonical")
    return Documents({game: _documents(root, game) for game in GAMES})


def meaning(blob: bytes, kind: str) -> tuple[Any, ...] | None:
    """(over, decoded events) of an accepted file; None if it is refused."""
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError:
        return None
    try:
        if kind == "record":
            if not text_record.is_record(text.removeprefix("\ufeff")):
                return None
            log, _ = text_record.read(text.removeprefix("\ufeff"))
        else:
            log = logfile.read(io.StringIO(text))
    except logfile.LogFileError:
        return None
    verdict = verify(log)
    if not verdict.ok:
        return None
    game = registry.get(log.header.definition.game)
    decoder = decoder_for(game.event_type)
    return verdict.over, log.header.definition, [decoder.decode(bytes(x.payload)) for x in log.lines]


# -- mutations: one field to a nearby value ---------------------------------------
def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, prefix + (i,))
    return out


def _near(draw: st.DrawFn, value: Any) -> Any:
    """A value a careless or cheating editor would put in place of ``value``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + draw(st.sampled_from([-1, 1, 2]))
    if isinstance(value, str):
        if not value:
            return draw(st.sampled_from(["x", "0" * 32, "?"]))
        how = draw(st.sampled_from(["upper", "digit", "drop", "space", "other"]))
        if how == "upper" and value.upper() != value:
            return value.upper()
        if how == "space":
            return " " + value
        if how == "drop":
            return value[:-1]
        i = draw(st.integers(0, len(value) - 1))
        c = draw(st.sampled_from("0123456789abcdefRILPC?"))
        return value[:i] + c + value[i + 1:] if value[i] != c else value[:i] + "f" + value[i + 1:]
    if value is None:
        return draw(st.sampled_from(["over", "00" * 16, 1, True, "ann"]))
    if isinstance(value, list):
        return draw(st.sampled_from([[], value[:-1], value + value[-1:]])) if value else ["x"]
    return None


@st.composite
def json_edit(draw: st.DrawFn, data: bytes) -> bytes:
    lines = data.decode("utf-8").splitlines()
    i = draw(st.integers(0, len(lines) - 1), label="line")
    what = draw(st.sampled_from(["set", "set", "set", "set", "delete", "add", "drop", "dup", "swap"]), label="edit")
    if what in ("drop", "dup", "swap"):
        j = draw(st.integers(0, len(lines) - 1))
        if what == "drop":
            del lines[i]
        elif what == "dup":
            lines.insert(j, lines[i])
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return ("\n".join(lines) + "\n").encode()
    doc = json.loads(lines[i])
    if what == "add":
        doc[draw(st.sampled_from(["digest", "nonce", "redacted", "seal", "reseeds", "extra", "secrets"]))] = draw(
            st.sampled_from([None, True, "00" * 32, [[2, "x"]], 2]))
    else:
        path = draw(st.sampled_from(_paths(doc)), label="path")
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if what == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = _near(draw, parent[path[-1]])
    lines[i] = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    return ("\n".join(lines) + "\n").encode()


@st.composite
def text_edit(draw: st.DrawFn, data: bytes) -> bytes:
    """A text record: one line dropped, duplicated or swapped, or one character changed."""
    lines = data.decode("utf-8").splitlines()
    i = draw(st.integers(0, len(lines) - 1), label="line")
    what = draw(st.sampled_from(["char", "char", "char", "drop", "dup", "swap"]), label="edit")
    if what == "drop":
        del lines[i]
    elif what == "dup":
        lines.insert(i, lines[i])
    elif what == "swap":
        j = draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
    elif lines[i]:
        lines[i] = _near(draw, lines[i])
    return ("\n".join(lines) + "\n").encode()


@st.composite
def byte_edit(draw: st.DrawFn, data: bytes) -> bytes:
    out = bytearray(data)
    at = draw(st.integers(0, len(out) - 1))
    what = draw(st.sampled_from(["flip", "delete", "insert"]))
    if what == "flip":
        out[at] ^= 1 << draw(st.integers(0, 7))
    elif what == "delete":
        del out[at]
    else:
        out[at:at] = draw(st.sampled_from([b" ", b"0", b"\n", b'"', b"A"]))
    return bytes(out)


@pytest.mark.parametrize("game", GAMES)
@examples(60)
@given(data=st.data())
def test_law_a_mutated_log_view_or_record_is_refused_or_means_the_same(
    documents: dict[str, dict[str, bytes]], game: str, data: st.DataObject
) -> None:
    docs = documents[game]
    name = data.draw(st.sampled_from(sorted(docs)), label="document")
    kind = "record" if name.endswith(".record") else "log"
    original = meaning(docs[name], kind)
    assert original is not None, f"{name} must verify before it is mutated"
    edit = text_edit if kind == "record" else json_edit
    blob = data.draw(st.one_of(edit(docs[name]), byte_edit(docs[name])), label="mutated")
    got = meaning(blob, kind)
    assert got is None or got == original, f"{name}: an accepted mutation changed what the file says"


def test_the_documents_hold_a_chained_reseed(documents: dict[str, dict[str, bytes]]) -> None:
    """The law's baseline: every document verifies, and the forks carry their reseed line."""
    for game, docs in documents.items():
        for name, blob in docs.items():
            assert meaning(blob, "record" if name.endswith(".record") else "log") is not None, (game, name)
        assert b"chance.reseeded" in docs["fork.full"] and b"(reseed)" in docs["fork.record"]
        assert b"seat.revealed" in docs["pbem.full"] and b"citylog-reveal/1" in docs["pbem.bob"]  # [CL-S7]
        fork_view = msgspec.json.decode(docs["fork.bob"].splitlines()[0])
        assert fork_view["reseeds"] and fork_view["seed"] == "law"


def test_a_chance_line_where_the_rules_have_no_chance_pending_fails_verify(
    documents: dict[str, dict[str, bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by the thorough run of the law above (a mutated Point City view): a line
    the file calls chance where the folded position has no chance outcome pending
    made ``game.chance`` raise out of ``verify``.  Whatever the rules refuse while
    re-deriving chance is a failed check of that line, never an exception."""
    from core.engine import IllegalCommand

    for name, docs in documents.items():
        game = registry.get(name)
        log = logfile.read(io.StringIO(docs["game.full"].decode()))

        def no_chance(state: Any, rng: Any) -> Any:
            raise IllegalCommand("GL-1", "no chance outcome is pending")

        monkeypatch.setattr(type(game), "chance", lambda self, state, rng: no_chance(state, rng))
        verdict = verify(log)
        monkeypatch.undo()
        assert not verdict.ok and "no chance outcome pending" in verdict.message("file"), (name, verdict)
