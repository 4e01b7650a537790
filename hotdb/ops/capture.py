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
    model_name, note = model_name_for(database, loaded, name)
    loaded_result = database.load(model_name, capture_items(loaded, result, str(target_obj)), run_label=run, tags=tags,
                                  target=result.profile.run.target, run_meta=result.run_meta)
    if note:
        loaded_result.notes.append(note)
    return loaded_result


def model_name_for(database: Database, loaded, name: str | None) -> tuple[str, str | None]:
    """The model a capture of `loaded` is stored under, and a note when that is not the
    plain name: a model's runs are of one IR, so that its runs compare; a capture of
    another IR under a derived name becomes a model of its own, NAME@<IR hash>. A name the
    user gave is kept, with a note."""
    from hotdb.store.database import query

    model = name or loaded.name
    try:
        with database.reader() as store:
            irs = query(store, "model_irs", {"model": model}).column("ir_sha256")
    except HotdbError:  # no database yet
        return model, None
    if not irs or loaded.ir_sha256 in irs:
        return model, None
    if name is not None:
        return model, (f"model {model} holds captures of another IR ({irs[0][:12]}); this one "
                       f"({loaded.ir_sha256[:12]}) is added to it as asked: comparisons across them compare different IRs")
    separate = f"{model}@{loaded.ir_sha256[:8]}"
    return separate, (f"model {model} holds captures of another IR ({irs[0][:12]}): this capture "
                      f"({loaded.ir_sha256[:12]}) is stored as model {separate}")


def capture_items(loaded, result, stamp: str, database_folder=None) -> list:
    """What a capture stores, as an ingest's items: the profile, the model's IR (Relax
    TVMScript, read by the relax ingestor), its tasks, and a tuning database if one was
    applied. `stamp` makes the profile a source of its own (its content is its time)."""
    from hotdb.ingest.base import Source
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
        items.append(database_item(database_folder))
    return items


def database_item(folder):
    """A MetaSchedule database folder as an ingest's item."""
    from hotdb.ingest.base import Source
    from hotdb.ingest.ms_database import MsDatabase

    database = Source.read(folder)
    return database, "ms-database", MsDatabase().parse(database)


def _last_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[-1] if text else ""
