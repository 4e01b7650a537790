"""Live capture: compile a model with apache-tvm, time every kernel call, extract its
MetaSchedule tasks (hotdb/capture/profile.py), and store it all as one run."""

from __future__ import annotations

from hotdb.errors import UsageError
from hotdb.ops.common import capture_run, model_name_for, store_capture
from hotdb.store.database import Database


def profile(database: Database, model: str, *, target: str | None = None, repeat: int = 5, warmup: int = 1,
            name: str | None = None, run: str | None = None, tags: dict[str, str] | None = None,
            entry: str | None = None, progress=None):
    """Compile MODEL (zoo name, .onnx file or file.py:function) with apache-tvm, time every
    kernel call, extract its MetaSchedule tasks and store it all as one run."""
    if repeat < 1 or warmup < 0:
        raise UsageError("a capture needs at least one timed repeat and no negative warm-up")
    from hotdb.capture.models import load_model
    from hotdb.capture.profile import parse_target

    loaded = load_model(model, entry)
    target_obj = parse_target(target)
    result = capture_run(loaded, target_obj, model=model, repeat=repeat, warmup=warmup, progress=progress)
    model_name, note = model_name_for(database, loaded, name)
    loaded_result = store_capture(database, model_name, loaded, result, stamp=str(target_obj), run_label=run, tags=tags)
    if note:
        loaded_result.notes.append(note)
    return loaded_result
