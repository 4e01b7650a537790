"""A Report .json() too large to hold (HOTDB_STREAM_BYTES), streamed: its calls decoded one
by one from the file (json_stream.py), in memory that does not grow with a model's calls.

A report is one JSON object, `{"calls": [...], "device_metrics": {...}, "configuration":
{...}}`; several appended to one file are read in turn, their calls in file order (the
first object's device totals count, as when DuckDB read them). Each call is checked as
the row-by-row reader checks it (profile_report.py: its words, the call named for the
line JSON calls do not have), and keyed by its signature (Name, Argument Shapes, Hash,
layouts): a call of a signature seen before becomes four numbers (signature, time,
count, device), written in batches to the Parquet file the loader reads, as the bulk CSV
reader's (streamed_csv.py); a new signature's first call is canonicalised once (`make_node`).
The signatures are told apart by a 64-bit hash of their values, as DuckDB's `hash` told
them apart before: a model's few hundred, or a million distinct kernels, each a number.

DuckDB's JSON readers held the document whole (1,047 MiB at 80 MiB of distinct kernels,
bench/README.md); Python's decoder, a call at a time, is as fast as they were.
"""

from __future__ import annotations

from hotdb import limits
from hotdb.ingest.lines import encoding_of
from hotdb.ingest.profile.report.device_totals import device_totals, rest_nodes
from hotdb.ingest.profile.report.json_stream import JsonStream
from hotdb.ingest.profile.report.values import METRIC_KEYS, count_of, metric_text, time_of
from hotdb.ingest.source import Source
from hotdb.rows import INT32_MAX, NodeList, NodeTable, handed_over

NOT_A_REPORT = 'expected {"calls": [...], "device_metrics": {...}}'  # the row-by-row reader's words
BATCH = 1 << 16  # calls a Parquet row group holds
_INF = float("inf")
_ABSENT = object()
# what a call's member is: part of its signature, its time, count or device, or neither (Percent, counters)
_SKIP, _KEYED, _TIME, _COUNT, _DEVICE = range(5)


def read_report_json(source: Source, make_node) -> NodeTable:
    """The report's calls as a NodeTable. make_node(line_no, call dict) builds the NodeRow
    of one call (the row-by-row reader's), here once per signature."""
    read: dict = {}

    def write(path) -> None:
        with _CallFile(source, make_node, path) as calls:
            totals = _walk(source, calls)
            read.update(calls.finish(totals), reported_total_us=sum(totals.values()) if totals else None)

    return handed_over(lambda path: NodeTable(path, **read), write, "hotdb-calls-")


def _walk(source: Source, calls: "_CallFile") -> dict[str, float]:
    """Every report object of the file, its calls given to `calls`; the first's device totals."""
    stream = JsonStream(source._chunks(), encoding_of(source.data), source.error, limits.max_line_bytes(),
                        what="a Report JSON object")
    totals, objects, listed = {}, 0, False
    while stream.peek():
        if stream.peek() != "{":
            if not objects:
                raise source.error(None, NOT_A_REPORT, field="calls")
            raise stream.fail(stream.pos, "Extra data")  # as json.loads says it: no report object starts here
        stream.pos += 1
        if stream.peek() == "}":
            stream.pos += 1
            objects += 1
            continue
        while True:
            name = stream.key()
            if name == "calls":
                if stream.peek() != "[":
                    stream.value()  # a JSON error first, as the row reader's
                    raise source.error(None, NOT_A_REPORT, field="calls")
                stream.pos += 1
                calls.add(stream.items())
                listed = True
            else:
                value = stream.value()
                if name == "device_metrics" and not objects:
                    totals = device_totals(value)
            if stream.take(",}", "Expecting ',' delimiter") == "}":
                break
        objects += 1
    if not listed:
        raise source.error(None, NOT_A_REPORT, field="calls")
    return totals


def _role(name: str) -> int:
    if name in ("Name", "Argument Shapes", "Hash") or "layout" in name:
        return _KEYED
    return {"Duration (us)": _TIME, "Count": _COUNT, "Device": _DEVICE}.get(name, _SKIP)


class _CallFile:
    """The calls as read: each signature's number (in order of first call) and NodeRow,
    and every call's numbers, written to `path` a batch at a time."""

    def __init__(self, source: Source, make_node, path) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._source, self._make_node, self._pa = source, make_node, pa
        self._schema = pa.schema([("node_index", pa.int32()), ("signature", pa.uint64()), ("time_us", pa.float64()),
                                  ("calls", pa.int32()), ("device", pa.string()), ("line_no", pa.int32())])
        self._writer = pq.ParquetWriter(str(path), self._schema)
        self.signatures = NodeList(source)
        self._numbers: dict[int, int] = {}  # a signature's hash -> its number
        self._roles: dict[str, int] = {}
        self._by_device: dict[str | None, float] = {}  # time listed per device, in file order (as the row reader sums)
        self.count = 0
        self._batch: tuple[list, list, list, list] = ([], [], [], [])

    def __enter__(self) -> "_CallFile":
        return self

    def __exit__(self, *exc) -> None:
        self._writer.close()

    def add(self, calls) -> None:
        """Each call of an iterable of decoded call objects."""
        source, roles, by_device = self._source, self._roles, self._by_device
        numbers, ids, times, counts, devices = self._numbers, *self._batch
        for call in calls:
            if type(call) is not dict:
                index = self.count + len(ids)
                raise source.error(None, f"call {index} is not an object", field=f"calls[{index}]")
            keyed, duration, count, device = [], _ABSENT, 1, None
            for name, metric in call.items():
                role = roles.get(name)
                if role is None:
                    role = roles[name] = _role(name)
                if role == _SKIP:
                    continue
                value = metric
                if type(metric) is dict and len(metric) == 1:  # {"microseconds": 12.5} -> 12.5
                    (kind, value), = metric.items()
                    if kind not in METRIC_KEYS:
                        value = metric
                if role == _KEYED:
                    if value is not None:
                        keyed.append((name, value))
                elif role == _TIME:
                    duration = value
                elif role == _COUNT:
                    count = value
                else:
                    device = value
            if duration is _ABSENT:
                index = self.count + len(ids)
                raise source.error(None, f"call {index} has no 'Duration (us)'", field=f"calls[{index}]")
            time_us = duration if type(duration) is float else _INF
            if not 0 <= time_us < _INF:  # anything but a plain number: checked as the row reader checks it
                time_us = time_of(source, None, duration, f"calls[{self.count + len(ids)}]")
            if type(count) is not int or count > INT32_MAX:
                count = count_of(source, None, count, f"calls[{self.count + len(ids)}]")
            if type(device) is not str or not device:
                device = metric_text(device)
            try:  # the members' order is no part of a signature
                key = hash(frozenset(keyed))
            except TypeError:
                key = _unhashable(keyed)
            number = numbers.get(key)
            if number is None:
                number = numbers[key] = len(self.signatures)
                example = dict(keyed)
                example["Duration (us)"] = "0"
                self.signatures.append(self._make_node(None, example))
            ids.append(number)
            times.append(time_us)
            counts.append(count if count > 1 else 1)
            devices.append(device)
            by_device[device] = by_device.get(device, 0.0) + time_us
            if len(ids) == BATCH:
                self._flush()

    def _flush(self) -> None:
        pa = self._pa
        ids, times, counts, devices = self._batch
        if not ids:
            return
        n = len(ids)
        self._writer.write_table(pa.table([
            pa.array(range(self.count, self.count + n), pa.int32()), pa.array(ids, pa.uint64()),
            pa.array(times, pa.float64()), pa.array(counts, pa.int32()), pa.array(devices, pa.string()),
            pa.nulls(n, pa.int32())], schema=self._schema))
        self.count += n
        for column in self._batch:
            column.clear()

    def finish(self, totals: dict[str, float]) -> dict:
        """The NodeTable's fields once every call is read: what each device's total holds
        beyond its calls becomes a node of its own (device_totals.py), as in the row reader."""
        ids, times, counts, devices = self._batch
        total = self.count + len(ids)
        if not total:
            raise self._source.error(None, "the report has no calls")
        named = {device for device in self._by_device if device is not None}
        for node in rest_nodes(totals, self._by_device, total, first_index=total):
            ids.append(len(self.signatures))
            self.signatures.append(node)
            times.append(node.time_us)
            counts.append(1)
            devices.append(node.device)
            named.add(node.device)
        self._flush()
        return {"signatures": self.signatures, "numbers": range(len(self.signatures)), "count": self.count,
                "devices": sorted(named)}


def _unhashable(keyed: list[tuple[str, object]]) -> int:
    """The hash of a signature with a value no hash takes (a damaged file's nested object):
    that value's JSON text."""
    import json

    return hash(frozenset((name, json.dumps(value, sort_keys=True)) for name, value in keyed))
