"""The cheating players' catalogue: any file a player can make and send the host
(another seat's join, a second key, old moves, re-spelled files, huge entropy),
crafted with any code and signed with any key *he* holds.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adversary import player_files
from adversary.honest import Mail
from adversary.host_tools import resign, write_json
from adversary.inbox import send
from adversary.judge import Cheat, PlayerReceived

PlayerAttack = Callable[[Mail, int], PlayerReceived]


def _honest_finals(mail: Mail, cheater: str) -> dict[str, Path]:
    return {p: f for p, f in mail.finals().items() if p != cheater}


def seat_hijack(mail: Mail, at: int) -> PlayerReceived:
    """[issue 22] The last player answers his own invitation, then sends a second join
    for the first seat, signed with a second key of his, before its player's join
    arrives; if it is taken, he plays that seat too (choosing otherwise than she would)."""
    names = list(mail.players)
    victim, cheater = names[0], names[-1]
    mallory = mail.players[cheater]
    mallory.ok("key", "new", f"{cheater}-second")
    second = mallory.key(f"{cheater}-second")
    mail.invite()
    own = json.loads(mail.join_file(cheater).read_bytes())
    forged = resign({**own, "player": victim}, second, "join")
    cheat = send(mail, write_json(mail.root / f"{mail.gid}-join-{victim}.json", forged))
    for p in names:
        shutil.copy(mail.join_file(p), mail.inbox)
    mail.read_inbox()
    if cheat.code == 0:
        mail.controller[victim] = (mallory, second, mail.case.choices + 1)
    mail.play()
    return PlayerReceived(_honest_finals(mail, cheater), cheats=[cheat], cheater=cheater)


def huge_entropy(mail: Mail, at: int) -> PlayerReceived:
    """[issue 22] A player joins with 0.6 MB of entropy (every later view would be
    over the line limit: one player bricks the game)."""
    return _join_with_entropy(mail, lambda _own: "ab" * 300_000)


def _join_with_entropy(mail: Mail, entropy: Callable[[str], str]) -> PlayerReceived:
    """The last player joins with ``entropy(her own entropy)``, re-signed with her key;
    the others join honestly (and she too, when her forged join is refused)."""
    cheater = list(mail.players)[-1]
    mail.invite()
    own = json.loads(mail.join_file(cheater).read_bytes())
    field = "entropy_commitment" if "entropy_commitment" in own else "entropy"  # [CL-S7] join/3 commits
    forged = resign({**own, field: entropy(own[field])}, mail.players[cheater].key(), "join")
    cheat = send(mail, write_json(mail.root / f"{mail.gid}-join-{cheater}.json", forged))
    for p in mail.players:
        if cheat.code != 0 or p != cheater:
            shutil.copy(mail.join_file(p), mail.inbox)
    mail.read_inbox()
    mail.play()
    return PlayerReceived(_honest_finals(mail, cheater), cheats=[cheat], cheater=cheater)


def _respelled(kind: str) -> PlayerAttack:
    """A player's move file, re-spelled (and re-signed where the body changed)."""

    def edit(d: dict[str, Any], key: Path) -> dict[str, Any]:
        if kind == "command_lower":
            return resign({**d, "commands": [c.lower() for c in d["commands"]]}, key, "move")
        if kind == "command_spaces":
            return resign({**d, "commands": ["  " + c.replace(" ", "   ") + " " for c in d["commands"]]}, key, "move")
        if kind == "signature_upper":
            return {**d, "signature": d["signature"].upper()}
        if kind == "key_upper":
            return {**d, "public_key": d["public_key"].upper()}
        if kind == "hash_upper":
            return resign({**d, "hash": d["hash"].upper()}, key, "move")
        if kind == "unknown_field":
            return {**d, "note": "not covered by the signature"}
        if kind == "player_spaced":
            return resign({**d, "player": d["player"] + " "}, key, "move")
        raise ValueError(kind)

    def attack(mail: Mail, at: int) -> PlayerReceived:
        cheater = list(mail.players)[-1]
        cheats: list[Cheat] = []

        def hook(m: Mail) -> None:
            if cheats:
                return
            mine = sorted(m.inbox.glob(f"{m.gid}-seq*-{cheater}-move.json"))
            if not mine:
                return
            original = mine[0].read_bytes()
            d = json.loads(original)
            changed = edit(d, m.players[cheater].key())
            if changed["commands"] == d["commands"] and kind.startswith("command"):
                return  # this command is spelled the same either way: wait for another
            path = write_json(mine[0], changed)
            cheats.append(send(m, path, along=True))
            if cheats[0].code != 0:  # refused: he sends the file citylog made after all
                (m.inbox / mine[0].name).unlink(missing_ok=True)
                mine[0].write_bytes(original)

        mail.start(at)
        mail.on_inbox = hook
        mail.play()
        return PlayerReceived(_honest_finals(mail, cheater), mounted=bool(cheats), cheats=cheats, cheater=cheater)

    attack.__doc__ = f"[issue 22] A player sends his move re-spelled ({kind}): refused, or every later export verifies."
    return attack


def replay_other_join(mail: Mail, at: int) -> PlayerReceived:
    """A player sends another seat's join file again (copied from the mail)."""
    mail.start(at)
    names = list(mail.players)
    cheat = send(mail, Path(shutil.copy(mail.join_file(names[0]), mail.root / f"{mail.gid}-join-again.json")))
    mail.play()
    return PlayerReceived(_honest_finals(mail, names[-1]), cheats=[cheat], cheater=names[-1])


def second_key_own_seat(mail: Mail, at: int) -> PlayerReceived:
    """A player who joined sends a second join for his own seat with another key."""
    mail.start(at)
    cheater = list(mail.players)[-1]
    party = mail.players[cheater]
    party.ok("key", "new", f"{cheater}-other")
    own = json.loads(mail.join_file(cheater).read_bytes())
    forged = resign(own, party.key(f"{cheater}-other"), "join")
    cheat = send(mail, write_json(mail.root / f"{mail.gid}-join-{cheater}-other.json", forged))
    mail.play()
    return PlayerReceived(_honest_finals(mail, cheater), cheats=[cheat], cheater=cheater)


def resend_old_move(mail: Mail, at: int) -> PlayerReceived:
    """A player sends one of his applied moves again, its signature re-spelled in upper case."""
    mail.start(max(at, 1))
    cheater = list(mail.players)[-1]
    cheats = []
    for old in mail.applied(f"-{cheater}-move")[:1]:
        d = json.loads(old.read_bytes())
        d["signature"] = d["signature"].upper()
        cheats.append(send(mail, write_json(mail.root / f"again-{old.name}", d)))
    mail.play()
    return PlayerReceived(_honest_finals(mail, cheater), mounted=bool(cheats), cheats=cheats, cheater=cheater)


def move_for_other_seat(mail: Mail, at: int) -> PlayerReceived:
    """A player signs, with his own key, a move for the seat to act that is not his
    (its player's own file, taken from the mail, re-signed)."""
    names = list(mail.players)
    cheater = names[-1]
    cheats: list[Cheat] = []

    def hook(m: Mail) -> None:
        if cheats:
            return
        theirs = [p for p in sorted(m.inbox.glob(f"{m.gid}-seq*-move.json")) if p.stem.split("-")[-2] != cheater]
        if theirs:
            d = json.loads(theirs[0].read_bytes())
            forged = resign(d, m.players[cheater].key(), "move")
            cheats.append(send(m, write_json(m.root / f"forged-{theirs[0].name}", forged), along=True))

    mail.start(at)
    mail.on_inbox = hook
    mail.play()
    return PlayerReceived(_honest_finals(mail, cheater), mounted=bool(cheats), cheats=cheats, cheater=cheater)


def _own_move_edited(mail: Mail, at: int, edit: Callable[[dict[str, Any]], dict[str, Any]],
                     tag: str) -> PlayerReceived:
    """The last player's first move file from round trip ``at`` on, edited by
    ``edit`` (re-signed with his own key) and sent alone; then the game goes on."""
    cheater = list(mail.players)[-1]
    cheats: list[Cheat] = []

    def hook(m: Mail) -> None:
        if cheats:
            return
        for mine in sorted(m.inbox.glob(f"{m.gid}-seq*-{cheater}-move.json"))[:1]:
            d = json.loads(mine.read_bytes())
            forged = resign(edit(d), m.players[cheater].key(), "move")
            cheats.append(send(m, write_json(m.root / f"{tag}-{mine.name}", forged), along=True))

    mail.start(at)
    mail.on_inbox = hook
    mail.play()
    return PlayerReceived(_honest_finals(mail, cheater), mounted=bool(cheats), cheats=cheats, cheater=cheater)


def future_move(mail: Mail, at: int) -> PlayerReceived:
    """A player signs a move for a position not yet reached (a later seq, a hash he
    guessed), hoping the host applies it when the game gets there."""
    return _own_move_edited(mail, at, lambda d: {**d, "seq": d["seq"] + 2,
                                                  "hash": hashlib.sha256(d["hash"].encode()).hexdigest()}, "future")


def move_other_game_id(mail: Mail, at: int) -> PlayerReceived:
    """A player's move re-signed (same seat key) for another game id of the same host:
    a game he is not in, or none."""
    return _own_move_edited(mail, at, lambda d: {**d, "game_id": hashlib.sha256(d["game_id"].encode()).hexdigest()[:8]},
                            "othergame")


def move_other_chain(mail: Mail, at: int) -> PlayerReceived:
    """A player's move made against another chain of this game id (a hash that is not
    this chain's at its seq, as a move made in a re-created or forked copy has)."""
    return _own_move_edited(mail, at, lambda d: {**d, "hash": hashlib.sha256(b"another chain").hexdigest()},
                            "otherchain")


def _odd_entropy(kind: str) -> PlayerAttack:
    spell = {
        "odd_length": lambda e: e + "a",
        "short": lambda e: e[:30],
        "upper": lambda e: e.upper(),
        "prefixed": lambda e: "0x" + e[2:],
        "fullwidth": lambda e: "".join(chr(ord(c) + 0xFEE0) if c.isdigit() else c for c in e),
        "spaced": lambda e: e[:16] + " " + e[17:],
        "non_ascii": lambda e: e[:-1] + "\u0663",
    }[kind]

    def attack(mail: Mail, at: int) -> PlayerReceived:
        return _join_with_entropy(mail, spell)

    attack.__doc__ = f"A player joins with entropy spelled otherwise ({kind}), re-signed: refused, or harmless."
    return attack


def late_join(mail: Mail, at: int) -> PlayerReceived:
    """After the game started a player sends a join (a fresh key, a proof made with
    his own seat's secret) for his seat and for a name that is not a player."""
    mail.start(max(at, 1))
    cheater = list(mail.players)[-1]
    party = mail.players[cheater]
    party.ok("key", "new", f"{cheater}-late")
    own = json.loads(mail.join_file(cheater).read_bytes())
    cheats = []
    for name in (cheater, "mallory"):
        forged = resign({**own, "player": name}, party.key(f"{cheater}-late"), "join")
        cheats.append(send(mail, write_json(mail.root / f"{mail.gid}-join-late-{name}.json", forged)))
    mail.play()
    return PlayerReceived(_honest_finals(mail, cheater), cheats=cheats, cheater=cheater)


ATTACKS: dict[str, PlayerAttack] = {
    "seat_hijack": seat_hijack,
    "huge_entropy": huge_entropy,
    **{f"respelled_{k}": _respelled(k) for k in (
        "command_lower", "command_spaces", "signature_upper", "key_upper", "hash_upper", "unknown_field",
        "player_spaced")},
    "replay_other_join": replay_other_join,
    "second_key_own_seat": second_key_own_seat,
    "resend_old_move": resend_old_move,
    "move_for_other_seat": move_for_other_seat,
    "future_move": future_move,
    "move_other_game_id": move_other_game_id,
    "move_other_chain": move_other_chain,
    **{f"entropy_{k}": _odd_entropy(k) for k in (
        "odd_length", "short", "upper", "prefixed", "fullwidth", "spaced", "non_ascii")},
    "late_join": late_join,
    **player_files.ATTACKS,
}

