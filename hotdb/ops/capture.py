"""Live capture: compile a model with apache-tvm, time every kernel call, extract its
MetaSchedule tasks (hotdb/capture/profile.py), and store it all as one run; and the devices
an RPC tracker lends for it (hotdb/capture/tracker.py: TVM's tracker protocol, spoken
without importing TVM; that reads no database)."""

from __future__ import annotations

from hotdb.errors import UsageError
from hotdb.ops.common import busy_notes, capture_run, model_name_for, remote, store_capture, target_of
from hotdb.result import Result
from hotdb.store.database import Database


def profile(database: Database, model, *, target: str | None = None, repeat: int = 5, warmup: int = 1,
            name: str | None = None, run: str | None = None, tags: dict[str, str] | None = None,
            entry: str | None = None, progress=None, replicates: int = 1, rpc: str | None = None,
            key: str | None = None, rpc_timeout_s: float | None = None, cc: str | None = None):
    """Compile MODEL (zoo name, .onnx file, file.py:function, or an IRModule) with apache-tvm, time every
    kernel call, extract its MetaSchedule tasks and store it all as one run. With
    `replicates` N > 1: N captures, each in a process of its own, stored as the runs
    RUN.1 .. RUN.N of the replicate group RUN (default MODEL-<time>), which `compare`
    takes as one side and whose spread is the noise it judges by. With `rpc` (a tracker's
    HOST:PORT) and `key`: on a device the tracker lends under the key, waiting at most
    `rpc_timeout_s` for a free one; the library is built here, cross-compiled with `cc`
    (or `<triple>-gcc`) where the target is not this machine's."""
    if repeat < 1 or warmup < 0 or replicates < 1:
        raise UsageError("a capture needs at least one timed repeat and replicate, and no negative warm-up")
    if replicates > 1 and not isinstance(model, str):
        raise UsageError("replicates are captured in processes of their own, which a module held in this one "
                         "cannot reach: give it as path/to/file.py:function")
    where = remote(rpc, key, rpc_timeout_s)
    if replicates > 1:
        return _replicates(database, model, target=target, repeat=repeat, warmup=warmup, name=name, group=run,
                           tags=tags, entry=entry, count=replicates, where=where, cc=cc)
    from hotdb.capture.models import load_model

    loaded = load_model(model, entry)
    target_obj, target_note = target_of(target)
    said = model if isinstance(model, str) else "the IRModule given"
    result = capture_run(loaded, target_obj, model=said, repeat=repeat, warmup=warmup, progress=progress,
                         rpc=where, cc=cc)
    model_name, note = model_name_for(database, loaded, name)
    loaded_result = store_capture(database, model_name, loaded, result, stamp=str(target_obj), run_label=run, tags=tags)
    loaded_result.notes += [n for n in (target_note, note) if n]
    loaded_result.notes += busy_notes(database, loaded_result.model, loaded_result.run_labels)
    return loaded_result


def _replicates(database: Database, model: str, *, target, repeat, warmup, name, group, tags, entry, count: int,
                where, cc):
    """N captures in fresh processes (another process: other allocations, another state of
    the caches and the machine's load: the noise one capture's samples do not show)."""
    import multiprocessing
    from datetime import datetime

    from hotdb.capture.models import load_model

    loaded = load_model(model, entry)
    target_obj, target_note = target_of(target)
    model_name, note = model_name_for(database, loaded, name)
    group = group or f"{model_name}-{datetime.now():%Y%m%d-%H%M%S}"
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: nothing of this one's TVM state
    results = []
    for i in range(1, count + 1):
        with context.Pool(1) as pool:
            captured = pool.apply(_capture_alone, (model, entry, target, repeat, warmup, where, cc))
        results.append(store_capture(database, model_name, loaded, captured, stamp=f"{target_obj} replicate {i}",
                                     run_label=f"{group}.{i}", tags=tags, run_meta={"replicate_of": group}))
    last = results[-1]
    last.notes += busy_notes(database, model_name, [r.run_label for r in results])
    last.notes.append(f"replicate group {group}: runs {group}.1 .. {group}.{count} (compare takes {group} as one side)")
    last.notes += [n for n in (target_note, note) if n]
    return last


def _capture_alone(model: str, entry: str | None, target: str | None, repeat: int, warmup: int, where, cc):
    """One capture, in a child process (_replicates): what it measured, to be stored by the
    parent."""
    from hotdb.capture.models import load_model
    from hotdb.capture.targets import parse_target

    return capture_run(load_model(model, entry), parse_target(target), model=model, repeat=repeat, warmup=warmup,
                       rpc=where, cc=cc)


def devices(tracker: str) -> Result:
    """The devices of the tracker at `tracker` (HOST:PORT): one row a key, with its
    registered, free and pending devices and their servers. A DeviceError, one line, where
    nothing answers there as a tracker."""
    from hotdb.capture.tracker import Tracker

    with Tracker(tracker) as connection:
        held = connection.devices()
    return Result(["key", "total", "free", "pending", "servers"],
                  [(d["key"], d["total"], d["free"], d["pending"], d["servers"]) for d in held], {"tracker": tracker})
