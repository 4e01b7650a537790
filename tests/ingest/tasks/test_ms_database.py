"""MetaSchedule JSON database folders: tasks, records, and what a bad one says."""

from __future__ import annotations

import json

from helpers import DATA, parse, table_counts


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
