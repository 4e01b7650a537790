"""Rows kept as Arrow while a reader appends them, spilled to a file beyond a bound: the
base of rows.NodeList, IrCallList and RecordList, and how rows become an Arrow table
(a value no column can hold named on its line)."""

from __future__ import annotations

from collections.abc import Sequence


def row_frame(source, rows: list, schema, among: list | None = None):
    """Rows as one Arrow table of `schema`; a value no column can hold is the source's
    error, on its row's line (else its index among `among`, the rows these are part of)."""
    import pyarrow as pa

    try:
        return pa.table({name: [getattr(row, name) for row in rows] for name in schema.names}, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        raise unstorable(source, rows if among is None else among, schema) from None


_KINDS = {"int32": "integers below 2^31", "int64": "integers below 2^63", "double": "numbers", "string": "text"}


def unstorable(source, rows: list, schema) -> Exception:
    """The first value a column cannot hold (a parser let through a shape or count beyond
    its column's range), said where it was read: the row's line, else its index."""
    import pyarrow as pa

    for column in schema:
        values = [getattr(row, column.name) for row in rows]
        try:
            pa.array(values, type=column.type)
            continue
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            pass
        for index, value in enumerate(values):
            try:
                pa.array([value], type=column.type)
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
                element = column.type
                while pa.types.is_list(element):
                    element = element.value_type
                line = getattr(rows[index], "line_no", None)
                return source.error(line, f"expected {_KINDS.get(str(element), str(element))}, found {value!r}",
                                    field=column.name if line is not None else f"{column.name} of row {index + 1}")
    return RuntimeError("rows could not be converted to Arrow, but every value converts alone")


class ArrowRows(Sequence):
    """Rows as a reader appends them, kept as Arrow tables of CHUNK rows: a NodeRow costs
    ~1 KB as Python objects and ~0.1 KB as Arrow, so a table of a million distinct kernels,
    or the IR calls of a streamed Relay text, stay within the memory an input may take
    (limits.py). A class with SPILL_BYTES writes its tables, once they hold more than that,
    to an anonymous temporary Parquet file (gone once closed), each chunk as it fills from
    then on: the rows of a streamed file, however many, cost one chunk. Appended rows are
    final: iterating yields copies."""

    CHUNK = 32768
    SPILL_BYTES: int | None = None  # None: every table stays in memory

    def __init__(self, source, row_class, schema) -> None:
        self._source = source
        self._row_class = row_class
        self._schema = schema
        self._frames: list = []
        self._held = 0  # bytes of self._frames
        self._framed = 0
        self._rows: list = []
        self._spilled: list = []  # complete Parquet files, in order
        self._writer = None  # (file, ParquetWriter) of the file being written
        self._mapped: dict = {}

    def append(self, row) -> None:
        self._rows.append(row)
        if len(self._rows) >= self.CHUNK:
            self._flush()

    def extend(self, rows) -> None:
        for row in rows:
            self.append(row)

    @property
    def spilled(self) -> bool:
        """Whether rows went to a file (then `frames` reads them back from it)."""
        return bool(self._spilled) or self._writer is not None

    def _flush(self) -> None:
        if self._rows:
            frame = row_frame(self._source, self._rows, self._schema)
            self._frames.append(frame)
            self._held += frame.nbytes
            self._framed += len(self._rows)
            self._rows = []
        if self._frames and self.SPILL_BYTES is not None and (self._writer is not None or self._held > self.SPILL_BYTES):
            self._spill()

    def _spill(self) -> None:
        import tempfile

        import pyarrow.parquet as pq

        if self._writer is None:
            file = tempfile.TemporaryFile()
            self._writer = (file, pq.ParquetWriter(file, self._schema))
        for frame in self._frames:
            self._writer[1].write_table(frame)
        self._frames, self._held = [], 0

    def frames(self):
        """The rows as Arrow tables of at most CHUNK rows each, in order (the loader inserts
        them so): those spilled read back from their files, then those held."""
        self._flush()
        if self._writer is not None:  # what is read is complete: rows appended later begin another file
            file, writer = self._writer
            writer.close()
            self._spilled.append(file)
            self._writer = None
        return self._frames_of(list(self._spilled), list(self._frames))

    def _frames_of(self, files: list, held: list):
        import pyarrow.parquet as pq

        for file in files:
            file.seek(0)
            spilled = pq.ParquetFile(file)
            for group in range(spilled.num_row_groups):
                yield self._finish(spilled.read_row_group(group))
        for frame in held:
            yield self._finish(frame)

    def map_column(self, name: str, function) -> None:
        """Have `frames` give each value v of column `name` as function(v), worked out once
        per distinct value of a frame (the loader's normal form of a target)."""
        self._mapped[name] = function

    def _finish(self, frame):
        """A frame as `frames` gives it: its mapped columns mapped."""
        if not self._mapped:
            return frame
        import pyarrow as pa
        import pyarrow.compute as pc

        for name, function in self._mapped.items():
            at = frame.schema.get_field_index(name)
            values = frame.column(at)
            distinct = pc.unique(values)
            mapped = pa.array([function(v) for v in distinct.to_pylist()], type=values.type)
            frame = frame.set_column(at, name, pc.take(mapped, pc.index_in(values, value_set=distinct)))
        return frame

    def frame(self):
        """Every row as one Arrow table."""
        import pyarrow as pa

        frames = list(self.frames())
        return pa.concat_tables(frames) if frames else row_frame(self._source, [], self._schema)

    def __len__(self) -> int:
        return self._framed + len(self._rows)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self):
        for frame in self.frames():
            for values in frame.to_pylist():
                yield self._row_class(**values)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return list(self)[index]
        index = range(len(self))[index]  # IndexError beyond the end
        for frame in self.frames():
            if index < len(frame):
                return self._row_class(**frame.slice(index, 1).to_pylist()[0])
            index -= len(frame)
        raise IndexError(index)
