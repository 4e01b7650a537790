"""What the use cases share, so that none calls another: which run a command means, the
checks of values every use case takes (against hotdb/choices.py), the parameters of a
ranking over every model, and storing a live capture (profile and tune both capture).

Every other module of hotdb/ops/ imports this one and no other (tests/house/test_layers.py).
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

from hotdb import choices
from hotdb.errors import BadArgument, CaptureError, HotdbError, UsageError
from hotdb.store.connection import Store
from hotdb.store.database import Database, query
from hotdb.wording import busy_capture

# -- which run ------------------------------------------------------------------------------


#: the noise between two captures assumed where only their samples can judge (one capture a
#: side, no other run of the build): captures of one MLP differed by 3-6 % per kernel, and
#: one in five ran a kernel ~10 % slower throughout; A/A captures on a busy machine by up to
#: 15 % (bench/compare_noise.py), so a change is told only beyond 20 %
SAMPLES_FLOOR_PCT = 20.0


def resolve_run(store: Store, run: str | None = None, model: str | None = None) -> tuple[int, str]:
    """(run_id, label) of the run a command means: by label, else the model's latest run,
    else the latest run of all."""
    if run is not None:
        found = query(store, "run_by_label", {"label": run}).rows
        if not found:
            latest = query(store, "latest_runs", {"model": None, "limit": 5}).column("label")
            raise UsageError(f"no run labelled {run!r}" + (f"; latest runs: {', '.join(latest)}" if latest else ""))
        return found[0]
    found = query(store, "latest_runs", {"model": model, "limit": 1}).rows
    if not found:
        raise UsageError(f"model {model!r} has no runs" if model is not None
                         else "the database has no runs yet; ingest a profile first")
    return found[0][:2]


# -- checks: a value that cannot mean anything is refused before the database is opened ------


def check_choice(value: str, offered: tuple[str, ...], words: str) -> None:
    """`value` one of `offered` (a tuple of hotdb/choices.py); else `words`, which say what
    the choice is of, then the value refused."""
    if value not in offered:
        raise BadArgument(f"{words}, not {value!r}")


def check_share_of(share_of: str) -> None:
    check_choice(share_of, choices.SHARE_OF, f"shares are of {' or '.join(choices.SHARE_OF)} time")


def check_coverage(coverage: float | None) -> None:
    if coverage is not None and not 0 < coverage <= 100:
        raise BadArgument(f"coverage must be a percentage in (0, 100], not {coverage:g}")


def check_weights(weights: dict[str, float] | None) -> None:
    """A model's weight scales its times: only a finite number above 0 does (0 would drop
    the model, a negative weight would rank its time as a saving)."""
    for model, weight in (weights or {}).items():
        if not isinstance(weight, (int, float)) or not math.isfinite(weight) or weight <= 0:
            raise BadArgument(f"a model's weight is a number above 0, not {model}={weight}")


def fleet_params(weights: dict[str, float] | None, coverage: float | None, device: str | None = None) -> dict:
    """The parameters of a ranking or export over the latest run of every model (on
    `device`, where one is named: queries/run_device.sql)."""
    return {"weight_models": list((weights or {}).keys()), "weight_values": list((weights or {}).values()),
            "coverage_pct": coverage, "device": device}


def reached_pct(result) -> float | None:
    """The cumulative share a ranking's last row reaches (None when it has no rows)."""
    return result.rows[-1][result.columns.index("cumulative_pct")] if result.rows else None


# -- live captures (profile, and tune's baseline and rounds) ----------------------------------


def model_name_for(database: Database, loaded, name: str | None) -> tuple[str, str | None]:
    """The model a capture of `loaded` is stored under, and a note when that is not the
    plain name: a model's runs are of one IR, so that its runs compare; a capture of
    another IR under a derived name becomes a model of its own, NAME@<IR hash>. A name the
    user gave is kept, with a note."""
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


def remote(tracker: str | None, key: str | None, wait_s: float | None):
    """Where a capture or tune measures: a device lent by the tracker at `tracker` under
    `key` (a hotdb.capture.remote.Rpc), or None for this machine."""
    from hotdb.capture.remote import DEFAULT_WAIT_S, Rpc
    from hotdb.capture.tracker import address

    if (tracker is None) != (key is None):
        raise BadArgument("a remote device is named by its tracker and its key together: --rpc HOST:PORT --key KEY"
                          if key is None else "--key names a device of an RPC tracker: give the tracker with --rpc HOST:PORT")
    if tracker is None:
        return None
    address(tracker)
    if not key.strip():
        raise BadArgument("--key: a tracker key is a name, such as rasp4")
    wait_s = DEFAULT_WAIT_S if wait_s is None else wait_s
    if not 0 < wait_s < float("inf"):
        raise BadArgument(f"the wait for a free device must be a positive number of seconds, not {wait_s}")
    return Rpc(tracker, key, wait_s)


def target_of(text: str | None):
    """The tvm Target of --target, and the note saying what TVM's old text form became."""
    from hotdb.capture.targets import parse_target, target_note

    return parse_target(text), target_note(text)


def capture_run(loaded, target, *, model: str, failed: str = "apache-tvm failed to compile or run it", **options):
    """One live capture (hotdb/capture/profile.py: capture, with its `options`), TVM's own
    errors said as a CaptureError: the model, what `failed`, the error's last line."""
    from hotdb.capture.profile import capture

    try:
        return capture(loaded, target, **options)
    except HotdbError:
        raise
    except Exception as exc:  # TVM raises its own error types; say where it failed
        raise CaptureError(f"{model}: {failed}: {type(exc).__name__}: {_last_line(exc)} "
                           "(--debug shows the traceback)") from exc


def store_capture(database: Database, model_name: str, loaded, result, *, stamp: str, run_meta: dict | None = None,
                  **load_options):
    """Store a capture as one run of `model_name` (database.load's `load_options`: run
    label, tags); `run_meta` adds to what the capture measured."""
    return database.load(model_name, capture_items(loaded, result, stamp), target=result.profile.run.target,
                         run_meta={**result.run_meta, **(run_meta or {})}, **load_options)


def busy_notes(database: Database, model: str, labels: list[str]) -> list[str]:
    """A note for each of these runs of `model` that was captured beside busy processes (_quiet_run)."""
    with database.reader() as store:
        rows = query(store, "busy_captures", {"model": model, "labels": labels}).records()
    return [busy_capture(f"run {r['label']}", r["others_cpu_pct"], r["load_slowdown"]) for r in rows]


def capture_items(loaded, result, stamp: str) -> list:
    """What a capture stores, as an ingest's items: the profile, the model's IR (Relax
    TVMScript, read by the relax ingestor) and its tasks. `stamp` makes the profile a
    source of its own (its content is its time)."""
    from hotdb.ingest.ir.relax import RelaxScript
    from hotdb.ingest.source import Source

    now = datetime.now(timezone.utc).isoformat()
    profile_source = Source.from_text(f"capture:{loaded.source}", f"{loaded.source} {now} {stamp}")
    ir_source = Source.from_text(f"capture:{loaded.source}.relax.py", loaded.script)
    task_source = Source.from_text(f"capture:{loaded.source}.tasks", "\n".join(
        f"{t.task_name} {t.task_args} {t.target}" for t in result.tasks.tasks))
    return [(profile_source, "live-capture", result.profile),
            (ir_source, "relax", RelaxScript().parse(ir_source)),
            (task_source, "meta_schedule", result.tasks)]


def database_item(folder):
    """A MetaSchedule database folder as an ingest's item."""
    from hotdb.ingest.source import Source
    from hotdb.ingest.tasks.ms_database import MsDatabase

    database = Source.read(folder)
    return database, "ms-database", MsDatabase().parse(database)


def _last_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[-1] if text else ""
