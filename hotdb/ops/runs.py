"""What the database holds: runs, models, tasks, node matches; the formats and models hotdb knows."""

from __future__ import annotations

from hotdb.errors import UsageError
from hotdb.ops.common import resolve_run
from hotdb.result import Result
from hotdb.store.database import Database, query


def latest_run(database: Database, model: str | None = None) -> str:
    """The label of the latest run (of a model)."""
    with database.reader() as store:
        return resolve_run(store, None, model)[1]


def matches(database: Database, run: str | None = None, model: str | None = None) -> Result:
    """Every node of a run with its task or candidates, method and confidence."""
    with database.reader() as store:
        run_id, label = resolve_run(store, run, model)
        return query(store, "matches", {"run_id": run_id}, run=label)


def tasks(database: Database, model: str | None = None) -> Result:
    """Every distinct task of a model and target with its workload and best record."""
    with database.reader() as store:
        if model is not None and model not in query(store, "model_names").column("name"):
            raise UsageError(f"no model named {model!r}")
        return query(store, "tasks", {"model": model}, model=model)


def runs(database: Database, device: str | None = None) -> Result:
    """Every run (measured on `device`, where one is named: queries/run_device.sql)."""
    with database.reader() as store:
        return query(store, "runs", {"device": device}, device=device)


def models(database: Database) -> Result:
    with database.reader() as store:
        return query(store, "models")


def formats() -> Result:
    """The formats hotdb reads, in detection order."""
    from hotdb.ingest import REGISTRY

    return Result(["format", "role", "reads", "detected_by"], [(i.name, i.role, i.reads, i.detects) for i in REGISTRY])


def zoo() -> Result:
    """The built-in models `profile` takes by name."""
    from hotdb.capture.zoo import ZOO

    return Result(["model", "description"], [(m.name, m.description) for m in ZOO.values()])
