"""Peak memory of `hotdb ingest` on hostile and large inputs, each in a fresh process.

    python bench/memory_bounds.py                      every input below
    python bench/memory_bounds.py --streamed           the baseline and the streamed texts only
    python bench/memory_bounds.py --streamed json,autotvm-model-log   those streamed inputs only (STREAMED_TEXTS)
    python bench/memory_bounds.py --relay-mib 64,256   the sizes of the streamed Relay texts (16,64)
    python bench/memory_bounds.py --json-mib 256,1024  the sizes of the streamed Report JSONs (256,1024)
    python bench/memory_bounds.py --log-mib 16,256     the sizes of the streamed tuning logs (256,1024)
    python bench/memory_bounds.py --streamed table,relax --table-mib 256 --relax-mib 256
                                                       streamed debug tables and Relax modules only, of
                                                       these sizes (table 256,1024, relax 64,256)
    python bench/memory_bounds.py --every-reader       the baseline and each reader's largest input
    python bench/memory_bounds.py --every-reader relay,ms-database   those readers only (reader_inputs.MAKERS)

The streamed tuning logs are a model's (reader_inputs.MODEL_LOGS: a real log repeated,
read where HOTDB_REAL says, ../shared/real by default).

Baseline: the same process reading the 1 MiB debug log made here (what every ingest
costs: Python, DuckDB, the loader). Each input's peak resident memory is given as MiB
and as a ratio to that baseline. The bombs are gzip files of identical members (16 MiB of
one chunk compressed once, repeated), so an 8 GiB bomb takes milliseconds to make.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

MiB = 2**20
LOG_LINE = b"Op #1 fused_nn_conv2d_add_relu: 1234.5 us/iter\n"


def make(path: Path, decompressed: int, chunk: bytes) -> Path:
    member = gzip.compress(chunk * (min(decompressed, 16 * MiB) // len(chunk)), compresslevel=9)
    with path.open("wb") as out:
        for _ in range(max(1, decompressed // (16 * MiB))):
            out.write(member)
    return path


def repeated(path: Path, size: int, head: bytes, block: bytes, tail: bytes = b"") -> Path:
    """A text of about `size` bytes: `head`, `block` repeated, `tail` (written as 16 MiB
    writes of the block repeated, so that a GiB takes seconds)."""
    batch = block * max(1, 16 * MiB // len(block))
    with path.open("wb") as out:
        out.write(head)
        written = len(head)
        while written + len(batch) <= size:
            out.write(batch)
            written += len(batch)
        out.write(block * ((size - written) // len(block)) + tail)
    return path


def debug_log(path: Path, size: int) -> Path:
    """A graph runtime debug log (TVM 0.6/0.7 form) of 100 kernels, run again and again:
    ~20 million samples a GiB."""
    ops = b"".join(b"Op #%d fused_nn_conv2d_add_relu_%d: %d.5 us/iter\n" % (i, i, 100 + i) for i in range(100))
    return repeated(path, size, b"", ops)


def relay_text(path: Path, size: int) -> Path:
    """One Relay function whose body repeats a conv2d-add-relu block: ~3 million IR calls
    a GiB, each a row to store."""
    ty = "/* ty=Tensor[(1, 64, 56, 56), float32] */"
    head = ("def @main(%data: Tensor[(1, 64, 56, 56), float32], %w: Tensor[(64, 64, 3, 3), float32], "
            f"%b: Tensor[(64, 1, 1), float32]) -> Tensor[(1, 64, 56, 56), float32] {{\n  %2 = nn.relu(%data) {ty};\n")
    block = (f"  %0 = nn.conv2d(%2, %w, padding=[1, 1, 1, 1], channels=64, kernel_size=[3, 3]) {ty};\n"
             f"  %1 = add(%0, %b) {ty};\n  %2 = nn.relu(%1) {ty};\n")
    return repeated(path, size, head.encode(), block.encode(), b"  %2\n}\n")


def report_json(path: Path, size: int) -> Path:
    """Report.json() of a model's kernels (bench/ingest.py's: the ResNet-50 fixture's calls at
    batch sizes 1-8), its calls repeated: ~2.5 million calls a GiB, ~120 signatures."""
    import json

    from ingest import signatures

    kinds = {"Count": "count", "Duration (us)": "microseconds", "Percent": "percent"}
    calls = [json.dumps({key: {kinds.get(key, "string"): value} for key, value in call.items()}, separators=(",", ":"))
             for call in signatures()]
    tail = '],"device_metrics":{"cpu0":{"Count":{"count":1}}},"configuration":{"Executor":{"string":"Graph"}}}\n'
    return repeated(path, size, ('{"calls":[' + calls[0]).encode(), "".join("," + c for c in calls).encode(), tail.encode())


def json_apart(path: Path, size: int) -> Path:
    """report_json() in a child process (see made_apart): it imports bench/ingest.py, and DuckDB with it."""
    subprocess.run([sys.executable, __file__, "--report-json", str(path), str(size)], check=True)
    return path


# a model's kernels: 100 of them, run in order again and again
KERNELS = [(f"tvmgen_default_fused_nn_conv2d_add_nn_relu_{j}", f"(1, {64 << j % 4}, {56 >> j % 4}, {56 >> j % 4})")
           for j in range(100)]


def numbered(path: Path, size: int, head: str, record, tail=lambda n: "") -> int:
    """`head`, record(0), record(1), ... up to about `size` bytes, and tail(count): records
    that number on (a node, a binding each), written 4096 at a time. The count."""
    with path.open("w") as out:
        out.write(head)
        written, k = len(head), 0
        while written < size - 4096:
            batch = "".join(record(i) for i in range(k, k + 4096))
            out.write(batch)
            written += len(batch.encode())
            k += 4096
        out.write(tail(k))
    return k


def debug_table(path: Path, size: int) -> tuple[Path, str]:
    """The graph debug runtime's table with Measurements(us) (TVM >= 0.9): a model's 100
    kernels, run again and again, each row a node of its own name (numbered on)."""
    head = ("Node Name  Ops  Time(us)  Time(%)  Shape  Inputs  Outputs  Measurements(us)\n"
            "---------  ---  --------  -------  -----  ------  -------  ----------------\n")

    def row(k):
        func, shape = KERNELS[k % 100]
        return f"{func}_n{k}  {func}  {100 + k % 97}.25  0.001  {shape}  3  1  [{100 + k % 97}.2, {100 + k % 97}.3]\n"
    def total(n):  # what the rows sum to: no warning
        return f"Total_time  -  {sum(100.25 + k % 97 for k in range(n)):.3f}  -  -  -  -  -\n"
    count = numbered(path, size, head, row, total)
    return path, f"{count:,} nodes"


def relax_module(path: Path, size: int) -> tuple[Path, str]:
    """A Relax module as TVMScript prints a fused model (tests/data/relax): its main
    function's statements repeated, bindings numbered on (`lv1` ... `lv13000000`: three
    a block, two R.call_tir of PrimFuncs and a high-level call), the PrimFuncs printed
    after it (the reader's first pass finds them)."""
    fixture = (Path(__file__).parents[1] / "tests" / "data" / "relax" / "small_convnet.fused.relax.py").read_text()
    primfuncs = fixture[fixture.index("    @T.prim_func"):fixture.index("    @R.function")]
    ty = 'R.Tensor((1, 16, 8, 8), dtype="float32")'
    head = ("# from tvm.script import ir as I\n# from tvm.script import tirx as T\n# from tvm.script import relax as R\n\n"
            "@I.ir_module\nclass Module:\n    @R.function\n"
            f"    def forward(x: {ty}, conv2_weight: R.Tensor((16, 16, 3, 3), dtype=\"float32\"), "
            f"conv2_bias: R.Tensor((16,), dtype=\"float32\")) -> {ty}:\n"
            "        R.func_attr({\"num_input\": 1})\n        cls = Module\n        with R.dataflow():\n"
            f"            lv0: {ty} = R.nn.relu(x)\n")

    def block(k):
        i = 3 * k
        return (f"            lv{i + 1} = R.call_tir(cls.reshape, (conv2_bias,), out_ty=R.Tensor((1, 16, 1, 1), dtype=\"float32\"))\n"
                f"            lv{i + 2} = R.call_tir(cls.fused_conv2d1_add_relu, (lv{i}, conv2_weight, lv{i + 1}), out_ty={ty})\n"
                f"            lv{i + 3}: {ty} = R.nn.relu(lv{i + 2})\n")
    count = numbered(path, size - len(primfuncs), head, block,
                     lambda n: f"            R.output(lv{3 * n})\n        return lv{3 * n}\n\n" + primfuncs)
    return path, f"{3 * count:,} statements"


def peak(folder: Path, path: Path, *extra: str, env: dict | None = None) -> tuple[int, float, int, str]:
    """(exit code, seconds, peak RSS MiB, first line of stderr) of one ingest."""
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "hotdb", "--db", str(folder / f"{path.name}.duckdb"), "ingest",
                             str(path), *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().strip().splitlines()
    return os.waitstatus_to_exitcode(status), time.monotonic() - started, usage.ru_maxrss // 1024, (err or [""])[0]


def table_text(path: Path, size: int, *, rendered: bool) -> Path:
    """A debug table of `size` bytes between two paragraphs of prose; `rendered`: as a
    pager shows it (every line ending in `$`) with typographic quotes in the prose, the
    most work for the paste pipeline (hotdb/ingest/paste/: unrender.py, blocks.py)."""
    end = "$" if rendered else ""
    quote = "\u2019" if rendered else "'"
    head = (f"Here{quote}s the profile of my model:{end}\n{end}\n"
            f"Node Name  Ops  Time(us)  Time(%)  Shape  Inputs  Outputs{end}\n"
            f"---------  ---  --------  -------  -----  ------  -------{end}\n")
    rows, i = [], 0
    budget = size - len(head) - 200
    while budget > 0:
        row = f"fused_nn_conv2d_add_relu_{i}  fused_nn_conv2d_add_relu_{i}  {100 + i % 997}.5  0.001  (1, 64, 56, 56)  3  1{end}\n"
        rows.append(row)
        budget -= len(row)
        i += 1
    path.write_text(head + "".join(rows) + f"{end}\nThat{quote}s all I have.{end}\n", encoding="utf-8")
    return path


def made_apart(path: Path, size: int, *, rendered: bool) -> Path:
    """table_text() in a child process: on Linux a child's peak RSS counts its parent's
    pages from before the exec, so this script stays small."""
    subprocess.run([sys.executable, __file__, "--table", str(path), str(size), "1" if rendered else ""], check=True)
    return path


STREAMED_TEXTS = ("debug-log", "relay", "json", "table", "relax", "autotvm-model-log", "ansor-model-log")
LOG_LABELS = {"autotvm-model-log": "AutoTVM log of a model (42 workloads)",
              "ansor-model-log": "auto_scheduler log of a model (21 workloads)"}


def streamed_cases(folder: Path, sizes: dict[str, tuple[int, ...]], only: tuple[str, ...] = ()) -> list:
    """Texts streamed line by line (above HOTDB_STREAM_BYTES; Relay texts, tables, Relax
    modules and tuning logs are streamed with HOTDB_STREAM_BYTES=1MiB at every size), and
    Report JSONs call by call: memory flat in the size. Each file is made just before it is
    read, and deleted after. `sizes`: those of each kind (relay, json, table, relax, log)."""
    small = {"HOTDB_STREAM_BYTES": "1MiB"}
    cases = []
    if not only or "debug-log" in only:
        cases += [(f"debug log, {size // MiB} MiB, streamed", partial(debug_log, folder / f"log{size}.log", size), ())
                  for size in (256 * MiB, 2**30)]
    if not only or "json" in only:
        cases += [(f"Report JSON of a model's kernels, {size // MiB} MiB, streamed",
                   partial(json_apart, folder / f"report{size}.json", size), ()) for size in sizes["json"]]
    texts = {"relay": ("Relay text", relay_text, "txt"), "table": ("debug table", debug_table, "txt"),
             "relax": ("Relax module", relax_module, "py")}
    for kind, (what, make_text, ext) in texts.items():
        if not only or kind in only:
            cases += [(f"{what}, {size // MiB} MiB, streamed", partial(make_text, folder / f"{kind}{size}.{ext}", size), small)
                      for size in sizes[kind]]
    for name, label in LOG_LABELS.items():
        if not only or name in only:
            cases += [(f"{label}, {size // MiB} MiB, streamed", partial(made_input, name, folder / f"{name}{size}.log",
                                                                        size, False), small) for size in sizes["log"]]
    return cases


READ_WHOLE = int(os.environ.get("BENCH_READ_WHOLE", 64 * MiB - 64 * 1024))  # just under HOTDB_MAX_READ_BYTES (and HOTDB_STREAM_BYTES)
STREAMED = int(os.environ.get("BENCH_STREAMED", 80 * MiB))  # above HOTDB_STREAM_BYTES: streamed line by line, or by DuckDB
# formats a plain file of which is streamed above HOTDB_STREAM_BYTES; a gzip of them is read whole
STREAMING = ("debug-log", "debug-table", "relay", "relax", "report-csv", "report-json", "autotvm-log", "autotvm-tasks",
             "ansor-log", "ansor-tasks", "ansor-fallback")
# what detection does not find at this size: a graph JSON lists its nodes before "arg_nodes",
# beyond the 64 KiB sniffed
FORMAT_ASKED = {"graph-json": ("--format", "graph-json")}


def reader_cases(folder: Path, only: tuple[str, ...] = ()) -> list:
    """Each reader's largest input (bench/reader_inputs.py): just under the read limit,
    and for a streaming format also a file above the stream threshold and a gzip read
    whole. Each is made in a child process just before it is read, and deleted after."""
    from reader_inputs import MAKERS

    cases = []
    for name in only or tuple(MAKERS):
        sizes = [(READ_WHOLE, False), (STREAMED, False), (READ_WHOLE, True)] if name in STREAMING else [(READ_WHOLE, False)]
        for size, gz in sizes:
            path = folder / f"{name}-{size}{'.gz' if gz else ''}"
            how = "gzip, read whole" if gz else "streamed" if size > READ_WHOLE else "read whole"
            if name in ("debug-dump", "ms-database"):
                how = "a folder of two files, each " + f"{size / MiB:.2f} MiB at most, read whole"
            cases.append((f"{name}, {size / MiB:.2f} MiB of text ({how})", partial(made_input, name, path, size, gz),
                          FORMAT_ASKED.get(name, ())))
    return cases


def made_input(name: str, path: Path, size: int, gz: bool) -> tuple[Path, str]:
    """bench/reader_inputs.py in a child process (see made_apart): the path and how many
    records it holds."""
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("reader_inputs.py")), name, str(path), str(size),
                           *(["--gzip"] if gz else [])], check=True, capture_output=True, text=True)
    return path, f"{int(done.stdout):,} records"


def main(streamed: tuple[str, ...] | None, sizes: dict[str, tuple[int, ...]], readers: tuple[str, ...] | None = None) -> None:
    """streamed: None, every input; else the streamed inputs of those names only (STREAMED_TEXTS)."""
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        folder = Path(tmp)
        base = [("baseline: debug log, 1 MiB", make(folder / "base.log.gz", MiB, LOG_LINE), ())]
        if readers is not None:
            return table(folder, base + reader_cases(folder, readers))
        if streamed is not None:
            return table(folder, base + streamed_cases(folder, sizes, streamed))
        cases = base + [("debug log, 64 MiB (the default limit)", make(folder / "log64.log.gz", 64 * MiB, LOG_LINE), ()),
                 ("gzip bomb, 1 GiB of zeros", make(folder / "b1.log.gz", 2**30, b"\0"), ()),
                 ("gzip bomb, 8 GiB of zeros", make(folder / "b8.log.gz", 8 * 2**30, b"\0"), ()),
                 ("one AutoTVM line of 48 MiB", make(folder / "line.log.gz", 48 * MiB, b'{"input": ["llvm", '),
                  ("--format", "autotvm-tasks")),
                 ("/dev/zero", Path("/dev/zero"), ()),
                 ("pasted text, 16 MiB (the largest read as a paste), rendered ($ ends, curly quotes)",
                  made_apart(folder / "paste16.txt", 16 * MiB, rendered=True), ()),
                 ("debug table amid prose, 64 MiB (the default limit)",
                  made_apart(folder / "table64.txt", 64 * MiB - 4096, rendered=False), ())]
        table(folder, cases + streamed_cases(folder, sizes))


def table(folder: Path, cases: list) -> None:
    """Each case ingested in a fresh process, a row of the table as it ends; a streamed
    text is deleted once measured (a GiB each)."""
    base_mib = None
    print("| input | compressed | exit | seconds | peak RSS (MiB) | ratio to baseline | what hotdb said |")
    print("|---|---|---|---|---|---|---|")
    for name, path, extra in cases:
        made = path() if callable(path) else path
        made, note = made if isinstance(made, tuple) else (made, "")
        env = extra if isinstance(extra, dict) else None
        code, seconds, mib, said = peak(folder, made, *(() if env else extra), env=env)
        base_mib = base_mib or mib
        size = f"{_bytes(made) / MiB:.2f} MiB" if made.exists() and not made.is_char_device() else "-"
        name += f", {note}" if note else ""
        print(f"| {name} | {size} | {code} | {seconds:.1f} | {mib} | {mib / base_mib:.2f} | {said[:90]} |", flush=True)
        if callable(path):
            shutil.rmtree(made) if made.is_dir() else made.unlink()
            (folder / f"{made.name}.duckdb").unlink(missing_ok=True)


def _bytes(path: Path) -> int:
    """A file's size, or the sum of a folder's files."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else path.stat().st_size


def _names(args: list[str], option: str) -> tuple[str, ...] | None:
    """The names given after `option` (NAME,NAME; none: all), None without it."""
    if option not in args:
        return None
    at = args.index(option)
    return tuple(n for n in "".join(args[at + 1:at + 2]).split(",") if n and not n.startswith("-"))


if __name__ == "__main__":
    if {"-h", "--help"} & set(sys.argv[1:]):
        print(__doc__)
    elif sys.argv[1:2] == ["--report-json"]:
        report_json(Path(sys.argv[2]), int(sys.argv[3]))
    elif sys.argv[1:2] == ["--table"]:
        table_text(Path(sys.argv[2]), int(sys.argv[3]), rendered=bool(sys.argv[4]))
    else:
        # the Relay parser reads ~8,000 statements a second on the shared 2-core machine:
        # a GiB (13 million) takes ~30 minutes; the Relax reader ~2,000 a second (two passes):
        # a GiB (~9 million) over an hour: its default sizes are 64 and 256 MiB
        args = sys.argv[1:]
        def option(name: str, default: str) -> str:
            return args[args.index(name) + 1] if name in args else default

        sizes = {kind: tuple(int(n) * MiB for n in option(f"--{kind}-mib", default).split(","))
                 for kind, default in (("log", "256,1024"), ("relay", "16,64"), ("json", "256,1024"),
                                       ("table", "256,1024"), ("relax", "64,256"))}
        main(_names(args, "--streamed"), sizes, _names(args, "--every-reader"))
