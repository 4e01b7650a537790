"""Rows kept compactly while a reader appends them: as Arrow (NodeList, SampleList,
IrCallList, RecordList, over arrow.ArrowRows), samples as arrays (Samples), spilled to
files beyond a bound; and the descriptions of rows a reader left in a file for the loader
(NodeTable, NodeFile). What is held does not grow with an input's size."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hotdb.rows.arrow import ArrowRows, row_frame
from hotdb.rows.records import IrCallRow, NodeRow, SampleRow, TuningRecordRow, column_names


def node_schema():
    """NodeRow's fields as Arrow types, those of the node tables' columns (schema/0005): a
    value beyond a column's range fails here, where its line is known (a test holds the
    two to each other)."""
    import pyarrow as pa

    shape = pa.list_(pa.int32())
    types = {"node_index": pa.int32(), "calls": pa.int32(), "output_index": pa.int32(), "num_inputs": pa.int32(),
             "num_outputs": pa.int32(), "line_no": pa.int32(), "func_number": pa.int32(), "time_us": pa.float64(),
             "reported_share_pct": pa.float64(), "start_us": pa.float64(), "out_shape": shape,
             "out_shape_logical": shape, "data_shape_logical": shape, "weight_shape_logical": shape,
             "input_shapes": pa.list_(shape), "input_dtypes": pa.list_(pa.string()), "is_kernel": pa.bool_()}
    return pa.schema([pa.field(name, types.get(name, pa.string())) for name in column_names(NodeRow)])


def ir_call_schema():
    """IrCallRow's fields as Arrow types, those of the ir_calls columns (schema/0001, 0002)."""
    import pyarrow as pa

    shapes = pa.list_(pa.list_(pa.int32()))
    texts = pa.list_(pa.string())
    types = {"call_index": pa.int32(), "line_no": pa.int32(), "arg_kinds": texts, "arg_dtypes": texts,
             "result_dtypes": texts, "arg_shapes": shapes, "result_shapes": shapes,
             "out_shape_logical": pa.list_(pa.int32())}
    return pa.schema([pa.field(name, types.get(name, pa.string())) for name in column_names(IrCallRow)])


def record_schema():
    """TuningRecordRow's fields as Arrow types, those of the tuning_records columns (schema/0001)."""
    import pyarrow as pa

    types = {"line_no": pa.int32(), "task_index": pa.int32(), "config_index": pa.int64(), "costs_s": pa.list_(pa.float64()),
             "error_no": pa.int32(), "all_cost_s": pa.float64(), "timestamp": pa.float64()}
    return pa.schema([pa.field(name, types.get(name, pa.string())) for name in column_names(TuningRecordRow)])


def node_frame(source, rows: list[NodeRow]):
    """NodeRows as one Arrow table (node_schema())."""
    return row_frame(source, rows, node_schema())


class NodeList(ArrowRows):
    """A profile's nodes, kept as Arrow while read (node_schema()); a reader of tables of
    any size (debug_table.py) spills those beyond `spill_bytes`."""

    def __init__(self, source, spill_bytes: int | None = None) -> None:
        super().__init__(source, NodeRow, node_schema())
        if spill_bytes is not None:
            self.SPILL_BYTES = spill_bytes


class SampleList(ArrowRows):
    """A profile's repeated measurements as a table prints them, a row's list after the
    other (Measurements(us)): as Arrow, beyond SPILL_BYTES in a file. 16 bytes a sample
    as Arrow, ~100 as a SampleRow."""

    SPILL_BYTES = 32 * 2**20

    def __init__(self, source) -> None:
        super().__init__(source, SampleRow, sample_schema())


def sample_schema():
    """SampleRow's fields as Arrow types, those of the node_samples columns (schema/0001)."""
    import pyarrow as pa

    return pa.schema([("node_index", pa.int32()), ("sample_index", pa.int32()), ("time_us", pa.float64())])


class IrCallList(ArrowRows):
    """A model's IR calls, kept as Arrow while read (ir_call_schema()), spilled beyond
    SPILL_BYTES: a GiB of Relay text holds millions of calls, ~0.15 KB each as Arrow, more
    than an input may take. Read (`frames`) once every call is appended."""

    SPILL_BYTES = 32 * 2**20

    def __init__(self, source) -> None:
        super().__init__(source, IrCallRow, ir_call_schema())
        self._external: dict[str, str] = {}

    def fill_compilers(self, external: dict[str, str]) -> None:
        """Set the compiler of each call of a BYOC function (`external`: its name and
        compiler) that was defined after the call was read (as the rows are given)."""
        self._external = dict(external)

    def _finish(self, frame):
        frame = super()._finish(frame)
        if not self._external:
            return frame
        import pyarrow as pa
        import pyarrow.compute as pc

        names = pa.array(list(self._external), type=pa.string())
        compilers = pa.array(list(self._external.values()), type=pa.string())
        at = self._schema.get_field_index("compiler")
        return frame.set_column(at, "compiler", pc.coalesce(frame["compiler"], pc.take(
            compilers, pc.index_in(frame["primfunc"], value_set=names))))


class RecordList(ArrowRows):
    """A tuning log's records, kept as Arrow while read (record_schema()), spilled beyond
    SPILL_BYTES: each keeps its line (`raw_line`), so a GiB of log is a GiB of records.
    Smaller chunks than other rows: a record held as Python objects is ~1.5 KB."""

    CHUNK = 8192
    SPILL_BYTES = 32 * 2**20

    def __init__(self, source) -> None:
        super().__init__(source, TuningRecordRow, record_schema())


class Samples:
    """Repeated measurements of a profile's nodes, appended per node key as read: 8 bytes a
    sample in array('d'), not a SampleRow's ~100. Beyond SPILL_AFTER samples held they go
    to an anonymous temporary file (a 1 GiB debug log holds ~22 million: 170 MiB that
    grew with the file). Stored as Arrow tables of at most CHUNK rows, node by node in
    order, made when the loader asks, once `number` has given each key its node index."""

    CHUNK = 2**20
    SPILL_AFTER = 2**21

    def __init__(self) -> None:
        self._times: dict = {}  # key -> array('d') of the samples not yet spilled
        self._spilled: dict = {}  # key -> [(file offset, count)]
        self._totals: dict = {}  # key -> (count, sum) of the spilled samples
        self._held = 0
        self._file = None
        self._index: dict = {}  # key -> node index

    def append(self, key, time_us: float) -> None:
        times = self._times.get(key)
        if times is None:
            times = self._times[key] = array("d")
        times.append(time_us)
        self._held += 1
        if self._held >= self.SPILL_AFTER:
            self._spill()

    def _spill(self) -> None:
        import tempfile

        if self._file is None:
            self._file = tempfile.TemporaryFile()
        self._file.seek(0, 2)
        for key, times in self._times.items():
            self._spilled.setdefault(key, []).append((self._file.tell(), len(times)))
            count, total = self._totals.get(key, (0, 0.0))
            self._totals[key] = (count + len(times), sum(times, total))  # in order: the sum a whole array gives
            self._file.write(times.tobytes())
            self._times[key] = array("d")
        self._held = 0

    def mean(self, key) -> float:
        count, total = self._totals.get(key, (0, 0.0))
        times = self._times.get(key, ())
        return sum(times, total) / (count + len(times))

    def number(self, index: dict) -> None:
        """Each key's node index (keys not in `index` are not stored)."""
        self._index = dict(index)

    def _parts(self, key):
        """A key's samples as arrays, in the order read."""
        for offset, count in self._spilled.get(key, ()):
            self._file.seek(offset)
            part = array("d")
            part.frombytes(self._file.read(count * 8))
            yield part
        if self._times.get(key):
            yield self._times[key]

    def _nodes(self):
        """(node index, its samples as arrays) in node order."""
        for key, node_index in sorted(self._index.items(), key=lambda item: item[1]):
            yield node_index, self._parts(key)

    def __len__(self) -> int:
        return sum(self._totals.get(key, (0, 0.0))[0] + len(self._times.get(key, ())) for key in self._index)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self):
        for node_index, parts in self._nodes():
            k = 0
            for part in parts:
                for t in part:
                    yield SampleRow(node_index, k, t)
                    k += 1

    def __getitem__(self, index):
        return list(self)[index]

    def frames(self):
        import pyarrow as pa

        for node_index, parts in self._nodes():
            start = 0
            for times in parts:
                for at in range(0, len(times), self.CHUNK):
                    part = times[at:at + self.CHUNK]
                    yield pa.table({"node_index": pa.repeat(pa.scalar(node_index, pa.int32()), len(part)),
                                    "sample_index": pa.array(range(start, start + len(part)), type=pa.int32()),
                                    "time_us": pa.Array.from_buffers(pa.float64(), len(part), [None, pa.py_buffer(part)])})
                    start += len(part)


@dataclass
class NodeTable:
    """A profile too large to hold as NodeRows, as its reader left it: the per-call columns
    in a Parquet file (node_index, signature, time_us, calls, device, line_no; file order),
    and one node per distinct signature, in order of first call (`signatures`, Arrow: a
    report whose every call is a kernel of its own holds as many as calls), each keyed by
    the signature number its calls carry (`numbers`, in the same order). A description of
    where the rows are, not an open connection: the loader reads the file, and removes it
    (ingest/profile/report/streamed_csv.py writes it)."""

    calls_path: Path
    signatures: NodeList
    numbers: Sequence[int]  # a range where signatures are numbered by position
    count: int
    devices: list[str] = field(default_factory=list)
    reported_total_us: float | None = None  # the devices' totals, when the report gives them


def handed_over(description, write, prefix: str):
    """`description` (a NodeTable's, a NodeFile's kind) of the file `write(path)` makes in a
    new temporary folder: the loader reads it; the folder goes once the description does
    (the loader is done with it, or never came)."""
    import shutil
    import tempfile
    import weakref

    folder = Path(tempfile.mkdtemp(prefix=prefix))
    path = folder / "rows.parquet"
    try:
        write(path)
        made = description(path)
    except BaseException:
        shutil.rmtree(folder, True)
        raise
    weakref.finalize(made, shutil.rmtree, folder, True)
    return made


@dataclass
class NodeFile:
    """A large graph's kernel nodes as whole rows (node_schema()'s columns) in a Parquet
    file its reader wrote, in node order: a run's nodes, and the same rows as the source's
    graph nodes (GraphNodeRow's columns are among them). Each row also carries its stored
    signature's number (`signature_id`, 0, 1, ... in order of first node) and whether it
    is that signature's first (`first`). A description, like NodeTable: the loader reads
    the file (ingest/profile/debug_dump_duckdb.py writes it)."""

    path: Path
    count: int
