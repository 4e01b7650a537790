"""The forum thread this project answers, exactly as its author posted it (the page's
text: prose, typographic quotes, the VGG-16 debug table, `print(mod["main"])` with a reply
glued onto one IR line, the `[Kernel i/N]` printout, and two of its blocks quoted again
further down). Read where it lies, never copied; skipped where the folder is absent.

Read as one file it must give what its three artifacts give when ingested apart: every
convolution and dense layer matched to a task whose workload computes the node's own
output, and the tasks that cover 90 % of the time.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import SEED, shared


@pytest.fixture
def seed() -> Path:
    return shared(SEED, "selective_tuning_of_hotspots.txt")


def _parts(seed: Path, folder: Path) -> list[Path]:
    """The thread's three artifacts cut out by hand: the table (header to Total_time),
    the IR (`fn (` to its closing brace) and the first task printout."""
    lines = seed.read_text(encoding="utf-8").splitlines()
    table = next(i for i, line in enumerate(lines) if line.startswith("Node Name"))
    table_end = next(i for i in range(table, len(lines)) if lines[i].startswith("Total_time")) + 1
    ir = next(i for i, line in enumerate(lines) if line.startswith("fn (%data"))
    ir_end = next(i for i in range(ir, len(lines)) if lines[i] == "}") + 1
    tasks = next(i for i, line in enumerate(lines) if line.startswith("[Kernel 0/"))
    tasks_end = next(i for i in range(tasks, len(lines)) if not lines[i].strip())
    out = []
    for name, (a, b) in {"table.txt": (table, table_end), "relay.txt": (ir, ir_end), "tasks.txt": (tasks, tasks_end)}.items():
        path = folder / name
        path.write_text("\n".join(lines[a:b]) + "\n", encoding="utf-8")
        out.append(path)
    return out


def _logical_output(workload: str) -> list[int]:
    """The output shape a conv2d or dense workload key computes (NCHW, OIHW)."""
    dims = {k: [int(x) for x in re.split(r"[x,]", v)] for k, v in re.findall(r"\b(d|w|s|p|dl)=(\S+)", workload)}
    if workload.startswith("dense"):
        return [dims["d"][0], dims["w"][0]]
    (n, _, h, w), (k, _, r, s), (sh, sw), (pt, pl, pb, pr) = dims["d"], dims["w"], dims["s"], dims["p"]
    return [n, k, (h + pt + pb - r) // sh + 1, (w + pl + pr - s) // sw + 1]


def _tunable_matches(cli, db_args) -> list[dict]:
    matches = cli(*db_args, "matches", "-f", "json", use_db=not db_args).json()
    return [m for m in matches if re.search(r"conv2d|dense", m["node"])]


def test_the_seed_thread_read_whole_matches_every_convolution_and_dense_layer(cli, seed, tmp_path):
    result = cli("ingest", seed, "--model", "vgg16")
    assert result.code == 0, result.err
    formats = [line.split(" as ")[1].split(" ")[0] for line in result.err.splitlines() if line.startswith("ingested")]
    assert {"debug-table", "relay", "autotvm-tasks"} <= set(formats)
    assert "read as rendered text: typographic quotes" in result.err
    tunable = _tunable_matches(cli, ())
    assert len(tunable) == 16  # 13 convolutions and 3 dense layers
    logical = {r["node_name"]: r["out_shape_logical"] for r in cli(
        "sql", "SELECT node_name, out_shape_logical FROM nodes", "-f", "json").json()}
    for m in tunable:
        assert m["method"] not in ("ambiguous", "unmatched") and m["confidence"] >= 0.7, m
        assert _logical_output(m["workload"]) == logical[m["node"]], m
    top = cli("top", "--coverage", "90", "-f", "json").json()
    assert len(top) == 7 and top[-1]["cumulative_pct"] >= 90 > top[-2]["cumulative_pct"]


def test_the_seed_thread_gives_what_its_three_parts_give(cli, seed, tmp_path):
    whole = cli("ingest", seed, "--model", "vgg16")
    assert whole.code == 0, whole.err
    parts_db = ("--db", tmp_path / "parts.duckdb")
    apart = cli(*parts_db, "ingest", *_parts(seed, tmp_path), "--model", "vgg16", use_db=False)
    assert apart.code == 0, apart.err

    def key(m):
        return m["node"], m["task_name"], m["workload"], m["method"]
    assert sorted(map(key, _tunable_matches(cli, ()))) == sorted(map(key, _tunable_matches(cli, parts_db)))
    tops = [cli(*db, "top", "--coverage", "90", "-f", "json", use_db=not db).json() for db in ((), parts_db)]
    assert [(t["workload"], round(t["time_us"], 3)) for t in tops[0]] == \
        [(t["workload"], round(t["time_us"], 3)) for t in tops[1]]
