"""Data brought into a lake from elsewhere: a database file (`hotdb lake import`) and a
lake of hotdb 0.2's folder layout (`hotdb lake convert`), each model as one commit made by
the lake's own writer path (hotdb/store/lake.py)."""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path

from hotdb.errors import UsageError
from hotdb.failpoints import failpoint
from hotdb.resources import sql
from hotdb.store.connection import Store
from hotdb.store.lake import ID_RANGE_BITS, Attempts, Lake, _table, model_id_of, new_commit_id, table_sql, tables

# a database file's rows of some ingests, their ids moved into the lake's (queries/lake/copy_*.sql)
_COPY = {"ingest_id": "copy_ingest_id", "run_id": "copy_run_id", "source_id": "copy_source_id", None: "copy_shared"}


def import_database(lake: Lake, db_path: Path) -> dict:
    """Copy a DuckDB database into the lake: one commit per model, ids moved into a
    fresh range (model ids to the lake's); ingests whose files the lake holds already
    are left out."""
    lake._writable()
    source = Store(db_path, create=False, read_only=True)
    counts = {"models": 0, "runs": 0, "skipped": 0, "labels_held": []}
    try:
        for old_model_id, name in source.con.execute(sql("lake", "export_models")).fetchall():
            with Attempts(lake.root) as attempts:
                while True:
                    log = lake._ensure_log()
                    outcome = _import_model(lake, source.con, log, old_model_id, name, attempts)
                    if outcome is not None:
                        break
            runs, imported, skipped, labels = outcome
            counts["models"] += bool(imported)
            counts["runs"] += runs
            counts["skipped"] += skipped
            counts["labels_held"] += [f"{name}/{label}" for label in labels]
    finally:
        source.close()
    return counts


def _import_model(lake: Lake, src, log, old_model_id: int, name: str, attempts) -> tuple[int, int, int, list[str]] | None:
    """(runs imported, ingests imported, ingests skipped, the run labels of other content the lake holds), or
    None when a commit of the model landed while this one was made (do it again). An
    ingest is skipped when the lake holds its files, or a run of the model under a label
    of its runs: a label names one run of a model (a second would break the lake's key),
    and the lake's is kept."""
    from hotdb.store.rematch import rematch_models

    with lake._context(name, lake._commit_rows(log)) as store:
        held = {r[0] for r in store.con.execute("SELECT content_sha256 FROM sources").fetchall()}
        held_labels = {r[0] for r in store.con.execute("SELECT label FROM runs").fetchall()}
        ingests = [r[0] for r in src.execute(sql("lake", "model_ingests"), {"model_id": old_model_id, "after": None}).fetchall()]
        shas = {i: {r[0] for r in src.execute(sql("lake", "ingest_contents"), {"ingest": i}).fetchall()} for i in ingests}
        new = [i for i in ingests if not shas[i] or not shas[i] <= held]
        labels = {i: [r[0] for r in src.execute(sql("lake", "ingest_run"), {"ingest": i}).fetchall()] for i in new}
        clashing = sorted(label for i in new for label in labels[i] if label in held_labels)
        new = [i for i in new if not set(labels[i]) & held_labels]
        if not new:
            return 0, 0, len(ingests), clashing
        new_model_id = model_id_of(name)
        offset = secrets.randbits(62 - ID_RANGE_BITS) << ID_RANGE_BITS
        _copy_model(src, store.con, new, new_model_id, offset)
        rematch_models(store.con, [new_model_id])
        moved = [i + offset for i in new]
        commit_id = new_commit_id()
        lake._append(store.con, commit_id, moved)
        claims = lake._claims(store.con, moved)
        runs = sum(1 for c in claims if c.startswith("run:"))
    if not lake._commit(log, commit_id, new_model_id, claims, attempts):
        return None
    return runs, len(new), len(ingests) - len(new), clashing


def convert(lake: Lake) -> dict:
    """A lake of the folder layout of hotdb 0.2, rewritten as Delta tables: one commit per
    model; its folders are then deleted. Run again after a kill, it goes on."""
    legacy = lake._legacy()
    if legacy is None:
        raise UsageError(f"{lake.root} is not a lake of the folder layout (nothing to convert)")
    counts = {"models": 0, "runs": 0}
    for model_dir in legacy.model_dirs():
        with Store(":memory:") as view:
            legacy.fill(view, tables(), table_sql, model_dir)
            names = [r[0] for r in view.con.execute("SELECT name FROM models LIMIT 1").fetchall()]
            if not names:
                continue
            with Attempts(lake.root) as attempts:
                while True:
                    log = lake._ensure_log()
                    if model_id_of(names[0]) in {model for _, model in lake._commit_rows(log)}:
                        break  # converted before a kill
                    commit_id = new_commit_id()
                    lake._append(view.con, commit_id, None)
                    ingests = [r[0] for r in view.con.execute(sql("lake", "ingest_ids")).fetchall()]
                    claims = lake._claims(view.con, ingests)
                    if lake._commit(log, commit_id, model_id_of(names[0]), claims, attempts):
                        counts["runs"] += sum(1 for c in claims if c.startswith("run:"))
                        break
            counts["models"] += 1
    (lake.local / "_converted").touch()  # from here on, the Delta tables are the lake
    failpoint("convert-marked")
    for leftover in [*legacy.model_dirs(), *(lake.local / n for n in ("_staging", "_claims", "_manifests"))]:
        shutil.rmtree(leftover, ignore_errors=True)
    (lake.local / "_converted").unlink()
    return counts


def _copy_model(src, dst, ingests: list[int], new_model_id: int, offset: int) -> None:
    """Some ingests of a model of a database file, their ids moved into the lake's (a fresh range)."""
    for table, key in tables().items():
        if table in ("models", "kernel_match_results"):
            continue  # the lake's model row is made by the context; matches are re-decided
        params = {"table": table}
        if key is not None:
            params.update(ingests=ingests, offset=offset)
        if key == "ingest_id":  # tables tied by ingest are those that carry the model id
            params["model_id"] = new_model_id
        frame = src.sql(sql("lake", _COPY[key]), params=params).to_arrow_table()
        dst.register("_frame", frame)
        if key is None:  # rows shared by key (workloads): those the lake lacks
            dst.execute(sql("lake", f"insert_{table}"))
        else:
            dst.execute(f"INSERT INTO {_table(table)} BY NAME FROM _frame")
        dst.unregister("_frame")
