"""A lake: the database as Hive-partitioned Parquet files, for many writers and any engine.

    LAKE/model=<name>/run=<label>/<table>.parquet     an ingest that made run <label>
    LAKE/model=<name>/run=_<kind>-<id>/<table>.parquet an ingest of IR/tasks/logs, an export
                                                      or a compaction (many runs)
    LAKE/model=<name>/_replaced/<folder>               folders a compaction replaced (lake_files.py)
    LAKE/_staging/, LAKE/_claims/                      work in progress (ignored by readers;
                                                      Spark and Trino skip `_` names too)

Names become path components escaped and bounded (lake_files.component); the lake's
tables, not its paths, say what a model or run is called.

Writers take no lock. Each ingest reads its model's files into an in-memory database,
runs the one loader there (duplicate detection, run numbering, matching), writes only
its own new rows into a staging folder and renames that folder into place: readers see
all of an ingest or nothing, and no file is ever rewritten. Ids are BIGINT drawn from a
random 2^24-wide range per ingest (model ids from a hash of the name), so writers never
need to agree on a sequence. Two writers that pick the same run label collide on the
rename; the loser re-reads the lake and numbers again. Two writers of the same file
collide on a claim file and the loser finds it already stored. A writer keeps trying as
long as others make progress, and gives up after HOTDB_LOCK_TIMEOUT without any.

Readers (every command with --lake) get an in-memory DuckDB whose tables are views over
the files, with the same views (queries/) on top. Stored matches are versioned by
`computed_at` (an ingest of IR or tasks re-matches its model's older runs in new files):
readers keep each run's newest.

The lake holds the tables a database file holds, as the schema defines them (`tables()`):
a schema change is made once, in schema/. Which rows of a table an ingest wrote follows
from the table's key column (ingest, run, source or model id). Lakes written before
schema 6 kept nodes whole (`nodes.parquet`); they are read as one signature per node.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import time
import uuid
from functools import cache
from pathlib import Path

import duckdb

from hotdb import limits
from hotdb.errors import DatabaseError, UsageError
from hotdb.resources import sql, sql_names
from hotdb.store import lake_files
from hotdb.store.connection import Store
from hotdb.store.failpoints import failpoint
from hotdb.store.lake_files import component
from hotdb.store.loader import LoadResult, load

# tables of the schema that hold no data of a model: the database's own bookkeeping
_NOT_DATA = ("schema_migrations", "hotdb_meta", "family_compat")
# the columns that tie a row to an ingest, most specific first
_KEYS = ("ingest_id", "run_id", "source_id", "model_id")
ID_RANGE_BITS = 24
# the rows of a table that an ingest wrote, by the table's key column (queries/lake/write_*.sql);
# a table of rows shared by key (workloads) is written whole: readers keep one row per key
_WRITE = {"ingest_id": "write_ingest_id", "run_id": "write_run_id", "source_id": "write_source_id",
          "model_id": "write_model_id", None: "write_table"}
# a database file's rows of some ingests, their ids moved into the lake's (queries/lake/copy_*.sql)
_COPY = {"ingest_id": "copy_ingest_id", "run_id": "copy_run_id", "source_id": "copy_source_id", None: "copy_shared"}


@cache
def tables() -> dict[str, str | None]:
    """Every data table of the schema, with the column that ties its rows to an ingest
    (None: rows shared by every ingest that meets them, e.g. workloads)."""
    columns: dict[str, set[str]] = {}
    with Store(":memory:") as store:
        for table, column in store.con.execute(sql("lake", "schema_tables")).fetchall():
            if table not in _NOT_DATA:
                columns.setdefault(table, set()).add(column)
    return {name: next((k for k in _KEYS if k in names), None) for name, names in columns.items()}


def _table(name: str) -> str:
    """A table's name, once checked to be one of the schema's: the only names lake.py
    writes into SQL."""
    if name not in tables():
        raise ValueError(f"{name!r} is not a table of the lake")
    return name


def model_id_of(name: str) -> int:
    """The same id for a model name in every writer (62 bits of its SHA-256)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") >> 2


def table_sql(table: str) -> str:
    """The query reading one lake table from the relation `files` of its files
    (queries/lake/: a table's own file where several files may hold one row, else table.sql)."""
    return sql("lake", table if table in sql_names("lake") else "table")


def _legacy_sql(table: str) -> str | None:
    """How a table is read from the `nodes.parquet` files of lakes written before schema 6."""
    return sql("lake", f"legacy_{table}") if f"legacy_{table}" in sql_names("lake") else None


class Lake:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    # -- layout -------------------------------------------------------------------------
    def model_dir(self, model: str) -> Path:
        return self.root / f"model={component(model)}"

    def folders(self, model: str | None = None) -> list[Path]:
        """Landed ingest folders, minus those a compaction replaced."""
        model_dirs = [self.model_dir(model)] if model is not None else sorted(self.root.glob("model=*"))
        live = []
        for model_dir in model_dirs:
            found = sorted(p for p in model_dir.glob("run=*") if p.is_dir())
            gone = lake_files.replaced(model_dir, found)
            live += [f for f in found if f.name not in gone]
        return live

    def files(self, table: str, folders: list[Path]) -> list[str]:
        return [str(f / f"{table}.parquet") for f in folders if (f / f"{table}.parquet").exists()]

    def _relation(self, con: duckdb.DuckDBPyConnection, table: str, folders: list[Path]) -> str | None:
        """A query reading a table's rows from these folders (old layouts included), over
        views of the table's query on the relation `files` the Parquet reader makes of
        them (no path is written into SQL, only the views' names); None when no folder
        holds the table."""
        views = []
        for kind, query, files in (("new", table_sql(table), self.files(table, folders)),
                                   ("old", _legacy_sql(table), self.files("nodes", folders) if _legacy_sql(table) else [])):
            if files:
                view = f"_lake_{kind}_{_table(table)}"
                con.read_parquet(files, union_by_name=True, hive_partitioning=False).query("files", query).create_view(view)
                views.append(view)
        return " UNION ALL BY NAME ".join(f"FROM {view}" for view in views) or None

    # -- reading ------------------------------------------------------------------------
    def reader(self, model: str | None = None) -> Store:
        """An in-memory database whose tables are views over the lake (or one model of it)."""
        if not self.root.is_dir():
            raise DatabaseError(f"no lake at {self.root}; ingest with --lake {self.root} first")
        store = Store(":memory:")
        folders = self.folders(model)
        for table in tables():
            relation = self._relation(store.con, table, folders)
            if relation is None:
                continue  # the migrated, empty table stands in
            # The files stand in for the migrated table, read by name into its columns:
            # files written before a column was added give NULL there.
            store.con.execute(f"ALTER TABLE {_table(table)} RENAME TO _lake_columns_{table}")
            store.con.sql(f"FROM _lake_columns_{table} UNION ALL BY NAME {relation}").create_view(table)
        return store

    def _context(self, model: str, with_runs: bool = True) -> Store:
        """An in-memory, writable database holding one model's rows, for an ingest to add to.
        Without `with_runs`, the nodes of its runs stay on disk (a profile's ingest matches
        only its own run)."""
        store = Store(":memory:")
        folders = self.folders(model)
        for table, key in tables().items():
            if not with_runs and key == "run_id" and table != "runs":
                continue
            relation = self._relation(store.con, table, folders)
            if relation is not None:
                store.con.execute(f"INSERT INTO {_table(table)} BY NAME {relation}")
        store.con.execute(sql("lake", "context_model"), {"model_id": model_id_of(model), "name": model})
        base = secrets.randbits(62 - ID_RANGE_BITS) << ID_RANGE_BITS
        for sequence in ("ingest_id_seq", "source_id_seq", "run_id_seq"):
            # DuckDB takes no parameter in DDL: the start is an int this function drew
            store.con.execute(f"CREATE OR REPLACE SEQUENCE {sequence} START {int(base) + 1}")
        return store

    # -- writing ------------------------------------------------------------------------
    def ingest(self, model: str, items, **load_options) -> LoadResult:
        """Store one ingest (as hotdb.store.loader.load does) as new files of the lake."""
        lake_files.clean_staging(self.root)
        timeout = limits.lock_timeout_s()
        deadline = time.monotonic() + timeout
        model_level = any(parsed.role != "profile" for _, _, parsed in items)
        progress = None
        while True:
            seen = set(self.folders(model))
            if progress != seen:  # other writers landed since the last try: they are not stuck
                progress, deadline = seen, time.monotonic() + timeout
            with self._context(model, with_runs=model_level) as store:
                before = {r[0] for r in store.con.execute(sql("lake", "ingest_ids")).fetchall()}
                result = load(store, model, items, **load_options)
                if result.nothing_new:
                    return result
                ingest_id, = [r[0] for r in store.con.execute(sql("lake", "ingest_ids")).fetchall() if r[0] not in before]
                # a folder is named for its run; an ingest of several runs (two pasted tables) for itself
                outcome = self._land(store, model, ingest_id, result.run_label if len(result.run_labels) == 1 else None)
            if outcome == "landed":
                self._rematch_if_raced(model, seen)
                return result
            if outcome == "label taken" and load_options.get("run_label"):
                raise UsageError(f"a run labelled {load_options['run_label']!r} already exists; choose another --run label")
            if time.monotonic() > deadline:
                raise DatabaseError(f"{self.root}: could not land the ingest: for {timeout:g} s no other writer "
                                    "landed, yet its run label or its files' claims stayed taken (set "
                                    "HOTDB_LOCK_TIMEOUT to wait longer)")
            self._wait_for_claims(model, items, deadline)

    def _wait_for_claims(self, model: str, items, deadline: float) -> None:
        """Another writer got there first: wait until what it claimed lands (or it dies),
        without re-reading the whole model each time."""
        from hotdb.ingest.base import Source

        folder = self.root / "_claims" / f"model={component(model)}"
        shas = [source.sha256 for source, _, _ in items if isinstance(source, Source)]
        delay = 0.05 + secrets.randbelow(100) / 1000
        while time.monotonic() < deadline and any(lake_files.claim_pending(folder / sha) for sha in shas):
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)
        time.sleep(secrets.randbelow(50) / 1000)  # writers that wake together do not collide again

    def _rematch_if_raced(self, model: str, seen: set[Path]) -> None:
        """Another writer of this model landed while this ingest was matching (its run missed
        our IR, or our IR missed its run): match the model's runs again, now that both are
        in, into a folder of matches only. Each writer checks after landing, so whichever
        lands second sees the other."""
        if len(set(self.folders(model)) - seen) <= 1:
            return  # only this ingest's own folder is new
        with self._context(model) as store:
            from hotdb.store.rematch import rematch_models

            rematch_models(store.con)
            staging = lake_files.staging_folder(self.root)
            _write(store.con, "write_table", staging / "kernel_match_results.parquet",
                   {"table": "kernel_match_results"})
            os.rename(staging, self.model_dir(model) / f"run=_rematch-{uuid.uuid4().hex[:12]}")

    def _land(self, store: Store, model: str, ingest_id: int, run_label: str | None) -> str:
        con = store.con
        sources = [r[0] for r in con.execute(sql("lake", "ingest_contents"), {"ingest": ingest_id}).fetchall()]
        staging = lake_files.staging_folder(self.root)
        claims: list[Path] = []
        try:
            self._write_rows(con, ingest_id, staging)
            failpoint("lake-staged")
            target_name = f"run={component(run_label)}" if run_label else f"run=_ingest-{ingest_id}"
            target = self.model_dir(model) / target_name
            for sha in sources:
                claim = lake_files.claim(self.root, model, sha, target)
                if claim is None:
                    return "content taken"
                claims.append(claim)
            failpoint("lake-claimed")
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.rename(staging, target)  # atomic: readers see all of the ingest or nothing
            except OSError:
                if target.exists():
                    return "label taken"
                raise
            claims.clear()  # landed: the claims now stand for stored content
            failpoint("lake-landed")
            return "landed"
        except (OSError, duckdb.IOException) as exc:
            raise _write_error(self.root, exc) from None
        finally:
            for claim in claims:
                claim.unlink(missing_ok=True)
            shutil.rmtree(staging, ignore_errors=True)

    def _write_rows(self, con: duckdb.DuckDBPyConnection, ingest_id: int, folder: Path) -> None:
        """This ingest's rows (and the matches it re-decided) as one Parquet file per table."""
        for table, key in tables().items():
            path = folder / f"{table}.parquet"
            if table == "kernel_match_results":  # what the ladder re-decided, not only the ingest's own runs
                _write(con, "write_rematched", path, {"ingest": ingest_id})
            elif key is None:
                _write(con, _WRITE[key], path, {"table": table})
            else:
                _write(con, _WRITE[key], path, {"table": table, "ingest": ingest_id})

    # -- maintenance --------------------------------------------------------------------
    def export(self, db_path: Path) -> dict:
        """Copy a DuckDB database into the lake: one folder per run, one per model for the
        rest, ids moved into a fresh range (model ids to the lake's)."""
        source = Store(db_path, create=False, read_only=True)
        con = source.con
        models = con.execute(sql("lake", "export_models")).fetchall()
        counts = {"models": 0, "runs": 0}
        for old_model_id, name in models:
            with self._context(name) as store:
                new_model_id = model_id_of(name)
                offset = secrets.randbits(62 - ID_RANGE_BITS) << ID_RANGE_BITS
                self._copy_model(con, store.con, old_model_id, new_model_id, offset)
                from hotdb.store.rematch import rematch_models

                rematch_models(store.con, [new_model_id])
                ingests = [r[0] for r in store.con.execute(
                    sql("lake", "model_ingests"), {"model_id": new_model_id, "after": offset}).fetchall()]
                for ingest_id in ingests:
                    run = store.con.execute(sql("lake", "ingest_run"), {"ingest": ingest_id}).fetchall()
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
        """One model's rows of a database file, its ids moved into the lake's (a fresh range)."""
        ingests = [r[0] for r in src.execute(sql("lake", "model_ingests"),
                                             {"model_id": old_model_id, "after": None}).fetchall()]
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

    def manifests(self, prefix: str | None = None) -> dict:
        """Per table, a symlink manifest (one file URI per line) for engines that map a
        table to a folder (Trino, Hive, Athena): LAKE/_manifests/<table>/manifest.
        `prefix` replaces the lake's local path in the URIs (e.g. s3://bucket/lake)."""
        folders = self.folders()
        written = {}
        for table in tables():
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
        """Merge each model's folders into one (runs and all), re-matching its runs. Safe
        against a kill at any step: the merged folder lands (atomically) listing what it
        replaces, tombstones then record that for good, and only then are the old folders
        deleted; what a killed compaction or ingest left behind is cleaned here."""
        lake_files.clean_staging(self.root)
        merged = {"models": 0, "folders": 0}
        for model_dir in sorted(self.root.glob("model=*")):
            model = self._model_name(model_dir)
            if model is None:
                continue
            folders = self.folders(model)
            if len(folders) >= 2:
                self._merge(model, model_dir, folders)
                merged["models"] += 1
                merged["folders"] += len(folders)
            self._delete_replaced(model_dir)
        return merged

    def _model_name(self, model_dir: Path) -> str | None:
        """A model's name, from its rows (a folder name may be a bounded hash of it)."""
        files = self.files("models", [f for f in sorted(model_dir.glob("run=*")) if f.is_dir()])
        if not files:
            return None
        with duckdb.connect() as con:
            rows = con.read_parquet(files).project("name").limit(1).fetchall()
        return rows[0][0] if rows else None

    def _merge(self, model: str, model_dir: Path, folders: list[Path]) -> None:
        with self._context(model) as store:
            from hotdb.store.rematch import rematch_models

            rematch_models(store.con)
            staging = lake_files.staging_folder(self.root)
            try:
                for table in tables():
                    _write(store.con, "write_table", staging / f"{table}.parquet", {"table": table})
                # what this folder replaces: the live folders, and what they replaced (a kill
                # may have left those on disk, and their own markers go with them)
                names = sorted({f.name for f in folders} | lake_files.replaced(model_dir, folders))
                (staging / lake_files.REPLACES).write_text(json.dumps(names))
                failpoint("compact-staged")
                target = model_dir / f"run=_compact-{uuid.uuid4().hex[:12]}"
                os.rename(staging, target)
            except (OSError, duckdb.IOException) as exc:
                shutil.rmtree(staging, ignore_errors=True)
                raise _write_error(self.root, exc) from None
        failpoint("compact-landed")
        lake_files.bury(model_dir, names)
        failpoint("compact-buried")

    @staticmethod
    def _delete_replaced(model_dir: Path) -> None:
        """Delete the folders tombstones name (what a compaction replaced, a kill left)."""
        graves = {p.name for p in (model_dir / "_replaced").glob("*")}
        for folder in sorted(model_dir.glob("run=*")):
            if folder.name in graves:
                shutil.rmtree(folder, ignore_errors=True)
                failpoint("compact-deleting")


def _write(con: duckdb.DuckDBPyConnection, name: str, path: Path, params: dict) -> None:
    """Rows as a Parquet file by queries/lake/<name>.sql (a COPY); a file of no rows is
    removed: readers take a table's absence for no rows."""
    if not con.execute(sql("lake", name), {**params, "path": str(path)}).fetchall()[0][0]:
        path.unlink()


def _write_error(root: Path, exc: Exception) -> DatabaseError:
    """A failed write to the lake (a full disk, a read-only folder), in one line."""
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        return DatabaseError(f"{root}: could not write the lake: {exc.strerror or exc}{where}")
    return DatabaseError(f"{root}: could not write the lake: {str(exc).splitlines()[0]}")
