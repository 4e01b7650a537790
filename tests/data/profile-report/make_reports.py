"""Write one graph-executor profile of a ResNet-50 NHWC llvm build as Report.json(),
Report.csv() and the printed Report.table(), following src/runtime/profiling.cc as
docs/formats.md describes it (JSON metric encodings, sorted CSV header with unescaped
strings, right-aligned table with thousands separators, aggregated rows, Sum/Total rows,
Configuration section).

The kernels' argument shapes are those of the auto_scheduler log
shared/formats/samples/ansor_cilog_resnet-50-NHWC-B1-llvm.json (its workload keys list
the same shapes flattened), so that the report and that log describe one build. Times
are made up; a few kernels (layout, pooling) have no task in the log.

    python tests/data/profile-report/make_reports.py tests/data/profile-report
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

# (kernel symbol, [argument shapes: inputs then output], duration per call in us, calls, layouts)
NHWC = {"data_layout": "NHWC", "kernel_layout": "HWIO", "out_layout": ""}
KERNELS = [
    ("tvmgen_default_fused_layout_transform", [[1, 3, 224, 224], [1, 224, 224, 3]], 310.5, 1, {"src_layout": "NCHW", "dst_layout": "NHWC"}),
    ("tvmgen_default_fused_nn_conv2d_add_nn_relu", [[1, 224, 224, 3], [7, 7, 3, 64], [1, 1, 1, 64], [1, 112, 112, 64]], 4120.25, 1, NHWC),
    ("tvmgen_default_fused_nn_max_pool2d", [[1, 112, 112, 64], [1, 56, 56, 64]], 590.0, 1, {"layout": "NHWC"}),
    ("tvmgen_default_fused_nn_conv2d_add", [[1, 56, 56, 64], [1, 1, 64, 256], [1, 56, 56, 256]], 1650.75, 1, NHWC),
    ("tvmgen_default_fused_nn_conv2d_add_nn_relu_1", [[1, 56, 56, 64], [3, 3, 64, 64], [1, 1, 1, 64], [1, 56, 56, 64]], 2875.5, 3, NHWC),
    ("tvmgen_default_fused_nn_conv2d_add_nn_relu_2", [[1, 56, 56, 64], [1, 1, 64, 64], [1, 1, 1, 64], [1, 56, 56, 64]], 520.125, 1, NHWC),
    ("tvmgen_default_fused_nn_conv2d_add_add_nn_relu", [[1, 56, 56, 64], [1, 1, 64, 256], [1, 56, 56, 256], [1, 1, 1, 256], [1, 56, 56, 256]], 1825.0, 3, NHWC),
    ("tvmgen_default_fused_nn_conv2d_add_nn_relu_3", [[1, 56, 56, 256], [1, 1, 256, 64], [1, 1, 1, 64], [1, 56, 56, 64]], 1402.5, 2, NHWC),
    ("tvmgen_default_fused_nn_global_avg_pool2d", [[1, 7, 7, 2048], [1, 1, 1, 2048]], 61.0, 1, {"layout": "NHWC"}),
    ("tvmgen_default_fused_nn_softmax", [[1, 1000], [1, 1000]], 12.5, 1, {}),
]
HASHES = {k[0]: hashlib.md5(k[0].encode()).hexdigest()[:16] for k in KERNELS}


def calls():
    """One entry per call, in execution order."""
    out = []
    for name, shapes, duration, count, layouts in KERNELS:
        for i in range(count):
            out.append({"Name": name, "Duration (us)": duration * (1 + 0.01 * i), "Count": 1, "Device": "cpu0",
                        "Argument Shapes": ", ".join(f"float32[{', '.join(map(str, s))}]" for s in shapes),
                        "Hash": HASHES[name], **{k: v for k, v in layouts.items()}})
    total = sum(c["Duration (us)"] for c in out)
    for c in out:
        c["Percent"] = 100 * c["Duration (us)"] / total
    return out, total


def as_json(rows, total) -> str:
    def metric(key, value):
        if key == "Duration (us)":
            return '{"microseconds":%.17f}' % value
        if key == "Percent":
            return '{"percent":%.17f}' % value
        if key == "Count":
            return '{"count":%d}' % value
        return '{"string":"%s"}' % value  # TVM writes strings without escaping

    calls_json = ",".join("{" + ",".join(f'"{k}":{metric(k, v)}' for k, v in row.items()) + "}" for row in rows)
    device = '{"cpu0":{"Count":{"count":%d},"Device":{"string":"cpu0"},"Duration (us)":{"microseconds":%.17f},"Name":{"string":"Total"},"Percent":{"percent":100.00000000000000000}}}' % (len(rows), total)
    return '{"calls":[%s],"device_metrics":%s,"configuration":{"Executor":{"string":"Graph"},"Number of threads":{"count":2}}}' % (calls_json, device)


def as_csv(rows) -> str:
    keys = sorted({k for row in rows for k in row})
    lines = [",".join(keys)]
    for row in rows:
        cells = []
        for k in keys:
            v = row.get(k, "")
            cells.append(f'"{v}"' if isinstance(v, str) else f"{v:.6g}")
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def as_table(rows, total) -> str:
    aggregated: dict[tuple, dict] = {}
    for row in rows:
        key = (row["Hash"], row["Argument Shapes"], row["Device"])
        agg = aggregated.setdefault(key, {**row, "Duration (us)": 0.0, "Percent": 0.0, "Count": 0})
        agg["Duration (us)"] += row["Duration (us)"]
        agg["Percent"] += row["Percent"]
        agg["Count"] += 1
    ordered = sorted(aggregated.values(), key=lambda r: -r["Duration (us)"])
    extra = sorted({k for r in rows for k in r} - {"Name", "Duration (us)", "Percent", "Device", "Count", "Argument Shapes"})
    header = ["Name", "Duration (us)", "Percent", "Device", "Count", "Argument Shapes"] + extra

    def cell(k, v):
        if k == "Duration (us)":
            return f"{v:,.2f}"
        if k == "Percent":
            return f"{v:.2f}"
        if k == "Count":
            return f"{v:,}"
        return str(v)

    body = [[cell(k, r.get(k, "")) for k in header] for r in ordered]
    sums = ["Sum", cell("Duration (us)", total), cell("Percent", 100.0), "", cell("Count", len(rows))] + [""] * (len(header) - 5)
    totals = ["Total", cell("Duration (us)", total), "", "cpu0", cell("Count", len(rows))] + [""] * (len(header) - 5)
    sep = ["----------"] + [""] * (len(header) - 1)
    table = [header] + body + [sep, sums, totals]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    lines = []
    for r in table:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) + "  ")
    return "\n".join(lines) + "\n\nConfiguration\n-------------\nNumber of threads: 2\nExecutor: Graph\n"


if __name__ == "__main__":
    out = Path(sys.argv[1])
    rows, total = calls()
    (out / "resnet50_nhwc.report.json").write_text(as_json(rows, total))
    (out / "resnet50_nhwc.report.csv").write_text(as_csv(rows))
    (out / "resnet50_nhwc.report.txt").write_text(as_table(rows, total))
