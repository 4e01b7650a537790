"""IR pastes of our own making, from the bundled VGG-16 Relay text (hotdb/examples/vgg16/
vgg16.relay.txt, Relay's text printer) and its classifier written as Relax TVMScript of 2022
(`@tvm.script.ir_module`, `T.Buffer[(...), "float32"]`, `Tensor((...), "float32")`
parameters, `R.call_tir(func, (args,), (out shape), dtype=...)`), pasted as people paste IR:
statements without their function and cut off at the end, a function glued to a sentence
with its statements joined on one line, and two printouts of which the last is cut off.

    python tests/data/ir-pastes/make_fixtures.py [OUT_FOLDER]   # default: made/ beside this file
"""

from __future__ import annotations

import sys
from pathlib import Path

RELAY = Path(__file__).resolve().parents[3] / "hotdb" / "examples" / "vgg16" / "vgg16.relay.txt"
STATEMENTS = (15, 25)  # %13 (the pool before conv3_1) to %22: three convolutions with bias and relu; %23 cut
# VGG-16's first block as `print(mod)` prints it once the weights are parameters of its own
BLOCK_HEADER = ('def @main(%data: Tensor[(1, 3, 224, 224), float32], %conv1_1_weight: Tensor[(64, 3, 3, 3), float32], '
                '%conv1_1_bias: Tensor[(64), float32], %conv1_2_weight: Tensor[(64, 64, 3, 3), float32], '
                '%conv1_2_bias: Tensor[(64), float32]) -> Tensor[(1, 64, 112, 112), float32] {')
CLASSIFIER = [  # (PrimFunc, inputs, output) of fc6, fc7, fc8 and the softmax
    ("fused_dense_add_relu", [("x", (1, 25088)), ("w6", (4096, 25088)), ("b6", (4096,))], (1, 4096)),
    ("fused_dense_add_relu1", [("lv0", (1, 4096)), ("w7", (4096, 4096)), ("b7", (4096,))], (1, 4096)),
    ("fused_dense_add", [("lv1", (1, 4096)), ("w8", (1000, 4096)), ("b8", (1000,))], (1, 1000)),
    ("softmax", [("lv2", (1, 1000))], (1, 1000)),
]


def relay() -> list[str]:
    return RELAY.read_text().splitlines()


def block() -> list[str]:
    """The first block (two convolutions and the pool) as a module of its own."""
    body = relay()[2:9]
    return ['#[version = "0.0.5"]', BLOCK_HEADER] + body[:-1] + [body[-1].split(" = ", 1)[1].rstrip(";"), "}"]


def statements() -> list[str]:
    lines = relay()
    start, end = STATEMENTS
    return lines[start:end] + [lines[end][:70]]  # the copy ends inside the next statement


def glued() -> list[str]:
    """A page that glued the printout to its sentence and joined the statements on one line."""
    lines = block()
    return ["We fold the constants and print the module.",
            "print(mod) shows:" + lines[0] + " " + lines[1] + "".join(line.strip() for line in lines[2:]),
            "The convolutions are not fused yet."]


def two_modules() -> list[str]:
    lines = block()
    return (["The first block of VGG-16:", ""] + lines + ["", "and after SimplifyExpr it printed:", ""]
            + lines[:5] + [lines[5][:90]])


def _shape(dims: tuple) -> str:
    return "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"


def relax_2022() -> list[str]:
    out = ["```python", "@tvm.script.ir_module", "class VGG16Classifier:"]
    for name, inputs, result in CLASSIFIER:
        params = [f'{p.upper()}: T.Buffer[{_shape(s)}, "float32"]' for p, s in inputs] + [f'Out: T.Buffer[{_shape(result)}, "float32"]']
        out += ["    @T.prim_func", f"    def {name}(" + (",\n" + " " * (9 + len(name))).join(params) + "):",
                f'        T.func_attr({{"global_symbol": "{name}", "tir.noalias": True}})',
                f"        for i, j in T.grid{_shape(result)}:", '            with T.block("Out"):',
                '                vi, vj = T.axis.remap("SS", [i, j])', "                Out[vi, vj] = T.float32(0)", ""]
    weights = [p for _, inputs, _ in CLASSIFIER[:3] for p in inputs[1:]]
    params = ['x: Tensor((1, 25088), "float32")'] + [f'{p}: Tensor({_shape(s)}, "float32")' for p, s in weights]
    out += ["    @R.function", "    def main(" + (",\n" + " " * 13).join(params) + "):", "        with R.dataflow():"]
    for i, (name, inputs, result) in enumerate(CLASSIFIER):
        target = "out" if i == len(CLASSIFIER) - 1 else f"lv{i}"
        args = ", ".join(p for p, _ in inputs) + ("," if len(inputs) == 1 else "")
        out.append(f'            {target} = R.call_tir({name}, ({args}), {_shape(result)}, dtype="float32")')
    return out + ["            R.output(out)", "        return out", "```"]


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    files = {"vgg16_statements_cut.txt": statements(), "vgg16_block_glued_to_prose.txt": glued(),
             "vgg16_two_printouts_last_cut.txt": two_modules(), "vgg16_classifier_relax_2022.md": relax_2022()}
    for name, lines in files.items():
        (out / name).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "made")
