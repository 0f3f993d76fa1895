"""CL-S1, as a law: every signed file kind (move, join, invitation, hand-over, key) has one
encoding; a mutated file is refused with a one-line reason, or decodes to the
identical statement.  Never anything else (no traceback: exit 3).

Mutations: byte flips, insertions, deletions, and JSON-level edits (key order,
whitespace, case of hex, extra keys, type changes, number spellings, unicode
escapes).  ``MUTATIONS`` mutations are tried per example; the ``thorough``
profile (``HYPOTHESIS_PROFILE=thorough``) runs 2000 examples per file kind.
"""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from events.envelope import GameDefinition, genesis_hash
from events.signing import (
    BadKey,
    load_private_pem,
    load_public_file,
    new_private_key,
    private_pem,
    public_file_bytes,
    public_hex,
    sign,
)
from events.statements import (
    INVITE_FORMAT,
    Invite,
    StatementError,
    body,
    decode,
    encode,
    seat_secret,
    signed_committed_join,
    signed_handover,
    signed_join,
    signed_reveal,
    signed_move,
)

MUTATIONS = 12
"""Mutations tried per hypothesis example (ci: 25 examples x 12 per kind)."""

_KEY = new_private_key()
_HOST = new_private_key()
_DEF = GameDefinition("card-city", "7", {"sides": "A"}, ("alice", "bob"), "ab" * 32, host_key=public_hex(_HOST))
_GENESIS = genesis_hash(_DEF)
_SECRET = seat_secret("seed", "00" * 16, _GENESIS, 0)


def _invite() -> Invite:
    inv = Invite(INVITE_FORMAT, "g1", "alice", _DEF, "", _SECRET, "")
    return msgspec.structs.replace(inv, signature=sign(_HOST, "invite", body(inv)))


STATEMENTS = {
    "move": signed_move(_KEY, "g1", "alice", 7, "cd" * 32, ("build R F5", "pass")),
    "join": signed_join(_KEY, "g1", _GENESIS, "alice", "0f" * 16, _SECRET),
    "invitation": _invite(),
    "hand-over": signed_handover(_KEY, "g1", "alice", 7, "cd" * 32, True),  # issue 24 [CL-T5]
    "committed join": signed_committed_join(_KEY, "g1", _GENESIS, "alice", _SECRET),  # [CL-S7]
    "reveal": signed_reveal(_KEY, "g1", _GENESIS, "alice", 3, "cd" * 32),  # [CL-S7]
}
KEY_FILES = {"private key": private_pem(_KEY), "public key": public_file_bytes(_KEY)}


def _json_edit(data: bytes, rng: random.Random) -> bytes:
    """A JSON-level edit of a statement: the same data spelled otherwise, or changed."""
    obj: Any = json.loads(data)
    keys = list(obj)
    kind = rng.randrange(9)
    if kind == 0:  # key order
        rng.shuffle(keys)
        return json.dumps({k: obj[k] for k in keys}, separators=(",", ":")).encode()
    if kind == 1:  # whitespace
        return json.dumps(obj, sort_keys=True, indent=rng.choice([None, 0, 1, 2]),
                          separators=rng.choice([(", ", ": "), (",", ": "), (" ,", ":")])).encode()
    if kind == 2:  # case of hex
        k = rng.choice([k for k in keys if isinstance(obj[k], str)])
        obj[k] = obj[k].upper() if rng.random() < 0.7 else obj[k].swapcase()
    elif kind == 3:  # an extra key
        obj[rng.choice(["extra", "signature2", "Player", "z", ""])] = rng.choice([1, "x", None, [], {}])
    elif kind == 4:  # a type change
        k = rng.choice(keys)
        v = obj[k]
        obj[k] = rng.choice([str(v), [v], {"v": v}, None, 0, True, 1.0])
    elif kind == 5:  # a number spelled otherwise
        text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
        for k, v in obj.items():
            if isinstance(v, int) and not isinstance(v, bool):
                spelled = rng.choice([f"{v}.0", f"{v}e0", f"0{v}", f"{v}.00", f"-0{v}" if v == 0 else f"+{v}"])
                return text.replace(f'"{k}":{v}', f'"{k}":{spelled}').encode()
        return text.encode()
    elif kind == 6:  # a unicode escape for one character of a string
        text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
        i = rng.randrange(1, len(text) - 1)
        c = text[i]
        if c.isalnum():
            return (text[:i] + f"\\u{ord(c):04x}" + text[i + 1:]).encode()
        return text.encode()
    elif kind == 7:  # a field dropped
        obj.pop(rng.choice(keys))
    else:  # a value of another field, or the player as a seat number
        k = rng.choice(keys)
        obj[k] = rng.choice([obj[rng.choice(keys)], "0", "1", "", " " + str(obj[k])])
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode() + rng.choice([b"", b"\n", b"\n\n", b" "])


def _byte_edit(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.choice([1, 1, 2, 3])):
        kind = rng.randrange(3)
        i = rng.randrange(len(b) + (kind == 1))
        if kind == 0 and b:
            b[min(i, len(b) - 1)] ^= 1 << rng.randrange(8)
        elif kind == 1:
            b.insert(i, rng.choice([32, 10, 13, 9, 0, 34, 92, 44, rng.randrange(256)]))
        elif b:
            del b[min(i, len(b) - 1)]
    return bytes(b)


def mutate(data: bytes, rng: random.Random, json_edits: bool = True) -> bytes:
    if json_edits and rng.random() < 0.5:
        try:
            return _json_edit(data, rng)
        except (ValueError, IndexError):
            pass
    return _byte_edit(data, rng)


COUNTS = {"mutations": 0, "refused": 0, "unsigned": 0, "same": 0}
"""Tallied over the module; printed at its end (``-s``) for the closing note."""


@pytest.fixture(scope="module", autouse=True)
def _tally() -> Any:
    yield
    print(f"\n[CL-S1 law] {COUNTS}")


def accepted(st: Any) -> bool:
    """What every reader of a signed file then checks: its signature."""
    return bool(st.signs_with(st.public_key) if hasattr(st, "signs_with") else st.signed())


@pytest.mark.parametrize("kind", sorted(STATEMENTS))
@given(seed=st.integers(0, 2**64))
def test_a_mutated_statement_is_refused_or_the_same(kind: str, seed: int) -> None:
    """Refused (decode: one line; or its signature fails), or identical."""
    original = STATEMENTS[kind]
    data = encode(original)
    rng = random.Random(seed)
    for _ in range(MUTATIONS):
        mutated = mutate(data, rng)
        COUNTS["mutations"] += 1
        try:
            got = decode(mutated, "f.json")
        except StatementError as exc:
            assert "\n" not in str(exc) and str(exc).startswith("f.json: ")
            COUNTS["refused"] += 1
            continue
        if not accepted(got):
            COUNTS["unsigned"] += 1
            continue
        assert got == original, (mutated, got)
        assert encode(got) == data  # what is stored is the one encoding
        COUNTS["same"] += 1


@pytest.mark.parametrize("kind", sorted(KEY_FILES))
@given(seed=st.integers(0, 2**64))
def test_a_mutated_key_file_is_refused_or_the_same(kind: str, seed: int) -> None:
    """A key file has no signature: a flip inside the key material can make
    another valid key (a different value, caught by its ``.pub`` not matching).
    The law is that no *other spelling* of a key is accepted: whatever is
    accepted is its value's one encoding, so the same key is the same bytes."""
    data = KEY_FILES[kind]
    rng = random.Random(seed)
    for _ in range(MUTATIONS):
        mutated = _byte_edit(data, rng)
        COUNTS["mutations"] += 1
        try:
            if kind == "private key":
                key = load_private_pem(mutated, "k")
                value, canonical = public_hex(key), private_pem(key)
            else:
                value = load_public_file(mutated, "k")
                canonical = (value + "\n").encode()
        except BadKey as exc:
            assert "\n" not in str(exc)
            COUNTS["refused"] += 1
            continue
        assert mutated.removesuffix(b"\n") == canonical.removesuffix(b"\n"), mutated
        if value == public_hex(_KEY):
            assert canonical == data
            COUNTS["same"] += 1
        else:
            COUNTS["other key"] = COUNTS.get("other key", 0) + 1


@pytest.mark.parametrize("kind", sorted(STATEMENTS))
def test_each_statement_is_its_own_encoding(kind: str) -> None:
    data = encode(STATEMENTS[kind])
    assert decode(data, "f") == STATEMENTS[kind] == decode(data.rstrip(b"\n"), "f")
    assert json.dumps(json.loads(data), sort_keys=True, separators=(",", ":")).encode() + b"\n" == data


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda o: dict(o, signature=o["signature"].upper()), "hex"),
        (lambda o: dict(o, extra=1), "extra"),
        (lambda o: dict(o, entropy="ab" * 300_000), "entropy"),
        (lambda o: dict(o, player="0"), None),
    ],
)
def test_named_spellings_of_a_join(edit: Any, why: str | None) -> None:
    """The reported variants: upper-case hex, an unknown key, a 0.6 MB entropy; a
    seat number for a player is a well-formed name here, refused by the service."""
    obj = json.loads(encode(STATEMENTS["join"]))
    data = json.dumps(edit(obj), sort_keys=True, separators=(",", ":")).encode()
    if why is None:
        assert decode(data, "j").player == "0"
        return
    with pytest.raises(StatementError, match=why):
        decode(data, "j")
