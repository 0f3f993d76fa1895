"""The outcome checks of the red team: what an honest player makes of what she
finally received, and the two laws.

:func:`judge` is the law for a cheating host: some honest player's ``verify`` of
what they finally received fails (exit 1, one line; never exit 3), or the attack
changed nothing that matters (each honest player's final view folds to the same
result as the same game played honestly, and proves its deal).  For a cheating
player, :func:`judge_player` adds: the host's ``inbox`` refused the file with the
store exactly as it was, or it accepted it and the law above holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adversary.honest import Case, Mail, honest_start

def outcome(path: Path) -> tuple[Any, ...] | None:
    """What matters in a final view: the game's result folded from it (scores,
    winners), or None if it does not fold to a finished game."""
    from replay.sources import fold_log, read_path

    try:
        game, _, states = fold_log(read_path(path))
    except Exception:  # noqa: BLE001 - a file that cannot be folded shows no result
        return None
    if not states or game.to_act(states[-1]):
        return None
    result = game.result(states[-1])
    return None if result is None else (tuple(result.scores), tuple(result.winners))


@dataclass
class Received:
    """What the honest players finally received, and what ``verify`` said of it."""

    finals: dict[str, Path]
    mounted: bool = True
    """False when the attack found nothing to do in this game (it changed nothing)."""
    note: str = ""
    verdicts: dict[str, tuple[int, str]] = field(default_factory=dict)


def verify_all(mail: Mail, received: Received) -> None:
    for name, path in received.finals.items():
        if not path.exists():
            received.verdicts[name] = (-1, f"{name} received no final view ({mail.stuck or 'the game did not end'})")
            continue
        code, out, err = mail.players[name].run("verify", str(path))
        received.verdicts[name] = (code, (out + err).strip())



def honest_outcomes(root: Path, case: Case) -> dict[str, tuple[Any, ...] | None]:
    """Each player's result when ``case`` is played honestly to the end."""
    mail = honest_start(case)
    out = {p: outcome(f) for p, f in mail.finals().items()}
    assert not mail.stuck and all(v is not None for v in out.values()), f"the honest game: {mail.stuck} {out}"
    return out


def judge(root: Path, case: Case, received: Received, mail: Mail) -> str:
    """The law; returns how it held ("detected: …" or "harmless"), raises if broken."""
    verify_all(mail, received)
    caught = []
    for name, (code, text) in received.verdicts.items():
        if code == 1:
            assert len(text.splitlines()) == 1, f"{name}'s verify gave more than one line: {text}"
            caught.append(f"{name}: {text}")
    if caught:
        return "detected: " + caught[0]
    unproven = {n: t for n, (c, t) in received.verdicts.items() if c != 0 or "deal proven" not in t}
    assert not unproven, (
        f"a final view neither failed verify (exit 1) nor proved its deal: {unproven} [{received.note}]"
    )
    honest = honest_outcomes(root / "honest", case)
    seen = {name: outcome(path) if path.exists() else None for name, path in received.finals.items()}
    wrong = {n: (seen[n], honest[n]) for n in received.finals if seen[n] != honest[n]}
    assert not wrong, (
        f"undetected: every honest player's verify passed ({received.verdicts}) but the result changed "
        f"(seen, honest) {wrong} [{received.note}]"
    )
    return "harmless"



@dataclass
class Cheat:
    """One file a cheating player sent, and what the host's ``inbox`` made of it."""

    name: str
    code: int
    unchanged: bool
    refused: bool
    text: str



@dataclass
class PlayerReceived(Received):
    cheats: list[Cheat] = field(default_factory=list)
    cheater: str = ""


def judge_player(root: Path, case: Case, received: PlayerReceived, mail: Mail) -> str:
    """A cheating player's file is refused (exit 2, the store as it was), or it was
    accepted and the game is as if played honestly: every honest player's final
    view verifies, proves the deal and folds to the honest result."""
    for c in received.cheats:
        assert c.code != -1, f"{c.name} was held and never decided: {c.text}"
        if c.code != 0 or c.refused:
            assert c.code == 2 and c.refused and c.unchanged, (
                f"{c.name}: refused with exit {c.code}, store unchanged={c.unchanged}, "
                f"moved to refused/={c.refused}: {c.text}")
    received.finals = mail.finals()  # the cheater's own final view too: a framed host fails there
    verify_all(mail, received)
    full = mail.root / "host-full.jsonl"
    code, out, err = mail.host.run("export", mail.gid, "-o", str(full), "--force")
    code, out, err = (code, out, err) if code else mail.host.run("verify", str(full))
    received.verdicts["host's full export"] = (code, (out + err).strip())
    bad = {n: t for n, (code, t) in received.verdicts.items() if code != 0 or "deal proven" not in t}
    accepted = [c.name for c in received.cheats if c.code == 0]
    assert not bad, f"the host accepted {accepted} from {received.cheater}; then honest players' verify: {bad}"
    if not accepted:
        return "refused"  # and the game went on as honest play: every final view proves its deal
    honest = honest_outcomes(root / "honest", case)
    seen = {name: outcome(path) for name, path in received.finals.items()}
    wrong = {n: (seen[n], honest[n]) for n in received.finals if seen[n] != honest[n]}
    assert not wrong, (f"the host accepted {accepted} from {received.cheater} and every check passed, "
                       f"but the result changed (seen, honest): {wrong} [{received.note}]")
    return "harmless"

