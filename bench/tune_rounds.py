"""The anytime curve of tuning: end-to-end latency against tuning wall time.

(a) MetaSchedule as a user runs it: every extracted task, its gradient task scheduler
    with static weights (the extracted tasks' call counts), budget B trials; with
    --stock, as its docs run it (tune_tasks' defaults: batches of 64, LocalBuilder,
    LocalRunner), else batches of a few trials a task;
(k) the same with hotdb's kept builder (capture/tune/builder.py): what MetaSchedule
    gains from the builder alone, every task still tuned (the builder's share of hotdb's
    lead, against (a); the selection's, (h) against (k));
(h) hotdb tune, cold: a fresh database and no saved cost model; in rounds, each tuning
    the tasks that cover 90 % of the *current* profile under hotdb's task scheduler,
    then re-profiling; budget B trials;
(w) hotdb tune, warm: the same, on a copy of a database (and cost model) left by tuning
    another model that shares the workloads (--warm-from, ResNet-34) with budget B,
    before the measurement.

All run in this process, one after the other, each on a fresh work folder, and each
configuration is repeated. While a tune runs, a thread copies its MetaSchedule database
every --every seconds (records first, then workloads, each cut at its last whole line);
afterwards every copy is applied and the model re-profiled (once per distinct set of
records): the latency a user would have had by stopping the tune then. (h)'s wall time
includes its own re-profiles, as a user waits for them. Prints a table and writes bench/tune_rounds.png (tune_rounds_N.png with --per-task N).

    python bench/tune_rounds.py [MODEL] [--trials B | --per-task T] [--stock] [--repeats N] [--every SECONDS]
                                [--configs a,k,h,w] [--work DIR] [--points N]
    python bench/tune_rounds.py --from-json bench/tune_rounds.json     # the report of a run, or of a stopped one

(--configs a,h leaves out (k), (w) and the tune of --warm-from it starts from. --per-task 64
sets B to 64 trials a task of the model, as users who tune give MetaSchedule: hours.)
Where each configuration's time goes is MetaSchedule's own profile of it (ms.Profiler:
building, running, the cost model, the search), and for (h) and (w) the re-profiles.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from hotdb.api import Hotdb
from hotdb.capture.models import load_model
from hotdb.capture.profile import capture, fuse
from hotdb.capture.targets import parse_target
from hotdb.capture.tune import driver

FILES = ("database_tuning_record.json", "database_workload.json")  # records first: each names a workload


class Snapshots:
    """Copies of a tune's database every `every` seconds: [(elapsed s, folder)]."""

    def __init__(self, work: Path, into: Path, every: float):
        self.work, self.into, self.every = work, into, every
        self.taken: list[tuple[float, Path]] = []
        self.started = time.perf_counter()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        self._thread.join()
        self.take()  # the end

    def _run(self) -> None:
        while not self._done.wait(self.every):
            self.take()

    def take(self) -> None:
        if not (self.work / FILES[0]).exists():
            return
        folder = self.into / f"snap{len(self.taken):03d}"
        folder.mkdir(parents=True)
        elapsed = time.perf_counter() - self.started
        for name in FILES:
            data = (self.work / name).read_bytes() if (self.work / name).exists() else b""
            (folder / name).write_bytes(data[: data.rfind(b"\n") + 1])  # a line being written is left out
        self.taken.append((elapsed, folder))


def tune_all(loaded, target, trials: int, work: Path, *, stock: bool, kept: bool) -> dict[str, float]:
    """(a) and (k): every extracted task with MetaSchedule's static weights, its own
    scheduler; where the time went (MetaSchedule's profiler). Stock: tune_tasks' own
    batches of 64 and LocalBuilder; else batches of a few trials a task (with a budget of a
    few dozen trials over 19 tasks, 64 would give them all to the first tasks)."""
    from tvm.s_tir import meta_schedule as ms

    from hotdb.capture.tune.builder import BUILD_WORKERS, kept_builder

    tasks = ms.relax_integration.extract_tasks(fuse(loaded.mod, target), target)
    contexts, weights = ms.relax_integration.extracted_tasks_to_tune_contexts(tasks, str(work), num_threads="physical")
    options = {} if stock else {"num_trials_per_iter": driver.trials_per_round(trials, len(tasks), trials),
                                "runner": ms.runner.LocalRunner(timeout_sec=60)}
    if kept:
        options["builder"] = kept_builder(BUILD_WORKERS, 120.0, target.kind.name)
    elif not stock:
        options["builder"] = ms.builder.LocalBuilder(max_workers=BUILD_WORKERS, timeout_sec=120)
    with ms.Profiler() as profiler:
        ms.tune_tasks(tasks=contexts, task_weights=weights, work_dir=str(work), max_trials_global=trials,
                      max_trials_per_task=trials, cost_model="xgb", **options)
    return {str(k): float(v) for k, v in profiler.get().items()}


def latency_ms(loaded, target, folder: Path | None) -> float:
    apply = driver.applier(folder, target) if folder is not None else None
    result = capture(loaded, target, repeat=3, apply=apply)
    return statistics.median(result.run_meta["end_to_end_us"]) / 1e3


def snapshot_ms(loaded, target, folder: Path, profiled: dict[bytes, float]) -> float:
    """A copy's latency, profiled once per distinct set of records: MetaSchedule's copies
    stay the same for minutes (its database is empty until its last join), and a profile
    with the database applied takes ~30 s here."""
    digest = hashlib.sha256((folder / FILES[0]).read_bytes()).digest()
    if digest not in profiled:
        profiled[digest] = latency_ms(loaded, target, folder) if (folder / FILES[0]).stat().st_size else \
            latency_ms(loaded, target, None)
    return profiled[digest]


def at(curve: list[tuple[float, float]], t: float, untuned: float) -> float:
    """The latency a user had at wall time t: the last point at or before t."""
    return ([ms for s, ms in curve if s <= t] or [untuned])[-1]


CONFIGS = ("(a) MetaSchedule, all tasks", "(k) MetaSchedule, kept builder", "(h) hotdb, cold", "(w) hotdb, warm")


def hotdb_tune(model: str, trials: int, work: Path, db_path: Path, cache: Path) -> list[dict]:
    """`hotdb tune` as a user runs it, its baseline profile included: the rounds it made
    (each with its seconds, its batches' and MetaSchedule's profile of it)."""
    os.environ["HOTDB_CACHE_DIR"] = str(cache)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    db = Hotdb(db_path)
    db.profile(model, repeat=3)
    return db.tune(model, coverage=90.0, trials=trials, work_dir=work, repeat=3).facts["rounds"]


def warm_source(root: Path, model: str, trials: int) -> tuple[Path, Path]:
    """A database and cost model left by tuning `model` (another model that shares the
    measured model's workloads) with the same budget: what (w) starts from."""
    folder = root / "warm-source"
    if (folder / "done").exists():  # a resumed run's, tuned before it stopped
        return folder / "hotdb.duckdb", folder / "cache"
    shutil.rmtree(folder, ignore_errors=True)
    started = time.perf_counter()
    rounds = hotdb_tune(model, trials, folder / "work", folder / "hotdb.duckdb", folder / "cache")
    print(f"warm source: {model} tuned in {time.perf_counter() - started:,.0f} s, {len(rounds)} rounds", flush=True)
    (folder / "done").touch()
    return folder / "hotdb.duckdb", folder / "cache"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", nargs="?", default="resnet18")
    parser.add_argument("--warm-from", default="resnet34", help="the model (w) tuned first")
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument("--per-task", type=int, help="B = this many trials a task of the model (64: as users tune)")
    parser.add_argument("--stock", action="store_true", help="(a) with tune_tasks' defaults (batches of 64, LocalBuilder)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--every", type=float, default=20.0, help="seconds between database copies")
    parser.add_argument("--plot", type=Path, help="the plot (its points beside it, .json): bench/tune_rounds.png, "
                                                   "with --per-task N bench/tune_rounds_N.png")
    parser.add_argument("--configs", default="a,h,w",
                        help="which of (a), (k), (h), (w) to run, in this order within a repeat; (a) always runs")
    parser.add_argument("--points", type=int, default=16,
                        help="copies profiled a curve, at most (evenly spaced in time, the last always)")
    parser.add_argument("--dense", type=float, default=0.0, metavar="SECONDS",
                        help="also profile every copy of the first SECONDS of each tune (where a mark is crossed)")
    parser.add_argument("--from-json", type=Path, help="report what a run (or a stopped one) wrote, tuning nothing")
    parser.add_argument("--work", type=Path,
                        help="the run's folder; a run stopped there (its progress.json) goes on from its last "
                             "whole configuration: a run at 64 trials a task takes longer than a machine may stay up")
    args = parser.parse_args()
    args.plot = args.plot or Path(__file__).parent / f"tune_rounds{f'_{args.per_task}' if args.per_task else ''}.png"
    if args.from_json:
        return report_saved(args)
    letters = args.configs.split(",")
    chosen = [name for letter in (letters if "a" in letters else ["a", *letters])
              for name in CONFIGS if name[1] == letter]
    target = parse_target(None)
    loaded = load_model(args.model)
    if args.per_task:
        from tvm.s_tir import meta_schedule as ms

        args.trials = args.per_task * len(ms.relax_integration.extract_tasks(fuse(loaded.mod, target), target))
    root = args.work or Path(tempfile.mkdtemp(prefix="hotdb-rounds-"))
    root.mkdir(parents=True, exist_ok=True)
    args.progress = root / "progress.json"
    done = json.loads(args.progress.read_text()) if args.progress.exists() else None
    if done and (done["model"], done["trials"]) != (args.model, args.trials):
        raise SystemExit(f"{args.progress} is a run of {done['model']} with B = {done['trials']}: another --work")
    untuned = done["untuned_ms"] if done else statistics.median(latency_ms(loaded, target, None) for _ in range(3))
    print(f"model {args.model}, untuned end-to-end {untuned:,.1f} ms (median of 3 profiles"
          f"{', measured when the run began' if done else ''}), B = {args.trials}", flush=True)
    if "(w) hotdb, warm" in chosen:
        source_db, source_cache = warm_source(root, args.warm_from, args.trials)
    profiled: dict[bytes, float] = {}  # records file digest -> latency
    curves: dict[str, list[list[tuple[float, float]]]] = {
        name: [[tuple(p) for p in c] for c in (done or {}).get("curves", {}).get(name, [])] for name in chosen}
    walls: dict[str, list[float]] = {k: (done or {}).get("walls", {}).get(k, []) for k in curves}
    spent: dict[str, list[dict[str, float]]] = {k: (done or {}).get("spent", {}).get(k, []) for k in curves}
    for repeat in range(args.repeats):
        for name in curves:
            if len(curves[name]) > repeat:
                continue  # measured before the run stopped
            tag = f"{name[1]}{repeat}"
            work = root / tag / "work"
            shutil.rmtree(root / tag, ignore_errors=True)  # what a stopped configuration left
            work.mkdir(parents=True)
            if name.startswith("(w)"):  # a copy of the warm source for each repeat
                shutil.copy(source_db, root / tag / "hotdb.duckdb")
                shutil.copytree(source_cache, root / tag / "cache")
            started = time.perf_counter()
            with open(root / f"{tag}.log", "w") as log, contextlib.redirect_stdout(log), \
                    Snapshots(work, root / tag / "snaps", args.every) as snaps:
                if name[1] in "ak":
                    seconds = tune_all(loaded, target, args.trials, work, stock=args.stock, kept=name[1] == "k")
                else:
                    rounds = hotdb_tune(args.model, args.trials, work, root / tag / "hotdb.duckdb", root / tag / "cache")
                    print(f"  {len(rounds)} rounds: " + "; ".join(
                        f"{len(r['tasks'])} tasks, {r['trials']} trials, {r['warm_records']} warm records, "
                        f"{r['seconds']:.0f} s" for r in rounds), file=sys.stderr, flush=True)
                    seconds = _hotdb_seconds(rounds)
            walls[name].append(time.perf_counter() - started)
            spent[name].append(seconds)
            curve = [(0.0, untuned)] + [(elapsed, snapshot_ms(loaded, target, folder, profiled))
                                        for elapsed, folder in thinned(snaps.taken, args.points, args.dense)]
            curves[name].append(curve)
            print(f"{name}, repeat {repeat + 1}: wall {walls[name][-1]:,.0f} s; " +
                  ", ".join(f"{s:.0f} s {ms:,.1f} ms" for s, ms in curve), flush=True)
            shutil.rmtree(root / tag / "snaps", ignore_errors=True)
            save(args, untuned, curves, walls, spent)  # a run stopped later still reports what it measured
    report(curves, walls, untuned, args)
    breakdown(spent, walls)


def thinned(taken: list[tuple[float, Path]], points: int, dense_s: float = 0.0) -> list[tuple[float, Path]]:
    """At most `points` copies, evenly spaced in time, the last (the tune's end) always: a
    tune of an hour copied every 20 s would otherwise cost ~30 s of profiling a copy. And
    every copy of the first `dense_s` seconds: 16 points over ~1,000 s lie 60-80 s apart,
    too far to tell where a curve crosses a mark near 195 s."""
    if len(taken) <= points:
        return taken
    step = taken[-1][0] / points
    kept, due = [], step
    for elapsed, folder in taken[:-1]:
        if elapsed >= due:
            kept.append((elapsed, folder))
            due = elapsed + step
    chosen = kept[: points - 1] + [taken[-1]]
    return sorted(set(chosen) | {(e, f) for e, f in taken if e <= dense_s})


def save(args, untuned: float, curves, walls, spent) -> None:
    """What the run measured so far: the plot's JSON, and the progress a stopped run goes on from."""
    text = json.dumps({"untuned_ms": untuned, "curves": {k: v for k, v in curves.items() if v}, "walls": walls,
                       "spent": spent, "model": args.model, "trials": args.trials})
    for path in (Path(args.plot).with_suffix(".json"), args.progress):
        part = path.with_name(path.name + ".part")
        part.write_text(text)
        part.replace(path)


def report_saved(args) -> None:
    saved = json.loads(args.from_json.read_text())
    args.model, args.trials = saved["model"], saved["trials"]
    curves = {k: [[tuple(p) for p in c] for c in v] for k, v in saved["curves"].items()}
    if CONFIGS[0] not in curves:
        raise SystemExit(f"{args.from_json}: (a) is not measured yet; measured: {', '.join(curves) or 'nothing'}")
    walls = {k: v[: len(curves[k])] for k, v in saved["walls"].items() if k in curves}
    args.repeats = len(curves[CONFIGS[0]])
    args.plot = args.from_json.with_suffix(".png")
    report(curves, walls, saved["untuned_ms"], args)
    breakdown({k: v for k, v in saved.get("spent", {}).items() if k in curves}, walls)


def _hotdb_seconds(rounds: list[dict]) -> dict[str, float]:
    """A hotdb tune's seconds by part: MetaSchedule's profile of each round's job, summed,
    and the rounds' re-profiles and starts (a round's seconds less its batches')."""
    out: dict[str, float] = {}
    for r in rounds:
        for part, value in (r.get("parts_s") or {}).items():
            out[part] = out.get(part, 0.0) + value
        out["re-profile and tuner start"] = out.get("re-profile and tuner start", 0.0) + r["seconds"] - r["batches_s"]
    return out


# MetaSchedule's profiler's names (ms.Profiler.get()), gathered: building, running, the
# cost model's training and scores, the evolutionary search
PARTS = {"build": ("SendToBuilder",), "run": ("SendToRunner", "JoinRunnerFutures"),
         "cost model": ("UpdateCostModel", "PredictNormalizedScore"),
         "search": ("EvoSearch/SampleInitPopulation", "EvoSearch/Evolve/Mutation", "EvoSearch/Evolve/Misc",
                    "EvoSearch/Pick"),
         "sibling trials": ("SiblingTrials",)}  # hotdb's (capture/tune/siblings.py): build and run


def breakdown(spent: dict[str, list[dict[str, float]]], walls: dict[str, list[float]]) -> None:
    print("\n| configuration | wall (s) | build (s) | run (s) | cost model (s) | search (s) | sibling trials (s) "
          "| re-profile, tuner start (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, repeats in spent.items():
        for wall, seconds in zip(walls[name], repeats):
            cells = [sum(v for k, v in seconds.items() if any(k.startswith(p) or k.endswith(p) for p in names))
                     for names in PARTS.values()]
            cells.append(seconds.get("re-profile and tuner start", 0.0))
            print(f"| {name} | {wall:,.0f} | " + " | ".join(f"{c:,.0f}" for c in cells) + " |")


NOISE = 0.05  # re-profiles of one build move 3-5 % here: a latency this much below untuned is an improvement


def report(curves, walls, untuned: float, args) -> None:
    a_name, k_name = CONFIGS[0], CONFIGS[1]
    final_a = statistics.median(c[-1][1] for c in curves[a_name])
    speedup_a = untuned / final_a
    goal_ms = untuned / (1 + 0.9 * (speedup_a - 1))  # 90 % of (a)'s gain in speedup
    goal95_ms = untuned / (1 + 0.95 * (speedup_a - 1))
    wall_a = statistics.median(walls[a_name])
    wall_k = statistics.median(walls[k_name]) if walls.get(k_name) else None
    print(f"\n(a)'s final speedup {speedup_a:.2f}x (median of {args.repeats}), in {wall_a:,.0f} s (median wall); "
          f"90 % of it: {untuned / goal_ms:.2f}x = {goal_ms:,.1f} ms; 95 %: {untuned / goal95_ms:.2f}x = "
          f"{goal95_ms:,.1f} ms" + (f"; (k)'s median wall {wall_k:,.0f} s" if wall_k else ""))
    print("| configuration | repeat | wall (s) | final latency (ms) | speedup | first improvement (s, % of (a)'s wall) "
          "| 90 % of (a)'s speedup (s, % of (a)'s wall) | 95 % of (a)'s speedup (s, % of (a)'s, % of (k)'s wall) "
          "| final vs (a)'s same repeat |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in curves:
        for i, (curve, wall) in enumerate(zip(curves[name], walls[name])):
            first = next((s for s, ms in curve if ms <= untuned * (1 - NOISE)), None)
            reached = next((s for s, ms in curve if ms <= goal_ms), None)
            reached95 = next((s for s, ms in curve if ms <= goal95_ms), None)
            of_k = f", {100 * reached95 / wall_k:.0f} %" if reached95 is not None and wall_k else ""
            versus = curves[a_name][i][-1][1] / curve[-1][1] if i < len(curves[a_name]) else float("nan")
            print(f"| {name} | {i + 1} | {wall:,.0f} | {curve[-1][1]:,.1f} | {untuned / curve[-1][1]:.2f}x | "
                  f"{_when(first, wall_a)} | {_when(reached, wall_a)} | {_when(reached95, wall_a)[:-1] + of_k + ')' if reached95 is not None else '-'} "
                  f"| {versus:.2f}x |")
    # the curves at common times (a step function each), repeats as a range
    times = sorted({round(s) for c in sum(curves.values(), []) for s, _ in c})
    last = max(max(w) for w in walls.values())
    print("\n| wall time (s) | " + " | ".join(f"{n} latency (ms), min-max" for n in curves) + " |")
    print("|---" * (len(curves) + 1) + "|")
    for t in [t for t in times if t <= last][:: max(1, len(times) // 14)]:
        cells = []
        for name in curves:
            at_t = [at(c, t, untuned) for c in curves[name]]
            cells.append(f"{min(at_t):,.1f}-{max(at_t):,.1f}")
        print(f"| {t:,.0f} | " + " | ".join(cells) + " |")
    worse = [(t, name) for name in curves if name != a_name for t in times if t <= min(max(walls[a_name]), max(walls[name]))
             and max(at(c, t, untuned) for c in curves[name]) > max(at(c, t, untuned) for c in curves[a_name]) * (1 + NOISE)]
    print(f"\nwall times where another configuration's worst repeat is worse than (a)'s worst by more than the noise "
          f"({NOISE:.0%}): {worse or 'none'}")
    plot(curves, goal_ms, args)


def _when(seconds: float | None, wall_a: float) -> str:
    return "-" if seconds is None else f"{seconds:,.0f} ({100 * seconds / wall_a:.0f} %)"


def plot(curves, goal_ms: float, args) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.4))
    for name, colour in zip(curves, ("#1f77b4", "#9467bd", "#d62728", "#2ca02c")):
        for i, curve in enumerate(curves[name]):
            xs, ys = zip(*curve)
            ax.step(xs, ys, where="post", color=colour, alpha=0.85, label=name if i == 0 else None, marker="o", ms=3)
    ax.axhline(goal_ms, color="grey", ls="--", lw=1, label="90 % of (a)'s final speedup")
    ax.set_xlabel("tuning wall time (s)")
    ax.set_ylabel("end-to-end latency (ms)")
    ax.set_title(f"{args.model}, B = {args.trials} trials, {args.repeats} repeats each, 2-core CPU")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.plot, dpi=110)
    print(f"\nwrote {args.plot}")


if __name__ == "__main__":
    main()
