"""The printed debug-runtime table: rows, samples, variants, totals, errors."""

from __future__ import annotations

import pytest
from helpers import DATA, parse, sample
from hypothesis import given, settings
from hypothesis import strategies as st

from hotdb.errors import ParseError


@st.composite
def tables(draw):
    n = draw(st.integers(1, 12))
    rows = []
    for i in range(n):
        func = draw(st.sampled_from(["fused_nn_conv2d_add", "fused_nn_dense", "fused_layout_transform"])) + f"_{i}"
        shape = draw(st.lists(st.integers(1, 512), min_size=1, max_size=5))
        time = draw(st.floats(0, 1e6, allow_nan=False).map(lambda t: round(t, 3)))
        rows.append((func, func, time, shape, draw(st.integers(1, 4))))
    return rows


def test_debug_table_rows_match_the_file(vgg16):
    name, parsed = parse(vgg16["table"])
    assert name == "debug-table"
    lines = vgg16["table"].read_text().splitlines()
    body = [l.split() for l in lines[2:] if l and not l.startswith("Total_time")]
    assert len(parsed.nodes) == len(body)
    first = parsed.nodes[0]
    assert first.node_name == body[0][0] and first.func_name == body[0][1]
    assert first.time_us == float(body[0][2])
    total = float(lines[-1].split()[2])
    assert sum(n.time_us for n in parsed.nodes) == pytest.approx(total, rel=1e-6)
    assert parsed.warnings == []
    conv = next(n for n in parsed.nodes if n.out_shape == [1, 2, 224, 224, 32])
    assert conv.out_shape_logical == [1, 64, 224, 224] and conv.kernel_family == "conv2d"
    assert conv.num_inputs == 3 and conv.num_outputs == 1


def test_debug_table_measurements_become_samples():
    _, parsed = parse(DATA / "debug-table/vgg16_tvm09/vgg16.debug_table.txt")
    assert parsed.run.variant == "with Measurements(us)"
    assert len(parsed.samples) == 3 * len(parsed.nodes)
    node = parsed.nodes[0]
    values = [s.time_us for s in parsed.samples if s.node_index == node.node_index]
    assert sum(values) / 3 == pytest.approx(node.time_us, abs=0.002)


def test_debug_table_legacy_start_end_sample():
    _, parsed = parse(sample("debug_executor_table_legacy_nnvm_docs_arch_debugger_rst.txt"))
    assert parsed.run.variant == "legacy Start/End"
    assert [n.node_name for n in parsed.nodes][:2] == ["1_NCHW1c", "_contrib_conv2d_nchwc0"]
    assert parsed.nodes[3].func_name == "fuse__contrib_conv2d_NCHWc_1" and parsed.nodes[3].time_us == 213108.6
    assert parsed.nodes[3].kernel_family == "conv2d"
    assert parsed.nodes[1].start_us < parsed.nodes[3].start_us
    assert any("no Total_time" in w for w in parsed.warnings)


def test_debug_table_trimmed_total_is_a_warning(tmp_path, vgg16):
    lines = vgg16["table"].read_text().splitlines()
    trimmed = tmp_path / "t.txt"
    trimmed.write_text("\n".join(lines[:8] + lines[-1:]) + "\n")
    _, parsed = parse(trimmed)
    assert len(parsed.nodes) == 6
    assert any("differs from the sum of rows" in w for w in parsed.warnings)


def test_debug_table_truncated_row_names_the_line():
    with pytest.raises(ParseError) as err:
        parse(DATA / "bad/truncated_row.debug_table.txt")
    assert err.value.line == 10
    assert "columns" in err.value.message


@settings(max_examples=60, deadline=None)
@given(tables(), st.booleans(), st.sampled_from(["\n", "\r\n"]))
def test_debug_table_round_trip(tmp_path_factory, rows, measurements, newline):
    """Tables printed by TVM's rules (left-aligned, width + 2) parse back to the same rows."""
    header = ["Node Name", "Ops", "Time(us)", "Time(%)", "Shape", "Inputs", "Outputs"] + (["Measurements(us)"] if measurements else [])
    total = sum(r[2] for r in rows) or 1.0
    cells = [[r[0], r[1], str(r[2]), str(round(100 * r[2] / total, 3)), str(tuple(r[3])).replace(",)", ")") if len(r[3]) > 1 else f"({r[3][0]},)",
              str(r[4]), "1"] + ([str([r[2], r[2]])] if measurements else []) for r in rows]
    cells.append(["Total_time", "-", str(sum(r[2] for r in rows))] + ["-"] * (len(header) - 3))
    widths = [max(len(h), *(len(c[i]) for c in cells)) + 2 for i, h in enumerate(header)]
    text = newline.join("".join(c.ljust(w) for c, w in zip(row, widths)) for row in
                        [header, ["-" * len(h) for h in header]] + cells)
    path = tmp_path_factory.mktemp("t") / "table.txt"
    path.write_bytes(text.encode())
    _, parsed = parse(path)
    assert [(n.func_name, n.time_us, n.out_shape, n.num_inputs) for n in parsed.nodes] == \
           [(r[1], r[2], r[3], r[4]) for r in rows]


MEASURED = st.sampled_from(["1", "0", "00", "01", "1.5", "1.", ".5", "1e5", "1E-3", "01e5", "1e", "-1", "nan", "inf",
                            "1_0", " ", ",", "[", "1.2.3", "0x1", "9" * 30, "True", ""])


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(MEASURED, max_size=5), sep=st.sampled_from([", ", ",", " , ", ""]), bracketed=st.booleans())
def test_measurements_read_without_ast_as_with_it(pieces, sep, bracketed):
    """A plain list of numbers is read by float(); anything else by ast.literal_eval, as
    before: the same times, or the same error, either way."""
    import ast
    import warnings

    from hotdb.ingest.profile import debug_table
    from hotdb.ingest.source import Source

    text = ("[" + sep.join(pieces) + "]") if bracketed else sep.join(pieces)
    source = Source.from_text("t.txt", "")

    def outcome(read):
        try:
            return read()
        except ParseError as exc:
            return exc.message

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # literal_eval of "1e" and the like
        got = outcome(lambda: debug_table._measurements(source, 1, text))
        values = outcome(lambda: debug_table._literal_times(source, 1, text))
    if isinstance(values, list) and any(v != v or v < 0 for v in values):
        values = f"expected times >= 0, found {text!r}"
    assert got == values
    assert not isinstance(got, list) or got == [float(v) for v in ast.literal_eval(text)]
