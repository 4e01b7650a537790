"""The one bulk loader: stores what ingestors (and live capture) parsed, atomically.

All files of one ingest are stored in one transaction, each table's rows as one Arrow
table (never row by row), a profile's nodes as calls and kernel signatures
(schema/0005). A file whose content the model already has (same SHA-256) is skipped
and reported; if nothing is new, nothing is written.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone

from hotdb import limits
from hotdb.duck import scratch
from hotdb.errors import DatabaseError, UsageError
from hotdb.failpoints import failpoint
from hotdb.ingest.source import Source
from hotdb.limits import MiB
from hotdb.resources import sql
from hotdb.rows import (
    CALL_COLUMNS,
    SIGNATURE_COLUMNS,
    ArrowRows,
    GraphNodeRow,
    IrCallRow,
    NodeFile,
    NodeList,
    NodeRow,
    NodeTable,
    Parsed,
    SampleRow,
    TaskRow,
    TuningRecordRow,
    column_names,
    node_frame,
    row_frame,
)
from hotdb.store.connection import Store, rollback
from hotdb.store.rematch import rematch_models, rematch_runs
from hotdb.version import __version__
from hotdb.workload.targets import canonical as canonical_target


@dataclass
class LoadedFile:
    path: str
    format: str
    role: str
    rows: int
    source_id: int | None  # None when skipped as a duplicate
    duplicate_of: str | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class LoadResult:
    model: str
    run_labels: list[str]
    files: list[LoadedFile]
    notes: list[str] = field(default_factory=list)  # what the caller should know (a model renamed, ...)

    @property
    def run_label(self) -> str | None:
        """The run an ingest made (the last, when a pasted text held several profiles)."""
        return self.run_labels[-1] if self.run_labels else None

    @property
    def nothing_new(self) -> bool:
        return all(f.source_id is None for f in self.files)


# the tables rows are inserted into by name: the only names the loader writes into SQL
_ROW_TABLES = frozenset({"node_signatures", "node_samples", "graph_nodes", "ir_calls", "tasks", "tuning_records"})


def _append(store: Store, source: Source, table: str, prefix: dict, rows, row_class) -> None:
    """Rows of one class into `table` (3x faster as one Arrow table than through the DuckDB
    appender, for rows of nested shape lists). Rows a reader kept as Arrow (rows.ArrowRows,
    rows.Samples) are inserted as one stream of their chunks (`_insert_frames`)."""
    if hasattr(rows, "frames"):
        _insert_frames(store, table, prefix, rows.frames())
    elif len(rows) > ArrowRows.CHUNK:  # made as DuckDB reads them: not all of them as Arrow at once
        _insert_frames(store, table, prefix, _arrow_chunks(store, source, table, column_names(row_class), rows))
    elif rows:
        _insert_arrow(store, table, prefix, _typed_arrow(store, source, table, column_names(row_class), rows))


def _arrow_chunks(store: Store, source: Source, table: str, names: list[str], rows: list):
    """_typed_arrow of each ArrowRows.CHUNK rows in turn."""
    schema = _typed_schema(store, table, names)
    for start in range(0, len(rows), ArrowRows.CHUNK):
        yield row_frame(source, rows[start:start + ArrowRows.CHUNK], schema, among=rows)


def _typed_arrow(store: Store, source: Source, table: str, names: list[str], rows: list):
    """The rows' attributes `names` as an Arrow table typed as the table's columns; a value
    a column cannot hold is the source's error."""
    return row_frame(source, rows, _typed_schema(store, table, names))


def _typed_schema(store: Store, table: str, names: list[str]):
    """The columns `names` of a table as an Arrow schema."""
    import pyarrow as pa

    columns = _table_schema(store, table)
    return pa.schema([columns.field(name) for name in names])


def _table_schema(store: Store, table: str):
    """A table's columns as an Arrow schema (the types rows are built in)."""
    return store.con.sql(sql("load", "table_types"), params={"table": table}).to_arrow_table().schema


def _insert_arrow(store: Store, table: str, prefix: dict, frame) -> None:
    """Insert an Arrow table's rows by column name, each with the `prefix` values (the run
    or source they belong to)."""
    _insert_relation(store, table, _with_prefix(_table_schema(store, table), prefix, frame))


def _with_prefix(columns, prefix: dict, frame):
    """`frame` with a column of each `prefix` value, typed as the table's column
    (`columns`: the table's schema)."""
    import pyarrow as pa

    for name, value in prefix.items():
        column = columns.field(name)
        frame = frame.append_column(column, pa.repeat(pa.scalar(value, column.type), len(frame)))
    return frame


def _insert_relation(store: Store, table: str, rows) -> None:
    """Insert an Arrow table or record batch reader by column name."""
    if table not in _ROW_TABLES:
        raise ValueError(f"the loader inserts no rows into {table!r}")
    store.con.register("_rows", rows)
    with scratch(store.con, registered=("_rows",)):
        store.con.execute(f"INSERT INTO {table} BY NAME FROM _rows")  # a name of _ROW_TABLES, never data


def _insert_frames(store: Store, table: str, prefix: dict, frames) -> None:
    """Insert Arrow tables (an iterable, made as DuckDB reads it) in one INSERT: one INSERT
    per chunk keeps every chunk in DuckDB's transaction-local storage, in memory outside
    its buffer pool (22 million samples: +530 MiB), while one INSERT of a stream writes
    its row groups to the database file as they fill (+0 MiB)."""
    import pyarrow as pa

    frames = iter(frames)
    first = next(frames, None)
    if first is None:
        return
    columns = _table_schema(store, table)
    first = _with_prefix(columns, prefix, first)
    schema = first.schema

    def batches():
        yield from first.to_batches()
        for frame in frames:
            for batch in _with_prefix(columns, prefix, frame).to_batches():
                yield batch if batch.schema.equals(schema) else batch.cast(schema)

    with _streaming(store):
        _insert_relation(store, table, pa.RecordBatchReader.from_batches(schema, batches()))


# DuckDB's buffer pool while a stream of rows is inserted into a database file: the
# blocks an insert writes stay cached in the pool up to its limit though it never reads
# them again (13 million IR calls: 176 MiB, growing with the rows, on top of what the
# reader holds), while 64 MiB keeps its memory flat (what the transaction holds beyond
# it waits in DuckDB's temporary file)
STREAM_POOL = 64 * MiB


@contextmanager
def _streaming(store: Store):
    """DuckDB set for one INSERT of a stream of any length, and set back after it: one
    thread (with two, DuckDB's insert of a stream held ~0.2 KB more per IR call: 1.6
    million, +140 MiB, still growing), and a buffer pool of STREAM_POOL, or of what it
    holds now if more (a limit DuckDB cannot meet at once aborts the transaction). A
    database in memory keeps its pool: its tables live there."""
    threads, held = store.con.execute(sql("load", "stream_settings")).fetchone()
    limit = limits.memory_bytes()
    pool = limit if str(store.path) == ":memory:" else min(limit, max(STREAM_POOL, held + MiB))
    store.con.execute("SET threads = 1")
    _set_pool(store, pool)
    try:
        yield
    finally:
        _restore(store, int(threads), limit)


# DuckDB's buffer pool while the runs of a file of nodes (a large debug table, a dump) are
# matched: the ladder fills the pool it is given (256 MiB of a debug table, 1.7 million
# nodes: the process 630 MiB at 384 MiB, 432 at 192); at 64 MiB it could not run for a
# table of 391,879 distinct kernels (bench/README.md, "Streamed text")
MATCH_POOL = 192 * MiB


@contextmanager
def _matching(store: Store, large: bool):
    """The pool set to MATCH_POOL (at most what it is) while `large` runs are matched."""
    if not large or str(store.path) == ":memory:":
        yield
        return
    limit = limits.memory_bytes()
    threads, held = store.con.execute(sql("load", "stream_settings")).fetchone()
    _set_pool(store, min(limit, max(MATCH_POOL, held + MiB)))
    try:
        yield
    finally:
        _restore(store, int(threads), limit)


def _set_pool(store: Store, pool: int) -> None:
    store.con.execute(f"SET memory_limit = '{int(pool)}B'")  # bytes, an int: never text from elsewhere


def _restore(store: Store, threads: int, pool: int) -> None:
    """Set `threads` and the pool back; after a failed insert DuckDB may refuse any
    statement until the rollback, and the insert's error is the one to show."""
    import duckdb

    try:
        store.con.execute(f"SET threads = {threads}")
        _set_pool(store, pool)
    except duckdb.Error:
        pass


def insert_nodes(store: Store, source: Source, run_id: int, signatures: list[NodeRow] | NodeList) -> None:
    """The one way nodes are stored, whatever read them: a node_signatures row per distinct
    kernel signature (signature_id = its position in `signatures`), and each call of the
    relation `_calls` the caller made (node_index, signature, time_us, calls, device,
    line_no, call_share_pct, call_start_us; `signature` the key of `signatures` it belongs
    to), as node_calls rows (queries/load/node_calls.sql)."""
    import pyarrow as pa

    if isinstance(signatures, NodeList):  # already typed as the node tables' columns
        whole = signatures.frame()
        frame, per_call = whole.select(list(SIGNATURE_COLUMNS)), whole.select(["reported_share_pct", "start_us"])
        del whole
    else:
        frame = _typed_arrow(store, source, "node_signatures", list(SIGNATURE_COLUMNS), signatures)
        per_call = pa.table({"reported_share_pct": pa.array([r.reported_share_pct for r in signatures], type=pa.float64()),
                             "start_us": pa.array([r.start_us for r in signatures], type=pa.float64())})
    ids = pa.array(range(len(frame)), type=pa.int32())
    _insert_arrow(store, "node_signatures", {"run_id": run_id}, frame.append_column("signature_id", ids))
    store.con.register("_signature_ids", per_call.add_column(0, "signature_id", ids))
    with scratch(store.con, registered=("_signature_ids",)):
        store.con.execute(sql("load", "node_calls"), {"run_id": run_id})


def _insert_node_rows(store: Store, source: Source, run_id: int, nodes: list[NodeRow] | NodeList) -> None:
    """Parsed nodes: one signature per distinct signature columns, numbered in order of
    first node, the calls pointing to them; the grouping is DuckDB's
    (queries/load/node_signatures_of.sql), on the nodes as Arrow."""
    import pyarrow as pa

    frame = nodes.frame() if isinstance(nodes, NodeList) else node_frame(source, nodes)
    seq = pa.array(range(len(frame)), type=pa.int64())
    store.con.register("_node_signature_columns", frame.select(list(SIGNATURE_COLUMNS)).append_column("seq", seq))
    store.con.register("_node_call_columns", frame.select(list(CALL_COLUMNS)).append_column("seq", seq))
    del frame
    with scratch(store.con, registered=("_node_signature_columns", "_node_call_columns"), tables=("_signatures",)):
        store.con.execute(sql("load", "node_signatures_of"))
        store.con.execute(sql("load", "node_signature_rows"), {"run_id": run_id})
        store.con.execute(sql("load", "node_call_rows"), {"run_id": run_id})


def _insert_node_table(store: Store, source: Source, run_id: int, table: NodeTable) -> None:
    """A large profile's nodes: its signatures, and its calls read from the reader's file."""
    import pyarrow as pa

    numbers = table.numbers
    store.con.register("_signature_numbers", pa.table({"signature_number": pa.array(numbers, type=pa.uint64()),
                                                       "signature": pa.array(range(len(numbers)), type=pa.int64())}))
    store.con.read_parquet(str(table.calls_path)).create_view("_call_file")
    with scratch(store.con, registered=("_signature_numbers",), views=("_calls", "_call_file")):
        store.con.execute(sql("load", "file_calls"))
        insert_nodes(store, source, run_id, table.signatures)


def _insert_node_file(store: Store, run_id: int, nodes: NodeFile) -> None:
    """A debug dump's or a large debug table's nodes, whole rows in the reader's file, each
    with its signature's number: the signatures' first rows, and every row as a call."""
    store.con.read_parquet(str(nodes.path)).create_view("_node_file")
    with scratch(store.con, views=("_node_file",)), _streaming(store):  # millions, from a large debug table
        store.con.execute(sql("load", "file_node_signatures"), {"run_id": run_id})
        store.con.execute(sql("load", "file_node_calls"), {"run_id": run_id})


def _insert_graph_file(store: Store, source_id: int, nodes: NodeFile) -> None:
    """A debug dump's nodes as the source's graph nodes (queries/load/file_graph_nodes.sql)."""
    store.con.read_parquet(str(nodes.path)).create_view("_node_file")
    with scratch(store.con, views=("_node_file",)):
        store.con.execute(sql("load", "file_graph_nodes"), {"source_id": source_id})


def _scalar(store: Store, name: str, params: dict):
    """The first value of queries/load/<name>.sql (None: no row)."""
    rows = store.con.execute(sql("load", name), params).fetchall()
    return rows[0][0] if rows else None


RUN_META_COLUMNS = ("host", "cpu_model", "cpu_cores", "threads", "os", "python_version", "hotdb_version",
                    "ir_sha256", "timing_method", "end_to_end_us", "baseline_run_id", "replicate_of",
                    "others_cpu_pct", "capture_s", "device_key", "rpc_tracker", "rpc_server", "device_name")


def load(store: Store, model: str, items: list[tuple[Source, str, Parsed]], *,
         run_label: str | list[str] | None = None, tags: dict[str, str] | None = None,
         target: str | None = None, run_meta: dict | None = None) -> LoadResult:
    """Store parsed files as one build of `model`. items: (source, format name, parsed).
    Each profile becomes a run of the build (a pasted text may hold two tables); run
    labels are given one per profile, in order, or made up (MODEL-N)."""
    profiles = [(s, f, p) for s, f, p in items if p.role == "profile"]
    labels = [run_label] if isinstance(run_label, str) else list(run_label or [])
    if labels and len(labels) != len(profiles):
        names = ", ".join(s.label for s, _, _ in profiles) or "none"
        raise UsageError(f"{len(labels)} run labels for {len(profiles)} profiles ({names}): "
                         "give one label per profile, in order, or none")
    con = store.con
    now = datetime.now(timezone.utc)
    files: list[LoadedFile] = []
    con.begin()
    try:
        model_id = _scalar(store, "model_id", {"name": model})
        new_items = []
        for source, fmt, parsed in items:
            previous = None
            if model_id is not None:
                previous = _scalar(store, "stored_source", {"model_id": model_id, "sha256": source.sha256})
            if previous is None and any(s.sha256 == source.sha256 for s, _, _ in new_items):
                previous = next(s.label for s, _, _ in new_items if s.sha256 == source.sha256)
            if previous is not None:
                files.append(LoadedFile(source.label, fmt, parsed.role, parsed.row_count, None, previous, parsed.warnings))
            else:
                new_items.append((source, fmt, parsed))
        if not new_items:
            rollback(con)
            return LoadResult(model, [], files)
        if model_id is None:
            model_id = _scalar(store, "new_model", {"name": model, "now": now})
        ingest_id = _scalar(store, "new_ingest", {"model_id": model_id, "now": now, "hotdb_version": __version__})
        made: list[str] = []
        profile_labels = dict(zip((id(p) for _, _, p in profiles), labels))
        for source, fmt, parsed in new_items:
            source_id = _scalar(store, "new_source", {
                "ingest_id": ingest_id, "model_id": model_id, "path": source.label, "format": fmt, "role": parsed.role,
                "sha256": source.sha256, "size_bytes": source.size, "row_count": parsed.row_count,
                "warnings": parsed.warnings})
            files.append(LoadedFile(source.label, fmt, parsed.role, parsed.row_count, source_id, None, parsed.warnings))
            label = None
            if parsed.role == "profile":
                label = _new_run(store, model, model_id, ingest_id, source_id, parsed, profile_labels.get(id(parsed)),
                                 tags, target, now, run_meta or {})
                made.append(label)
            _store_rows(store, source, source_id, parsed, label)
        with _matching(store, any(p.node_file is not None for _, _, p in new_items)):
            if any(parsed.role != "profile" for _, _, parsed in new_items):
                rematch_models(con, [model_id])  # the model's IR or tasks changed: all its runs
            elif made:
                rematch_runs(con, [row[0] for row in con.execute(sql("load", "run_ids"), {"labels": made}).fetchall()])
        failpoint("before-commit")
        _commit(con)
    except BaseException:
        rollback(con)
        raise
    return LoadResult(model, made, files)


def _commit(con) -> None:
    """A commit the disk refused (full, a file size limit) is a one-line error: DuckDB
    has undone the transaction, so nothing of this ingest was stored."""
    import duckdb

    try:
        con.commit()
    except duckdb.TransactionException as exc:
        first = str(exc).strip().splitlines()[0]
        raise DatabaseError(f"{first}; nothing of this ingest was stored") from exc


def _new_run(store: Store, model: str, model_id: int, ingest_id: int, source_id: int, parsed: Parsed,
             run_label: str | None, tags, target, now, run_meta: dict) -> str:
    unknown = sorted(set(run_meta) - set(RUN_META_COLUMNS))
    if unknown:
        raise ValueError(f"unknown run column {unknown[0]}")
    if run_label is None:
        count = _scalar(store, "run_count", {"model_id": model_id})
        run_label = f"{model}-{count + 1}"
        while _scalar(store, "label_taken", {"label": run_label}):
            count += 1
            run_label = f"{model}-{count + 1}"
    elif _scalar(store, "label_taken", {"label": run_label}):
        raise UsageError(f"a run labelled {run_label!r} already exists; choose another --run label")
    info = parsed.run
    store.con.execute(sql("load", "new_run"), {
        "model_id": model_id, "ingest_id": ingest_id, "source_id": source_id, "label": run_label, "now": now,
        "target": canonical_target(target or info.target), "device": info.device, "tvm_version": info.tvm_version,
        "profile_variant": info.variant, "reported_total_us": info.reported_total_us, "tags": tags or {},
        **{column: run_meta.get(column) for column in RUN_META_COLUMNS}})
    return run_label


def _store_rows(store: Store, source: Source, source_id: int, parsed: Parsed, label: str | None) -> None:
    # one form, so that records and runs find their tasks
    for row in parsed.tasks + (parsed.records if isinstance(parsed.records, list) else []):
        row.target = canonical_target(row.target)
    if isinstance(parsed.records, ArrowRows):  # a RecordList: as its frames are given
        parsed.records.map_column("target", canonical_target)
    if parsed.nodes or parsed.node_table is not None or parsed.node_file is not None:
        run_id = _scalar(store, "run_ids", {"labels": [label]})
        if parsed.nodes:
            _insert_node_rows(store, source, run_id, parsed.nodes)
        _append(store, source, "node_samples", {"run_id": run_id}, parsed.samples, SampleRow)
        if parsed.node_table is not None:
            _insert_node_table(store, source, run_id, parsed.node_table)
        if parsed.node_file is not None:
            _insert_node_file(store, run_id, parsed.node_file)
    _append(store, source, "graph_nodes", {"source_id": source_id}, parsed.graph_nodes, GraphNodeRow)
    if parsed.graph_file is not None:
        _insert_graph_file(store, source_id, parsed.graph_file)
    _append(store, source, "ir_calls", {"source_id": source_id}, parsed.ir_calls, IrCallRow)
    _append(store, source, "tasks", {"source_id": source_id}, parsed.tasks, TaskRow)
    _append(store, source, "tuning_records", {"source_id": source_id}, parsed.records, TuningRecordRow)
    if parsed.workloads:
        known = {row[0] for row in store.con.execute(sql("load", "known_workloads"),
                                                     {"keys": list(parsed.workloads)}).fetchall()}
        fresh = [(w.key, w.family, w.dtype, list(w.data), list(w.weight), list(w.out), w.attrs_json(), w.flops)
                 for key, w in parsed.workloads.items() if key not in known]
        if fresh:
            appender = store.con.appender("workloads")
            appender.append_rows(fresh)
            appender.flush()
