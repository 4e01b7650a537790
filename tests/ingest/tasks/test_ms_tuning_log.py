"""MetaSchedule's tuning state as it prints it: the task scheduler's table and per-task logs,
read into tasks with their trials, best latency, FLOP, weight and done, joined by name to a
model's tasks (queries/model_task_tuning.sql)."""

from __future__ import annotations

import json
import re

import pytest
from helpers import DATA, PASTES, parse, table_counts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hotdb.errors import ParseError
from hotdb.ingest import REGISTRY, get
from hotdb.ingest.paste.blocks import split
from hotdb.ingest.source import Source

LOGS = PASTES / "ms-tuning-log"  # real texts: ../shared/real/pastes/ms-tuning-log/ (SOURCES.md here)
REAL_PASTE_FOLDERS = ("LOGS",)


def table_printer(rows: list[list[str] | None]) -> list[str]:
    """TVM's support::TablePrinter::AsStr (src/s_tir/support/table_printer.h): each cell
    right-aligned in its column's width with one blank either side, cells joined by `|`;
    a separator (None) is a row of `-` as wide as the table."""
    cells = [r for r in rows if r is not None]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    total = sum(widths) + 3 * len(widths) - 1
    return ["-" * total if r is None else "|".join(" " * (w + 1 - len(c)) + c + " " for w, c in zip(widths, r))
            for r in rows]


def tuning_statistics(tasks: list[dict], last_column: str = "Done") -> list[str]:
    """PrintTuningStatistics (task_scheduler.cc): the table and its footer, for tasks given
    as name, flop, weight, latency_us (None: no valid trial), trials, done."""
    rows: list[list[str] | None] = [["ID", "Name", "FLOP", "Weight", "Speed (GFLOPS)", "Latency (us)",
                                     "Weighted Latency (us)", "Trials", last_column], None]
    total_trials, total_latency = 0, 0.0
    for i, t in enumerate(tasks):
        timed = t["latency_us"] is not None
        if timed:
            total_trials += t["trials"]
            total_latency += t["latency_us"] * t["weight"]
        rows.append([str(i), t["name"], str(t["flop"]), str(t["weight"]),
                     f"{t['flop'] / t['latency_us'] / 1e3:.4f}" if timed else "N/A",
                     f"{t['latency_us']:.4f}" if timed else "N/A",
                     f"{t['latency_us'] * t['weight']:.4f}" if timed else "N/A",
                     str(t["trials"]), "Y" if t["done"] else ""])
    rows.append(None)
    return table_printer(rows) + [f"Total trials: {total_trials}", f"Total latency (us): {total_latency:g}", ""]


def trial_line(task_id: int, name: str, trial: int, flop: float, run_ms: float, best_ms: float) -> str:
    """A measured trial as TaskCleanUp (task_scheduler.cc) logs it to the task's log."""
    return (f"[Task #{task_id}: {name}] Trial #{trial}: GFLOPs: {flop / run_ms / 1e6:.4f}. "
            f"Time: {run_ms * 1e3:.4f} us. Best GFLOPs: {flop / best_ms / 1e6:.4f}")


def test_the_test_printer_prints_what_tvm_printed():
    lines = (LOGS / "gflownet_xgb_res_two_sessions.txt").read_text().splitlines()
    latency_us = 4194304 / 1004.3878 / 1e3  # the printed speed holds more of the latency's digits
    printed = tuning_statistics([{"name": "main", "flop": 4194304, "weight": 1, "latency_us": latency_us, "trials": 64,
                                  "done": True}])
    assert printed[:5] == lines[235:240]  # the second session's final table, byte for byte
    assert printed[5] == lines[240] == "Total latency (us): 4.17598"


def test_final_table_of_an_llm_tune():
    name, parsed = parse(LOGS / "mlc_llm_redpajama_3b_tune.txt")
    assert name == "ms-tuning-log" and parsed.role == "tasks"
    tasks = {t.task_name: t for t in parsed.tasks}
    assert len(tasks) == 35 and parsed.tasks[0].task_name == "cast" and parsed.tasks[-1].task_name == "transpose2"
    big = tasks["fused_NT_matmul3_add6_gelu1_cast11"]
    assert (big.tuner, big.flop, big.weight, big.trials, big.best_latency_us, big.terminated) == \
        ("meta_schedule", 6717440000, 1, 4416, 3154.7391, True)
    assert big.line_no == 16 and big.task_args == "[]"
    assert tasks["reshape"].trials == 1 and tasks["cast"].flop == 1
    assert all(t.terminated for t in parsed.tasks) and not parsed.records
    assert any("lines 1-2, 4, 43" in w for w in parsed.warnings)  # the imports and the docstring's quotes


def test_later_tables_and_sessions_give_the_final_state():
    _, parsed = parse(LOGS / "gflownet_xgb_res_two_sessions.txt")
    (task,) = parsed.tasks
    # session 1 ends at 4.2091 us; session 2 (lines 188-241) at 4.1760 us, done
    assert (task.task_name, task.flop, task.weight, task.trials, task.best_latency_us, task.terminated) == \
        ("main", 4194304, 1, 64, 4.176, True)
    assert task.line_no == 8  # 'Initializing Task #0: "main"' names it first
    assert any("4 task tables" in w for w in parsed.warnings)
    # the ANSI-coloured trace between the sessions is skipped, not misread
    assert any("63-182" in w for w in parsed.warnings)


def test_a_task_without_a_valid_trial():
    _, parsed = parse(LOGS / "gflownet_xgb0_no_valid_trial.txt")
    (task,) = parsed.tasks
    assert (task.trials, task.best_latency_us, task.terminated, task.flop) == (0, None, True, 4194304)


def test_tvm09_finished_line_after_the_table_marks_the_task_done():
    _, parsed = parse(LOGS / "sparsetir_issue91_tvm09.txt")
    (task,) = parsed.tasks
    assert (task.task_name, task.trials, task.best_latency_us, task.flop) == ("main", 64, 38.5562, 4194304)
    assert task.terminated is True  # its Terminated cell is blank; 'Task #0 has finished' follows
    assert task.line_no == 4


def test_current_tvm_table_stripped_of_trailing_blanks():
    _, parsed = parse(LOGS / "tvm_issue17934_untuned.txt")
    (task,) = parsed.tasks
    assert (task.task_name, task.flop, task.trials, task.best_latency_us, task.terminated) == \
        ("main", 434176, 0, None, False)
    assert task.line_no == 4


def test_blocks_cut_the_table_and_log_lines_out_of_a_paste():
    ingestor = get("ms-tuning-log")
    assert ingestor.blocks((LOGS / "mlc_llm_redpajama_3b_tune.txt").read_text().splitlines()) == [(4, 42)]
    lines = (LOGS / "sparsetir_issue91_tvm09.txt").read_text().splitlines()
    assert ingestor.blocks(lines) == [(0, 7), (8, 9)]  # [Updated] + table + footer; 'Task #0 has finished'
    # MetaSchedule's table also has a Name and a time column: it is this reader's, listed first
    assert [i.name for i in REGISTRY].index("ms-tuning-log") < [i.name for i in REGISTRY].index("relax")


def small_convnet_tune() -> tuple[list[str], list[str]]:
    """The scheduler's last table and the task's log of make_fixture.py's tune (tests/data/
    ms-database): fused_conv2d_add_relu, 4 trials whose times are the database's records;
    FLOP 57344 as tvm.s_tir.analysis.estimate_tir_flops counts the PrimFunc (apache-tvm 0.27).
    Rendered by TVM's format strings: no such log was kept."""
    records = [json.loads(line)[1][1][0] * 1e3 for line in
               (DATA / "ms-database/small_convnet/database_tuning_record.json").read_text().splitlines()]
    name, flop = "fused_conv2d_add_relu", 57344
    stamp = "2026-05-01 10:00:0{} [INFO] [task_scheduler.cc:{}] "
    table = [stamp.format(1, 234) + "Task #0 has finished. Remaining task(s): 0", stamp.format(1, 311)]
    table += tuning_statistics([{"name": name, "flop": flop, "weight": 1, "latency_us": min(records) * 1e3,
                                 "trials": len(records), "done": True}])
    log = [stamp.format(0, 176) + f'Initializing Task #0: "{name}"']
    log += [stamp.format(1, 146) + trial_line(0, name, i + 1, flop, ms, min(records[:i + 1]))
            for i, ms in enumerate(records)]
    return table, log


def test_view_joins_the_tuning_state_to_the_models_tasks_by_name(cli, tmp_path):
    table, log = small_convnet_tune()
    (tmp_path / "tune.log").write_text("\n".join(table) + "\n")
    (tmp_path / "task_0.log").write_text("\n".join(log) + "\n")
    result = cli("ingest", DATA / "relax/small_convnet.fused.relax.py", tmp_path / "tune.log", tmp_path / "task_0.log",
                 "--model", "small_convnet")
    assert result.code == 0, result.err
    rows = {r["task_name"]: r for r in cli("sql", "SELECT * FROM model_task_tuning", "-f", "json").json()}
    # every PrimFunc the IR calls is a task; only the tuned one has a state
    assert set(rows) == {"fused_conv2d_add_relu", "fused_conv2d1_add_relu", "fused_matmul_add1", "reshape",
                         "reshape1", "transpose"}
    tuned = rows["fused_conv2d_add_relu"]
    assert (tuned["tuned"], tuned["trials"], tuned["terminated"], tuned["flop"], tuned["ir_calls"], tuned["weight"]) == \
        (True, 4, True, 57344, 1, 1)
    assert tuned["best_latency_us"] == pytest.approx(4.7607, abs=1e-4)
    assert tuned["speed_gflops"] == pytest.approx(57344 / 4.7607 / 1e3, rel=1e-4)
    assert tuned["weighted_share_pct"] == pytest.approx(100.0)
    other = rows["fused_conv2d1_add_relu"]
    assert (other["tuned"], other["trials"], other["terminated"], other["best_latency_us"]) == (False, None, None, None)
    assert rows["reshape"]["ir_calls"] == rows["reshape"]["weight"] == 2
    # the task log's trials are the task's tuning records
    (task,) = cli("tasks", "--model", "small_convnet", "-f", "json").json()
    assert task["task_name"] == "fused_conv2d_add_relu" and task["records"] == 4
    assert task["best_cost_us"] == pytest.approx(4.7607, abs=1e-4)
    # the task's log alone: trials counted and best latency taken from its trial lines
    assert cli("ingest", DATA / "relax/small_convnet.fused.relax.py", tmp_path / "task_0.log", "--model", "only_log").code == 0
    (row,) = cli("sql", "SELECT t.* FROM model_task_tuning AS t JOIN models AS m USING (model_id) "
                        "WHERE m.name = 'only_log' AND tuned", "-f", "json").json()
    assert (row["task_name"], row["trials"], row["terminated"], row["flop"], row["weight"]) == \
        ("fused_conv2d_add_relu", 4, None, None, 1)
    assert row["best_latency_us"] == pytest.approx(4.7607, abs=1e-4)


@pytest.mark.parametrize("logger", ["tvm.s_tir.meta_schedule", "tvm.meta_schedule"])  # TVM >= 0.21, before
def test_a_tunes_own_task_log_is_named_by_its_work_folder(cli, tmp_path, logger):
    """MetaSchedule names a task's log after its logger: without --model, the model is the
    tune's work folder (the one holding logs/), not `tvm`."""
    made = DATA / "ms-tuning-log/made/tvm.s_tir.meta_schedule.logging.task_0_fused_matmul_add_relu.log"
    logs = tmp_path / "resnet18 tune" / "logs"
    logs.mkdir(parents=True)
    log = logs / made.name.replace("tvm.s_tir.meta_schedule", logger)
    log.write_bytes(made.read_bytes())
    result = cli("ingest", log)
    assert result.code == 0, result.err
    assert [m["name"] for m in cli("sql", "SELECT name FROM models", "-f", "json").json()] == ["resnet18 tune"]


def test_a_paste_of_the_ir_and_the_tuning_log_is_cut_into_both(cli, tmp_path):
    table, _ = small_convnet_tune()
    text = ("After fusion the module is\n\n" + (DATA / "relax/small_convnet.fused.relax.py").read_text()
            + "\nand tuning ended with\n\n" + "\n".join(table) + "\n")
    paste = tmp_path / "post.txt"
    paste.write_text(text)
    blocks, _ = split(Source.read(paste), REGISTRY)
    assert [b.ingestor.name for b in blocks] == ["relax", "ms-tuning-log"]
    assert cli("ingest", paste, "--model", "sc").code == 0
    row = cli("sql", "SELECT * FROM model_task_tuning WHERE tuned", "-f", "json").json()
    assert [(r["task_name"], r["trials"]) for r in row] == [("fused_conv2d_add_relu", 4)]


def test_per_task_logs_in_both_forms_with_failed_trials():
    module = (DATA / "relax/small_convnet.fused.relax.py").read_text().splitlines()[:12]
    current = ["2026-05-01 10:00:00 [INFO] [task_scheduler.cc:176] Initializing Task #1: \"fused_matmul_add1\"",
               "2026-05-01 10:00:00 [INFO] [task_scheduler.cc:181] Total 1 design space(s) generated",
               "2026-05-01 10:00:00 [INFO] [task_scheduler.cc:187] Design space #0:", *module,
               "2026-05-01 10:00:02 [INFO] [task_scheduler.cc:130] " + trial_line(1, "fused_matmul_add1", 1, 20490, 0.004, 0.004),
               "2026-05-01 10:00:02 [INFO] [task_scheduler.cc:121] [Task #1: fused_matmul_add1] Trial #2: Error in building:",
               "Traceback (most recent call last):", "  File \"build.py\", line 3", *module,
               "b0 = sch.get_sblock(name=\"matmul\", func_name=\"main\")",
               "2026-05-01 10:00:03 [INFO] [task_scheduler.cc:130] " + trial_line(1, "fused_matmul_add1", 3, 20490, 0.003, 0.003)]
    old = ["2022-07-19 11:46:40.100 INFO [fused_nn_dense] Trial #1: GFLOPs: 3.2000. Time: 0.0064 ms. Best GFLOPs: 3.2000",
           "2022-07-19 11:46:40.200 INFO [fused_nn_dense] Trial #2: Error in running: RuntimeError: timeout"]
    source = Source.from_text("task_1.log", "\n".join(current + old) + "\n")
    parsed = get("ms-tuning-log").parse(source)
    first, second = parsed.tasks
    assert (first.task_name, first.line_no, second.task_name) == ("fused_matmul_add1", 1, "fused_nn_dense")
    # a log's state is its trials: the view counts them (a table's columns stay unset here)
    assert (first.trials, first.best_latency_us, first.flop, first.terminated) == (None, None, None, None)
    assert [(r.task_index, r.config_index, r.error_no, r.costs_s) for r in parsed.records] == [
        (0, 1, 0, [pytest.approx(4e-6)]), (0, 2, 2, None), (0, 3, 0, [pytest.approx(3e-6)]),
        (1, 1, 0, [pytest.approx(6.4e-6)]), (1, 2, 4, None)]
    assert not parsed.warnings  # the design space and the error's module and trace are the log's own
    # in a paste, the module inside the log is the log's, not a Relax module of its own
    assert [(start, end) for start, end in get("ms-tuning-log").blocks(source.lines)] == [(0, len(source.lines))]


BAD = [  # (line, what it becomes, what the error says)
    (9, lambda l: l.replace("26214400", "26.2M"), "mlc_llm_redpajama_3b_tune.txt:9 [FLOP]: expected a whole number"),
    (10, lambda l: l.rsplit("|", 1)[0], "mlc_llm_redpajama_3b_tune.txt:10: expected 9 cells"),
    (11, lambda l: l[:-1] + "N", "mlc_llm_redpajama_3b_tune.txt:11 [Done]: expected Y or nothing"),
    (12, lambda l: l.replace("27.7575", "fast!!!"), "mlc_llm_redpajama_3b_tune.txt:12 [Latency (us)]: expected a latency"),
    (13, lambda l: l.replace("  1088 ", "  -1088"), "mlc_llm_redpajama_3b_tune.txt:13 [Trials]: expected a whole number"),
    (5, lambda l: l.replace("Trials", "Tries"), "mlc_llm_redpajama_3b_tune.txt:5: expected the columns"),
]


@pytest.mark.parametrize("line, change, message", BAD)
def test_bad_tables_name_the_line(tmp_path, line, change, message):
    lines = (LOGS / "mlc_llm_redpajama_3b_tune.txt").read_text().splitlines()
    lines[line - 1] = change(lines[line - 1])
    path = tmp_path / "mlc_llm_redpajama_3b_tune.txt"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ParseError) as error:
        parse(path)
    assert message in str(error.value)


def test_bad_logs_name_the_line_and_store_nothing(cli, db, tmp_path, vgg16):
    cli("ingest", vgg16["table"], "--model", "m")
    before = table_counts(db)
    log = tmp_path / "task_0.log"
    log.write_text("Initializing Task #0: \"main\"\n[Task #0: main] Trial #1: GFLOPs: 1.0000. Time: soon us. Best GFLOPs: 1\n")
    result = cli("ingest", log, "--model", "m")
    assert result.code == 1 and "task_0.log:2: expected" in result.err and "Traceback" not in result.err
    header_only = tmp_path / "header.txt"
    header_only.write_text((LOGS / "tvm_issue17934_untuned.txt").read_text().splitlines()[5] + "\n\nno rows\n")
    result = cli("ingest", header_only, "--model", "m")
    assert result.code == 1 and "header.txt:1: the table has a header but no rows" in result.err
    assert table_counts(db) == before


_NAME = st.from_regex(r"[a-z][a-z0-9_]{0,30}", fullmatch=True)
_TASK = st.fixed_dictionaries({
    "flop": st.integers(1, 10**13), "weight": st.integers(0, 64), "trials": st.integers(0, 5000), "done": st.booleans(),
    "latency_us": st.one_of(st.none(), st.integers(1, 10**10).map(lambda n: n / 1e4))})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_NAME, _TASK), min_size=1, max_size=8, unique_by=lambda t: t[0]),
       st.sampled_from(["Done", "Terminated"]), st.sampled_from(["plain", "stripped", "indented", "bordered"]))
def test_printed_tables_read_back(tasks, last_column, form):
    tasks = [{"name": name, **task} for name, task in tasks]
    lines = tuning_statistics(tasks, last_column)
    if form == "stripped":
        lines = [line.rstrip() for line in lines]
    elif form == "indented":
        lines = ["    " + line for line in lines]
    elif form == "bordered":  # a table redrawn with borders: | cells |, +----+ rules
        lines = [("+" + line + "+") if set(line) == {"-"} else ("|" + line + "|") if "|" in line else line
                 for line in lines]
    parsed = get("ms-tuning-log").parse(Source.from_text("tune.log", "\n".join(lines) + "\n"))
    assert [(t.task_name, t.flop, t.weight, t.trials, t.best_latency_us, t.terminated) for t in parsed.tasks] == \
        [(t["name"], t["flop"], t["weight"], t["trials"], t["latency_us"], t["done"]) for t in tasks]
    assert not parsed.warnings  # the footer agrees with the rows
    assert re.search(r"^\s*\|?\s*ID \|", lines[0])


def test_a_table_beside_a_module_of_primfuncs_alone_is_the_table(cli, tmp_path):
    """As mlc-llm's tune scripts hold them (redpajama_incite_chat_3b_v1_tune.py): the final
    table in the docstring, then the tuned PrimFuncs as an IRModule with no Relax function.
    That module is TIR, not a Relax program: it is not a block, and the table is read."""
    table, _ = small_convnet_tune()
    module = (DATA / "relax/small_convnet.fused.relax.py").read_text().splitlines()
    primfuncs = module[:next(i for i, line in enumerate(module) if "@R.function" in line)]
    assert any("@T.prim_func" in line for line in primfuncs) and not any("R.Tensor(" in line for line in primfuncs)
    script = tmp_path / "tune.py"
    script.write_text('"""\n' + "\n".join(table) + '\n"""\n\n' + "\n".join(primfuncs) + "\n")
    source = Source.read(script)
    assert get("relax").blocks(source.lines) == []
    result = cli("ingest", script, "--model", "sc")
    assert result.code == 0, result.err
    assert "as ms-tuning-log" in result.err + result.out
    (task,) = cli("tasks", "--model", "sc", "-f", "json").json()
    assert task["task_name"] == "fused_conv2d_add_relu"
