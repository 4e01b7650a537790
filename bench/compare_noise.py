"""Does `compare` cry wolf, and does it see a real slowdown? A/A pairs and power, under load.

    python bench/compare_noise.py [--model mlp|resnet18] [--pairs 10] [--load quiet|steady|coming]
                                  [--repeat 5] [--seed 1] [--json FILE] [--captures FILE]

Every capture is `hotdb profile`'s own (ops/capture.py `_capture_alone`), each in a fresh
spawned process, as `profile --replicates` takes them. For each pair the script captures,
in rounds of a random order, three times each:

    a    the model                              (side A of every comparison)
    aa   the model again                        (A/A: every change called is a false one)
    p10  the model with its last layer wider, its kernel ~10 % slower  (mlp only)
    p25  the same, ~25 % slower                                        (mlp only)

(bench/noise_models.py; the zoo ResNet-18 gets A/A pairs only). Each comparison is then
judged, by kernel, in three configurations, each in a fresh database holding only what
it names:

    1 run     a.1 against x.1, no other run: the capture's own samples judge
    3 reps    a.1-a.3 against x.1-x.3, stored as replicate groups
    history   a.1 against x.1, with the first capture `a` of every other pair stored
              before them: the noise floor from history (view item_noise)
    3 reps + history   both

Load, between captures: `quiet` none; `steady` two CPU-bound processes for the whole run;
`coming` two CPU-bound processes beside each capture with probability 1/2, chosen at random.

`--captures FILE` keeps the captures (a pickle) and judges those of an earlier run again
when FILE exists. Each capture's load is reported with what it measured of the other
processes' CPU use (runs.others_cpu_pct): a busy side's interval is widened by the most
that load can slow it (queries/_load_slowdown.sql), busy captures stay out of the history,
and a gate with nothing it can test refuses (docs/design.md).

Reported per configuration: A/A items called changed / items tested (kernels, the whole
run apart) and gates `--fail-on-regression 5` failed (a regression) or refused (nothing
tested: it exits 1 too); for p10 and p25 the fraction of pairs whose changed kernel was
called slower, and the true slowdown, the median over pairs of the 3-replicate ratio.
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import pickle
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hotdb import Hotdb  # noqa: E402
from hotdb.errors import NothingTested, Regressions  # noqa: E402

MODELS = {
    "mlp": {"a": f"{ROOT}/bench/noise_models.py:mlp", "p10": f"{ROOT}/bench/noise_models.py:mlp_slow10",
            "p25": f"{ROOT}/bench/noise_models.py:mlp_slow25", "changed": "kernel fused_matmul1_add1"},
    "resnet18": {"a": "resnet18"},
}
CONFIGS = ("1 run", "3 reps", "history", "3 reps + history")
REPLICATES = 3
GATE_PCT = 5.0


class Load:
    """Two CPU-bound processes, on while `on`."""

    def __init__(self):
        self.procs: list[subprocess.Popen] = []

    def set(self, on: bool) -> None:
        if on and not self.procs:
            self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
        elif not on and self.procs:
            for p in self.procs:
                p.kill()
                p.wait()
            self.procs = []


def capture(spec: str, repeat: int):
    from hotdb.ops.capture import _capture_alone

    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_capture_alone, (spec, None, None, repeat, 1, None, None))


def take_captures(model: str, pairs: int, load_kind: str, repeat: int, rng: random.Random) -> tuple[dict, list]:
    """captures[pair][role] = [Capture x3], and the load each capture ran under."""
    roles = [r for r in ("a", "aa", "p10", "p25") if r == "aa" or r in MODELS[model]]
    load = Load()
    loads = []
    captures: dict[int, dict[str, list]] = {p: {r: [] for r in roles} for p in range(pairs)}
    try:
        load.set(load_kind == "steady")
        for p in range(pairs):
            for _ in range(REPLICATES):
                for role in rng.sample(roles, len(roles)):
                    if load_kind == "coming":
                        load.set(rng.random() < 0.5)
                    captured = capture(MODELS[model]["a" if role == "aa" else role], repeat)
                    captures[p][role].append(captured)
                    loads.append((bool(load.procs), captured.run_meta.get("others_cpu_pct")))
            print(f"  pair {p + 1}/{pairs} captured", file=sys.stderr, flush=True)
    finally:
        load.set(False)
    return captures, loads


@functools.cache
def _loaded(spec: str):
    from hotdb.capture.models import load_model

    return load_model(spec)


def judge(model: str, captures: dict, pair: int, role: str, config: str, folder: Path) -> dict:
    """One comparison (a against role) of one pair in one configuration, in a fresh database."""
    from hotdb.ops.common import store_capture

    db = Hotdb(folder / f"{pair}-{role}-{config.replace(' ', '_')}.duckdb")
    loaded = {r: _loaded(MODELS[model]["a" if r == "aa" else r]) for r in ("a", role)}

    def store(r: str, capture_, label: str, group: str | None = None):
        store_capture(db.database, "noise-bench", loaded[r], capture_, stamp=label, run_label=label,
                      run_meta={"replicate_of": group} if group else None)

    if "history" in config:
        for other in captures:
            if other != pair:
                store("a", captures[other]["a"][0], f"h{other}")
    if config.startswith("3 reps"):
        for side, r in (("A", "a"), ("B", role)):
            for i, c in enumerate(captures[pair][r]):
                store(r, c, f"{side}.{i + 1}", side)
    else:
        store("a", captures[pair]["a"][0], "A")
        store(role, captures[pair][role][0], "B")
    result = db.compare("A", "B", by="kernel")
    gate = "passed"
    if role == "aa":
        try:
            db.compare("A", "B", by="kernel", fail_above_pct=GATE_PCT)
        except Regressions:
            gate = "failed"
        except NothingTested:
            gate = "refused"
    rows = result.records()
    items = [r for r in rows if r["item"] != "(end to end)"]
    return {"tested": sum(r["verdict"] in ("faster", "slower", "within noise") for r in items),
            "changed": [f"{r['item']} x{r['ratio']:.3f} [{r['ratio_low']:.3f}, {r['ratio_high']:.3f}] {r['noise_from']}"
                        for r in items if r["verdict"] in ("faster", "slower")],
            "gate": gate,
            "detected": any(r["item"] == MODELS[model].get("changed") and r["verdict"] == "slower" for r in rows),
            "ratio": next((r["ratio"] for r in rows if r["item"] == MODELS[model].get("changed")), None)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="mlp", choices=sorted(MODELS))
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--load", default="coming", choices=("quiet", "steady", "coming"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--captures", type=Path)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    if args.captures and args.captures.exists():
        captures, loads, took = pickle.loads(args.captures.read_bytes())
    else:
        captures, loads = take_captures(args.model, args.pairs, args.load, args.repeat, rng)
        took = time.perf_counter() - start
        if args.captures:
            args.captures.write_bytes(pickle.dumps((captures, loads, took)))
    roles = [r for r in next(iter(captures.values())) if r != "a"]
    summary = []
    with tempfile.TemporaryDirectory() as folder:
        for config in CONFIGS:
            for role in roles:
                judged = [judge(args.model, captures, p, role, config, Path(folder)) for p in captures]
                summary.append({"model": args.model, "load": args.load, "config": config, "role": role,
                                "pairs": len(judged), "tested": sum(j["tested"] for j in judged),
                                "changed": sum(len(j["changed"]) for j in judged),
                                "changed_items": [c for j in judged for c in j["changed"]],
                                "gates_failed": sum(j["gate"] == "failed" for j in judged),
                                "gates_refused": sum(j["gate"] == "refused" for j in judged),
                                "detected": sum(j["detected"] for j in judged),
                                "ratios": [j["ratio"] for j in judged]})
    busy = [pct for _, pct in loads if pct is not None and pct > 10]
    print(f"\n{args.model}, load {args.load}: {len(captures)} pairs, {len(loads)} captures "
          f"({sum(on for on, _ in loads)} beside the load; {len(busy)} measured other processes above 10 % of the CPUs) "
          f"in {took:.0f} s, --repeat {args.repeat}, seed {args.seed}\n")
    print("| config | comparison | items called changed / tested | gates failed | gates refused (nothing tested) | "
          "slowdown detected | ratio of the changed kernel (median) |")
    print("|---|---|---|---|---|---|---|")
    for s in summary:
        ratios = [r for r in s["ratios"] if r is not None]
        aa = s["role"] == "aa"
        print(f"| {s['config']} | {'A/A' if aa else s['role']} | "
              f"{s['changed']} / {s['tested']} ({100 * s['changed'] / max(s['tested'], 1):.1f} %) | "
              f"{s['gates_failed'] if aa else ''} | {s['gates_refused'] if aa else ''} | "
              f"{'' if aa else str(s['detected']) + ' / ' + str(s['pairs'])} | "
              f"{'' if aa or not ratios else format(statistics.median(ratios), '.3f')} |")
    for s in summary:
        if s["changed_items"] and s["role"] == "aa":
            print(f"\nA/A {s['config']}, called changed: " + "; ".join(s["changed_items"]))
    if args.json:
        args.json.write_text(json.dumps({"args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}, "loads": loads,
                                         "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
