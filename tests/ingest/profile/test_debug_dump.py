"""Debug dump folders and graph JSON: input shapes make every match exact (rule 2)."""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import DATA, check_all_exact, table_counts

BUILD = DATA / "debug-dump/vgg16"
DUMP = BUILD / "tvmdbg_vgg16"


def drop_last_event(path):
    trace = json.loads(path.read_text())
    trace["traceEvents"].pop()
    path.write_text(json.dumps(trace))


def huge_kernel_shape(path):
    """A kernel's output shape beyond any INTEGER: no reader checks it, the loader must."""
    graph = json.loads(path.read_text())
    kernel = next(n for n in graph["nodes"] if n["op"] not in ("param", "null"))
    kernel["shape"] = [3000000000, *kernel["shape"][1:]]
    path.write_text(json.dumps(graph))


def test_dump_folder_alone_matches_every_conv_and_dense_by_input_shapes(cli, vgg16):
    result = cli("ingest", DUMP, vgg16["relay"], vgg16["tasks"], "--model", "vgg16")
    assert result.code == 0 and "debug-dump" in result.err
    check_all_exact(cli, BUILD / "vgg16.truth.json")
    runs = cli("runs", "-f", "json").json()
    assert runs[0]["nodes"] == 26 and runs[0]["device"] == "CPU_0"


def test_dump_and_printed_table_of_one_run_join(cli, vgg16):
    result = cli("ingest", BUILD / "vgg16.debug_table.txt", DUMP, vgg16["relay"], vgg16["tasks"], "--model", "vgg16")
    assert result.code == 0
    runs = cli("runs", "-f", "json").json()
    assert len(runs) == 1 and runs[0]["profile_variant"] == "with Measurements(us)"
    check_all_exact(cli, BUILD / "vgg16.truth.json")


def test_tasks_only_with_shapes_still_exact(cli, vgg16):
    cli("ingest", DUMP, vgg16["tasks"], "--model", "vgg16")
    check_all_exact(cli, BUILD / "vgg16.truth.json")


def test_tvm06_string_literal_dump(cli, tmp_path, vgg16):
    old = tmp_path / "tvmdbg_x" / "_tvmdbg_ctx_CPU_0"
    old.mkdir(parents=True)
    src = DUMP / "_tvmdbg_device_CPU_0"
    (old / "_tvmdbg_graph_dump.json").write_text(json.dumps((src / "_tvmdbg_graph_dump.json").read_text()))
    shutil.copy(src / "_tvmdbg_execution_trace.json", old)
    assert cli("ingest", tmp_path / "tvmdbg_x", vgg16["relay"], "--model", "old").code == 0
    assert cli("runs", "-f", "json").json()[0]["device"] == "CPU_0"


@pytest.mark.parametrize("damage, message", [
    (lambda d: huge_kernel_shape(d / "_tvmdbg_graph_dump.json"), "[out_shape of row 1]: expected integers below 2^31, found [3000000000,"),
    (lambda d: drop_last_event(d / "_tvmdbg_execution_trace.json"), "never end"),
    (lambda d: (d / "_tvmdbg_execution_trace.json").write_text((d / "_tvmdbg_execution_trace.json").read_text()[:-200]), "trace.json:1: expected JSON"),
    (lambda d: (d / "_tvmdbg_graph_dump.json").write_text("{\"nodes\": [oops"), "_tvmdbg_graph_dump.json:1"),
    (lambda d: (d / "_tvmdbg_execution_trace.json").unlink(), "no _tvmdbg_execution_trace.json"),
])
def test_damaged_dumps(cli, db, tmp_path, vgg16, damage, message):
    cli("ingest", vgg16["table"], "--model", "m")
    before = table_counts(db)
    folder = tmp_path / "dump"
    shutil.copytree(DUMP / "_tvmdbg_device_CPU_0", folder)
    damage(folder)
    result = cli("ingest", folder, "--model", "m")
    assert result.code == 1 and message in result.err.replace("\n", "") and "Traceback" not in result.err
    assert table_counts(db) == before
