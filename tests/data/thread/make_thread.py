"""Write the forum thread's three artifacts for the bundled VGG-16 build, in the forms the
thread pasted them ("[AutoTVM] Selective tuning of hotspots", TVM 0.6/0.7, x86):

* vgg16.debug_table.txt: the debug runtime's printed table, TVM 0.6/0.7 names (no
  `tvmgen_default_` prefix), NCHW{c}c output shapes, no Measurements column;
* vgg16.relay.txt: `print(mod["main"])` after the parameters were bound: a top-level
  `fn (%data: ...)` with no `def @main` and no version header, weights as
  `meta[relay.Constant][i] /* ty=... */ /* ty=... */` (0.6 prints their type twice), and
  the user's question glued after one statement's `;`;
* vgg16.kernels.txt: the user's own loop over `extract_from_program`'s 12 tasks
  (9 conv2d_NCHWc.x86, 3 dense_nopack.x86, in TVM's extraction order, last layer first):

      [Kernel 0/11] dense_nopack.x86 - Search space size: 208
           Output previous layer :  ('TENSOR', (1, 4096), 'float32')
           Input current layer   :  ('TENSOR', (1000, 4096), 'float32')

* thread.txt: the three pasted into one post with prose around and between them.
* vgg16.truth.json: which task each node runs (task name and its two tensors).

The network, kernel naming, layouts and (modelled) times are those of
hotdb/examples/make_vgg16.py with its default seed; only the printing differs. The prose
is ours, written for this fixture.

    python tests/data/thread/make_thread.py tests/data/thread
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from hotdb.examples.make_vgg16 import (
    CONVS,
    DENSES,
    POOL_AFTER,
    build_calls,
    debug_table,
    name_kernels,
    node_names,
)

# Search-space sizes printed for the tasks (config_space lengths of x86 templates; values
# of the kind the thread shows, e.g. 208 for the last dense layer).
_SPACE = {"dense_nopack.x86": 208, "conv2d_NCHWc.x86": 392}


def relay_text() -> str:
    body, v, last, const = [], 0, "%data", 0

    def constant(shape: tuple) -> str:
        nonlocal const
        ty = f"Tensor[({', '.join(map(str, shape))}{',' if len(shape) == 1 else ''}), float32]"
        text = f"meta[relay.Constant][{const}] /* ty={ty} */ /* ty={ty} */"
        const += 1
        return text

    def emit(expr: str, ty: str, glued: str = "") -> None:
        nonlocal v, last
        body.append(f"  %{v} = {expr} /* ty={ty} */;{glued}")
        last = f"%{v}"
        v += 1

    for name, cin, cout, size in CONVS:
        t = f"Tensor[(1, {cout}, {size}, {size}), float32]"
        emit(f"nn.conv2d({last}, {constant((cout, cin, 3, 3))}, padding=[1, 1], channels={cout}, kernel_size=[3, 3])", t)
        emit(f"nn.bias_add({last}, {constant((cout,))})", t)
        emit(f"nn.relu({last})", t)
        if name in POOL_AFTER:
            half = size // 2
            emit(f"nn.max_pool2d({last}, pool_size=[2, 2], strides=[2, 2])",
                 f"Tensor[(1, {cout}, {half}, {half}), float32]")
    emit(f"nn.batch_flatten({last})", "Tensor[(1, 25088), float32]")
    for name, k, n, relu in DENSES:
        t = f"Tensor[(1, {n}), float32]"
        emit(f"nn.dense({last}, {constant((n, k))}, units={n})", t)
        emit(f"nn.bias_add({last}, {constant((n,))}, axis=-1)", t,
             glued="would you be able to see how these can be matched?" if name == "fc8" else "")
        if relu:
            emit(f"nn.relu({last})", t)
            emit(f"nn.dropout({last})", f"({t}, {t})")
            body.append(f"  %{v} = %{v - 1}.0;")
            last = f"%{v}"
            v += 1
    body.append(f"  nn.softmax({last}) /* ty=Tensor[(1, 1000), float32] */")
    return ("fn (%data: Tensor[(1, 3, 224, 224), float32]) -> Tensor[(1, 1000), float32] {\n"
            + "\n".join(body) + "\n}\n// meta data omitted. you can use show_meta_data=True to include meta data\n")


def extracted_tasks() -> list[tuple[str, list, list]]:
    """(task name, data tensor, weight tensor) as extract_from_program lists them: one per
    distinct convolution and one dense_nopack.x86 per dense layer, last layer first."""
    tasks: list[tuple[str, list, list]] = []
    for name, cin, cout, size in CONVS:
        task = ("conv2d_NCHWc.x86", ["TENSOR", [1, cin, size, size], "float32"], ["TENSOR", [cout, cin, 3, 3], "float32"])
        if task not in tasks:
            tasks.append(task)
    for name, k, n, _ in DENSES:
        tasks.append(("dense_nopack.x86", ["TENSOR", [1, k], "float32"], ["TENSOR", [n, k], "float32"]))
    return list(reversed(tasks))


def _tensor(t: list) -> str:
    return f"('TENSOR', ({', '.join(map(str, t[1]))}), '{t[2]}')"


def kernels_text() -> str:
    tasks = extracted_tasks()
    lines = []
    for i, (name, data, weight) in enumerate(tasks):
        lines.append(f"[Kernel {i}/{len(tasks) - 1}] {name} - Search space size: {_SPACE[name]}")
        lines.append(f"     Output previous layer :  {_tensor(data)}")
        lines.append(f"     Input current layer   :  {_tensor(weight)}")
    return "\n".join(lines) + "\n"


def thread_text(table: str, relay: str, kernels: str) -> str:
    return (
        "Thanks for the answer! I profiled the network to see where the time goes, using the\n"
        "tutorial as a basis with only VGG-16 (llvm, x86).\n"
        "\n"
        "This is the output of the debug runtime:\n"
        "\n" + table + "\n"
        "The ops are fused, so I printed the IR as well (print(mod[\"main\"])):\n"
        "\n" + relay + "\n"
        "And these are the tasks AutoTVM extracts, with the shapes of their inputs:\n"
        "\n" + kernels + "\n"
        "The two 112x112 convolutions have the same output shape (1, 2, 112, 112, 64), so I\n"
        "cannot tell from the table which task each of them is. Any idea is welcome!\n")


def write(out: Path) -> dict[str, Path]:
    rng = random.Random(16)  # make_vgg16's default seed: the same modelled times
    calls = build_calls(rng)
    funcs = name_kernels(calls, prefix="")
    nodes = node_names(funcs)
    out.mkdir(parents=True, exist_ok=True)
    files = {"table": out / "vgg16.debug_table.txt", "relay": out / "vgg16.relay.txt",
             "kernels": out / "vgg16.kernels.txt", "thread": out / "thread.txt", "truth": out / "vgg16.truth.json"}
    table = debug_table(calls, funcs, nodes, rng, measurements=False)
    files["table"].write_text(table)
    files["relay"].write_text(relay_text())
    files["kernels"].write_text(kernels_text())
    files["thread"].write_text(thread_text(table, relay_text(), kernels_text()))
    truth = [{"node": node, "func_name": func, "task_name": c.task[0] if c.task else None,
              "tensors": c.task[1][:2] if c.task else None} for c, func, node in zip(calls, funcs, nodes)]
    files["truth"].write_text(json.dumps(truth, indent=1) + "\n")
    return files


if __name__ == "__main__":
    for path in write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent).values():
        print(path)
