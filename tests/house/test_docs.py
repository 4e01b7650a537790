"""Every command and snippet in the docs is run by a test (sqlite-utils' tests/test_docs.py
in spirit): each runnable block of README.md and docs/*.md is listed here with the test
that runs it, and a block added without one fails. Output blocks (`text`) are produced by
`python -m hotdb.cli.docs` and checked by tests/cli/test_conventions.py and
tests/house/test_readme.py; docs/commands.md is generated from the command line itself."""

from __future__ import annotations

import re

import pytest
from helpers import ROOT

# docs/devices.md runs top to bottom as one test (its apt-get line: .ci/run installs the compiler)
DEVICES = "tests/tune/test_tune_rpc.py::test_docs_devices_md_runs_as_written"

# (page, the block's language and first line) -> the test that runs it, as path::function
RUN_BY = {
    ("README.md", "sh", "pip install . && hotdb profile resnet18"): "tests/house/test_readme.py::test_the_main_job_prints_what_the_readme_shows",
    ("README.md", "sh", "pip install '.[test]' && python -m pytest"): ".ci/run",
    ("README.md", "python", "from hotdb import Hotdb"): "tests/house/test_readme.py::test_the_readme_python_snippet_runs",
    ("docs/tuning.md", "python", "import tvm"): "tests/tune/test_tune.py::test_the_export_is_what_metaschedule_takes_as_the_docs_show",
    ("docs/tuning.md", "python", "import json"): "tests/tune/test_tune.py::test_the_export_is_what_metaschedule_takes_as_the_docs_show",
    ("docs/tuning.md", "python", "with target, tvm.transform.PassContext(opt_level=3):"): "tests/tune/test_tune.py::test_the_export_is_what_metaschedule_takes_as_the_docs_show",
    ("docs/lake.md", "python", 'for table in ("runs", "node_calls", "node_signatures", "kernel_match_results"):'): "tests/store/test_lake_spark.py::test_spark_sql_coverage_over_the_lake_agrees_with_hotdb",
    ("docs/lake.md", "sql", "SELECT * FROM node_calls WHERE lake_commit IN (SELECT commit_id FROM _commits)"): "tests/store/test_lake.py::test_plain_duckdb_and_deltalake_read_the_lake_while_a_writer_adds_to_it",
    ("docs/lake.md", "sql spark-coverage", "WITH matches AS ("): "tests/store/test_lake.py::test_the_documented_coverage_query_over_the_plain_export_agrees_with_top",
    ("docs/devices.md", "sh", "python -m tvm.exec.rpc_tracker --host 127.0.0.1 --port 9190 --port-end 9191 &"): DEVICES,
    ("docs/devices.md", "sh", "hotdb devices --rpc 127.0.0.1:9190"): DEVICES,
    ("docs/devices.md", "sh", "export HOTDB_RPC=127.0.0.1:9190 HOTDB_RPC_KEY=rasp4"): DEVICES,
    ("docs/devices.md", "sh", "hotdb tune mlp --trials 8 --rounds 1"): DEVICES,
    ("docs/devices.md", "sh", "apt-get install gcc-aarch64-linux-gnu"): DEVICES,
    ("docs/devices.md", "sh", "hotdb profile mlp --target raspberry-pi/4b-aarch64"): DEVICES,
    ("docs/devices.md", "sh", "python -m tvm.exec.rpc_server --tracker 127.0.0.1:9190 --key h100 --host 127.0.0.1 --port 9200 --port-end 9209 &"): DEVICES,
    ("docs/devices.md", "sh", "export HOTDB_CC=$ANDROID_NDK_HOME/toolchains/llvm/prebuilt/linux-x86_64/bin/aarch64-linux-android28-clang++"): DEVICES,
    ("docs/contributing.md", "sh", "pip install -e '.[test]' && python -m pytest   # the whole suite (15-20 min; -m \"not slow\" skips TVM)"): ".ci/run",
}
RUNNABLE = ("python", "sh", "sql")


def _blocks() -> list[tuple[str, str, str]]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = []
    for page in pages:
        for language, body in re.findall(r"^```([^\n`]*)\n(.*?)^```", page.read_text(), re.M | re.S):
            if language.split(" ")[0] in RUNNABLE:
                found.append((str(page.relative_to(ROOT)), language, body.strip().splitlines()[0]))
    return found


def test_every_runnable_block_of_the_docs_is_run_by_a_test():
    assert sorted(_blocks()) == sorted(RUN_BY), "a snippet was added or changed: run it in a test, and list it here"


@pytest.mark.parametrize("where", sorted(set(RUN_BY.values())))
def test_the_tests_named_exist(where):
    path, _, function = where.partition("::")
    text = (ROOT / path).read_text()
    assert not function or re.search(rf"^def {re.escape(function)}\(", text, re.M), where
    if path == ".ci/run":  # the README's and contributing's test command, as CI runs it
        assert "pip install '.[test]' && python -m pytest" in text
