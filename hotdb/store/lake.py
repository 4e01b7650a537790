"""A lake: the database as Delta tables (one per table of the schema), for many writers
on a local disk or an object store, and any engine that reads Delta.

    LAKE/<table>/       a Delta table: the table's rows, each with `lake_commit`
    LAKE/_commits/      the commit log: what each commit claimed (hotdb/store/delta.py)

Writers take no lock. An ingest reads its model's committed rows into an in-memory
database, runs the one loader there (duplicate detection, run numbering, matching), and
appends its new rows to the tables, each row carrying the ingest's commit id. Those rows
count only once the commit lands in `_commits`, last, with its claims: `run:<label>` for
each run it made and `sha:<content>` for each file, keyed by model. The claim is a
MERGE decided on the snapshot the ingest read: when any commit landed since, Delta
refuses it; the writer then claims again at once if the newcomers were other models',
and otherwise reads again and redoes its ingest. So commits of one model are serial,
each saw all the ones before it, and a run label or a file is stored once.

Readers (every command with --lake) read `_commits` first and then each table, keeping
rows of the commits they saw: a reader sees whole ingests, and never fewer than were
committed before it began (compaction rewrites files, not rows). `--as-of` reads the
commit log at an older version or time.

Rows of a commit that never landed (a killed writer, a lost race) are invisible;
`lake compact` (lake_compact.py) deletes them once the commit log says they never will
(abandoned, decided like every claim: no clock, no process id), merges small files, and
vacuums what no version of the lake's retention needs.

Ids are BIGINT drawn from a random 2^24-wide range per ingest (model ids from a hash
of the name), so writers never need to agree on a sequence. The lake holds the tables
a database file holds, as the schema defines them (`tables()`): a schema change is made
once, in schema/.
"""

from __future__ import annotations

import hashlib
import secrets
import shutil
import tempfile
import time
from functools import cache
from pathlib import Path

import duckdb

from hotdb import limits
from hotdb.duck import connect
from hotdb.errors import DatabaseError, UsageError
from hotdb.failpoints import failpoint
from hotdb.resources import sql, sql_names
from hotdb.store import delta, lake_snapshot
from hotdb.store.connection import Store, empty_database, latest_schema_version
from hotdb.store.lake_claims import LAKE_MODEL, LakeClaims
from hotdb.store.lake_snapshot import Snapshot, local_files

# tables of the schema that hold no data of a model: the database's own bookkeeping
_NOT_DATA = ("schema_migrations", "hotdb_meta", "family_compat")
# the columns that tie a row to an ingest, most specific first
_KEYS = ("ingest_id", "run_id", "source_id", "model_id")
ID_RANGE_BITS = 24
_NOT_IN_PATHS = "%[]^|\\"  # characters delta-rs cannot take in a local path
_EPOCH = 1577836800  # 2020-01-01: commit ids are (seconds since) << 32 | random
# the rows of a table that an ingest wrote, by the table's key column (queries/lake/rows_*.sql)
_ROWS = {"ingest_id": "rows_ingest_id", "run_id": "rows_run_id", "source_id": "rows_source_id",
         "model_id": "rows_model_id", None: "rows_table"}


@cache
def tables() -> dict[str, str | None]:
    """Every data table of the schema, with the column that ties its rows to an ingest
    (None: rows shared by every ingest that meets them, e.g. workloads)."""
    columns: dict[str, set[str]] = {}
    template = empty_database()
    with Store(template, create=False, read_only=True) if template else Store(":memory:") as store:
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
    """The query reading one lake table from the relation `files` of its committed rows
    (queries/lake/: a table's own file where several commits may hold one row, else table.sql)."""
    return sql("lake", table if table in sql_names("lake") else "table")


def new_commit_id() -> int:
    return (int(time.time()) - _EPOCH) << 32 | secrets.randbits(32)


def _root(root: str | Path) -> str:
    text = str(root)
    return text if delta.is_remote(text) else str(Path(text.removeprefix("file://")).absolute())


class Lake:
    def __init__(self, root: str | Path, as_of: str | None = None):
        if not str(root).strip():
            raise UsageError("the lake is an empty name: give a folder or a URI (--lake would make the current "
                             "folder a lake)")
        self.root = _root(root)
        self.as_of = as_of
        try:
            delta.check_credentials(self.root)
        except delta.CredentialsMissing as exc:
            raise UsageError(str(exc)) from None
        odd = sorted(set(self.root) & set(_NOT_IN_PATHS)) if self.local is not None else []
        if odd:
            # delta-rs reads a local path as a URI: '%' is decoded ("a%20b" becomes "a b") and
            # the others make it panic after it made half a lake (measured, deltalake 1.6)
            raise UsageError(f"{self.root}: a lake's folder may not have {' '.join(map(repr, odd))} in its path "
                             "(delta-rs reads a path as a URI); choose another")

    @property
    def local(self) -> Path | None:
        return None if delta.is_remote(self.root) else Path(self.root)

    def uri(self, table: str) -> str:
        return delta.join(self.root, table)

    def _legacy(self):
        from hotdb.store import lake_legacy

        if self.local is not None and lake_legacy.is_legacy(self.local) and not (self.local / "_converted").exists():
            return lake_legacy.LegacyLake(self.local)
        return None

    def _writable(self) -> None:
        if self.as_of is not None:
            raise UsageError("--as-of reads an older version of the lake: it cannot be written")
        if self._legacy() is not None:
            raise UsageError(f"{self.root} is a lake of the folder layout of hotdb 0.2: run `hotdb lake convert "
                             f"{self.root}` once to write to it (reads work as they are)")

    # -- reading ------------------------------------------------------------------------
    def _source(self, con: duckdb.DuckDBPyConnection, name: str, held) -> str | None:
        """SQL reading a Delta table at its version: its files (a list: `_held`'s) by
        DuckDB's own Parquet reader, or (an object store; `hotdb sql`, which may open no
        file) its delta-rs table as an Arrow dataset registered as `_lake_data_<name>`.
        None when it has no file. `name` is a table of the schema or "commits": the only
        names written into SQL."""
        if name != "commits":
            _table(name)
        if held is None or held == []:
            return None
        if isinstance(held, list):
            # the list reaches the query as a variable: no path is written into SQL
            con.execute(f"SET VARIABLE _lake_files_{name} = $files", {"files": held})
            return f"read_parquet(getvariable('_lake_files_{name}'), union_by_name = true)"
        con.register(f"_lake_data_{name}", delta.dataset(held))
        return f"_lake_data_{name}"

    def _held(self, name: str, native: bool, snapshot: Snapshot | None):
        """Table `name` at its latest version: its files' paths where DuckDB reads them
        (a local lake, `native`), remembered by version when there is a snapshot; else its
        delta-rs table. None when there is no table."""
        uri = self.uri(_table(name))
        if not (native and self.local is not None):
            return delta.open_table(uri)

        def files_at(version):
            table = delta.open_table(uri, version)
            return None if table is None else local_files(table)
        return files_at(None) if snapshot is None else snapshot.held(_table(name), files_at)

    def _remembers(self, native: bool = True) -> bool:
        """Whether what a read holds is remembered (lake_snapshot.py: its versions and rows): a local
        lake read at its latest version by DuckDB's own reader."""
        return native and self.local is not None and self.as_of is None

    def _snapshot(self, native: bool = True) -> Snapshot | None:
        """What the latest versions of this lake hold, remembered (lake_snapshot.py)."""
        return Snapshot(self.local) if self._remembers(native) else None

    def _commits_now(self, snapshot: Snapshot | None) -> list[int]:
        """The commits of the log at the version read (--as-of, else the latest)."""
        if snapshot is None:
            return [commit for commit, _ in self._commit_rows(self._log())]

        def pairs_at(version):
            log = self._log() if version is None else delta.open_table(self.uri(delta.COMMITS), version)
            return [list(pair) for pair in self._commit_rows(log)]
        return [commit for commit, _ in snapshot.held(delta.COMMITS, pairs_at, missing=[])]

    def _commit_rows(self, log) -> list[tuple[int, int]]:
        """(commit id, model id) of each commit the log held at its version. A local log's
        files are read by DuckDB, not through an Arrow dataset: importing pyarrow.dataset
        took ~0.17 s of a 0.6 s `top` (bench/lake_top.py)."""
        if log is None:
            return []
        try:
            if self.local is not None:
                return _log_rows(local_files(log), "log_commits")
            rows = delta.dataset(log).to_table(columns=["commit_id", "model_id"])
        except (OSError, duckdb.IOException) as exc:  # a file the log names is gone (pyarrow's, or DuckDB's)
            if not isinstance(exc, FileNotFoundError) and not any(
                    gone in str(exc).lower() for gone in ("not found", "no files found", "no such file")):
                raise
            if self.as_of is not None:
                raise UsageError(f"--as-of {self.as_of}: `lake compact` has vacuumed that version's files (a lake keeps "
                                 "the versions of its retention, HOTDB_LAKE_RETENTION)") from None
            raise DatabaseError(f"{self.root}: a compaction removed files while they were read (the lake's "
                                "retention is shorter than this read took): read again") from None
        pairs = rows.group_by(["commit_id", "model_id"]).aggregate([])
        return list(zip(pairs.column("commit_id").to_pylist(), pairs.column("model_id").to_pylist()))

    def _log(self):
        """The commit log, at --as-of when given."""
        log = delta.open_table(self.uri(delta.COMMITS))
        if self.as_of is None or log is None:
            return log
        if self.as_of.isascii() and self.as_of.isdigit():  # not '²', which isdigit() takes
            if int(self.as_of) > log.version():
                raise UsageError(f"--as-of {self.as_of}: the lake's commit log has versions 0 to {log.version()}")
            return delta.open_table(self.uri(delta.COMMITS), int(self.as_of))
        try:
            return delta.open_table(self.uri(delta.COMMITS), self.as_of)
        except ValueError:
            raise UsageError(f"--as-of {self.as_of}: expected a version of the commit log (0 to {log.version()}) "
                             "or an ISO time such as 2026-12-01T09:00Z") from None

    def _views(self, con: duckdb.DuckDBPyConnection, commits: list[int], skip=(), native: bool = True,
               snapshot: Snapshot | None = None) -> dict[str, str]:
        """Per table, a query of the rows of these commits (keeping one per key where
        several commits may hold a row), by table: for one view each, not three (each
        view is bound, every file's footer read, when it is made)."""
        con.execute("CREATE OR REPLACE TEMP TABLE _lake_commits AS SELECT unnest($ids::BIGINT[]) AS commit_id",
                    {"ids": commits})
        # a query binds each table's view again: footers read once (a lake's files never change)
        con.execute("SET parquet_metadata_cache = true")
        names = [table for table in tables() if table not in skip]
        # read after the commit log (a commit's rows are in a table before it lands), at
        # once: each delta-rs open reads a log of its own (16 ms each, measured)
        from concurrent.futures import ThreadPoolExecutor  # not on a read of the kept copy (lake_snapshot.py)

        with ThreadPoolExecutor(max_workers=8) as pool:
            held = dict(zip(names, pool.map(lambda name: self._held(name, native, snapshot), names)))
        queries = {}
        for table, data in held.items():
            source = self._source(con, table, data)
            if source is not None:
                queries[table] = (f"(WITH files AS (SELECT * EXCLUDE (lake_commit) FROM {source} "
                                  f"WHERE lake_commit IN (SELECT commit_id FROM _lake_commits))\n{table_sql(table)}\n)")
        return queries

    def reader(self, external_access: bool = True) -> Store:
        """A database whose tables are views over the lake's committed rows: this hotdb's
        empty schema (connection.empty_database), each table overlaid by a temporary view. Without
        `external_access` the views read Arrow datasets, so that a connection that may
        open no file (hotdb sql) still reads them."""
        if self.local is not None and not self.local.is_dir():
            raise DatabaseError(f"no lake at {self.root}; ingest with --lake {self.root} first")
        legacy = self._legacy()
        if legacy is not None:
            store = Store(":memory:")
            legacy.fill(store, tables(), table_sql)
            return store
        template = empty_database()
        if self._remembers(external_access) and template is not None:
            kept = self._kept(template)
            if kept is not None:
                return kept
        store = Store(template, create=False, read_only=True) if template else Store(":memory:")
        try:
            snapshot = self._snapshot(external_access)
            commits = self._commits_now(snapshot)
            failpoint("lake-read-log")  # the log read, the tables not yet
            # the file's own catalog: `main.x` alone would name the temporary view being made
            catalog = store.con.execute("SELECT current_database()").fetchall()[0][0].replace('"', '""')
            views = self._views(store.con, commits, native=external_access, snapshot=snapshot)
            if snapshot is not None:
                snapshot.save()
            for table, rows in views.items():
                # the rows stand in for the schema's empty table, read by name into its columns:
                # rows written before a column was added give NULL there
                store.con.execute(f'CREATE TEMP VIEW {table} AS FROM "{catalog}".main.{table} UNION ALL BY NAME FROM {rows}')
        except BaseException:
            store.close()
            raise
        return store

    def _kept(self, template: Path) -> Store | None:
        """The lake's rows at the versions its folders list now, from the database file kept
        for them in the cache, made by this read where there is none (lake_snapshot.py); None
        where none is kept (a table whose folder does not say its version, a large lake, a
        writer that moved the lake meanwhile, a cache that cannot be written)."""
        listed = lake_snapshot.stamps(self.local)
        if listed is None:
            return None
        # what reads the rows: the empty database's name holds the SQL files' digest
        made_of = [template.name, hashlib.sha256(Path(__file__).read_bytes()).hexdigest()]
        kept = lake_snapshot.copy_path(self.local, made_of, listed)
        store = lake_snapshot.open_copy(kept)
        if store is not None or not lake_snapshot.small_enough(self.local):
            return store
        snapshot = Snapshot(self.local)

        def fill(con: duckdb.DuckDBPyConnection) -> bool:
            commits = self._commits_now(snapshot)
            failpoint("lake-read-log")  # the log read, the tables not yet
            for table, rows in self._views(con, commits, snapshot=snapshot).items():
                described = con.execute(sql("load", "table_types"), {"table": table}).description
                columns = ", ".join('"' + d[0].replace('"', '""') + '"' for d in described)
                # by name, as the reader's views: rows written before a column was added give NULL there
                con.execute(f"INSERT INTO main.{table} SELECT {columns} FROM (FROM main.{table} UNION ALL BY NAME FROM {rows})")
            snapshot.save()
            return lake_snapshot.unmoved(listed, snapshot.seen)
        return lake_snapshot.keep_copy(kept, fill)

    def _context(self, model: str, commits: list[tuple[int, int]], with_runs: bool = True) -> Store:
        """A scratch, writable database holding one model's committed rows, for an ingest to
        add to. Without `with_runs`, the nodes of its runs stay out (a profile's ingest
        matches only its own run)."""
        store = _scratch()
        try:
            self._fill(store, model, commits, with_runs)
        except BaseException:
            store.close()
            raise
        return store

    def _fill(self, store: Store, model: str, commits: list[tuple[int, int]], with_runs: bool) -> None:
        model_id = model_id_of(model)
        mine = [commit for commit, model in commits if model == model_id]
        skip = () if with_runs else [t for t, key in tables().items() if key == "run_id" and t != "runs"]
        snapshot = self._snapshot()
        for table, rows in self._views(store.con, mine, skip, snapshot=snapshot).items():
            store.con.execute(f"INSERT INTO {_table(table)} BY NAME FROM {rows}")
        if snapshot is not None:
            snapshot.save()
        store.con.execute(sql("lake", "context_model"), {"model_id": model_id, "name": model})
        base = secrets.randbits(62 - ID_RANGE_BITS) << ID_RANGE_BITS
        for sequence in ("ingest_id_seq", "source_id_seq", "run_id_seq"):
            # DuckDB takes no parameter in DDL: the start is an int this function drew
            store.con.execute(f"CREATE OR REPLACE SEQUENCE {sequence} START {int(base) + 1}")

    # -- writing ------------------------------------------------------------------------
    def ingest(self, model: str, items, **load_options):
        """Store one ingest (as hotdb.store.loader.load does) as one commit of the lake (the
        caller then compacts when due: lake_compact.after_commit)."""
        from hotdb.store.loader import load

        self._writable()
        # a bad value is said before the commit, not after it landed (exit 1 for a stored ingest)
        limits.lake_auto_compact_files(), limits.lake_retention_setting()
        model_level = any(parsed.role != "profile" for _, _, parsed in items)
        with Attempts(self.root) as attempts:
            while True:
                log = self._ensure_log()
                held = self._commit_rows(log)
                with self._context(model, held, with_runs=model_level) as store:
                    before = {r[0] for r in store.con.execute(sql("lake", "ingest_ids")).fetchall()}
                    result = load(store, model, items, **load_options)
                    if result.nothing_new:
                        return result
                    ingest_id, = [r[0] for r in store.con.execute(sql("lake", "ingest_ids")).fetchall()
                                  if r[0] not in before]
                    commit_id = new_commit_id()
                    self._append(store.con, commit_id, [ingest_id])
                    claims = self._claims(store.con, [ingest_id])
                if self._commit(log, commit_id, model_id_of(model), claims, attempts, held):
                    return result

    def _ensure_log(self):
        """The commit log at its latest version (made when missing), once this hotdb may
        write to it: a lake a newer hotdb wrote (a newer schema) is refused, in one line;
        a lake that has not seen this hotdb's schema version records it."""
        if self.local is not None:
            self.local.mkdir(parents=True, exist_ok=True)
        try:
            mine = latest_schema_version()
            log = delta.ensure_commits(self.root, new_commit_id(), LAKE_MODEL, [f"schema:{mine}"])
            claims = self._lake_claims(log)
            if claims.schema() > mine:
                raise UsageError(f"{self.root}: written by a newer hotdb (schema {claims.schema()}; this one knows "
                                 f"{mine}): upgrade hotdb to write to it (reads work as they are)")
            if claims.schema() < mine:
                try:
                    delta.claim(log, new_commit_id(), LAKE_MODEL, [f"schema:{mine}"])
                except delta.Conflict:
                    pass  # recorded by the next writer
                log = delta.open_table(self.uri(delta.COMMITS))
            return log
        except OSError as exc:
            raise _write_error(self.root, exc) from None

    @staticmethod
    def _claims(con: duckdb.DuckDBPyConnection, ingests: list[int]) -> list[str]:
        """What these ingests claim: their runs' labels and their files' contents."""
        labels = [r[0] for i in ingests for r in con.execute(sql("lake", "ingest_run"), {"ingest": i}).fetchall()]
        shas = [r[0] for i in ingests for r in con.execute(sql("lake", "ingest_contents"), {"ingest": i}).fetchall()]
        return [f"run:{label}" for label in labels] + [f"sha:{sha}" for sha in shas]

    def _append(self, con: duckdb.DuckDBPyConnection, commit_id: int, ingests: list[int] | None) -> None:
        """The ingests' rows (and the matches they re-decided), or with None every row of
        the context, appended to each table with the commit's id."""
        try:
            for table, key in tables().items():
                if ingests is None or key is None:  # shared rows (workloads): readers keep one per key
                    rows = _rows(con, "rows_table", {"table": table}, commit_id)
                elif table == "kernel_match_results":  # what the ladder re-decided, not only the ingest's own runs
                    rows = _rows(con, "rows_rematched", {"ingests": ingests}, commit_id)
                else:
                    rows = _rows(con, _ROWS[key], {"table": table, "ingests": ingests}, commit_id)
                if rows.num_rows:
                    delta.append(self.uri(table), rows)
                    failpoint("lake-appending")
        except OSError as exc:
            raise _write_error(self.root, exc) from None
        failpoint("lake-written")

    def _commit(self, log, commit_id: int, model_id: int, claims: list[str], attempts: "Attempts",
                held: list[tuple[int, int]] | None = None) -> bool:
        """Land a commit whose rows are written; False when the ingest must be done again
        (a commit of its model landed since it read), after waiting a little. `held`: the
        log's (commit, model) pairs, when the caller read them from `log`."""
        seen = {commit for commit, _ in (self._commit_rows(log) if held is None else held)}
        while True:
            try:
                delta.claim(log, commit_id, model_id, claims)
                failpoint("lake-committed")
                return True
            except delta.Conflict:
                log = delta.open_table(self.uri(delta.COMMITS))
                new = [(commit, model) for commit, model in self._commit_rows(log) if commit not in seen]
                seen.update(commit for commit, _ in new)
                attempts.progress(len(new))
                if commit_id in self._lake_claims(log).abandoned:
                    return False  # a compaction took it for a dead writer's and deletes its rows: do it again
                if any(model == model_id for _, model in new):
                    attempts.wait()
                    return False  # a commit of this model landed since: read again, decide again

    def _lake_claims(self, log) -> LakeClaims:
        """The lake's own claims (lake_claims.py) at the log's version: a local log's files
        read by DuckDB (an ingest reads them; pyarrow.dataset and .compute took ~60 ms of
        its start), an object store's through an Arrow dataset."""
        if log is None:
            return LakeClaims()
        if self.local is not None:
            return LakeClaims.parse([claim for claim, in _log_rows(local_files(log), "log_claims", {"model_id": LAKE_MODEL})])
        import pyarrow.compute as pc

        rows = delta.dataset(log).to_table(columns=["claim"], filter=pc.field("model_id") == LAKE_MODEL)
        return LakeClaims.parse(rows.column("claim").to_pylist())

    def export_parquet(self, folder: Path) -> dict:
        """The committed rows as plain Parquet, one folder per table (FOLDER/<table>/
        data.parquet), for engines without Delta; written aside, then renamed into place."""
        if folder.exists() and any(folder.iterdir()):
            raise UsageError(f"{folder} exists and is not empty: give a new folder")
        real = folder.resolve()
        for above in [real, *real.parents]:
            # inside a lake, a folder such as model=x would make it read as hotdb 0.2's layout
            if (self.local is not None and above == self.local.resolve()) or (above / delta.COMMITS).is_dir():
                raise UsageError(f"{folder}: is inside a lake ({above}): give a folder outside it")
        staging = folder.parent / f".{folder.name}.{secrets.token_hex(6)}"
        counts = {}
        with self.reader() as store:
            for table in tables():
                (staging / table).mkdir(parents=True)
                counts[table] = store.con.execute(sql("lake", "export_table"),
                                                  {"table": table, "path": str(staging / table / "data.parquet")}).fetchall()[0][0]
        if folder.exists():
            folder.rmdir()
        staging.rename(folder)
        return counts

class _Scratch(Store):
    """A copy of the empty database in a folder of its own, removed when it is closed."""

    def close(self) -> None:
        try:
            # it is removed next: the checkpoint DuckDB writes at a close was 36 ms of an ingest
            self.con.execute("PRAGMA disable_checkpoint_on_shutdown")
            super().close()
        finally:
            shutil.rmtree(self.path.parent, ignore_errors=True)


def _log_rows(files: list[str], name: str, params: dict | None = None) -> list[tuple]:
    """The rows of queries/lake/<name>.sql over these Parquet files of the commit log."""
    if not files:
        return []
    with connect() as con:
        return con.execute(sql("lake", name), {"files": files, **(params or {})}).fetchall()


def _scratch() -> Store:
    """A writable database of this hotdb's schema for one ingest: a copy of the cached empty
    database (connection.empty_database), whose schema and views are made already (made
    anew in memory they were 0.46 s of a 1.06 s lake ingest); in memory without a cache."""
    template = empty_database()
    if template is None:
        return Store(":memory:")
    folder = Path(tempfile.mkdtemp(prefix="hotdb-ingest-"))
    try:
        shutil.copyfile(template, folder / "scratch.duckdb")
        return _Scratch(folder / "scratch.duckdb", create=False, check=False)  # the template is this hotdb's
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


class Attempts:
    """How long a writer keeps trying: as long as other writers make progress, and
    HOTDB_LOCK_TIMEOUT without any."""

    def __init__(self, root: str):
        self.root = root
        self.timeout = limits.lock_timeout_s()
        self.deadline = time.monotonic() + self.timeout
        self.delay = 0.02

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def progress(self, commits: int) -> None:
        if commits:
            self.deadline = time.monotonic() + self.timeout
        if time.monotonic() > self.deadline:
            raise DatabaseError(f"{self.root}: could not commit: for {self.timeout:g} s no other writer "
                                "committed, yet every commit of this one conflicted (set HOTDB_LOCK_TIMEOUT to wait longer)")

    def wait(self) -> None:
        time.sleep(self.delay + secrets.randbelow(50) / 1000)  # writers that wake together do not collide again
        self.delay = min(self.delay * 1.5, 0.5)


def _rows(con: duckdb.DuckDBPyConnection, name: str, params: dict, commit_id: int):
    """The rows of queries/lake/<name>.sql, each with the commit's id, as an Arrow table."""
    return con.sql(f"SELECT *, $lake_commit::BIGINT AS lake_commit FROM (\n{sql('lake', name)}\n)",
                   params={**params, "lake_commit": commit_id}).to_arrow_table()


def _write_error(root: str, exc: Exception) -> DatabaseError:
    """A failed write to the lake (a full disk, a read-only folder), in one line."""
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        return DatabaseError(f"{root}: could not write the lake: {exc.strerror or delta.said(exc)}{where}")
    return DatabaseError(f"{root}: could not write the lake: {delta.said(exc)}")
