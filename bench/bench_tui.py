"""The TUI replay benchmark: stepping through a ~2,000-event log, as ratios.

    python bench/bench_tui.py [--presses 40]

* step (model + widgets, no key dispatch) per event, over the whole log;
* a real key press (``right``) through Textual's Pilot, waited on until idle;
* ``pagedown``/``end``/``home`` jumps;

each reported as a ratio to the baseline measured in the same run: the Pilot's
own cost of an unbound key press (dispatch, no work).  A ratio near 1 means a
step costs no more than pressing a key that does nothing.  (Was a wall-clock
assertion in ``tests/tui/test_speed.py``; that test now counts folds instead.)

Not a test: it prints and asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cli.tui.app import CitylogApp  # noqa: E402
from cli.tui.replay import GameScreen  # noqa: E402
from tests.tui.helpers import settle  # noqa: E402
from tests.tui.test_speed import SIZE, long_model  # noqa: E402


async def measure(db: str, presses: int) -> dict[str, float]:
    start = time.perf_counter()
    model = long_model(db)
    load = time.perf_counter() - start
    n = len(model.events)
    app = CitylogApp(db)
    app.backend.load = lambda game_id, cursor=None: model  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(GameScreen(model.game_id))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await pilot.press("home")
        start = time.perf_counter()
        for _ in range(n - 1):
            screen.action_step(1)
        direct = (time.perf_counter() - start) / (n - 1)
        await pilot.press("home")
        start = time.perf_counter()
        await pilot.press(*["z"] * presses)
        idle = (time.perf_counter() - start) / presses
        start = time.perf_counter()
        await pilot.press(*["right"] * presses)
        keyed = (time.perf_counter() - start) / presses
        start = time.perf_counter()
        await pilot.press(*["pagedown"] * 8, "end", "home")
        jumps = (time.perf_counter() - start) / 10
    return {"events": n, "load": load, "direct": direct, "idle": idle, "keyed": keyed, "jumps": jumps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        r = asyncio.run(measure(str(Path(tmp) / "bench.db"), args.presses))
    base = r["idle"]
    print(f"{r['events']:.0f} events; generated and folded in {r['load']:.1f} s")
    print(f"baseline: Pilot unbound key press        {base * 1000:8.2f} ms")
    print(f"step (model + widgets, no dispatch)     {r['direct'] * 1000:8.2f} ms  {r['direct'] / base:6.2f}x baseline")
    print(f"key press 'right'                       {r['keyed'] * 1000:8.2f} ms  {r['keyed'] / base:6.2f}x baseline")
    print(f"key press pagedown/end/home             {r['jumps'] * 1000:8.2f} ms  {r['jumps'] / base:6.2f}x baseline")


if __name__ == "__main__":
    main()
