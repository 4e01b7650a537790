"""The debug dump reader pairs B/E events in SQL (queries/read/dump_pairs.sql and the
files after it): held here to the Python reader it replaced, on generated traces with
nested, interleaved, repeated and broken events."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
from helpers import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hotdb.errors import ParseError
from hotdb.ingest.profile.debug_dump import DebugDump
from hotdb.ingest.source import Source

NAMES = ("a", "b", "c", "w")  # w: a param, run with the kernels as TVM's trace runs params


def python_pairs(events: list) -> list[tuple[str, float, float]] | str:
    """The pairing of the Python reader this replaces (hotdb 2026-12-03, debug_dump._durations):
    (node, begin, duration) in order of the ends, or the message of its first error."""
    open_events: dict[str, float] = {}
    out = []
    for event in events:
        name, phase, ts = event["name"], event["ph"], float(event["ts"])
        if phase == "B":
            open_events[name] = ts
        elif phase == "E":
            if name not in open_events:
                return f"end event of {name!r} without a begin"
            begin = open_events.pop(name)
            if ts < begin:
                return f"node {name!r} ends before it begins"
            out.append((name, begin, ts - begin))
    if open_events:
        return f"{len(open_events)} events never end (truncated trace?), e.g. {next(iter(open_events))!r}"
    return [pair for pair in out if pair[0] != "w"] or "the trace has no kernel events"


def write_dump(folder: Path, events: list) -> None:
    nodes = [{"op": "param", "name": "w", "inputs": [], "attrs": {"T": "type: float32"}, "shape": [4, 4]}]
    nodes += [{"op": f"tvmgen_default_fused_nn_dense_{name}", "name": name, "inputs": ["w"], "shape": [1, 4],
               "attrs": {"func_name": f"tvmgen_default_fused_nn_dense_{name}", "T": "type: float32"}}
              for name in NAMES if name != "w"]
    folder.mkdir(parents=True)
    (folder / "_tvmdbg_graph_dump.json").write_text(json.dumps({"nodes": nodes}))
    (folder / "_tvmdbg_execution_trace.json").write_text(json.dumps({"traceEvents": events}))


def read_pairs(folder: Path) -> list[tuple[str, float, float]] | str:
    try:
        parsed = DebugDump().parse(Source.read(folder))
    except ParseError as exc:
        return exc.message
    rows = pq.read_table(parsed.node_file.path).to_pylist()
    assert [r["node_index"] for r in rows] == list(range(len(rows)))
    assert all(r["input_shapes"] == [[4, 4]] for r in rows)
    return [(r["node_name"], r["start_us"], r["time_us"]) for r in rows]


event = st.fixed_dictionaries({"name": st.sampled_from(NAMES), "ph": st.sampled_from("BBEEX"),
                               "ts": st.integers(0, 50)})


def closed(events: list) -> list:
    """Events in time order with every begun node ended: most generated traces are valid."""
    events = sorted(events, key=lambda e: e["ts"])
    ts = max((e["ts"] for e in events), default=0)
    return events + [{"name": name, "ph": "E", "ts": ts + 1} for name in NAMES]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(event, max_size=14), tidy=st.booleans())
def test_sql_pairing_is_the_python_pairing(events, tidy):
    if tidy:
        events = closed(events)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "_tvmdbg_device_CPU_0"
        write_dump(folder, events)
        assert read_pairs(folder) == python_pairs(events)


def test_a_trace_run_twice_stores_each_node_once_with_two_calls(cli, tmp_path):
    """Calls of one node share its stored signature (kernel and node name)."""
    src = DATA / "debug-dump/vgg16/tvmdbg_vgg16/_tvmdbg_device_CPU_0"
    folder = tmp_path / "_tvmdbg_device_CPU_0"
    shutil.copytree(src, folder)
    trace = json.loads((folder / "_tvmdbg_execution_trace.json").read_text())
    end = max(e["ts"] for e in trace["traceEvents"])
    trace["traceEvents"] += [dict(e, ts=e["ts"] + end + 1) for e in trace["traceEvents"]]
    (folder / "_tvmdbg_execution_trace.json").write_text(json.dumps(trace))
    assert cli("ingest", folder, "--model", "m").code == 0
    counts = cli("sql", "SELECT (SELECT count(*) FROM node_signatures) AS signatures, "
                        "(SELECT count(*) FROM node_calls) AS calls, (SELECT count(*) FROM graph_nodes) AS graph",
                 "-f", "json").json()
    assert counts == [{"signatures": 26, "calls": 52, "graph": 52}]


DUMP = DATA / "debug-dump/vgg16/tvmdbg_vgg16/_tvmdbg_device_CPU_0"
edit = st.tuples(st.floats(0, 1), st.integers(0, 20),
                 st.sampled_from([b"", b'"x"', b"null", b"1e400", b"[]", b"{}", b"-1", b"3000000000", b"]", b","]))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(member=st.sampled_from(["_tvmdbg_graph_dump.json", "_tvmdbg_execution_trace.json"]),
       edits=st.lists(edit, min_size=1, max_size=3))
def test_damaged_dumps_are_parse_errors(member, edits):
    """Whatever DuckDB makes of a damaged file, the reader says it as a ParseError."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "_tvmdbg_device_CPU_0"
        shutil.copytree(DUMP, folder)
        data = bytearray((folder / member).read_bytes())
        for where, cut, text in edits:
            at = int(where * len(data))
            data[at:at + cut] = text
        (folder / member).write_bytes(bytes(data))
        try:
            DebugDump().parse(Source.read(folder))
        except ParseError:
            pass
