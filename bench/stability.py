"""Are hotspot lists stable across captures of one unchanged model?

    python bench/stability.py [--model resnet18] [--pairs 1] [--repeat 5] [--coverage 90]

For each pair, the model is captured twice in a row into a fresh database, each capture
by `hotdb profile` in a process of its own; the script reports whether
`top --coverage C` selects the same task set in both. What `compare` says of such pairs
(and of real slowdowns), with replicates and history, under load: bench/compare_noise.py.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hotdb import Hotdb  # noqa: E402


def one_pair(model: str, repeat: int, coverage: float, work: Path) -> dict:
    db = Hotdb(work / "pair.duckdb")
    labels = []
    for i in range(2):  # each capture in a process of its own, as `hotdb profile` runs
        label = f"{model}-capture-{i + 1}"
        subprocess.run([sys.executable, "-m", "hotdb", "--db", str(work / "pair.duckdb"), "profile", model,
                        "--repeat", str(repeat), "--run", label], check=True, capture_output=True)
        labels.append(label)
    tops = [db.top(run=label, coverage=coverage) for label in labels]
    sets = [{r["task_name"] for r in top.records()} for top in tops]
    every = [{r["task_name"]: r for r in db.top(run=label).records()} for label in labels]
    differ = [f"{name} ({every[0][name]['cumulative_pct'] - every[0][name]['share_pct']:.1f} / "
              f"{every[1][name]['cumulative_pct'] - every[1][name]['share_pct']:.1f} % before it)"
              for name in sorted(sets[0] ^ sets[1]) if name in every[0] and name in every[1]]
    shares = [top.facts["overhead_pct"] for top in tops]
    return {"same_set": sets[0] == sets[1], "differ": differ, "tasks": [len(s) for s in sets], "overhead_pct": shares}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="resnet18")
    parser.add_argument("--pairs", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--coverage", type=float, default=90.0)
    args = parser.parse_args()
    print(f"| pair | same task set at {args.coverage:g} % | tasks | overhead % (a, b) |")
    print("|---|---|---|---|")
    same = 0
    start = time.perf_counter()
    for pair in range(args.pairs):
        with tempfile.TemporaryDirectory() as folder:
            r = one_pair(args.model, args.repeat, args.coverage, Path(folder))
        same += r["same_set"]
        print(f"| {pair + 1} | {r['same_set']} | {r['tasks'][0]}, {r['tasks'][1]} | "
              f"{r['overhead_pct'][0]:.1f}, {r['overhead_pct'][1]:.1f} |"
              + (f" differ: {'; '.join(r['differ'])}" if r['differ'] else ""), flush=True)
    print(f"\n{args.model}, {args.pairs} pairs, --repeat {args.repeat}: same task set {same}/{args.pairs}; "
          f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
