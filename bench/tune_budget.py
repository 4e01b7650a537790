"""Does `hotdb tune --budget T` stop within one batch of T on a busy machine?

Each try is a whole `hotdb tune MODEL --budget T --trials 1000` process, on a fresh
database whose baseline was profiled first (outside the measurement), while BUSY
processes spin on the CPU beside it. What is measured: the command's wall time against
T, and the longest batch the tune itself said it measured (its progress lines, "(N s)").
A try passes when it ends by T plus its longest batch (plus 5 s when it measured none:
the deadline's grace and the stop); whether it tuned anything is said beside.

    python bench/tune_budget.py [MODEL] [--budget SECONDS] [--tries N] [--busy N]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GRACE_S = 5.0  # a try that measured no batch: its tuner killed at the deadline (less the round's reserve), the stop
BATCH = re.compile(r"trials  \S+: \d+ of \d+ measured, .*\((\d+) s\)$", re.M)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", nargs="?", default="mlp")
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--tries", type=int, default=10)
    parser.add_argument("--busy", type=int, default=2, help="spinning processes beside each try")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hotdb-budget-"))
    hotdb = [sys.executable, "-m", "hotdb"]
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    print(f"model {args.model}, budget {args.budget:g} s, {args.busy} spinning processes beside, {args.tries} tries")
    print("| try | wall (s) | over the budget (s) | longest batch (s) | batches | stopped | within one batch | load average |")
    print("|---|---|---|---|---|---|---|---|")
    passed = tuned = 0
    try:
        for n in range(args.tries):
            folder = root / f"try{n}"
            folder.mkdir()
            env = {**os.environ, "HOTDB_CACHE_DIR": str(folder / "cache")}
            db = ["--db", str(folder / "hotdb.duckdb")]
            subprocess.run(hotdb + db + ["profile", args.model, "--repeat", "2"], env=env, check=True,
                           capture_output=True)
            started = time.monotonic()
            done = subprocess.run(hotdb + db + ["tune", args.model, "--coverage", "60", "--trials", "1000",
                                                "--budget", f"{args.budget:g}s", "--work-dir", str(folder / "tune")],
                                  env=env, capture_output=True, text=True)
            wall = time.monotonic() - started
            batches = [int(s) for s in BATCH.findall(done.stderr)]
            longest = max(batches, default=0)
            # the note under the table, wrapped at no width (piped): "stopped: ..." or "stopped for the --budget ..."
            stopped = re.search(r"^stopped(?::| for| at) (.*)$", done.stdout, re.M)
            # on time: by T plus the longest batch measured, or plus the deadline's grace
            # when none was (a machine too busy for one batch: the tune exits 1 saying so)
            ok = wall <= args.budget + max(longest, GRACE_S)
            passed += ok
            tuned += done.returncode == 0
            print(f"| {n + 1} | {wall:.1f} | {wall - args.budget:+.1f} | {longest} | {len(batches)} | "
                  f"{stopped.group(1) if stopped else 'exit ' + str(done.returncode)} | {'yes' if ok else 'NO'} | "
                  f"{os.getloadavg()[0]:.1f} |",
                  flush=True)
            if done.returncode != 0:
                print(done.stderr[-2000:], file=sys.stderr)
    finally:
        for spinner in spinners:
            spinner.kill()
    print(f"\n{passed} of {args.tries} tries ended within one batch of the budget; {tuned} of them tuned something")


if __name__ == "__main__":
    main()
