"""Write the bad-input corpus: broken variants of our own valid artifacts, one per file,
and MANIFEST.json saying for each what a user must be told (a substring of the error).

    python tests/data/bad/make_corpus.py
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
EXAMPLE = ROOT / "hotdb/examples/vgg16"
DATA = ROOT / "tests/data"

table = (EXAMPLE / "vgg16.debug_table.txt").read_text().splitlines()
relay = (EXAMPLE / "vgg16.relay.txt").read_text().splitlines()
tasks = (EXAMPLE / "vgg16.autotvm_tasks.txt").read_text().splitlines()
log = (EXAMPLE / "vgg16.autotvm.log").read_text().splitlines()
report_json = (DATA / "profile-report/resnet50_nhwc.report.json").read_text()
report_csv = (DATA / "profile-report/resnet50_nhwc.report.csv").read_text().splitlines()
report_txt = (DATA / "profile-report/resnet50_nhwc.report.txt").read_text().splitlines()
graph = json.loads((DATA / "graph-json/vgg16.graph.json").read_text())
ansor = '{"i": [["[\\"69115f188984ae34ede37c3b8ca40b43\\", 1, 7, 7, 2048, 1, 1, 1, 2048]", "llvm -keys=cpu", [8, 64, 64, 0, 0, 0, 0, 0], "", 2], [[], []]], "r": [[6.28e-06], 0, 0.13, 1606960900], "v": "v0.5"}'

CASES: dict[str, tuple[str | bytes, str, str | None]] = {}  # name -> (content, expected, --format)


def case(name, content, expected, fmt=None):
    CASES[name] = (content, expected, fmt)


def lines(rows):
    return "\n".join(rows) + "\n"


# any format
case("empty.txt", "", "the file is empty")
case("only_whitespace.txt", "\n\n   \n", "the file is empty")
case("binary_junk.bin", bytes(range(256)) * 4, "not utf-8 text")
case("nul_in_text.txt", "Node Name  Ops\x00 Time(us)\n", "binary data (NUL byte)")
case("latin1.txt", lines(table[:4]).replace("fused", "fus\xe9d").encode("latin-1"), "not utf-8 text")
case("prose.txt", "This is the profile I got from TVM, see attached.\n", "format not recognised")
case("bad_gzip.txt.gz", b"\x1f\x8b\x08\x00garbage", "gzip data is damaged")
# debug-table
case("table_header_only.txt", lines(table[:2]), "the table has a header but no rows")
case("table_truncated_mid_row.txt", lines(table[:6]) + table[6][:90] + "\n", "expected 7 columns")
case("table_nan_time.txt", lines(table[:2] + [table[2].replace(table[2].split()[2], "nan", 1)]), "finite time >= 0")
case("table_negative_time.txt", lines(table[:2] + [table[2].replace(table[2].split()[2], "-12.5", 1)]), "finite time >= 0")
case("table_bad_shape.txt", lines(table[:2] + [table[2].replace("(1, 8, 28, 28, 64)", "(1, 8, 28, 28, 64]")]), "expected a shape")
case("table_text_inputs.txt", lines(table[:2] + [table[2].replace("  3  ", "  x  ", 1)]), "expected an integer")
case("table_inputs_too_large.txt", lines(table[:2] + [table[2].replace("  3       1", "  3000000000000       1", 1)]),
     "[Inputs]: expected an integer from 0 to 2^31 - 1")
case("table_unknown_column.txt", lines([table[0] + "  Flops", table[1] + "  -----"] + table[2:4]), "unknown column 'Flops'")
case("table_missing_column.txt", lines([table[0].replace("Outputs", "       ")] + table[1:3]), "missing column 'Outputs'")
case("table_bad_measurements.txt", lines((DATA / "debug-table/vgg16_tvm09/vgg16.debug_table.txt").read_text().splitlines()[:2]
                                         + [(DATA / "debug-table/vgg16_tvm09/vgg16.debug_table.txt").read_text().splitlines()[2].rsplit("[", 1)[0] + "[1.0, oops]"]),
     "Measurements(us)")
case("table_forced_on_relay.txt", lines(relay), "no table header", "debug-table")
# relay
case("relay_broken_type.txt", lines(relay[:4] + [relay[4].replace("float32]", "float32")]), "broken type annotation")
case("relay_unclosed_call.txt", lines(relay[:2] + [relay[2].split(", padding")[0]]), "expected ',' or ')' in an argument list")
case("relay_no_calls.txt", '#[version = "0.0.5"]\ndef @main(%x: Tensor[(1), float32]) {\n  %x\n}\n', "no Relay calls found")
case("relay_bad_param.txt", lines([relay[0], relay[1].replace("%data: Tensor", "%data Tensor")] + relay[2:5]), "':' and a type")
case("relay_bad_dims.txt", lines(relay[:2] + [relay[2].replace("(1, 64, 224, 224)", "(1, 64, 224 224)", 1)]), "shape")
# autotvm
case("log_not_json.log", lines(log[:2] + ["not json at all {"] + log[2:4]), "expected one JSON tuning record per line")
case("log_truncated_json.log", lines(log[:3]) + log[3][:120] + "\n", ":4:")
case("log_wrong_object.log", lines(log[:1] + ['{"hello": "world"}']), "expected an AutoTVM record")
case("log_bad_input.log", lines(['{"input": ["llvm", 42, "no args", {}], "config": {}, "result": [[1], 0, 1, 1], "version": 0.2}']), "task_name, args")
case("log_bad_costs.log", lines([log[0].replace('"result": [[', '"result": [["fast", ')]), "expected numbers in the result")
case("log_bad_config_index.log", lines([log[0].replace('"index": ', '"index": "x', 1).replace(', "code_hash"', '", "code_hash"', 1)]), "expected numbers in the result")
case("tasks_bad_args.txt", tasks[0].replace("args=((", "args=((((") + "\n", "expected args=(...) as a Python tuple")
case("tasks_forced_on_table.txt", lines(table), "no AutoTVM tasks found", "autotvm-tasks")
# ansor
case("ansor_bad_key.json", ansor.replace('"[\\"69115f188984ae34ede37c3b8ca40b43\\"', '"[\\"69115f1') + "\n", "workload key")
case("ansor_missing_r.json", ansor.split(', "r"')[0] + ', "v": "v0.5"}\n', "expected an auto_scheduler record")
case("ansor_key_not_list.json", ansor.replace('"[\\"69115f188984ae34ede37c3b8ca40b43\\", 1, 7, 7, 2048, 1, 1, 1, 2048]"', '"{}"') + "\n", "expected a workload key")
# profile-report
case("report_truncated.json", report_json[: len(report_json) // 2], "expected a Report JSON object")
case("report_no_calls.json", '{"calls": "none", "device_metrics": {}}', "expected {\"calls\"")
case("report_call_without_duration.json", '{"calls": [{"Name": {"string": "k"}}], "device_metrics": {}}', "has no 'Duration (us)'")
case("report_csv_short_row.csv", lines(report_csv[:3] + [report_csv[3].rsplit(",", 3)[0]]), "fields")
case("report_csv_bad_duration.csv", lines(report_csv[:1] + [report_csv[1].replace(",310.5,", ",fast,")]), "Duration (us)")
case("report_csv_bad_shapes.csv", lines(report_csv[:1] + [report_csv[1].replace("float32[1, 3, 224, 224], float32[1, 224, 224, 3]", "1x3x224x224")]), "Argument Shapes")
case("report_csv_count_too_large.csv", lines(report_csv[:1] + [report_csv[1].replace(',1,"cpu0",', ',3000000000000,"cpu0",')]),
     "[Count]: expected a count below 2^31")
case("report_csv_dim_too_large.csv", lines(report_csv[:1] + [report_csv[1].replace("float32[1, 3, 224, 224]", "float32[3000000000, 3, 224, 224]")]),
     "[Argument Shapes]: expected dimensions below 2^31")
case("report_csv_logical_too_large.csv",  # every dimension fits; unpacked NCHW8c, C does not
     lines(report_csv[:1] + ['"float32[1, 536870912, 7, 7, 8], float32[64, 536870912, 3, 3, 8, 8], float32[1, 536870912, 7, 7, 8]",'
                             '1,"cpu0",310.5,"8ef215afc36b55ed","tvmgen_default_fused_nn_contrib_conv2d_NCHWc","1.2","NCHW8c",'
                             '"","OIHW8i8o","","NCHW8c",""']),
     "[out_shape_logical]: expected integers below 2^31, found [1, 4294967296, 7, 7]")
case("report_table_no_rows.txt", lines(report_txt[:1]), "the report has no calls")
# graph-json
broken_graph = dict(graph, node_row_ptr=[0, 1])
case("graph_inputs_outside.json", json.dumps(broken_graph), "inputs point outside")
huge_shape = json.loads(json.dumps(graph))
huge_shape["attrs"]["shape"][1][0] = [1, 3, 224, 3000000000]  # beyond what any shape column holds
case("graph_shape_too_large.json", json.dumps(huge_shape), "[nodes[1]]: expected shapes as lists of integers below 2^31")
case("graph_bad_shape_attr.json", json.dumps(dict(graph, attrs={"shape": "oops"})), "attrs.shape")
case("graph_truncated.json", json.dumps(graph)[:500], "expected JSON", "graph-json")
case("graph_no_kernels.json", json.dumps({"nodes": [{"op": "null", "name": "x", "inputs": []}], "arg_nodes": [0],
                                          "attrs": {"shape": ["list_shape", [[1]]]}, "node_row_ptr": [0, 1]}), "no tvm_op nodes")
# relax
case("relax_broken_call.py", '@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((1, 3), dtype="float32")) -> R.Tensor((1, 3), dtype="float32"):\n        lv: R.Tensor((1, 3), dtype="float32") = R.nn.relu(x\n', "relax_broken_call.py:5")
case("relax_no_calls.py", '@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((1, 3), dtype="float32")) -> R.Tensor((1, 3), dtype="float32"):\n        return x\n', "no Relax calls found")


def main() -> None:
    manifest = []
    for name, (content, expected, fmt) in CASES.items():
        path = HERE / name
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        if name.endswith(".gz") and not data.startswith(b"\x1f\x8b\x08\x00garbage"):
            data = gzip.compress(data)
        path.write_bytes(data)
        manifest.append({"file": name, "expected": expected, "format": fmt})
    (HERE / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest)} cases")


if __name__ == "__main__":
    main()
