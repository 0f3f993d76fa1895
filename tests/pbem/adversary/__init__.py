"""The red team of issue 22: a cheating host and cheating players, black-box.

An *attack* plays an honest game (:mod:`adversary.honest`) up to some point and
then cheats:

* **the host** may do anything to its own database (rewrite rows with
  ``sqlite3``, delete and re-create a game, edit the ``games`` row's header
  fields, apply a file it should not, re-sign with its own key, run copies of the
  game and hand each player a different one) and to the files it sends (rewrite,
  cut, re-chain and re-seal an export): :mod:`adversary.host_rows` (its
  database), :mod:`adversary.host_files` (the final views), with the tools of
  :mod:`adversary.host_tools`;
* **a player** may send the host any file (another seat's join, a second key,
  old moves, re-spelled files, huge entropy, files that are not files), crafted
  with any code and signed with any key *he* holds (:mod:`adversary.player_attacks`).

The laws are in :mod:`adversary.judge`: some honest player's ``verify`` of what
she finally received fails (exit 1, one line; never exit 3), or the attack
changed nothing that matters; a cheating player's file is refused (exit 2, the
store exactly as it was), or the game is as if he had played honestly.

Attacks are written in terms of what a cheater does with files and rows, never
in terms of APIs a fix adds, so they run on the code before and after a fix.
"""

from __future__ import annotations

from adversary import host_files, host_rows, player_attacks
from adversary.honest import Case, Mail, deterministic, honest_start, pick
from adversary.host_rows import Attack
from adversary.host_tools import resign, unsalted_nonce, write_json
from adversary.judge import (
    Cheat,
    PlayerReceived,
    Received,
    honest_outcomes,
    judge,
    judge_player,
    outcome,
    verify_all,
)
from adversary.player_attacks import PlayerAttack
from tests.helpers.pbem import Bug, Party

HOST_ATTACKS: dict[str, Attack] = {**host_rows.ATTACKS, **host_files.ATTACKS}
"""The cheating host's catalogue: name -> ``attack(mail, at)``."""
PLAYER_ATTACKS: dict[str, PlayerAttack] = player_attacks.ATTACKS
"""The cheating players' catalogue: name -> ``attack(mail, at)``."""

__all__ = [
    "HOST_ATTACKS", "PLAYER_ATTACKS", "Attack", "Bug", "Case", "Cheat", "Mail", "Party", "PlayerAttack",
    "PlayerReceived", "Received", "deterministic", "honest_outcomes", "honest_start", "judge", "judge_player",
    "outcome", "pick", "resign", "unsalted_nonce", "verify_all", "write_json",
]
