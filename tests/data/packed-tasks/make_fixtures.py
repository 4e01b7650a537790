"""AutoTVM tasks whose tensors are printed packed, made from the bundled VGG-16 example's
tasks (hotdb/examples/vgg16/): each must name the workload of the logical task it packs
(hotdb/workload/autotvm.py). The layouts are those TVM's AlterOpLayout gives the tasks it
records and prints (`Cannot find config for target=..., workload=('conv2d_NCHWc.x86', ...)`,
the graph tuner's records):

* vgg16_packed.autotvm.log: the example's log (v0.2 records), every conv2d_NCHWc.x86 record
  with its data as NCHW{ic}c and its kernel as OIHW{ic}i{oc}o (ic and oc the last factors of
  the record's own tile_ic and tile_oc), the layouts `NCHW{ic}c` and `NCHW{oc}c` in place of
  `NCHW`, and every dense_pack.x86 record with its weight as (N/n, K, n), n its tile_x's last
  factor where it divides N (16, 8, ... where not: the 1000-class layer packs by 8);
* vgg16_int8.tasks.txt: the example's convolutions and dense layers as the int8 tasks of a
  VNNI target print them: conv2d_NCHWc_int8.x86 with uint8 data NCHW{ic}c and an int8 kernel
  OIHW{ic/4}i{oc}o4i (7-D; the first layer, whose 3 channels do not split by 4, is left out),
  dense_vnni.x86 with its weight (N/16, K/4, 16, 4) for the layers whose N and K split by 16
  and 4 (x86's _alter_dense_layout asks that of VNNI: the 1000-class layer is left out);
* vgg16_bitserial.tasks.txt: the example's convolutions after the first and its dense layers
  as arm_cpu's bitserial tasks (bitserial_conv2d_nhwc.arm_cpu: NHWC data, HWIO kernel;
  bitserial_dense.arm_cpu: as tvm issue #6894 printed it), 2-bit activations, 1-bit weights.

    python tests/data/packed-tasks/make_fixtures.py [OUT_FOLDER]   # default: this folder
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parents[2] / "hotdb" / "examples" / "vgg16"


def _factor(entity: list, name: str) -> int:
    return next(sizes[-1] for knob, _, sizes in entity if knob == name)


def packed_record(record: dict) -> dict:
    target, name, args, kwargs = record["input"]
    entity = record["config"]["entity"]
    if name == "conv2d_NCHWc.x86":
        (_, (n, c, h, w), dtype), (_, (o, i, kh, kw), _) = args[0], args[1]
        ic, oc = _factor(entity, "tile_ic"), _factor(entity, "tile_oc")
        args = [["TENSOR", [n, c // ic, h, w, ic], dtype], ["TENSOR", [o // oc, i // ic, kh, kw, ic, oc], dtype],
                *args[2:5], f"NCHW{ic}c", f"NCHW{oc}c", args[7]]
    elif name == "dense_pack.x86":
        (_, (nn, k), dtype) = args[1]
        bn = next(b for b in (_factor(entity, "tile_x"), 16, 8, 4, 2, 1) if nn % b == 0)  # packing divides N
        args = [args[0], ["TENSOR", [nn // bn, k, bn], dtype], *args[2:]]
    return {**record, "input": [target, name, args, kwargs]}


def _tuple(value) -> str:
    """A Python repr of a task argument, as Task prints it."""
    if isinstance(value, list):
        inner = ", ".join(_tuple(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return "None" if value is None else repr(value)


def task_repr(name: str, args: list) -> str:
    printed = ", ".join(_tuple(a) for a in args)
    return f"Task(func_name={name}, args=({printed}), kwargs={{}}, workload=('{name}', {printed}))"


def _logical_tasks() -> list[tuple[str, list]]:
    """The example's tasks, a dense layer once (it prints dense_nopack and dense_pack of each)."""
    tasks = []
    for line in (EXAMPLE / "vgg16.autotvm_tasks.txt").read_text().splitlines():
        name = re.match(r"Task\(func_name=([\w.]+)", line).group(1)
        args = re.search(r"args=(\(.*?\)), kwargs=", line).group(1)
        args = json.loads(args.replace("(", "[").replace(")", "]").replace("'", '"').replace("None", "null")
                          .replace(",]", "]"))
        if not (name.startswith("dense") and any(n.startswith("dense") and a[:2] == args[:2] for n, a in tasks)):
            tasks.append((name, args))
    return tasks


def int8_tasks() -> list[str]:
    out = []
    for name, args in _logical_tasks():
        (_, data, _), (_, weight, _) = args[0], args[1]
        if name.startswith("conv2d") and data[1] % 4 == 0:
            n, c, h, w = data
            o, i, kh, kw = weight
            ic, oc = min(c, 16), min(o, 16)
            out.append(task_repr("conv2d_NCHWc_int8.x86", [
                ["TENSOR", [n, c // ic, h, w, ic], "uint8"], ["TENSOR", [o // oc, i // ic, kh, kw, ic // 4, oc, 4], "int8"],
                *args[2:5], f"NCHW{ic}c", f"NCHW{oc}c", "int32"]))
        elif name.startswith("dense") and weight[0] % 16 == 0 and weight[1] % 4 == 0:  # as TVM asks of VNNI
            (nn, k) = weight
            out.append(task_repr("dense_vnni.x86", [["TENSOR", data, "uint8"],
                                                    ["TENSOR", [nn // 16, k // 4, 16, 4], "int8"], None, "int32"]))
    return out


def bitserial_tasks() -> list[str]:
    out = []
    for name, args in _logical_tasks():
        (_, data, _), (_, weight, _) = args[0], args[1]
        if name.startswith("conv2d") and data[1] > 3:
            n, c, h, w = data
            o, i, kh, kw = weight
            out.append(task_repr("bitserial_conv2d_nhwc.arm_cpu", [
                ["TENSOR", [n, h, w, c], "uint8"], ["TENSOR", [kh, kw, i, o], "uint8"], args[2], args[3],
                2, 1, "uint8", "int16", 1]))
        elif name.startswith("dense"):
            out.append(task_repr("bitserial_dense.arm_cpu", [["TENSOR", data, "uint8"], ["TENSOR", weight, "uint8"],
                                                             2, 1, "uint8", "int16", 1]))
    return out


def made() -> dict[str, list[str]]:
    log = [json.loads(line) for line in (EXAMPLE / "vgg16.autotvm.log").read_text().splitlines()]
    return {
        "vgg16_packed.autotvm.log": [json.dumps(packed_record(record)) for record in log],
        "vgg16_int8.tasks.txt": int8_tasks(),
        "vgg16_bitserial.tasks.txt": bitserial_tasks(),
    }


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, lines in made().items():
        (out / name).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
