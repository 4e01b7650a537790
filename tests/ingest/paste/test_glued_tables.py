"""Tables whose rows a page ran together (hotdb/ingest/paste/glued.py, a rule of unrender):
the debug runtime's table, a Report, a kernel table and MetaSchedule's table, run into one
paragraph, glued row onto row, or with the header alone and the rows in one paragraph.
Each made fixture (tests/data/glued-tables/make_fixtures.py, from tables of our own) must
give the rows of the table it was made from; then properties of the rule on tables made at
random: the rows come back, twice is once, and a table a row a line is left as it is.
"""

from __future__ import annotations

import importlib.util
import os
import re

from helpers import DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from hotdb.ingest.paste import glued, unrender

GLUED = DATA / "glued-tables"
EXAMPLES = int(os.environ.get("HOTDB_RENDER_EXAMPLES", 100))
_spec = importlib.util.spec_from_file_location("make_glued", GLUED / "make_fixtures.py")
made = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(made)

NODES = "SELECT node_name, func_name, time_us, calls, out_shape, input_shapes, device FROM nodes ORDER BY node_index"
TASKS = "SELECT task_name, flop, trials, best_latency_us, terminated FROM tasks ORDER BY task_index"
SAID = "read as rendered text: table rows run together split again (1 line)"


def _read(cli, tmp_path, path, sql):
    db = tmp_path / f"{path.name}.duckdb"
    result = cli("--db", db, "ingest", path, "--model", "m", use_db=False)
    assert result.code == 0 and "Traceback" not in result.err, result.err
    return result, cli("--db", db, "sql", sql, "-f", "json", use_db=False).json()


def test_made_glued_tables_are_what_the_generator_writes(tmp_path):
    made.write(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in GLUED.glob("*.txt"))
    for path in tmp_path.iterdir():
        assert path.read_text() == (GLUED / path.name).read_text(), path.name


def test_a_debug_table_glued_row_onto_row_gives_its_nodes_and_measurements(cli, tmp_path):
    clean = DATA / "debug-table" / "vgg16_tvm09" / "vgg16.debug_table.txt"
    path = GLUED / "vgg16_tvm09.glued.txt"
    assert len(path.read_text().splitlines()) == 3 and "1        [53036.013, 54197.432, 52132.351]tvmgen" in path.read_text()
    result, nodes = _read(cli, tmp_path, path, NODES)
    assert f"warning: {path}: {SAID}" in result.err and "as debug-table" in result.err
    assert nodes == _read(cli, tmp_path, clean, NODES)[1] and len(nodes) == 26
    samples = "SELECT node_index, sample_index, time_us FROM node_samples ORDER BY 1, 2"
    assert _read(cli, tmp_path, path, samples)[1] == _read(cli, tmp_path, clean, samples)[1]


def test_a_report_whose_rows_follow_its_header_as_one_paragraph_gives_its_calls_and_totals(cli, tmp_path):
    path = GLUED / "resnet50_report.header-alone.txt"
    clean = tmp_path / "resnet50_hash_only.txt"  # the same table a row a line, cut after Hash as the fixture is
    report = (DATA / "profile-report" / "resnet50_nhwc.report.txt").read_text().splitlines()
    cut = report[0].index("Hash") + len("Hash")
    clean.write_text("\n".join(line[:cut].rstrip() for line in report) + "\n")
    result, nodes = _read(cli, tmp_path, path, NODES)
    assert f"warning: {path}: {SAID}" in result.err and "as profile-report" in result.err
    assert nodes == _read(cli, tmp_path, clean, NODES)[1] and len(nodes) == 10
    assert nodes[0]["input_shapes"] == [[1, 56, 56, 64], [3, 3, 64, 64], [1, 1, 1, 64]]
    totals = "SELECT total_time_us, reported_total_us FROM run_totals JOIN runs USING (run_id)"
    assert _read(cli, tmp_path, path, totals)[1] == _read(cli, tmp_path, clean, totals)[1]
    assert _read(cli, tmp_path, path, totals)[1][0]["reported_total_us"] == 24326.67  # the Total row


def test_a_kernel_table_run_into_a_paragraph_gives_its_kernels(cli, tmp_path):
    path = GLUED / "classifier_profile.paragraph.txt"
    result, nodes = _read(cli, tmp_path, path, NODES)
    assert f"warning: {path}: {SAID}" in result.err and "as kernel-table" in result.err
    assert nodes == _read(cli, tmp_path, DATA / "kernel-table" / "made" / "vgg16_classifier_profile.txt", NODES)[1]
    assert [n["node_name"] for n in nodes][:3] == ["fused_matmul_add_relu", "fused_matmul1_add1_relu1", "fused_matmul2_add2"]


def test_metaschedules_table_run_into_a_paragraph_gives_its_tasks(cli, tmp_path):
    path = GLUED / "convnet_tuning.paragraph.txt"
    result, tasks = _read(cli, tmp_path, path, TASKS)
    assert f"warning: {path}: {SAID}" in result.err and "as ms-tuning-log" in result.err
    assert tasks == _read(cli, tmp_path, DATA / "broken-paste" / "convnet_elided_signature.txt", TASKS)[1]
    assert [t["task_name"] for t in tasks] == ["fused_conv2d_add_relu", "fused_conv2d1_add_relu", "fused_matmul_add1"]


def test_a_table_with_a_cell_more_than_its_header_is_left_to_its_reader():
    """A header that lost a label (tests/data/bad/table_missing_column.txt) is no glued
    table: its rows are left as they are, and the reader says what is missing."""
    lines = (DATA / "bad" / "table_missing_column.txt").read_text().splitlines()
    assert unrender.undo("\n".join(lines), lines).rules == {}


# --- properties, on debug tables and MetaSchedule tables made at random ------------------

_NAME = st.from_regex(r"[a-z_][a-z0-9_]{0,40}", fullmatch=True)
_SHAPE = st.lists(st.integers(1, 512), min_size=1, max_size=5).map(lambda d: "(" + ", ".join(map(str, d)) + ")")
_TIME = st.floats(0, 1e6, allow_nan=False).map(lambda t: f"{t:.3f}")


def _columns(rows: list[list[str]], labels: list[str]) -> list[str]:
    widths = [max(len(r[c]) for r in [labels] + rows) for c in range(len(labels))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [labels] + rows]


@st.composite
def _debug_tables(draw) -> list[str]:
    """A debug runtime table as TVM prints it: header, rule, rows, Total_time."""
    measured = draw(st.booleans())
    labels = ["Node Name", "Ops", "Time(us)", "Time(%)", "Shape", "Inputs", "Outputs"] + ["Measurements(us)"] * measured
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        name = draw(_NAME)
        row = [name, draw(st.one_of(st.just(name), _NAME)), draw(_TIME), f"{draw(st.floats(0, 100)):.3f}",
               draw(_SHAPE), str(draw(st.integers(1, 3))), "1"]
        if measured:
            row.append("[" + ", ".join(draw(st.lists(_TIME, min_size=1, max_size=3))) + "]")
        rows.append(row)
    total = ["Total_time", "-", f"{sum(float(r[2]) for r in rows):.3f}"] + ["-"] * (len(labels) - 3)
    lines = _columns(rows + [total], labels)
    return [lines[0], "  ".join("-" * len(label) for label in labels)] + lines[1:]


@st.composite
def _tuning_tables(draw) -> list[str]:
    labels = ["ID", "Name", "FLOP", "Weight", "Speed (GFLOPS)", "Latency (us)", "Weighted Latency (us)", "Trials", "Done"]
    rows = []
    for i in range(draw(st.integers(1, 6))):
        tuned = draw(st.booleans())
        speed, latency = (f"{draw(st.floats(0.01, 1e3)):.4f}", f"{draw(st.floats(0.01, 1e3)):.4f}") if tuned else ("N/A", "N/A")
        rows.append([str(i), draw(_NAME.filter(lambda n: n[0].isalpha())), str(draw(st.integers(1, 10**9))),
                     str(draw(st.integers(1, 30))), speed, latency, latency, str(draw(st.integers(0, 512))),
                     draw(st.sampled_from(["Y", ""]))])
    widths = [max(len(r[c]) for r in [labels] + rows) for c in range(len(labels))]
    line = lambda cells: " " + " | ".join(c.rjust(w) for c, w in zip(cells, widths))  # noqa: E731
    rule = "-" * len(line(labels))
    return [line(labels), rule, *map(line, rows), rule, f"Total trials: {draw(st.integers(0, 9999))}"]


_RENDERINGS = {
    "paragraph": lambda lines: [made.paragraph(lines)],
    "glued": lambda lines: [made.glued(lines)],
    "header alone": lambda lines: made.header_alone(lines, 2 if set(lines[1]) <= {"-", " "} else 1),
}


def _cells(lines: list[str]) -> list[list[str]]:
    """What a reader takes of each line: its cells, whatever the padding."""
    return [[c for c in re.split(r"\s*\|\s*|\s{2,}", line.strip()) if c] for line in lines
            if line.strip() and not set(line.strip()) <= {"-", " "}]


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.one_of(_debug_tables(), _tuning_tables()), st.sampled_from(sorted(_RENDERINGS)), _NAME, _NAME)
def test_rows_run_together_come_back_a_row_a_line(table, rendering, before, after):
    prose_before, prose_after = f"Here is the {before} table:", f"and that is {after}"
    rendered = _RENDERINGS[rendering](table)
    if rendering == "paragraph":
        rendered = [f"{prose_before} {rendered[0]} {prose_after}"]  # a forum's paragraph holds the prose too
    else:
        rendered = [prose_before] + rendered + [prose_after]
    undone = unrender.undo("\n".join(rendered), rendered)
    assert undone.rules == {"glued rows": 1}
    assert undone.lines[0] == prose_before and undone.lines[-1] == prose_after
    assert _cells(undone.lines[1:-1]) == _cells(table)
    origin = undone.origin
    assert all(a <= b for a, b in zip(origin, origin[1:])) and origin[-1] == len(rendered)
    twice = unrender.undo("\n".join(undone.lines), undone.lines)
    assert twice.lines == undone.lines and not twice.changed


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.one_of(_debug_tables(), _tuning_tables()))
def test_a_table_a_row_a_line_is_left_as_it_is(table):
    assert glued.split(table) is None
    assert unrender.undo("\n".join(table), table).rules == {}


_HEADERS = st.sampled_from(["Node Name Ops Time(us) Time(%) Shape Inputs Outputs",
                            "Name Duration (us) Percent Device Count Argument Shapes",
                            "ID | Name | FLOP | Weight | Speed (GFLOPS) | Latency (us) | Weighted Latency (us) | Trials | Done",
                            "Name Time (ms) Count Total time (ms) Percentage (%)"])
_TOKENS = st.one_of(_NAME, _TIME, _SHAPE, st.sampled_from(["-", "|", "Total_time", "Sum", "Total", "cpu0", "N/A", "Y",
                                                            "---------", "[1.5, 2.0]", "float32[1, 64]", "\n", "  "]))


@settings(max_examples=EXAMPLES, deadline=None)
@given(_HEADERS, st.lists(_TOKENS, max_size=40), st.sampled_from([" ", "  ", ""]))
def test_any_text_after_a_header_is_split_or_left_never_broken(header, tokens, joint):
    """Whatever follows a header (rows, half rows, stray cells), the rule returns lines that
    hold the same non-blank characters, and undoing again changes nothing."""
    text = header + " " + joint.join(tokens)
    lines = text.split("\n")
    undone = unrender.undo(text, lines)
    assert "".join("".join(undone.lines).split()).replace("-", "") == "".join(text.split()).replace("-", "")
    twice = unrender.undo("\n".join(undone.lines), undone.lines)
    assert twice.lines == undone.lines
