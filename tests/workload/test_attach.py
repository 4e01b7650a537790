"""One workload, every format that names it: the rows of each fill the same columns with
the same values (hotdb/rows/derive.py, attach_workload).

The workload is the small ConvNet's first convolution, 3x3, stride 1, padding 1, on
1x3x8x8 data: the MetaSchedule database and the Relax modules under tests/data hold it as
TVM wrote them; the other formats' lines are written here, in the forms their readers'
own tests read, for the same layer.
"""

from __future__ import annotations

import pytest
from helpers import DATA

from hotdb.ingest import detect, get
from hotdb.ingest.source import Source
from hotdb.rows import IrCallRow, Parsed, TaskRow
from hotdb.rows.derive import WORKLOAD_COLUMNS, attach_workload
from hotdb.workload import conv_workload

KEY = "conv2d float32 d=1x3x8x8 w=16x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"
FILLED = {"op_family": "conv2d", "workload_key": KEY, "out_shape_logical": [1, 16, 8, 8],
          "data_shape_logical": [1, 3, 8, 8], "weight_shape_logical": [16, 3, 3, 3]}

RELAY = """\
def @main(%data: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(16, 3, 3, 3), float32]) -> Tensor[(1, 16, 8, 8), float32] {
  nn.conv2d(%data, %w, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]) /* ty=Tensor[(1, 16, 8, 8), float32] */
}
"""
AUTOTVM = """\
Extracted 1 tasks:
[Task  1/1]  conv2d_NCHWc.x86 (('TENSOR', (1, 3, 8, 8), 'float32'), ('TENSOR', (16, 3, 3, 3), 'float32'), \
(1, 1), (1, 1, 1, 1), (1, 1), 'NCHW', 'NCHW', 'float32')
"""
# @auto_scheduler.register_workload conv2d_layer(N, H, W, CO, CI, KH, KW, stride, padding) of TVM's tutorial
ANSOR_LOG = ('{"i": [["[\\"conv2d_layer\\", 1, 8, 8, 16, 3, 3, 3, 1, 1]", "llvm -keys=cpu"], [[], []]], '
             '"r": [[1e-05], 0, 1.0, 1], "v": "v0.6"}\n')
DAG = """\
placeholder = PLACEHOLDER [1, 8, 8, 3]
pad_temp(i0, i1, i2, i3) = tir.if_then_else(((((i1 >= 1) && (i1 < 9)) && (i2 >= 1)) && (i2 < 9)), placeholder[i0, (i1 - 1), (i2 - 1), i3], 0f)
placeholder = PLACEHOLDER [3, 3, 3, 16]
conv2d_nhwc(nn, yy, xx, ff) += (pad_temp[nn, (yy + ry), (xx + rx), rc]*placeholder[ry, rx, rc, ff])
"""
ANSOR_TASKS = f"""\
Extract tasks...
========== Task 0  (workload key: ["0123456789abcdef0123456789abcdef", [1, 8, 8, 3], [3, 3, 3, 16], [1, 8, 8, 16]]) ==========
{DAG}"""
ANSOR_FALLBACK = f"""\
Cannot find tuned schedules for target=llvm -keys=cpu, workload_key=["0123456789abcdef0123456789abcdef", \
1, 8, 8, 3, 3, 3, 3, 16, 1, 8, 8, 16]. A fallback TOPI schedule is used, which may bring great performance \
regression or even compilation failure. Compute DAG info:
{DAG}"""

TEXTS = {"relay": RELAY, "autotvm-tasks": AUTOTVM, "ansor-log": ANSOR_LOG, "ansor-tasks": ANSOR_TASKS,
         "ansor-fallback": ANSOR_FALLBACK}
FILES = {"ms-database": DATA / "ms-database" / "small_convnet", "relax": DATA / "relax" / "small_convnet.relax.py",
         "relax (fused)": DATA / "relax" / "small_convnet.fused.relax.py"}


def _rows(fmt: str) -> tuple[Parsed, list]:
    if fmt in TEXTS:
        source = Source.from_text(f"{fmt}.txt", TEXTS[fmt])
        ingestor = detect(source)
        assert ingestor.name == fmt  # each text reads as the format it stands for
    else:
        source = Source.read(FILES[fmt])
        ingestor = get(fmt.split()[0])
    parsed = ingestor.parse(source)
    return parsed, [row for row in [*parsed.tasks, *parsed.ir_calls] if row.workload_key == KEY]


@pytest.mark.parametrize("fmt", [*TEXTS, *FILES])
def test_every_format_fills_the_same_columns_for_one_workload(fmt):
    parsed, rows = _rows(fmt)
    assert rows, f"{fmt}: no row has the workload"
    assert parsed.workloads[KEY].key == KEY
    for row in rows:
        # a task keeps the operand shapes itself; an IR call's are its workload row's
        expected = FILLED if isinstance(row, TaskRow) else {k: v for k, v in FILLED.items() if hasattr(row, k)}
        assert {column: getattr(row, column) for column in expected} == expected, (fmt, row)


def test_metaschedule_tasks_now_carry_their_operands():
    """The disagreement the helper settled: MetaSchedule rows left the data and weight
    shapes NULL while AutoTVM and Ansor rows set them; now every task with a workload has them."""
    _, rows = _rows("ms-database")
    assert [(r.data_shape_logical, r.weight_shape_logical) for r in rows] == [([1, 3, 8, 8], [16, 3, 3, 3])]


def test_attach_workload_fills_each_row_class_it_has_columns_for():
    workload = conv_workload((1, 3, 8, 8), (16, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1, "float32")
    parsed = Parsed(role="tasks")
    task = TaskRow(task_index=0, tuner="meta_schedule", task_name="t", task_args="[]", task_kwargs=None,
                   target=None, line_no=1, op_family="conv2d_nchw")
    call = IrCallRow(call_index=0, function_name="main", result_var="lv", op_name="nn.conv2d", attrs="{}",
                     arg_kinds=[], arg_shapes=[], arg_dtypes=[], result_shapes=[], result_dtypes=[], line_no=1)
    assert attach_workload(parsed, task, workload) == attach_workload(parsed, call, workload) == KEY
    assert {c: getattr(task, c) for c in WORKLOAD_COLUMNS} == FILLED
    assert not hasattr(call, "data_shape_logical")
    assert list(parsed.workloads) == [KEY]


def test_no_workload_leaves_the_row_as_the_reader_made_it():
    parsed = Parsed(role="tasks")
    task = TaskRow(task_index=0, tuner="auto_scheduler", task_name="t", task_args="[]", task_kwargs=None,
                   target=None, line_no=1, op_family="dense", out_shape_logical=[1, 10])
    assert attach_workload(parsed, task, None) is None
    assert (task.op_family, task.workload_key, task.out_shape_logical, task.data_shape_logical) == ("dense", None, [1, 10], None)
    assert parsed.workloads == {}
