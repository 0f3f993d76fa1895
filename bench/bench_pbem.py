"""Play by email (issue 10): what signatures and the deal proof cost, as ratios
against baselines measured in the same run.

    python bench/bench_pbem.py [--games 5]

* signed apply: ``GameService.submit_move`` of a signed move file (Ed25519
  check, replay check, position check, decide, append, keep the signed file) vs
  ``GameService.submit`` of the same command in a game without --pbem.
* deal proof: ``verify`` of a player's final view (re-deriving every chance
  event, finding each hidden decision among the legal moves, checking every
  hidden digest, every signature and the seal) vs ``verify`` of the full log.

Not a test: it prints times and ratios and asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.card_city.game import GAME  # noqa: E402
from core.rng import Rng  # noqa: E402
from events.service import GameService  # noqa: E402
from events.signing import new_private_key, public_hex, sign  # noqa: E402
from events.statements import seat_secret, signed_join, signed_move  # noqa: E402
from events.store import SqliteStore  # noqa: E402
from replay.sources import export  # noqa: E402
from replay.verify import verify  # noqa: E402

PLAYERS = ["a", "b", "c"]


def one_game(seed: int, folder: Path) -> tuple[float, float, float, float, int, int]:
    """(signed apply s, plain submit s, view verify s, full verify s, signed commands, plain commands)."""
    signed_svc = GameService(SqliteStore(folder / f"pbem{seed}.db"))
    plain_svc = GameService(SqliteStore(folder / f"plain{seed}.db"))
    host = new_private_key()
    gid = signed_svc.create("card-city", PLAYERS, seed=f"b{seed}", host_key=public_hex(host))
    keys = [new_private_key() for _ in PLAYERS]
    rec = signed_svc.store.get_game(gid)
    for i, p in enumerate(PLAYERS):
        secret = seat_secret(rec.seed or "", rec.salt, rec.genesis, i)
        signed_svc.join(signed_join(keys[i], gid, rec.genesis, p, f"{seed:032x}"[-32:], secret))
    # the plain game gets the same commands (its chance differs; commands are chosen per game)
    pid = plain_svc.create("card-city", PLAYERS, seed=f"b{seed}")
    rng = Rng.derive(f"b{seed}", 0, "bench")
    t_signed = t_plain = 0.0
    count = plain_count = 0
    for svc, gid_, signed in ((signed_svc, gid, True), (plain_svc, pid, False)):
        while True:
            loaded = svc.load(gid_)
            actors = GAME.to_act(loaded.state)
            if not actors:
                break
            seat = actors[0]
            legal = list(GAME.legal(loaded.state, seat))
            cmd = legal[rng.below(len(legal))]
            if signed:
                mv = signed_move(keys[seat], gid_, PLAYERS[seat], loaded.version, loaded.head_hash,
                                 (GAME.format_command(cmd),))
                start = time.perf_counter()
                svc.submit_move(mv)
                t_signed += time.perf_counter() - start
                count += 1
            else:
                start = time.perf_counter()
                svc.submit(gid_, seat, cmd, expected_version=loaded.version)
                t_plain += time.perf_counter() - start
                plain_count += 1
    sealer = lambda b: sign(host, "export", b)  # noqa: E731
    view = export(signed_svc, gid, "a", sealer)
    full = export(signed_svc, gid, None, sealer)
    start = time.perf_counter()
    assert verify(view).ok
    t_view = time.perf_counter() - start
    start = time.perf_counter()
    assert verify(full).ok
    t_full = time.perf_counter() - start
    return t_signed, t_plain, t_view, t_full, count, plain_count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    import tempfile

    totals = [0.0, 0.0, 0.0, 0.0]
    commands = plain_commands = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.games):
            *times, n, m = one_game(seed, Path(tmp))
            totals = [a + b for a, b in zip(totals, times, strict=True)]
            commands += n
            plain_commands += m
    signed, plain, view, full = totals
    per_signed, per_plain = signed / commands * 1000, plain / plain_commands * 1000
    print(f"{args.games} three-player Card City games, {commands} signed and {plain_commands} plain commands")
    print(f"signed apply  {per_signed:7.2f} ms/command vs plain submit {per_plain:7.2f} ms/command: "
          f"ratio plain/signed {per_plain / per_signed:.2f}x")
    print(f"deal proof    view verify {view:6.3f}s vs full verify {full:6.3f}s: ratio full/view {full / view:.2f}x")


if __name__ == "__main__":
    main()
