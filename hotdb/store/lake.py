"""A lake: the database as Hive-partitioned Parquet files, for many writers and any engine.

    LAKE/model=<name>/run=<label>/<table>.parquet     an ingest that made run <label>
    LAKE/model=<name>/run=_<kind>-<id>/<table>.parquet an ingest of IR/tasks/logs, an export
                                                      or a compaction (many runs)
    LAKE/_staging/, LAKE/_claims/                      work in progress (ignored by readers;
                                                      Spark and Trino skip `_` names too)

Writers take no lock. Each ingest reads its model's files into an in-memory database,
runs the one loader there (duplicate detection, run numbering, matching), writes only
its own new rows into a staging folder and renames that folder into place: readers see
all of an ingest or nothing, and no file is ever rewritten. Ids are BIGINT drawn from a
random 2^24-wide range per ingest (model ids from a hash of the name), so writers never
need to agree on a sequence. Two writers that pick the same run label collide on the
rename; the loser re-reads the lake and numbers again. Two writers of the same file
collide on a claim file (O_EXCL) and the loser finds it already stored.

Readers (every command with --lake) get an in-memory DuckDB whose tables are views over
the files, with the same views (queries/) on top. Stored matches are versioned by
`computed_at` (an ingest of IR or tasks re-matches its model's older runs in new files):
readers keep each run's newest.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import time
import uuid
from pathlib import Path
from urllib.parse import quote, unquote

import duckdb

from hotdb.errors import DatabaseError, UsageError
from hotdb.store.connection import LOCK_TIMEOUT_S, Store
from hotdb.store.loader import LoadResult, insert_nodes, load
from hotdb.store.resources import sql_dir

# every table an ingest writes, and the column that ties a row to its ingest
RUN_TABLES = ("runs", "nodes", "node_samples")
SOURCE_TABLES = ("ir_calls", "tasks", "tuning_records", "graph_nodes")
TABLES = ("models", "ingests", "sources", *RUN_TABLES, *SOURCE_TABLES, "workloads", "kernel_match_results")
ID_RANGE_BITS = 24
CLAIM_STALE_S = 600.0


def model_id_of(name: str) -> int:
    """The same id for a model name in every writer (62 bits of its SHA-256)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") >> 2


def table_sql(table: str, files: list[str]) -> str:
    """The query reading one lake table from its files (queries/lake/: a table's own file
    where several files may hold one row, else table.sql)."""
    folder = sql_dir("queries") / "lake"
    path = folder / f"{table}.sql"
    text = (path if path.exists() else folder / "table.sql").read_text(encoding="utf-8")
    listed = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"
    return text.format(files=listed)


def _insert(con: duckdb.DuckDBPyConnection, table: str, sql: str) -> None:
    """Add rows to a table; `nodes` rows are split into signatures and calls as an ingest's are.
    (The lake stores `nodes` as one file per folder: Parquet dictionary-encodes what repeats.)"""
    if table == "nodes":
        insert_nodes(con, sql)
    else:
        con.execute(f"INSERT INTO {table} BY NAME {sql}")


def _quote(value: str) -> str:
    return quote(value, safe="-_.~+@")


class Lake:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    # -- layout -------------------------------------------------------------------------
    def folders(self, model: str | None = None) -> list[Path]:
        """Landed ingest folders, minus those a compaction replaced."""
        pattern = f"model={_quote(model)}/run=*" if model is not None else "model=*/run=*"
        found = sorted(p for p in self.root.glob(pattern) if p.is_dir())
        replaced = set()
        for folder in found:
            marker = folder / "_replaces.json"
            if marker.exists():
                replaced.update(json.loads(marker.read_text()))
        return [f for f in found if f"{f.parent.name}/{f.name}" not in replaced]

    def files(self, table: str, folders: list[Path]) -> list[str]:
        return [str(f / f"{table}.parquet") for f in folders if (f / f"{table}.parquet").exists()]

    # -- reading ------------------------------------------------------------------------
    def reader(self, model: str | None = None) -> Store:
        """An in-memory database whose tables are views over the lake (or one model of it)."""
        if not self.root.is_dir():
            raise DatabaseError(f"no lake at {self.root}; ingest with --lake {self.root} first")
        store = Store(":memory:")
        folders = self.folders(model)
        for table in TABLES:
            files = self.files(table, folders)
            if not files:
                continue  # the migrated, empty table stands in
            # The files stand in for the migrated table (for `nodes`, the view over its two
            # tables), read by name into its columns: files written before a column was added
            # give NULL there.
            store.con.execute(f"CREATE TABLE _lake_columns_{table} AS FROM {table} LIMIT 0")
            store.con.execute(f"DROP {'VIEW' if table == 'nodes' else 'TABLE'} {table}")
            store.con.execute(f"CREATE VIEW {table} AS FROM _lake_columns_{table} UNION ALL BY NAME "
                              f"FROM ({table_sql(table, files)})")
            if table == "nodes":  # a lake keeps nodes whole: no empty stand-ins to mislead a query
                store.con.execute("DROP TABLE node_calls")
                store.con.execute("DROP TABLE node_signatures")
        return store

    def _context(self, model: str, with_runs: bool = True) -> Store:
        """An in-memory, writable database holding one model's rows, for an ingest to add to.
        Without `with_runs`, the nodes of its runs stay on disk (a profile's ingest matches
        only its own run)."""
        store = Store(":memory:")
        folders = self.folders(model)
        for table in TABLES:
            if not with_runs and table in ("nodes", "node_samples", "kernel_match_results"):
                continue
            files = self.files(table, folders)
            if files:
                _insert(store.con, table, table_sql(table, files))
        if not store.con.execute("SELECT count(*) FROM models").fetchall()[0][0]:
            store.con.execute("INSERT INTO models VALUES (?, ?, now())", [model_id_of(model), model])
        base = secrets.randbits(62 - ID_RANGE_BITS) << ID_RANGE_BITS
        for sequence in ("ingest_id_seq", "source_id_seq", "run_id_seq"):
            store.con.execute(f"CREATE OR REPLACE SEQUENCE {sequence} START {base + 1}")
        return store

    # -- writing ------------------------------------------------------------------------
    def ingest(self, model: str, items, **load_options) -> LoadResult:
        """Store one ingest (as hotdb.store.loader.load does) as new files of the lake."""
        deadline = time.monotonic() + max(LOCK_TIMEOUT_S, 60.0)
        model_level = any(parsed.role != "profile" for _, _, parsed in items)
        while True:
            seen = set(self.folders(model))
            with self._context(model, with_runs=model_level) as store:
                before = {r[0] for r in store.con.execute("SELECT ingest_id FROM ingests").fetchall()}
                result = load(store, model, items, **load_options)
                if result.nothing_new:
                    return result
                ingest_id, = [r[0] for r in store.con.execute("SELECT ingest_id FROM ingests").fetchall() if r[0] not in before]
                # a folder is named for its run; an ingest of several runs (two pasted tables) for itself
                outcome = self._land(store, model, ingest_id, result.run_label if len(result.run_labels) == 1 else None)
            if outcome == "landed":
                self._rematch_if_raced(model, seen)
                return result
            if outcome == "label taken" and load_options.get("run_label"):
                raise UsageError(f"a run labelled {load_options['run_label']!r} already exists; choose another --run label")
            if time.monotonic() > deadline:
                raise DatabaseError(f"{self.root}: could not land the ingest: other writers kept taking its run "
                                    "label or its files' claims")
            time.sleep(0.05 + secrets.randbelow(100) / 1000)  # another writer got there first: read again

    def _rematch_if_raced(self, model: str, seen: set[Path]) -> None:
        """Another writer of this model landed while this ingest was matching (its run missed
        our IR, or our IR missed its run): match the model's runs again, now that both are
        in, into a folder of matches only. Each writer checks after landing, so whichever
        lands second sees the other."""
        if len(set(self.folders(model)) - seen) <= 1:
            return  # only this ingest's own folder is new
        with self._context(model) as store:
            from hotdb.store.matches import rematch_models

            rematch_models(store.con)
            staging = self.root / "_staging" / uuid.uuid4().hex
            staging.mkdir(parents=True)
            store.con.execute(f"COPY kernel_match_results TO '{staging / 'kernel_match_results.parquet'}' (FORMAT parquet)")
            os.rename(staging, self.root / f"model={_quote(model)}" / f"run=_rematch-{uuid.uuid4().hex[:12]}")

    def _land(self, store: Store, model: str, ingest_id: int, run_label: str | None) -> str:
        con = store.con
        sources = [r[0] for r in con.execute("SELECT content_sha256 FROM sources WHERE ingest_id = ?", [ingest_id]).fetchall()]
        staging = self.root / "_staging" / uuid.uuid4().hex
        staging.mkdir(parents=True)
        claims: list[Path] = []
        try:
            self._write_rows(con, ingest_id, staging)
            target_name = f"run={_quote(run_label)}" if run_label else f"run=_ingest-{ingest_id}"
            target = self.root / f"model={_quote(model)}" / target_name
            for sha in sources:
                claim = self._claim(model, sha, target)
                if claim is None:
                    return "content taken"
                claims.append(claim)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.rename(staging, target)  # atomic: readers see all of the ingest or nothing
            except OSError:
                if target.exists():
                    return "label taken"
                raise
            claims.clear()  # landed: the claims now stand for stored content
            return "landed"
        finally:
            for claim in claims:
                claim.unlink(missing_ok=True)
            shutil.rmtree(staging, ignore_errors=True)

    def _claim(self, model: str, sha: str, target: Path) -> Path | None:
        """Create the claim for one file's content; None when another writer holds it."""
        claim = self.root / "_claims" / _quote(model) / sha
        claim.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                fd = os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                holder = Path(claim.read_text() or "-")
                stale = not holder.exists() and time.time() - claim.stat().st_mtime > CLAIM_STALE_S
                if not stale:
                    return None  # landed (the next read dedupes it) or landing now
                claim.unlink(missing_ok=True)  # a writer died between claiming and landing
                continue
            with os.fdopen(fd, "w") as handle:
                handle.write(str(target))
            return claim
        return None

    def _write_rows(self, con: duckdb.DuckDBPyConnection, ingest_id: int, folder: Path) -> None:
        """This ingest's rows (and the matches it re-decided) as one Parquet file per table."""
        runs = "(SELECT run_id FROM runs WHERE ingest_id = $ingest)"
        sources = "(SELECT source_id FROM sources WHERE ingest_id = $ingest)"
        model = "(SELECT model_id FROM ingests WHERE ingest_id = $ingest)"
        selections = {
            "models": f"SELECT * FROM models WHERE model_id = {model}",
            "ingests": "SELECT * FROM ingests WHERE ingest_id = $ingest",
            "sources": "SELECT * FROM sources WHERE ingest_id = $ingest",
            "runs": "SELECT * FROM runs WHERE ingest_id = $ingest",
            "nodes": f"SELECT * FROM nodes WHERE run_id IN {runs}",
            "node_samples": f"SELECT * FROM node_samples WHERE run_id IN {runs}",
            **{t: f"SELECT * FROM {t} WHERE source_id IN {sources}" for t in SOURCE_TABLES},
            # every workload the ingest's rows name; readers keep one row per key
            "workloads": "SELECT * FROM workloads",
            # what the ladder re-decided: every run of the model when IR or tasks came, else the new run
            "kernel_match_results": f"""SELECT * FROM kernel_match_results WHERE run_id IN {runs} OR (
                EXISTS (SELECT 1 FROM sources WHERE ingest_id = $ingest AND role <> 'profile')
                AND run_id IN (SELECT run_id FROM runs WHERE model_id = {model}))""",
        }
        for table, sql in selections.items():
            sql = sql.replace("$ingest", str(int(ingest_id)))  # COPY takes no prepared parameters
            if con.execute(f"SELECT count(*) FROM ({sql})").fetchall()[0][0]:
                con.execute(f"COPY ({sql}) TO '{folder / (table + '.parquet')}' (FORMAT parquet)")

    # -- maintenance --------------------------------------------------------------------
    def export(self, db_path: Path) -> dict:
        """Copy a DuckDB database into the lake: one folder per run, one per model for the
        rest, ids moved into a fresh range (model ids to the lake's)."""
        source = Store(db_path, create=False, read_only=True)
        con = source.con
        models = [r[0] for r in con.execute("SELECT name FROM models ORDER BY model_id").fetchall()]
        counts = {"models": 0, "runs": 0}
        for name in models:
            with self._context(name) as store:
                new_model_id = model_id_of(name)
                offset = secrets.randbits(62 - ID_RANGE_BITS) << ID_RANGE_BITS
                old_model_id = con.execute("SELECT model_id FROM models WHERE name = ?", [name]).fetchall()[0][0]
                self._copy_model(con, store.con, old_model_id, new_model_id, offset)
                from hotdb.store.matches import rematch_models

                rematch_models(store.con, [new_model_id])
                ingests = [r[0] for r in store.con.execute(
                    "SELECT ingest_id FROM ingests WHERE model_id = ? AND ingest_id > ? ORDER BY 1",
                    [new_model_id, offset]).fetchall()]
                for ingest_id in ingests:
                    run = store.con.execute("SELECT label FROM runs WHERE ingest_id = ?", [ingest_id]).fetchall()
                    outcome = self._land(store, name, ingest_id, run[0][0] if run else None)
                    if outcome != "landed":
                        raise DatabaseError(f"{self.root}: {name}: ingest {ingest_id} of {db_path} was not exported: "
                                            f"{outcome} (is it exported already?)")
                    counts["runs"] += bool(run)
                counts["models"] += 1
        source.close()
        return counts

    @staticmethod
    def _copy_model(src, dst, old_model_id: int, new_model_id: int, offset: int) -> None:
        rows = src.execute("SELECT ingest_id FROM ingests WHERE model_id = ?", [old_model_id]).fetchall()
        ingest_ids = [r[0] for r in rows]
        shift = {"ingest_id": offset, "source_id": offset, "run_id": offset, "baseline_run_id": offset}
        for table in ("ingests", "sources", *RUN_TABLES, *SOURCE_TABLES, "workloads"):
            if table == "ingests":
                where = "ingest_id IN (SELECT unnest($ingests))"
            elif table in ("sources", "runs"):
                where = "ingest_id IN (SELECT unnest($ingests))"
            elif table in RUN_TABLES:
                where = "run_id IN (SELECT run_id FROM runs WHERE ingest_id IN (SELECT unnest($ingests)))"
            elif table == "workloads":
                where = "true"
            else:
                where = "source_id IN (SELECT source_id FROM sources WHERE ingest_id IN (SELECT unnest($ingests)))"
            columns = [r[0] for r in src.execute(f"DESCRIBE {table}").fetchall()]
            exprs = [f"{c} + {shift[c]} AS {c}" if c in shift else (f"{new_model_id}::BIGINT AS model_id" if c == "model_id" else c)
                     for c in columns]
            frame = src.sql(f"SELECT {', '.join(exprs)} FROM {table} WHERE {where.replace('$ingests', repr(ingest_ids))}"
                            ).to_arrow_table()
            if table == "workloads":
                dst.execute("INSERT INTO workloads BY NAME SELECT * FROM frame WHERE workload_key NOT IN "
                            "(SELECT workload_key FROM workloads)")
            else:
                dst.register("_frame", frame)
                _insert(dst, table, "SELECT * FROM _frame")
                dst.unregister("_frame")

    def manifests(self, prefix: str | None = None) -> dict:
        """Per table, a symlink manifest (one file URI per line) for engines that map a
        table to a folder (Trino, Hive, Athena): LAKE/_manifests/<table>/manifest.
        `prefix` replaces the lake's local path in the URIs (e.g. s3://bucket/lake)."""
        folders = self.folders()
        written = {}
        for table in TABLES:
            files = self.files(table, folders)
            uris = [f"{prefix.rstrip('/')}/{Path(f).relative_to(self.root).as_posix()}" if prefix else "file://" + Path(f).resolve().as_posix()
                    for f in files]
            folder = self.root / "_manifests" / table
            folder.mkdir(parents=True, exist_ok=True)
            temporary = folder / f".manifest-{uuid.uuid4().hex}"
            temporary.write_text("".join(u + "\n" for u in uris))
            os.replace(temporary, folder / "manifest")  # readers see the old list or the new one
            written[table] = len(uris)
        return written

    def compact(self) -> dict:
        """Merge each model's folders into one (runs and all), re-matching its runs; the old
        folders are removed once the merged one is in place."""
        merged = {"models": 0, "folders": 0}
        for model_dir in sorted(self.root.glob("model=*")):
            model = unquote(model_dir.name.split("=", 1)[1])
            folders = self.folders(model)
            if len(folders) < 2:
                continue
            with self._context(model) as store:
                from hotdb.store.matches import rematch_models

                rematch_models(store.con)
                staging = self.root / "_staging" / uuid.uuid4().hex
                staging.mkdir(parents=True)
                for table in TABLES:
                    count = store.con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
                    if count:
                        store.con.execute(f"COPY (SELECT * FROM {table}) TO '{staging / (table + '.parquet')}' (FORMAT parquet)")
                # until the old folders are gone, hotdb readers skip them by this list
                (staging / "_replaces.json").write_text(json.dumps([f"{f.parent.name}/{f.name}" for f in folders]))
                target = model_dir / f"run=_compact-{uuid.uuid4().hex[:12]}"
                os.rename(staging, target)
            for folder in folders:
                shutil.rmtree(folder, ignore_errors=True)
            (target / "_replaces.json").unlink(missing_ok=True)
            merged["models"] += 1
            merged["folders"] += len(folders)
        return merged
