"""Live capture: compile a model with apache-tvm, time every kernel call, extract its
MetaSchedule tasks (hotdb/capture/profile.py), and store it all as one run."""

from __future__ import annotations

from datetime import datetime, timezone

from hotdb.errors import CaptureError, HotdbError, UsageError
from hotdb.store.database import Database


def profile(database: Database, model: str, *, target: str | None = None, repeat: int = 5, warmup: int = 1,
            name: str | None = None, run: str | None = None, tags: dict[str, str] | None = None,
            entry: str | None = None, progress=None):
    """Compile MODEL (zoo name, .onnx file or file.py:function) with apache-tvm, time every
    kernel call, extract its MetaSchedule tasks and store it all as one run."""
    if repeat < 1 or warmup < 0:
        raise UsageError("a capture needs at least one timed repeat and no negative warm-up")
    from hotdb.capture.models import load_model
    from hotdb.capture.profile import capture, parse_target

    loaded = load_model(model, entry)
    target_obj = parse_target(target)
    try:
        result = capture(loaded, target_obj, repeat=repeat, warmup=warmup, progress=progress)
    except HotdbError:
        raise
    except Exception as exc:  # TVM raises its own error types; say where it failed
        raise CaptureError(f"{model}: apache-tvm failed to compile or run it: {type(exc).__name__}: "
                           f"{_last_line(exc)} (--debug shows the traceback)") from exc
    return database.load(name or loaded.name, capture_items(loaded, result, str(target_obj)), run_label=run, tags=tags,
                         target=result.profile.run.target, run_meta=result.run_meta)


def capture_items(loaded, result, stamp: str, database_folder=None) -> list:
    """What a capture stores, as an ingest's items: the profile, the model's IR (Relax
    TVMScript, read by the relax ingestor), its tasks, and a tuning database if one was
    applied. `stamp` makes the profile a source of its own (its content is its time)."""
    from hotdb.ingest.base import Source
    from hotdb.ingest.ms_database import MsDatabase
    from hotdb.ingest.relax import RelaxScript

    now = datetime.now(timezone.utc).isoformat()
    profile_source = Source.from_text(f"capture:{loaded.source}", f"{loaded.source} {now} {stamp}")
    ir_source = Source.from_text(f"capture:{loaded.source}.relax.py", loaded.script)
    task_source = Source.from_text(f"capture:{loaded.source}.tasks", "\n".join(
        f"{t.task_name} {t.task_args} {t.target}" for t in result.tasks.tasks))
    items = [(profile_source, "live-capture", result.profile),
             (ir_source, "relax", RelaxScript().parse(ir_source)),
             (task_source, "meta_schedule", result.tasks)]
    if database_folder is not None and (database_folder / "database_workload.json").exists():
        database = Source.read(database_folder)
        items.append((database, "ms-database", MsDatabase().parse(database)))
    return items


def _last_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[-1] if text else ""
