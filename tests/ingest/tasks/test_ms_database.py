"""Relax TVMScript, MetaSchedule databases and Relax VM profiles matched by argument shapes."""

from __future__ import annotations

import json

from helpers import DATA, parse, table_counts


def relax_vm_report(path):
    """A Relax VM profile of tests/data/relax/small_convnet.fused.relax.py as Report.json()
    writes it (PrimFunc names, VM builtins, Argument Shapes inputs then output)."""
    calls = [
        ("vm.builtin.check_tensor_info", "float32[1, 3, 8, 8]", 0.4),
        ("reshape", "float32[16], float32[1, 16, 1, 1]", 1.1),
        ("fused_conv2d_add_relu", "float32[1, 3, 8, 8], float32[16, 3, 3, 3], float32[1, 16, 1, 1], float32[1, 16, 8, 8]", 31.5),
        ("reshape", "float32[16], float32[1, 16, 1, 1]", 1.0),
        ("fused_conv2d1_add_relu", "float32[1, 16, 8, 8], float32[16, 16, 3, 3], float32[1, 16, 1, 1], float32[1, 16, 8, 8]", 142.25),
        ("reshape1", "float32[1, 16, 8, 8], float32[1, 1024]", 2.0),
        ("transpose", "float32[10, 1024], float32[1024, 10]", 9.75),
        ("fused_matmul_add1", "float32[1, 1024], float32[1024, 10], float32[10], float32[1, 10]", 12.5),
    ]
    body = ",".join('{"Name":{"string":"%s"},"Duration (us)":{"microseconds":%.17f},"Count":{"count":1},'
                    '"Device":{"string":"cpu0"},"Argument Shapes":{"string":"%s"}}' % (n, t, a) for n, a, t in calls)
    path.write_text('{"calls":[%s],"device_metrics":{},"configuration":{"Executor":{"string":"VM"}}}' % body)
    return path


def test_metaschedule_database_folder():
    name, parsed = parse(DATA / "ms-database/small_convnet")
    assert name == "ms-database"
    lines = (DATA / "ms-database/small_convnet/database_workload.json").read_text().splitlines()
    records = (DATA / "ms-database/small_convnet/database_tuning_record.json").read_text().splitlines()
    assert len(parsed.tasks) == len(lines) and len(parsed.records) == len(records)
    task = parsed.tasks[0]
    assert task.task_name == json.loads(lines[0])[0] == task.structural_hash
    assert task.op_family == "conv2d" and task.variant == "conv2d_nchw"
    assert json.loads(task.task_args)[1] == ["TENSOR", [16, 3, 3, 3], "float32"]
    first = json.loads(records[0])[1]
    assert parsed.records[0].costs_s == first[1] and json.loads(task.target)["kind"] == "llvm"


def test_malformed_metaschedule_database(cli, db, tmp_path, vgg16):
    cli("ingest", vgg16["table"], "--model", "m")
    before = table_counts(db)
    folder = tmp_path / "db"
    folder.mkdir()
    src = DATA / "ms-database/small_convnet"
    (folder / "database_workload.json").write_text((src / "database_workload.json").read_text())
    (folder / "database_tuning_record.json").write_text('[7, [[], [1e-5], null, null]]\n')
    result = cli("ingest", folder, "--model", "m")
    assert result.code == 1 and "database_tuning_record.json:1" in result.err and "workload index 7" in result.err
    assert table_counts(db) == before
