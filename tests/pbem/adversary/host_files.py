"""The cheating host's catalogue, part 2: what it does to the final views it
sends (rewrite, cut, swap, re-chain and re-seal, replay an old seal).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from adversary.honest import Mail
from adversary.host_rows import Attack
from adversary.host_tools import read_log, rechain, reseal_write
from adversary.judge import Received, outcome

def _final_edit(edit: Callable[[Mail, Any, int], Any | None], doc: str) -> Attack:
    """An attack on what the host sends at the end: ``edit(mail, log, at)`` returns a
    changed log (re-sealed by the host) or None (nothing to change in this one)."""

    def attack(mail: Mail, at: int) -> Received:
        mail.start()
        finals = mail.finals()
        mounted = False
        for path in finals.values():
            if not path.exists():
                continue
            changed = edit(mail, read_log(path), at)
            if changed is not None:
                reseal_write(mail, changed, path)
                mounted = True
        return Received(finals, mounted=mounted)

    attack.__doc__ = doc
    return attack


def _json_bumped(value: Any, k: int) -> tuple[Any, bool]:
    """``value`` with its k-th integer (depth first) changed, and whether it had one."""
    seen = [0]

    def walk(v: Any) -> Any:
        if isinstance(v, bool):
            return v
        if isinstance(v, int):
            seen[0] += 1
            return v + 7 if seen[0] == k + 1 else v
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {key: walk(x) for key, x in v.items()}
        return v

    out = walk(value)
    return out, seen[0] > k


def _rewrite_visible_line(mail: Mail, log: Any, at: int) -> Any | None:
    """A visible line marked redacted, its digest computed from its own nonce, any
    payload put in: the first change (from the end) that changes the result."""
    before = _outcome_of(mail, log)
    for i in range(len(log.lines) - 1, 0, -1):
        line = log.lines[i]
        if line.redacted or line.nonce is None:
            continue
        payload = json.loads(bytes(line.payload))
        for k in range(40):
            bumped, ok = _json_bumped(payload, k)
            if not ok:
                break
            forged = msgspec.structs.replace(
                line, payload=msgspec.Raw(json.dumps(bumped).encode()), redacted=True,
                digest=log.digest_of(line), nonce=None, signed=None)
            trial = type(log)(log.header, [*log.lines[:i], forged, *log.lines[i + 1:]])
            after = _outcome_of(mail, trial)
            if after is not None and after != before:
                return trial
    return None


def _outcome_of(mail: Mail, log: Any) -> tuple[Any, ...] | None:
    from replay import logfile

    path = mail.root / "trial.jsonl"
    with path.open("w", encoding="utf-8") as out:
        logfile.write(log, out)
    return outcome(path)


view_rewrite = _final_edit(_rewrite_visible_line, """[issue 22] A sealed final view rewritten: a visible line
marked redacted, its digest computed from its own nonce, a payload that changes the result put in.""")


def _truncate(mail: Mail, log: Any, at: int) -> Any | None:
    cut = 1 + at % max(1, len(log.lines) // 3)
    if len(log.lines) <= cut + 1:
        return None
    log.lines = log.lines[:-cut]
    return log


truncate_reseal = _final_edit(_truncate, "The host cuts the last lines off a final view and seals it again.")


def _swap_signed(mail: Mail, log: Any, at: int) -> Any | None:
    moves = [i for i, x in enumerate(log.lines) if x.signed and str(x.signed.get("format", "")).startswith("citylog-move")]
    for a in moves:
        for b in moves:
            if log.lines[a].signed["player"] != log.lines[b].signed["player"]:
                x, y = log.lines[a], log.lines[b]
                log.lines[a] = msgspec.structs.replace(x, signed=y.signed)
                log.lines[b] = msgspec.structs.replace(y, signed=x.signed)
                return log
    return None


swap_signed = _final_edit(_swap_signed, "The host swaps two players' signed move files between their lines.")


def _old_seal(mail: Mail, path: Path, at: int) -> bool:
    """Cut ``path`` back to the length of an earlier export of the same player and put
    that export's seal on it (game id, seq, head and view then match the seal); the
    header keeps the final one's reveal.  Not sealed again.  False: no earlier export."""
    from replay import logfile

    log = read_log(path)
    earlier = sorted(mail.outbox.glob(f"{mail.gid}-seq*-{log.header.view}.jsonl"))
    if not earlier:
        return False
    before = read_log(earlier[at % len(earlier)])
    log.lines = log.lines[: len(before.lines)]
    log.header = msgspec.structs.replace(log.header, seal=before.header.seal)
    with path.open("w", encoding="utf-8") as out:
        logfile.write(log, out)
    return True


def old_seal(mail: Mail, at: int) -> Received:
    """The host replays the seal of an earlier export of a player on her final view cut
    back to that export's length (the seal's game id, seq, head and view all match)."""
    mail.start()
    finals = mail.finals()
    mounted = [_old_seal(mail, path, at) for path in finals.values() if path.exists()]
    return Received(finals, mounted=any(mounted))


def _extra_redacted(mail: Mail, log: Any, at: int) -> Any | None:
    last = log.lines[-1]
    extra = msgspec.structs.replace(last, seq=last.seq + 1, redacted=True,
                                    digest=hashlib.sha256(f"extra-{at}".encode()).hexdigest(), nonce=None, signed=None)
    log.lines.append(extra)
    return rechain(log, len(log.lines) - 1)


extra_redacted_line = _final_edit(_extra_redacted, "The host appends a redacted line to a final view, chains and seals it.")


def _drop_chance(mail: Mail, log: Any, at: int) -> Any | None:
    from core.engine import CHANCE
    from replay.verify import decode_events

    decoded = decode_events(log)
    if not isinstance(decoded, tuple):
        return None
    game, events = decoded
    chances = [i for i, e in enumerate(events) if (c := game.command_of(e)) is not None and c[0] == CHANCE]
    if not chances:
        return None
    i = chances[at % len(chances)]
    lines = log.lines[:i] + [msgspec.structs.replace(x, seq=x.seq - 1) for x in log.lines[i + 1:]]
    log.lines = lines
    return rechain(log, i)


drop_chance_line = _final_edit(_drop_chance, "The host drops a chance event from a final view, renumbers, "
                                             "chains and seals it.")




def _relabel(mail: Mail, log: Any, at: int) -> Any | None:
    others = [p for p in log.header.definition.players if p != log.header.view]
    other = others[at % len(others)]
    log.header = msgspec.structs.replace(log.header, view=other)
    return log


view_relabel = _final_edit(_relabel, "The host sends one player's final view to another, its header relabelled "
                                     "with her name and sealed again.")


def _strip_signed(mail: Mail, log: Any, at: int) -> Any | None:
    view = log.header.view
    changed = False
    for i, line in enumerate(log.lines):
        if line.signed and line.signed.get("player") not in (view, None) and "commands" in line.signed:
            log.lines[i] = msgspec.structs.replace(line, signed=None)
            changed = True
    return log if changed else None


strip_signed = _final_edit(_strip_signed, "The host leaves the other seats' signed move files out of a final view "
                                          "(so the moves it made for them need none) and seals it again.")


def _swap_adjacent(mail: Mail, log: Any, at: int) -> Any | None:
    n = len(log.lines)
    if n < 4:
        return None
    i = 1 + at % (n - 2)
    a, b = log.lines[i], log.lines[i + 1]
    if a.type == b.type and a.payload == b.payload:
        return None
    log.lines[i] = msgspec.structs.replace(b, seq=a.seq)
    log.lines[i + 1] = msgspec.structs.replace(a, seq=b.seq)
    return rechain(log, i)


swap_adjacent = _final_edit(_swap_adjacent, "The host swaps two neighbouring lines of a final view, renumbers, "
                                            "chains and seals it.")


def _definition_edit(field: str) -> Callable[[Mail, Any, int], Any | None]:
    def edit(mail: Mail, log: Any, at: int) -> Any | None:
        d = log.header.definition
        value = {"rules_version": "1", "secrets": 1, "options": {}}[field]
        if getattr(d, field) == value:
            value = {"rules_version": "0", "secrets": 0, "options": {"x": "y"}}[field]
        log.header = msgspec.structs.replace(log.header, definition=msgspec.structs.replace(d, **{field: value}))
        return rechain(log, 0)

    return edit


rules_downgrade = _final_edit(_definition_edit("rules_version"), """The host downgrades the rules version in a final
view's definition (a version whose rules it prefers), re-chains from the new genesis and seals it again.""")
secrets_downgrade = _final_edit(_definition_edit("secrets"), """The host puts the old secret scheme (nonces from
the seed alone) in a final view's definition, re-chains and seals it again.""")


def _header_noise(mail: Mail, log: Any, at: int) -> Any | None:
    log.header = msgspec.structs.replace(log.header, bots={0: "random"}, parent="deadbeef", fork_at=2, salted=False)
    return log


header_noise = _final_edit(_header_noise, "The host writes bots, a parent, a fork point and salted=false into a "
                                          "final view's header and seals it again (nothing that decides anything).")


ATTACKS: dict[str, Attack] = {
    "view_rewrite": view_rewrite,
    "truncate_reseal": truncate_reseal,
    "swap_signed": swap_signed,
    "old_seal": old_seal,
    "extra_redacted_line": extra_redacted_line,
    "drop_chance_line": drop_chance_line,
    "view_relabel": view_relabel,
    "strip_signed": strip_signed,
    "swap_adjacent": swap_adjacent,
    "rules_downgrade": rules_downgrade,
    "secrets_downgrade": secrets_downgrade,
    "header_noise": header_noise,
}
