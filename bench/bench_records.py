"""The issue-15 benchmark: records people share, against a baseline measured in
the same run — reading the same log file and folding it (``fold_log``), which
every one of them starts with.

    python bench/bench_records.py [--repeat 3]

For each golden game (tests/golden):
* text record: ``export --format text`` (record.write) and its import
  (record.read: parse + re-decide every move + chain);
* picture: the SVG of the last position (fold + scene + render);
* replay page: ``export --format html`` (every step's picture for every view,
  packed).

Not a test: it prints milliseconds and ratios (× the baseline) and asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from replay import record  # noqa: E402
from replay.html import page  # noqa: E402
from replay.logfile import LogFile, read  # noqa: E402
from replay.picture import picture  # noqa: E402
from replay.sources import fold_log  # noqa: E402

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden"


def best(fn: Callable[[], object], repeat: int) -> float:
    """The best of ``repeat`` runs, in milliseconds (least disturbed by other load)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'game':36} {'events':>6} {'fold ms':>8} {'text':>7} {'import':>7} {'picture':>8} {'html':>8} {'html ms':>8} {'html KB':>8}")
    ratios: dict[str, list[float]] = {"text": [], "import": [], "picture": [], "html": []}
    for path in sorted(GOLDEN.glob("*.jsonl")):
        text_of_file = path.read_text()

        def load() -> LogFile:
            import io

            return read(io.StringIO(text_of_file), path.name)

        log = load()
        base = best(lambda: fold_log(load()), args.repeat)
        rec = record.write(log)
        html = page(log)
        t = {
            "text": best(lambda: record.write(load()), args.repeat),
            "import": best(lambda: record.read(rec), args.repeat),
            "picture": best(lambda: picture(load()), args.repeat),
            "html": best(lambda: page(load()), 1),
        }
        for k, v in t.items():
            ratios[k].append(v / base)
        print(
            f"{path.stem:36} {len(log.lines):>6} {base:>8.1f} "
            + " ".join(f"{t[k] / base:>6.1f}×" for k in ("text", "import"))
            + f" {t['picture'] / base:>7.1f}× {t['html'] / base:>7.1f}× {t['html']:>8.0f} {len(html) / 1024:>8.0f}"
        )
    print("median ×fold: " + ", ".join(f"{k} {statistics.median(v):.1f}×" for k, v in ratios.items()))


if __name__ == "__main__":
    main()
