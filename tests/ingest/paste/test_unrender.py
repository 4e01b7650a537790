"""Pasted texts as a page, a pager or a terminal rendered them (hotdb/ingest/paste/unrender.py).

Real renderings, and renderings made from real clean texts by tests/data/renderings/
make_rendered.py (its SOURCES.md says which is which), are ingested through the CLI: each
gives the rows its clean form gives, and the rule that undid it is named once ("read as
rendered text: ..."). The real texts are read where the shared corpus holds them
(../shared/real/pastes/renderings/); what is made from them is made in a temporary folder.
Then properties of `unrender.undo` itself: a clean text is left alone, undoing twice is
undoing once, a clean text rendered and undone comes back, and every line it returns names
a line of the file, in order.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest
from helpers import DATA, PASTES, REAL
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hotdb.ingest.paste import unrender

RENDERED = PASTES / "renderings"  # real texts: ../shared/real/pastes/renderings/ (SOURCES.md in tests/data)
REAL_PASTE_FOLDERS = ("RENDERED",)
EXAMPLES = int(os.environ.get("HOTDB_RENDER_EXAMPLES", 100))

_spec = importlib.util.spec_from_file_location("make_rendered", DATA / "renderings" / "make_rendered.py")
made = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(made)


def _real(name: str) -> Path:
    return RENDERED / name


def _made(tmp_path: Path, name: str) -> Path:
    """One of the renderings make_rendered.py makes from the real clean texts."""
    out = tmp_path / "made"
    if not out.is_dir():
        made.write(RENDERED, out)
    return out / name


QUERIES = {
    "ir": "SELECT op_name, attrs, arg_shapes, result_shapes, workload_key FROM ir_calls ORDER BY call_index",
    "nodes": "SELECT node_name, func_name, time_us, out_shape FROM nodes ORDER BY node_index",
    "tasks": "SELECT task_name, task_args, workload_key FROM tasks ORDER BY task_index",
}


def _read(cli, tmp_path: Path, path: Path):
    """Ingest one file into a database of its own: the CLI's messages and the rows stored."""
    db = tmp_path / f"{path.name}.duckdb"
    result = cli("--db", db, "ingest", path, "--model", "m", use_db=False)
    assert result.code == 0, result.err
    rows = {kind: cli("--db", db, "sql", sql, "-f", "json", use_db=False).json() for kind, sql in QUERIES.items()}
    return result, rows


def _formats(err: str) -> list[str]:
    return [line.split(" as ")[1].split(" ")[0] for line in err.splitlines() if line.startswith("ingested")]


def _rendered_notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if "read as rendered text" in line]


# --- real renderings ---------------------------------------------------------------------

VTA = "vta_tune_relay_sample_output.py.txt"
VTA_WORKLOADS = [
    "conv2d int8 d=1x256x14x14 w=512x256x1x1 s=2x2 p=0,0,0,0 dl=1x1 g=1",
    "conv2d int8 d=1x128x28x28 w=256x128x1x1 s=2x2 p=0,0,0,0 dl=1x1 g=1",
    "conv2d int8 d=1x64x56x56 w=128x64x1x1 s=2x2 p=0,0,0,0 dl=1x1 g=1",
    "conv2d int8 d=1x64x56x56 w=64x64x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
    "conv2d int8 d=1x128x28x28 w=128x128x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
    "conv2d int8 d=1x64x56x56 w=128x64x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=1",
    "conv2d int8 d=1x256x14x14 w=256x256x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
    "conv2d int8 d=1x128x28x28 w=256x128x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=1",
    "conv2d int8 d=1x512x7x7 w=512x512x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
    "conv2d int8 d=1x256x14x14 w=512x256x3x3 s=2x2 p=1,1,1,1 dl=1x1 g=1",
]


def test_a_task_printout_in_a_tutorials_comments_gives_its_ten_tasks(cli, tmp_path):
    result, rows = _read(cli, tmp_path, _real(VTA))
    assert _formats(result.err) == ["autotvm-tasks"]
    # every line from `# Sample Output` on, the bare `#` lines between them included
    assert _rendered_notes(result.err) == [
        f"warning: {_real(VTA)}: read as rendered text: comment and quote prefixes removed (37 lines)"]
    assert [t["task_name"] for t in rows["tasks"]] == ["topi_nn_conv2d"] * 10
    assert [t["workload_key"] for t in rows["tasks"]] == VTA_WORKLOADS
    assert rows["tasks"][0]["task_args"][:2] == [["TENSOR", [1, 16, 14, 14, 1, 16], "int8"],
                                                 ["TENSOR", [32, 16, 1, 1, 16, 16], "int8"]]
    assert "10 tuning progress lines ('[Task i/N] Current/Best') name no task" in result.err


def test_the_same_printout_with_typographic_quotes_gives_the_same_tasks(cli, tmp_path):
    curly = _made(tmp_path, "vta_tune_relay_sample_output.typographic.txt")
    assert "(\u2018TENSOR\u2019, (1, 16, 14, 14, 1, 16), \u2018int8\u2019)" in curly.read_text(encoding="utf-8")
    result, rows = _read(cli, tmp_path, curly)
    assert _rendered_notes(result.err) == [
        f"warning: {curly}: read as rendered text: typographic quotes and spaces made plain (10 lines)"]
    assert rows == _read(cli, tmp_path, _real(VTA))[1]


def test_the_commented_printout_gives_what_its_clean_copy_gives(cli, tmp_path):
    clean = REAL / "autotvm-tasks" / "vta_resnet18_tasks_and_tuning_tvmcn013.txt"
    if not clean.exists():
        pytest.skip(f"the clean printout is not at {clean} (set HOTDB_REAL to the shared/real folder)")
    result, rows = _read(cli, tmp_path, clean)
    assert not _rendered_notes(result.err)
    assert rows == _read(cli, tmp_path, _real(VTA))[1]


def test_a_relay_module_quoted_in_a_mail_reply_keeps_the_files_line_numbers(cli, tmp_path):
    """The forum's mail copy quotes the module with `> ` and wraps its signature at words;
    the stored page holds the signature only (TF's slashed parameter names), no statement:
    the reader refuses it, and what it says names a line of the file (unquoting keeps every
    line where it was)."""
    path = _real("discuss_archive_msg02492_quoted_relay.txt")
    lines = path.read_text(encoding="utf-8").splitlines()
    undone = unrender.undo("\n".join(lines), lines)
    assert undone.rules == {"prefixes": 23} and undone.origin is None  # lines 12-34
    assert undone.lines[:11] == lines[:11]  # the prose before the quote
    assert undone.lines[13] == '#[version = "0.0.5"]'
    assert undone.lines[14].startswith("fn (%tf_bert_for_sequence_classification/bert/embeddings/Gather/resource:")
    result = cli("--db", tmp_path / "mail.duckdb", "ingest", path, "--model", "bert", use_db=False)
    assert result.code == 1 and "Traceback" not in result.err and path.name in result.err
    named = re.search(rf"{re.escape(path.name)}:(\d+):", result.err)
    assert named is None or 12 <= int(named.group(1)) <= 34


# --- renderings made from real clean texts -----------------------------------------------

RELAY = "convert_layout_two_fns.rst.txt"
TABLE = "debugger_nnvm_table.rst.txt"


@pytest.mark.parametrize(("name", "said"), [
    ("convert_layout_two_fns.cat-A.txt", "pager line ends ($) removed (20 lines)"),
    ("convert_layout_two_fns.entities.txt", "HTML entities decoded (6 lines)"),
    ("convert_layout_two_fns.wrapped-80.txt", "lines cut at the terminal's width joined (10 lines)"),
    ("convert_layout_two_fns.eaten.txt", "type comments whose asterisks a page ate restored (8 lines)"),
    ("convert_layout_two_fns.mail-quoted.txt", "comment and quote prefixes removed (20 lines)"),
])
def test_a_rendered_relay_text_gives_the_calls_of_its_clean_form(cli, tmp_path, name, said):
    clean_result, clean = _read(cli, tmp_path, _real(RELAY))
    assert not _rendered_notes(clean_result.err)
    path = _made(tmp_path, name)
    result, rows = _read(cli, tmp_path, path)
    assert _formats(result.err) == ["relay"]
    assert _rendered_notes(result.err) == [f"warning: {path}: read as rendered text: {said}"]
    assert rows == clean
    calls = rows["ir"]
    assert [c["op_name"] for c in calls] == ["layout_transform", "layout_transform", "nn.conv2d", "nn.relu",
                                             "layout_transform", "nn.conv2d", "nn.relu", "layout_transform"]
    assert [c["workload_key"] for c in calls if c["op_name"] == "nn.conv2d"] == [
        "conv2d float32 d=1x64x56x56 w=32x64x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
        "conv2d float32 d=1x32x56x56 w=32x32x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"]


@pytest.mark.parametrize("name", ["debugger_nnvm_table.cat-A.txt", "debugger_nnvm_table.list-wrapped-100.txt"])
def test_a_debug_table_seen_in_a_pager_gives_the_nodes_of_its_clean_form(cli, tmp_path, name):
    clean_result, clean = _read(cli, tmp_path, _real(TABLE))
    assert not _rendered_notes(clean_result.err)
    path = _made(tmp_path, name)
    result, rows = _read(cli, tmp_path, path)
    assert _formats(result.err) == ["debug-table"]
    # one `$` per line of the table, however many screen lines vi's window cut it into
    said = "pager line ends ($) removed (11 lines)"
    assert _rendered_notes(result.err) == [f"warning: {path}: read as rendered text: {said}"]
    assert rows == clean
    nodes = rows["nodes"]
    assert len(nodes) == 9 and round(sum(n["time_us"] for n in nodes), 3) == 365642.8
    assert (nodes[3]["node_name"], nodes[3]["func_name"], nodes[3]["time_us"], nodes[3]["out_shape"]) == \
        ("_contrib_conv2d_nchwc1", "fuse__contrib_conv2d_NCHWc_1", 213108.6, [1, 8, 224, 224, 8])


def test_an_error_in_a_text_with_joined_lines_names_the_files_line(cli, tmp_path):
    """The terminal cut nine statements of the text in two: the damaged one is line 20 of
    what the reader sees, and line 29 of the file, which is what the error must say."""
    wrapped = _made(tmp_path, "convert_layout_two_fns.wrapped-80.txt").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(wrapped) if "%6 = nn.relu(%5)" in line)
    undone = unrender.undo("\n".join(wrapped), wrapped)
    joined_at = next(i for i, line in enumerate(undone.lines) if "%6 = nn.relu(%5)" in line)
    assert (at + 1, joined_at + 1, undone.origin[joined_at]) == (29, 20, 29)
    wrapped[at] = wrapped[at].replace("ty=Tensor[(1, 32, 56, 56), float32]", "ty=Tensor[(1, 32, 56, 56, float32]")
    broken = tmp_path / "broken.wrapped-80.txt"
    broken.write_text("\n".join(wrapped) + "\n", encoding="utf-8")
    result = cli("--db", tmp_path / "broken.duckdb", "ingest", broken, "--model", "m", use_db=False)
    assert result.code == 1, result.err
    assert f"{broken}:29: broken type annotation" in result.err


# --- properties of unrender.undo ---------------------------------------------------------

_DIMS = st.lists(st.integers(1, 512), min_size=1, max_size=5).map(lambda dims: ", ".join(map(str, dims)))
_NAME = st.from_regex(r"[a-z][a-z0-9_]{0,30}", fullmatch=True)
_RELAY = st.builds(lambda n, op, dims: f"  %{n} = {op}(%{n}, %w{n}) /* ty=Tensor[({dims}), float32] */;",
                   st.integers(0, 200), st.sampled_from(["nn.conv2d", "nn.relu", "add", "nn.dense"]), _DIMS)
_ROW = st.builds(lambda node, func, time, dims: f"{node:<30}{func:<40}{time:<12.3f}({dims})  2  1",
                 _NAME, _NAME, st.floats(0, 1e6), _DIMS)
_TASK = st.builds(lambda name, a, b: f"Task(func_name={name}.x86, args=(('TENSOR', ({a}), 'float32'), "
                                     f"('TENSOR', ({b}), 'float32'), (1, 1), (0, 0, 0, 0), (1, 1), 'float32'))",
                  _NAME, _DIMS, _DIMS)
# prose with straight quotes and brackets, no character any rendering produces
_PROSE = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789.,:;()[]'\"-_=%\t"), max_size=70)
# what starts a rendering's mark, or a comment kept as TVM's own (`# from tvm.script import ...`)
_MARKED_START = re.compile(r"\s*(#|>|//|\.\.\.|;|/\*|from tvm|import |fmt:|\{|tvm\.|metadata)")
_CLEAN_LINE = st.one_of(_RELAY, _ROW, _TASK, _PROSE, st.just("")).filter(lambda s: not _MARKED_START.match(s))


def _clean(lines: list[str]) -> bool:
    """No rendering's mark: none of its lines is as long as a terminal is wide (the other
    marks the strategies above never make: typographic characters, `&`, `$`, `^I`, `/ ty=`)."""
    return not any(len(line) in unrender._TERMINAL_WIDTHS for line in lines)


_CLEAN = st.lists(_CLEAN_LINE, min_size=1, max_size=25).filter(_clean)
_RENDERINGS = {
    "typographic": made.typographic,
    "pager": made.cat_a,
    "entities": made.entities,
    "eaten": made.eaten,
    "mail quote": made.mail_quoted,
    "colours": made.coloured,
    "comment": lambda lines: ["# " + line if line else "#" for line in lines],
    "quote of a quote": lambda lines: made.mail_quoted(made.mail_quoted(lines)),
    "html": made.highlighted,
    "html styled": lambda lines: made.highlighted(lines, style=True),
    "html breaks": made.html_breaks,
}
# Pygments drops a code block's leading blank lines: a highlighted text starts with one filled
_HIGHLIGHTED = ("html", "html styled")


def _undo(lines: list[str]) -> unrender.Undone:
    return unrender.undo("\n".join(lines), lines)


def _filled(lines: list[str]) -> int:
    return sum(1 for line in lines if line.strip())


@settings(max_examples=EXAMPLES, deadline=None)
@given(_CLEAN)
def test_a_clean_text_is_left_as_it_is(lines):
    undone = _undo(lines)
    assert undone.lines == lines and undone.rules == {} and undone.origin is None
    assert undone.note("x.txt") is None


_PREFIXED = ("comment", "mail quote", "quote of a quote")


@settings(max_examples=EXAMPLES, deadline=None)
@given(_CLEAN, st.sampled_from(sorted(_RENDERINGS)))
def test_a_rendered_clean_text_is_undone_to_the_clean_text(lines, rendering):
    assume(rendering != "eaten" or any("ty=" in line for line in lines))
    assume(rendering not in _HIGHLIGHTED or lines[0].strip())
    # a pager's `$` and a prefix are told from text only on three lines or more
    assume(_filled(lines) >= 3 or rendering not in ("pager",) + _PREFIXED)
    rendered = _RENDERINGS[rendering](lines)
    undone = _undo(rendered)
    assert undone.lines == lines
    assert undone.changed == (rendered != lines)
    # each line comes from its own line of the file, or all from the one line `<br>`s part
    from_lines = [1] * len(lines) if rendering == "html breaks" else list(range(1, len(lines) + 1))
    assert undone.origin is None or undone.origin == from_lines


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(st.one_of(_RELAY, _ROW, _PROSE), min_size=0, max_size=8).filter(_clean),
       st.lists(_TASK, min_size=1, max_size=4), st.sampled_from([80, 100, 120]), st.randoms(use_true_random=False))
def test_long_bracketed_lines_cut_at_a_terminals_width_are_joined_again(short, long, width, rng):
    short = [line for line in short if len(line.expandtabs(8)) < width]
    long = [line for line in long if len(line) > width and len(line) % width]
    assume(sum(len(line) // width for line in long) >= 2)  # two screen lines as wide as the terminal
    lines = short + long
    rng.shuffle(lines)
    rendered = made.cut(lines, width)
    undone = _undo(rendered)
    assert undone.lines == [line.expandtabs(8) for line in lines]
    assert undone.rules == {"wrapped lines": len(rendered) - len(lines)}
    _assert_origin(undone, rendered)
    # each line comes from the first of its screen lines
    assert [rendered[n - 1] for n in undone.origin] == [line.expandtabs(8)[:width] for line in lines]


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(st.one_of(_RELAY, _TASK, _ROW), min_size=3, max_size=12), st.sampled_from([80, 100, 120]))
def test_a_pager_window_narrower_than_the_lines_is_undone(lines, width):
    rendered = made.cut(made.cat_a(lines), width)
    assume(sum(1 for line in rendered if not line.endswith("$")) >= 2)  # the window cut two lines or more
    undone = _undo(rendered)
    assert undone.lines == lines and undone.rules == {"pager": len(lines)}
    _assert_origin(undone, rendered)


@settings(max_examples=EXAMPLES, deadline=None)
@given(_CLEAN, st.lists(st.sampled_from(sorted(_RENDERINGS)), max_size=2))
def test_undoing_twice_is_undoing_once(lines, renderings):
    """Any one rendering or two of them (a page's source quoted in a mail), except a pager's
    `$` shown by a pager again: `$$` is one `$` too many for any reader to tell."""
    assume(renderings != ["pager", "pager"])
    for rendering in renderings:
        lines = _RENDERINGS[rendering](lines)
    once = _undo(lines)
    twice = _undo(once.lines)
    assert twice.lines == once.lines and not twice.changed


@settings(max_examples=EXAMPLES, deadline=None)
@given(_CLEAN, st.sampled_from(sorted(_RENDERINGS) + ["cut", "pager window"]))
def test_every_line_undone_names_a_line_of_the_file_in_order(lines, rendering):
    if rendering == "cut":
        rendered = made.cut(lines, 80)
    elif rendering == "pager window":
        rendered = made.cut(made.cat_a(lines), 80)
    else:
        rendered = _RENDERINGS[rendering](lines)
    _assert_origin(_undo(rendered), rendered)


def _assert_origin(undone: unrender.Undone, rendered: list[str]) -> None:
    """In order; two lines come from one line of the file only where a `<br>` parted them."""
    origin = undone.origin if undone.origin is not None else list(range(1, len(undone.lines) + 1))
    assert len(origin) == len(undone.lines)
    assert all(1 <= n <= len(rendered) for n in origin)
    assert all(a < b or (a == b and "<br>" in rendered[a - 1]) for a, b in zip(origin, origin[1:]))


# --- renderings of our own making --------------------------------------------------------
# tests/data/renderings/make_fixtures.py applies make_rendered.py's renderings to the bundled
# VGG-16 example and keeps them in made/: they run wherever the real texts are absent, and
# each must give the rows of the clean example file it was made from.

MADE = DATA / "renderings" / "made"
_fixtures_spec = importlib.util.spec_from_file_location("make_fixtures", DATA / "renderings" / "make_fixtures.py")
fixtures = importlib.util.module_from_spec(_fixtures_spec)
_fixtures_spec.loader.exec_module(fixtures)
CLEAN = {"relay": "vgg16.relay.txt", "table": "vgg16.debug_table.txt", "tasks": "vgg16.autotvm_tasks.txt"}


def test_made_renderings_are_what_the_generator_writes(tmp_path):
    fixtures.write(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in MADE.iterdir())
    for path in tmp_path.iterdir():
        assert path.read_text(encoding="utf-8") == (MADE / path.name).read_text(encoding="utf-8"), path.name


@pytest.mark.parametrize(("name", "fmt", "said"), [
    ("vgg16_relay.cat-A.txt", "relay", "pager line ends ($) removed (61 lines)"),
    ("vgg16_relay.entities.txt", "relay", "HTML entities decoded (2 lines)"),  # the version's quotes, the `->`
    ("vgg16_relay.wrapped-80.txt", "relay", "lines cut at the terminal's width joined (57 lines)"),
    ("vgg16_relay.eaten.txt", "relay", "type comments whose asterisks a page ate restored (56 lines)"),
    ("vgg16_relay.mail-quoted.txt", "relay", "comment and quote prefixes removed (61 lines)"),
    ("vgg16_relay.coloured.txt", "relay", "terminal colour codes removed (60 lines)"),
    ("vgg16_relay.highlighted.html", "relay", "HTML markup removed (62 lines), HTML entities decoded (2 lines)"),
    ("vgg16_relay.br.html", "relay", "HTML markup removed (1 line), HTML entities decoded (2 lines)"),
    ("vgg16_table.cat-A.txt", "debug-table", "pager line ends ($) removed (29 lines)"),
    ("vgg16_table.list-wrapped-100.txt", "debug-table", "pager line ends ($) removed (29 lines)"),
    ("vgg16_table.coloured.txt", "debug-table", "terminal colour codes removed (28 lines)"),
    ("vgg16_tasks.typographic.txt", "autotvm-tasks", "typographic quotes and spaces made plain (15 lines)"),
])
def test_a_made_rendering_gives_the_rows_of_the_clean_example(cli, tmp_path, vgg16, name, fmt, said):
    clean_path = vgg16["relay"].parent / CLEAN[name.split(".")[0].split("_")[1]]
    clean_result, clean = _read(cli, tmp_path, clean_path)
    assert not _rendered_notes(clean_result.err)
    path = MADE / name
    result, rows = _read(cli, tmp_path, path)
    assert _formats(result.err) == [fmt]
    assert _rendered_notes(result.err) == [f"warning: {path}: read as rendered text: {said}"]
    assert rows == clean


def test_the_made_renderings_give_the_examples_times_and_convolutions(cli, tmp_path, vgg16):
    _, rows = _read(cli, tmp_path, MADE / "vgg16_table.list-wrapped-100.txt")
    table = vgg16["table"].read_text().splitlines()
    times = [float(re.split(r"\s{2,}", line)[2]) for line in table[2:-1]]
    assert [n["time_us"] for n in rows["nodes"]] == times and round(sum(times), 3) == 501834.937
    _, rows = _read(cli, tmp_path, MADE / "vgg16_relay.wrapped-80.txt")
    convs = [c for c in rows["ir"] if c["op_name"] == "nn.conv2d"]
    assert len(convs) == 13 and convs[0]["workload_key"] == "conv2d float32 d=1x3x224x224 w=64x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1"


def test_an_error_in_the_made_wrapped_text_names_the_files_line(cli, tmp_path):
    wrapped = (MADE / "vgg16_relay.wrapped-80.txt").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(wrapped) if line.startswith("  %6 = nn.max_pool2d("))
    undone = unrender.undo("\n".join(wrapped), wrapped)
    joined_at = next(i for i, line in enumerate(undone.lines) if line.startswith("  %6 = nn.max_pool2d("))
    assert undone.origin[joined_at] == at + 1 and joined_at < at  # the statement's first screen line
    statement = "".join(wrapped[at:at + 2])
    assert "ty=Tensor[(1, 64, 112, 112), float32]" in statement
    broken = wrapped[:at] + made.cut([statement.replace("(1, 64, 112, 112), float32]", "(1, 64, 112, 112, float32]")
                                      .rstrip("$")], 80) + wrapped[at + 2:]
    path = tmp_path / "broken.wrapped-80.txt"
    path.write_text("\n".join(broken) + "\n", encoding="utf-8")
    result = cli("--db", tmp_path / "broken.duckdb", "ingest", path, "--model", "m", use_db=False)
    assert result.code == 1 and "Traceback" not in result.err, result.err
    assert f"{path}:{at + 1}: broken type annotation" in result.err


def test_warnings_name_the_lines_of_the_file_where_a_terminal_wrapped_them(cli, tmp_path):
    """Task reprs cut at 80 columns are joined; the skipped prose lines are still named by
    their line in the file, in the warning's prefix and in the line list it gives."""
    from hotdb.examples import example_files

    tasks = example_files("vgg16")[2].read_text().splitlines()[:2]
    lines = ["Here are my tasks:"]
    for task in tasks:
        lines += [task[i:i + 80] for i in range(0, len(task), 80)]
    lines += ["and one more remark"]
    path = tmp_path / "wrapped_tasks.txt"
    path.write_text("\n".join(lines) + "\n")
    result = cli("ingest", path, "--model", "m")
    assert result.code == 0, result.err
    assert "lines cut at the terminal's width joined" in result.err
    assert len(cli("sql", "SELECT * FROM tasks", "-f", "json").json()) == 2
    skipped = [1, len(lines)]  # the first and the last line of the file
    assert f"(lines {skipped[0]}, {skipped[1]})" in result.err, result.err


def test_relax_highlighted_with_inline_styles_gives_the_calls_of_its_clean_print(cli, tmp_path):
    """TVMScript in a page's source as Pygments writes it without classes (a notebook's HTML,
    `<span style="color: ...">`), `"` and `->` as entities: the calls of apache-tvm's own print."""
    clean = DATA / "relax" / "small_convnet.relax.py"
    path = MADE / "small_convnet_relax.styled.html"
    assert '<span style="color: #008000">R.Tensor</span>' in path.read_text() and "&quot;" in path.read_text()
    result, rows = _read(cli, tmp_path, path)
    assert _formats(result.err) == ["relax"]
    assert _rendered_notes(result.err) == [
        f"warning: {path}: read as rendered text: HTML markup removed (24 lines), HTML entities decoded (15 lines)"]
    assert "skipped" not in result.err  # no line of markup is left for a reader to pass over
    assert rows == _read(cli, tmp_path, clean)[1]
    assert [c["workload_key"] for c in rows["ir"] if c["workload_key"]] == [
        "conv2d float32 d=1x3x8x8 w=16x3x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
        "conv2d float32 d=1x16x8x8 w=16x16x3x3 s=1x1 p=1,1,1,1 dl=1x1 g=1",
        "dense float32 d=1x1024 w=10x1024"]


def test_an_error_in_a_highlighted_text_names_the_files_line(cli, tmp_path):
    """The wrapper's last line is dropped and `<br>` parts one line into many: the error
    still names the line of the file the statement is on."""
    lines = (MADE / "vgg16_relay.highlighted.html").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '<span class="n">nn.max_pool2d</span>' in line)
    lines[at] = lines[at].replace('<span class="mi">112</span><span class="o">),</span>', '<span class="mi">112</span>,', 1)
    path = tmp_path / "broken.html"
    path.write_text("\n".join(lines) + "\n")
    result = cli("--db", tmp_path / "b.duckdb", "ingest", path, "--model", "m", use_db=False)
    assert result.code == 1 and f"{path}:{at + 1}: broken type annotation" in result.err, result.err
    one_line = made.html_breaks(unrender.undo("\n".join(lines), lines).lines)
    path.write_text("\n".join(one_line) + "\n")
    result = cli("--db", tmp_path / "c.duckdb", "ingest", path, "--model", "m", use_db=False)
    assert result.code == 1 and f"{path}:1: broken type annotation" in result.err, result.err


# Texts whose `<` and `>` are their own: comparisons in TVMScript and TIR, Relay's `->` and
# `<-` in prose, C++ templates (TVM's own `Array<Span>`), HTML shown as text (`&lt;span&gt;`)
_ANGLED = st.one_of(
    st.builds(lambda v, n: f"            if {v} < {n}:", st.sampled_from(["v_i2", "i", "x"]), st.integers(0, 64)),
    st.builds(lambda n: f"    T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64({n}), a, b)", st.integers(1, 99)),
    st.builds(lambda t, name: f"  Array<{t}> {name};", st.sampled_from(["Span", "PrimExpr", "span", "div", "Integer"]), _NAME),
    st.builds(lambda t: f"std::vector<std::pair<int, {t}>> pairs;  // <pre>-sorted", st.sampled_from(["code", "span"])),
    st.builds(lambda a: f"fn (%x: Tensor[({a}), float32]) -> Tensor[({a}), float32] {{", _DIMS),
    st.just('print("<span class=\\"n\\">x")  # a string that names a tag, never closing one'),
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(st.one_of(_ANGLED, _CLEAN_LINE), min_size=1, max_size=12).filter(_clean))
def test_a_texts_own_angle_brackets_are_never_taken_for_markup(lines):
    undone = _undo(lines)
    assert "html" not in undone.rules and undone.lines == lines
