"""Play by real email (issue 24): how many mails a game takes, and how long a
move's mail takes to become the next seat's notice, in polling intervals.

    python bench/bench_mail.py [--games 1] [--game card-city|point-city] [--seed 1]

Every party (a host and two players, each its own data directory) runs the
real agent (``citylog mail sync``) as ``--watch`` would, every interval T, each
at its own phase (seeded, uniform in [0, T)); a postman delivers every mail at
once (Maildir in, ``.eml`` out: ``tests/helpers/mail_parties.py``); a player
who is told it is her turn moves at once (a random legal command), and her mail
leaves at her next pass.  Time is simulated (the passes run as fast as they
can, in the order of their simulated times), so the numbers are the protocol's,
not this machine's.

* mails per game round, host and players: every mail sent, over the game's
  rounds (``show --json``'s ``round``).
* notice latency: for each move, from the pass that sends its mail to the pass
  at which the next seat's agent says "your turn", in units of T (mean, max).
  With instant delivery the floor is the wait for the host's pass plus the wait
  for the next seat's: about 1 T on average, below 2 T always.

Not a test: it prints counts and ratios and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers.mail_parties import MailTable  # noqa: E402

PLAYERS = ("alice", "bob")


def one_game(game: str, seed: int, folder: Path) -> tuple[dict[str, int], int, list[float]]:
    """(mails sent by each party, the game's rounds, notice latencies in T)."""
    rng = random.Random(seed)
    t = MailTable(folder, game, PLAYERS)
    parties = t.parties
    phase = {p.name: rng.random() for p in parties}
    sent_move_at: list[float] = []  # simulated times of the passes that sent a move
    noticed: set[tuple[str, str, int]] = set()
    latencies: list[float] = []
    moved: set[tuple[str, int]] = set()
    tick = 0
    while True:
        order = sorted(parties, key=lambda p: phase[p.name])
        for party in order:
            now = tick + phase[party.name]
            s = party.sync()
            t.carry()
            if any("sent move" in line for line in s["lines"]):
                sent_move_at.append(now)
            for turn in s["turns"]:
                key = (turn["game_id"], turn["player"], turn["seq"])
                if key not in noticed:
                    noticed.add(key)
                    if sent_move_at:
                        latencies.append(now - sent_move_at[-1])
                if (turn["player"], turn["seq"]) in moved:
                    continue
                moved.add((turn["player"], turn["seq"]))
                view = t.view_of(turn["player"])
                legal = json.loads(party.ok("legal", view["file"], "--as", turn["player"], "--json"))["legal"]
                party.ok("move", t.gid, "--as", turn["player"], rng.choice(legal))
        tick += 1
        if t.over():
            break
        if tick > 5000:
            raise SystemExit("the game did not end")
    sent = {p.name: json.loads(p.ok("mail", "status", "--json"))["sent"] for p in parties}
    rounds = int(json.loads(t.host.ok("show", t.gid, "--json")).get("round") or 1)
    return sent, rounds, latencies


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--game", default="card-city")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    host = players = rounds = 0
    lat: list[float] = []
    for g in range(args.games):
        with tempfile.TemporaryDirectory() as tmp:
            sent, r, latencies = one_game(args.game, args.seed + g, Path(tmp))
        host += sent["host"]
        players += sum(v for k, v in sent.items() if k != "host")
        rounds += r
        lat += latencies
        print(f"game {g + 1}: {r} rounds; mails: host {sent['host']}, "
              + ", ".join(f"{k} {v}" for k, v in sent.items() if k != "host"))
    print(f"{args.game}, {len(PLAYERS)} seats, {args.games} game(s)")
    print(f"mails per game round: host {host / rounds:.1f}, players {players / rounds:.1f} "
          f"({players / rounds / len(PLAYERS):.1f} each)")
    if lat:
        print(f"move mail -> next seat's notice: mean {statistics.mean(lat):.2f} T, max {max(lat):.2f} T "
              f"({len(lat)} notices)")


if __name__ == "__main__":
    main()
