"""The conventions of a command-line tool, held for every command: standard output holds
only the data with -f json|jsonl|csv, usage errors exit 2, global options go before or
after the command, tables fit the terminal one line per row, NO_COLOR and TERM=dumb
give text without escape sequences."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import subprocess
import sys

import pytest
from helpers import DATA, ROOT

from hotdb.cli.app import CompareBy, ExportFormat, hoisted

TVM09_TABLE = DATA / "debug-table" / "vgg16_tvm09" / "vgg16.debug_table.txt"


@pytest.fixture
def two_runs(cli, vgg16):
    assert cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], vgg16["log"], "--model", "vgg16",
               "--run", "a").code == 0
    assert cli("ingest", TVM09_TABLE, "--model", "vgg16", "--run", "b").code == 0
    return cli


def data_commands(cli) -> list[list[str]]:
    workload = cli("top", "-f", "json").json()[0]["workload"]
    return [["top"], ["top", "--by", "node"], ["top", "--by", "op"], ["top", "--coverage", "90"],
            ["top", "--all-models"], ["matches"], ["tasks"], ["runs"], ["models"], ["formats"], ["zoo"],
            ["sql", "SELECT label, tags FROM runs"], ["history", "--workload", workload], ["compare", "a", "b"],
            ["compare", "a", "b", "--by", "node"]]


def rounded(value):
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, list):
        return [rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    return value


def test_data_formats_hold_only_data_on_stdout(two_runs):
    cli = two_runs
    for args in data_commands(cli):
        as_json = cli(*args, "-f", "json")
        assert as_json.code == 0, (args, as_json.err)
        rows = json.loads(as_json.out)  # nothing but the data: no title, note or ingest line
        assert isinstance(rows, list) and rows, args
        lines = cli(*args, "-f", "jsonl").out.splitlines()
        assert rounded([json.loads(line) for line in lines]) == rounded(rows), args  # sums in any order
        table = list(csv.DictReader(io.StringIO(cli(*args, "-f", "csv").out)))
        assert len(table) == len(rows) and list(table[0]) == list(rows[0]), args
    # nested values are JSON values, not JSON in a string
    runs = cli("runs", "-f", "json").json()
    assert isinstance(runs[0]["tags"], dict)
    assert isinstance(cli("top", "-f", "json").json()[0]["task_args"], list)


def test_exports_and_ingests_keep_stdout_for_data(two_runs, vgg16, tmp_path):
    cli = two_runs
    exported = cli("export", "--to", "json")
    assert exported.code == 0 and json.loads(exported.out) and "selected" in exported.err
    log = cli("export", "--to", "autotvm-log")
    assert all(json.loads(line)["input"] for line in log.out.splitlines()) and "records written" in log.err
    ingested = cli("ingest", vgg16["table"], "--model", "other", "--run", "c")
    assert ingested.out == "" and "ingested" in ingested.err
    wrote = cli("report", "--md", tmp_path / "r.md")
    assert wrote.out == "" and "wrote" in wrote.err


def test_an_export_that_selects_nothing_in_its_format_is_refused(two_runs):
    for to in ("ansor-log", "metaschedule"):
        result = two_runs("export", "--to", to)
        assert result.code == 1 and f"nothing to export as {to}" in result.err and result.out == ""
        assert "autotvm" in result.err  # what the selection holds instead


@pytest.mark.parametrize("args", [
    ["top", "--by", "x"], ["top", "-f", "xml"], ["top", "--coverage", "150"], ["top", "--coverage", "nan"],
    ["export", "--to", "foo"], ["compare", "a", "b", "--by", "nodes"], ["compare", "--threshold", "-1"],
    ["ingest", "x.txt", "--input-format", "bogus"], ["sql", ""], ["sql", "  "], ["lake", "compact"],
    ["profile", "mlp", "--repeat", "0"], ["tune", "mlp", "--trials", "0"], ["report"], ["top", "--nope"]])
def test_every_usage_error_exits_2(cli, args):
    result = cli(*args)  # refused before any database is opened
    assert result.code == 2, (args, result.code, result.err)
    assert "Traceback" not in result.err and result.out == ""


def test_choices_are_the_librarys_own():
    from hotdb import choices

    assert [f.value for f in ExportFormat] == list(choices.EXPORT_TO)
    assert [b.value for b in CompareBy] == list(choices.COMPARE_BY)


def test_global_options_before_or_after_the_command(cli, vgg16, db, tmp_path):
    assert cli("ingest", vgg16["table"], "--model", "m", "--db", db, use_db=False).code == 0
    assert cli("top", "--by", "node", "--db", db, "-f", "json", use_db=False).json()
    assert cli("runs", f"--db={db}", "-f", "json", use_db=False).json()
    assert cli("--db", db, "runs", "--debug", "-f", "json", use_db=False).json()
    lake = tmp_path / "lake"
    assert cli("lake", "import", lake, "--db", db, use_db=False).code == 0
    assert cli("runs", "--lake", lake, "-f", "json", use_db=False).json()[0]["run"] == "m-1"
    assert cli("lake", "compact", "--lake", lake, use_db=False).code == 0
    # a value that looks like a global option after `--` is an argument
    assert hoisted(["sql", "--", "--db"]) == ["sql", "--", "--db"]
    assert hoisted(["--db", "x", "top", "--lake", "y", "--debug"]) == ["--db", "x", "--lake", "y", "--debug", "top"]


def _rows_of(out: str, columns: list[str]) -> list[dict[str, str]]:
    """A terminal table read back: each row's cells, its wrapped lines joined (a row starts
    where its first cell is filled)."""
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("┃"))
    bounds = [i for i, ch in enumerate(header) if ch == "┃"]
    names = [header[a + 1:b].strip() for a, b in zip(bounds, bounds[1:])]
    rows: list[dict[str, list[str]]] = []
    for line in lines:
        if not line.startswith("│"):
            continue
        cells = [line[a + 1:b].strip() for a, b in zip(bounds, bounds[1:])]
        if cells[0]:
            rows.append({name: [] for name in names})
        for name, text in zip(names, cells):
            if text:
                rows[-1][name].append(text)
    return [{name: " ".join(parts) for name, parts in row.items()} for row in rows]


@pytest.mark.parametrize("width", [60, 80, 120])
def test_tables_fit_the_terminal_with_names_and_keys_whole(two_runs, monkeypatch, width):
    """Task names and workload keys wrap onto more lines, never cut: read back, each is
    whole. `top` keeps rank, task, workload, share and cumulative at any width, and says
    which columns it hid (the details first: docs/design.md, Output)."""
    cli = two_runs
    rows = cli("top", "-f", "json").json()
    monkeypatch.setenv("COLUMNS", str(width))
    out = cli("top").out
    assert all(len(line) <= width for line in out.splitlines() if line[:1] in "┏┃┡│└")
    shown = _rows_of(out, ["rank", "task_name", "workload", "share_pct", "cumulative_pct"])
    assert len(shown) == len(rows)
    squeeze = lambda text: text.replace(" ", "")  # noqa: E731 (a word folded mid-way loses no character)
    for got, row in zip(shown, rows):
        assert got["rank"] == str(row["rank"]) and squeeze(got["task_name"]) == squeeze(row["task_name"])
        assert squeeze(got["workload"]) == squeeze(row["workload"])
        assert got["share_pct"] == f"{row['share_pct']:.1f}" and got["cumulative_pct"] == f"{row['cumulative_pct']:.1f}"
        if "time_us" in got:
            assert got["time_us"] == f"{row['time_us']:,.1f}"
    hidden = out.split("hidden to fit")[1] if "hidden to fit" in out else ""
    assert "workload_tasks" in hidden and "methods" in hidden
    assert ("time_us" in hidden) == (width < 100)


def test_a_piped_table_takes_its_own_width(two_runs, monkeypatch):
    cli = two_runs
    rows = cli("top", "-f", "json").json()
    monkeypatch.delenv("COLUMNS", raising=False)
    piped = cli("top").out  # no terminal, no COLUMNS: the table's own width, no trailing spaces
    assert all(line == line.rstrip() for line in piped.splitlines())
    assert "hidden to fit" not in piped and all(row["workload"] in piped for row in rows)


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}])
def test_no_color_and_dumb_terminals_get_plain_text(two_runs, db, env):
    """In a real terminal (a pty), where colour and bold would be drawn."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "hotdb", "--db", str(db), "top"], stdout=follower,
                            stderr=follower, env={**os.environ, "TERM": "xterm-256color", **env})
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=60)
    os.close(leader)
    assert proc.returncode == 0 and b"conv2d_NCHWc.x86" in out
    assert b"\x1b[" not in out, out[:200]


def test_version_and_completion():
    version = subprocess.run([sys.executable, "-m", "hotdb", "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0
    names = [line.split()[0] for line in version.stdout.splitlines()]
    assert names == ["hotdb", "duckdb", "apache-tvm", "python"]
    # the script --install-completion writes (--show-completion detects the shell from its parent: here, pytest)
    script = subprocess.run([sys.executable, "-m", "hotdb"], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "_HOTDB_COMPLETE": "source_bash"})
    assert script.returncode == 0 and "_HOTDB_COMPLETE=complete_bash" in script.stdout
    words = subprocess.run([sys.executable, "-m", "hotdb"], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "_HOTDB_COMPLETE": "complete_bash", "COMP_WORDS": "hotdb export --to a",
                                "COMP_CWORD": "3"})
    assert set(words.stdout.split()) == {"autotvm-log", "autotvm-tasks", "ansor-log"}


def test_the_order_columns_are_dropped_in_is_the_one_design_md_says():
    from hotdb.cli.render import DROP_DETAILS, DROP_THEN

    text = " ".join((ROOT / "docs" / "design.md").read_text().split("## Output")[1].split("## ")[0].split())
    assert f"({', '.join(DROP_DETAILS)})" in text.replace("`", "").replace("( ", "(")
    assert ", ".join(DROP_THEN) in text.replace("`", "")
