"""Write the graph debug runtime's log lines for the bundled VGG-16 build, as a console
shows them when `run_individual` runs (3 repeats):

* vgg16.runtime07.log: TVM 0.6/0.7, graph_runtime_debug.cc, one line per node and repeat
  (`Op #N <node name>: <t> us/iter`, after an `Iteration: K` line), glog prefixes;
* vgg16.executor08.log: TVM 0.8+, graph_executor_debug.cc, `Op #N <node name>:` then
  `Iteration: K: <t> us/iter` lines, with Python logging lines between.

Node names, order and modelled times are those of hotdb/examples/make_vgg16.py (default
seed); the per-repeat jitter is seeded too.

    python tests/data/debug-log/make_logs.py tests/data/debug-log
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from hotdb.examples.make_vgg16 import build_calls, name_kernels, node_names


def write(out: Path) -> None:
    rng = random.Random(16)
    calls = build_calls(rng)
    nodes = node_names(name_kernels(calls, prefix=""))
    jitter = random.Random(7)
    samples = [[c.time_us * jitter.uniform(0.97, 1.03) for _ in range(3)] for c in calls]
    old = ["[10:21:33] /home/user/tvm/src/runtime/graph/debug/graph_runtime_debug.cc:103: Iteration: 0"]
    for k in range(3):
        if k:
            old.append(f"[10:21:3{3 + k}] /home/user/tvm/src/runtime/graph/debug/graph_runtime_debug.cc:103: Iteration: {k}")
        for i, (node, times) in enumerate(zip(nodes, samples)):
            old.append(f"[10:21:3{3 + k}] /home/user/tvm/src/runtime/graph/debug/graph_runtime_debug.cc:108: "
                       f"Op #{i} {node}: {times[k]:.6g} us/iter")
    (out / "vgg16.runtime07.log").write_text("\n".join(old) + "\n")
    new = ["INFO:root:Running individual nodes (3 repeats)"]
    for i, (node, times) in enumerate(zip(nodes, samples)):
        new.append(f"[12:00:01] /workspace/src/runtime/graph_executor/debug/graph_executor_debug.cc:65: Op #{i} tvmgen_default_{node}:")
        for k in range(3):
            new.append(f"[12:00:01] /workspace/src/runtime/graph_executor/debug/graph_executor_debug.cc:68: "
                       f"Iteration: {k}: {times[k]:.6g} us/iter")
    (out / "vgg16.executor08.log").write_text("\n".join(new) + "\n")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
