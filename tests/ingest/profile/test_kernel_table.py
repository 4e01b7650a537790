"""`kernel-table`: kernel-time tables that are not in TVM's exact headers, read by their
columns: MLC-LLM and dlight profiler tables (names run into the next column), and a TVM
debug table pasted into a shell script behind `# ` (tests/data/kernel-table/SOURCES.md)."""

from __future__ import annotations

import re

import pytest
from helpers import DATA, PASTES, parse
from hypothesis import given, settings
from hypothesis import strategies as st

from hotdb.errors import ParseError
from hotdb.ingest import detect, get
from hotdb.ingest.profile.kernel_table import KernelTable
from hotdb.ingest.source import Source
from hotdb.workload import parse_kernel_name

KT = PASTES / "kernel-table"  # real texts: ../shared/real/pastes/kernel-table/ (SOURCES.md here)
REAL_PASTE_FOLDERS = ("KT",)
MLC = ["mlc_llm_pr201_redpajama_decode_adreno.txt", "mlc_llm_pr209_redpajama_prefill_adreno.txt"]
DLIGHT = ["tvm_pr15389_dlight_matmul_encoding.txt", "tvm_pr16338_dlight_rmsnorm_old.txt"]
DEMO = "philippvk_tvm_microtvm_demo.sh"
# Rows whose name ran into the time: (name, count, total ms) as the text says them
GLUED = {
    "fused_decode6_fused_matmul9_add7_cast8_cast12_add50.9462": ("fused_decode6_fused_matmul9_add7_cast8_cast12_add5", 31, 29.3330),
    "fused_decode6_fused_matmul9_add7_cast8_cast12_add5_cast71.2040": ("fused_decode6_fused_matmul9_add7_cast8_cast12_add5_cast7", 1, 1.2040),
    "fused_decode3_fused_NT_matmul4_add7_cast8_cast12_add58.0945": ("fused_decode3_fused_NT_matmul4_add7_cast8_cast12_add5", 31, 250.9300),
    "fused_decode3_fused_NT_matmul4_add7_cast8_cast12_add5_cast78.0964": ("fused_decode3_fused_NT_matmul4_add7_cast8_cast12_add5_cast7", 1, 8.0964),
}
ROW = re.compile(r"^(\S+)\s{2,}(\d+\.\d{4})\s+(\d+)\s+(\d+\.\d{4})\s+(\d+\.\d{2})")


def _parse(name: str):
    return get("kernel-table").parse(Source.read(KT / name))


def _expected(name: str) -> list[tuple[str, int, float]]:
    """(name, calls, total us) of each row, from the text's own cells."""
    out = []
    for line in (KT / name).read_text().splitlines():
        first = line.split(" ")[0]
        if first in GLUED:
            kernel, count, total_ms = GLUED[first]
            out.append((kernel, count, total_ms * 1000))
        elif m := ROW.match(line):
            out.append((m.group(1), int(m.group(3)), float(m.group(4)) * 1000))
    return out


@pytest.mark.parametrize("name", MLC + DLIGHT)
def test_a_row_is_the_time_of_all_its_calls(name):
    parsed = _parse(name)
    got = [(n.node_name, n.calls, n.time_us) for n in parsed.nodes]
    expected = _expected(name)
    assert [g[:2] for g in got] == [e[:2] for e in expected]
    assert [g[2] for g in got] == pytest.approx([e[2] for e in expected], rel=1e-12)
    assert "row time from 'Total time (ms)' (all its calls), calls from 'Count'" in parsed.run.variant
    for node in parsed.nodes:  # the per-call mean is never the row's time
        kernel = parse_kernel_name(node.func_name)
        assert (node.kernel_family, node.func_base, node.func_number) == (kernel.family, kernel.base, kernel.number)


def test_long_names_are_split_where_time_times_count_is_the_total():
    nodes = {n.node_name: n for name in MLC for n in _parse(name).nodes}
    for kernel, count, total_ms in GLUED.values():
        assert (nodes[kernel].calls, nodes[kernel].time_us) == (count, pytest.approx(total_ms * 1000))
    # `..._add58.0945` is `..._add5` at 8.0945 ms x 31 = 250.93 ms, not `..._add` at 58.0945 ms
    assert "fused_decode3_fused_NT_matmul4_add7_cast8_cast12_add" not in nodes
    assert [n.reported_share_pct for n in _parse(MLC[0]).nodes][:2] == [31.23, 25.90]


def test_dlight_shapes_are_the_arguments_output_last_and_memory_columns_are_passed_over():
    first = _parse(DLIGHT[0]).nodes[0]
    assert (first.node_name, first.calls, first.time_us, first.reported_share_pct) == \
           ("fused_NT_matmul3_silu1", 32, pytest.approx(142606.0), 20.15)
    assert (first.input_shapes, first.out_shape, first.num_inputs) == ([[1, 1001, 4096], [11008, 4096]], [1, 1001, 11008], 2)
    rms = next(n for n in _parse(DLIGHT[1]).nodes if n.node_name == "rms_norm")
    assert (rms.calls, rms.time_us, rms.input_shapes, rms.out_shape) == (65, pytest.approx(244.0), [[1, 6, 4096], [4096]], [1, 6, 4096])


def test_a_debug_table_behind_shell_comments_is_read_by_the_debug_table_reader():
    source = Source.read(KT / DEMO)
    assert detect(source).name == "kernel-table"  # the raw file: no exact reader sees `# Node Name`
    parsed = get("kernel-table").parse(source)
    rows = [re.split(r"\s{2,}", line[2:]) for line in (KT / DEMO).read_text().splitlines()
            if line.startswith("# tvmgen_default_")]
    assert [(n.node_name, n.func_name, n.time_us, n.out_shape) for n in parsed.nodes] == \
           [(r[0], r[1], float(r[2]), [int(d) for d in re.findall(r"\d+", r[4])]) for r in rows]
    assert len(rows) == 20 and [n.line_no for n in parsed.nodes] == list(range(66, 86))  # the file's lines
    assert parsed.run.reported_total_us == 2454.129 and sum(n.time_us for n in parsed.nodes) == pytest.approx(2454.129, abs=0.01)
    assert "behind the prefix '# '" in parsed.run.variant and len(parsed.samples) == 20
    assert not parsed.warnings  # the summaries of means (no name column) are no second table


def test_tables_of_means_prose_and_other_formats_are_not_claimed():
    demo = (KT / DEMO).read_text().splitlines()
    assert KernelTable().blocks(demo) == [(63, 86)]  # lines 64-86: `# Node Name` to `# Total_time`
    means = [line for line in demo if "mean (ms)" in line or re.match(r"^#\s+\d", line)]
    assert len(means) == 12 and KernelTable().blocks(means) == []
    assert not KernelTable().sniff(Source.read(DATA / "bad/prose.txt"))
    for path in sorted(p for p in DATA.rglob("*") if p.is_file() and "kernel-table" not in p.parts and "bad" not in p.parts):
        try:
            assert detect(Source.read(path)).name != "kernel-table", path
        except ParseError:
            pass


@pytest.mark.parametrize("name", MLC + DLIGHT + [DEMO])
def test_ingest_stores_the_rows(cli, name):
    result = cli("ingest", KT / name, "--model", "m")
    assert result.code == 0, result.err
    stored = {r["node"]: (r["calls"], r["time_us"]) for r in cli("top", "--by", "node", "-f", "json").json()}
    parsed = _parse(name)
    assert stored == {n.node_name: (n.calls, pytest.approx(n.time_us)) for n in parsed.nodes}


def test_two_tables_in_one_paste_are_two_runs(cli, tmp_path):
    paste = tmp_path / "two.txt"
    paste.write_text((KT / MLC[0]).read_text() + "```\n\nand the prefill:\n\n" + (KT / MLC[1]).read_text() + "```\n")
    result = cli("ingest", paste, "--model", "m")
    assert result.code == 0 and result.err.count("as kernel-table") == 2, result.err
    runs = cli("sql", "SELECT count(*) AS runs FROM runs", "-f", "json").json()
    assert runs == [{"runs": 2}]
    one = get("kernel-table").parse(Source.read(paste))
    assert len(one.nodes) == 13 and "1 more tables after line 15 were not read" in one.warnings[0]


@pytest.mark.parametrize("old, new, message", [
    ("0.3802      64      24.3335", "0.3802      64      nan    ", "bad.txt:4 [Total time (ms)]: expected a finite number >= 0, found 'nan'"),
    ("0.3802      64      24.3335", "0.3802      6x4     24.3335", "bad.txt:4 [Count]: expected a count (an integer), found '6x4'"),
])
def test_bad_cells_name_their_line(tmp_path, old, new, message):
    path = tmp_path / "bad.txt"
    path.write_text((KT / MLC[0]).read_text().replace(old, new))
    with pytest.raises(ParseError) as error:
        get("kernel-table").parse(Source.read(path))
    assert message in str(error.value)


# Short names, and names of 48-66 characters that run into the time in MLC's layout, most
# of them ending in a digit (where the split is ambiguous: `..._add5` + `0.9462`).
NAMES = st.one_of(st.from_regex(r"[a-z][a-z0-9_]{0,24}", fullmatch=True),
                  st.from_regex(r"[a-z][a-z0-9_]{46,64}[0-9]", fullmatch=True),
                  st.from_regex(r"[a-z][a-z0-9_]{47,65}", fullmatch=True)).filter(lambda s: s not in ("total", "sum", "total_time"))
UNITS = st.sampled_from([("us", 1.0), ("ms", 1e3), ("s", 1e6)])


@st.composite
def tables(draw):
    """A table as MLC prints it (columns padded to 50/12/8/18, long names run on) or aligned
    to its widest cell, left or right; with or without count, total and percent columns."""
    unit, scale = draw(UNITS)
    mlc = draw(st.booleans())
    has_count, has_total = (True, True) if mlc else (draw(st.booleans()), draw(st.booleans()))
    rows = draw(st.lists(st.tuples(NAMES, st.integers(0, 10**7), st.integers(1, 500)), min_size=1, max_size=8))
    header = [draw(st.sampled_from(["Name", "Kernel", "Op Name", "Function"])),
              draw(st.sampled_from([f"Time ({unit})", f"Time({unit})", f"Mean ({unit})", f"Avg.({unit})"]))]
    header += ["Count"] * has_count + [draw(st.sampled_from([f"Total time ({unit})", f"WxTime({unit})"]))] * has_total
    header += ["Percentage (%)"] * draw(st.booleans())
    cells, expected = [], []
    for name, ticks, count in rows:
        per = ticks / 10**4
        total = f"{per * count:.4f}"
        row = [name, f"{per:.4f}"] + [str(count)] * has_count + [total] * has_total + ["12.50"] * (len(header) > 2 + has_count + has_total)
        cells.append(row)
        time_us = float(total) * scale if has_total else float(f"{per:.4f}") * (count if has_count else 1) * scale
        expected.append((name, count if has_count else 1, time_us))
    prefix = draw(st.sampled_from(["", "# ", "// ", "> "]))
    if mlc:
        lines = ["".join(c.ljust(w) for c, w in zip(row, [50, 12, 8, 18, 0])).rstrip() for row in [header] + cells]
    else:
        widths = [max(len(r[i]) for r in [header] + cells) + 2 for i in range(len(header))]
        right = draw(st.booleans())
        lines = ["".join(c.ljust(w) if i == 0 or not right else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
                 for row in [header] + cells]
    text = "\n".join(prefix + line for line in lines) + "\n"
    return text, expected


@settings(max_examples=50, deadline=None)
@given(tables())
def test_generated_tables_read_back_to_their_names_calls_and_totals(tmp_path_factory, table):
    text, expected = table
    path = tmp_path_factory.mktemp("kt") / "table.txt"
    path.write_text(text)
    source = Source.read(path)
    assert KernelTable().sniff(source)
    parsed = get("kernel-table").parse(source)
    assert [(n.node_name, n.calls) for n in parsed.nodes] == [e[:2] for e in expected]
    assert [n.time_us for n in parsed.nodes] == pytest.approx([e[2] for e in expected], rel=1e-9, abs=1e-6)


# ---------------------------------------------------------------------------------------
# Tables of our own making (tests/data/kernel-table/make_fixtures.py, written to made/):
# the bundled VGG-16 table printed as MLC-LLM and its deploy script print theirs, and kept
# behind `# ` in a shell script. They run wherever the real texts are absent; what they
# must give is computed from the clean example, read by the debug-table reader.

MADE = DATA / "kernel-table" / "made"


def _generator():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_kernel_tables", DATA / "kernel-table" / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _clean_vgg16(vgg16):
    return get("debug-table").parse(Source.read(vgg16["table"]))


def test_made_tables_are_what_the_generator_writes(tmp_path):
    _generator().write(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in MADE.iterdir())
    for path in tmp_path.iterdir():
        assert path.read_text() == (MADE / path.name).read_text(), path.name


def test_made_mlc_table_gives_each_kernel_with_all_its_calls(vgg16):
    by_func: dict[str, list[float]] = {}
    for node in _clean_vgg16(vgg16).nodes:
        by_func.setdefault(node.func_name, []).append(node.time_us)
    text = (MADE / "vgg16_mlc_table.txt").read_text()
    assert "add_nn_relu_180.4966     2" in text  # a 58-character name ran into its time (ljust(50))
    parsed = get("kernel-table").parse(Source.read(MADE / "vgg16_mlc_table.txt"))
    got = {n.node_name: (n.calls, n.time_us) for n in parsed.nodes}
    assert set(got) == set(by_func) and len(got) == 22
    for func, times in by_func.items():  # the total of all calls (ms to 4 places), never the mean of one
        assert got[func] == (len(times), pytest.approx(sum(times), abs=0.06)), func
    totals = [n.time_us for n in parsed.nodes]
    assert totals == sorted(totals, reverse=True)  # the printer's order, kept
    assert parsed.run.reported_total_us == pytest.approx(501834.937, abs=0.06)
    assert "row time from 'Total time (ms)' (all its calls), calls from 'Count'" in parsed.run.variant
    assert [n.reported_share_pct for n in parsed.nodes][:2] == [32.08, 16.92]


def test_made_profile_table_gives_argument_shapes_output_last():
    parsed = get("kernel-table").parse(Source.read(MADE / "vgg16_classifier_profile.txt"))
    expected = [(name, count, ms * count * 1000, [list(s) for s in shapes[:-1]], list(shapes[-1]))
                for name, ms, count, shapes in _generator().CLASSIFIER]
    assert [(n.node_name, n.calls, n.time_us, n.input_shapes, n.out_shape) for n in parsed.nodes] == \
           [(e[0], e[1], pytest.approx(e[2]), e[3], e[4]) for e in expected]
    assert [n.num_inputs for n in parsed.nodes] == [3, 3, 3, 1, 1]


def test_made_debug_table_behind_shell_comments_is_the_clean_tables_rows(vgg16):
    path = MADE / "vgg16_debug_table_in_comments.sh"
    source = Source.read(path)
    assert detect(source).name == "kernel-table"
    lines = path.read_text().splitlines()
    header = lines.index("# " + vgg16["table"].read_text().splitlines()[0])
    total = next(i for i, line in enumerate(lines) if line.startswith("# Total_time"))
    assert KernelTable().blocks(lines) == [(header, total + 1)]  # the means summary is no table
    parsed = get("kernel-table").parse(source)
    clean = _clean_vgg16(vgg16)
    assert [(n.node_name, n.func_name, n.time_us, n.out_shape) for n in parsed.nodes] == \
           [(n.node_name, n.func_name, n.time_us, n.out_shape) for n in clean.nodes]
    assert [n.line_no for n in parsed.nodes] == list(range(header + 3, total + 1))  # the file's lines
    assert parsed.run.reported_total_us == 501834.937 and "behind the prefix '# '" in parsed.run.variant
    assert not parsed.warnings


@pytest.mark.parametrize("name", ["vgg16_mlc_table.txt", "vgg16_classifier_profile.txt", "vgg16_debug_table_in_comments.sh"])
def test_made_tables_are_stored_as_read(cli, name):
    result = cli("ingest", MADE / name, "--model", "m")
    assert result.code == 0, result.err
    stored = {r["node"]: (r["calls"], r["time_us"]) for r in cli("top", "--by", "node", "-f", "json").json()}
    _, parsed = parse(MADE / name)
    assert stored == {n.node_name: (n.calls, pytest.approx(n.time_us)) for n in parsed.nodes}


def test_a_bad_count_in_a_made_table_names_its_line(tmp_path):
    path = tmp_path / "bad.txt"
    lines = (MADE / "vgg16_mlc_table.txt").read_text().splitlines()
    lines[2] = lines[2].replace("     2       ", "     2x      ", 1)  # the first row
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ParseError) as error:
        get("kernel-table").parse(Source.read(path))
    assert "bad.txt:3 [Count]: expected a count (an integer), found '2x'" in str(error.value)
