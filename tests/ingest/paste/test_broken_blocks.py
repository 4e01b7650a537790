"""A paste read block by block: a block that fails is a warning, not the end of the paste
(hotdb/ingest/pipeline.py). Every other block is stored, the failed one is named with its
lines, its format and its reason, and the ingest exits 0 unless `--strict`. A file of one
format (not cut into artifacts) fails as before.

Each paste of the corpus that cuts into two artifacts or more (the real ones in
../shared/real and ../shared/seed, ours in tests/data) is broken one block at a time, the
way a page or a reader's scissors break them (a shape's or a type's bracket lost), and the
blocks left whole must store exactly what they store in the whole paste.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import duckdb
import pytest
from helpers import DATA, REAL, SEED, shared, table_counts

from hotdb.errors import ParseError
from hotdb.ingest import REGISTRY
from hotdb.ingest.paste import blocks as cut
from hotdb.ingest.pipeline import _unrendered
from hotdb.ingest.source import Source

BROKEN = DATA / "broken-paste"
ELIDED = BROKEN / "convnet_elided_signature.txt"

_spec = importlib.util.spec_from_file_location("make_broken", BROKEN / "make_fixtures.py")
made = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(made)

# Every text of the corpus that cuts into two artifacts or more, all of which read (the
# last test holds the list to what blocks.split finds, so that a new paste is broken here
# too). convnet_elided_signature.txt is broken already: its own tests are below.
PASTES = {
    "real": ["debug-table/tvm_pr3232_after_two_tables.txt", "debug-table/tvm_pr3232_before_start_end_two_tables.txt"],
    "seed": ["selective_tuning_of_hotspots.txt"],
    "data": ["thread/thread.txt", "glued-tables/thread.paragraph.txt"],
}
_ROOTS = {"real": REAL, "seed": SEED, "data": DATA}

# How each format's block is broken, in every line that it can be: a table's time made
# negative (also where a page ran the rows together: the rows still split, and the reader
# refuses the time), a bracket lost in a type annotation, a tensor tuple or a parameter
# list, so that the reader refuses the block.
_BREAKS = {
    "debug-table": (re.compile(r"(?<=\s)(\d+(?:\.\d+)?)(\s+\d+(?:\.\d+)?\s+(?:\(|\d\d?:))"), r"-\1\2"),
    "relay": (re.compile(r"ty=Tensor\[\(([\d, ]+)\), "), r"ty=Tensor[(\1, "),
    "autotvm-tasks": (re.compile(r"\('TENSOR', \(([\d, ]+)\), "), r"('TENSOR', (\1, "),
    "relax": (re.compile(r"R\.Tensor\(\(([\d, ]+)\), "), r"R.Tensor((\1, "),
    "ms-tuning-log": (re.compile(r"^(\s*\d+ \|)"), r"\1 |"),
}


def _blocks(path: Path) -> list[tuple[str, int, int]]:
    """(format, first line, last line) of each artifact the text cuts into."""
    source, _ = _unrendered(Source.read(path))
    pieces = cut.split(source, REGISTRY)
    if pieces is None:
        return []
    return [(b.ingestor.name, *map(int, b.source.part.removeprefix("lines ").split("-"))) for b in pieces[0]]


def _whole_paste(path: Path) -> bool:
    """Whether the text cuts into two artifacts or more, each of which reads."""
    try:
        source, _ = _unrendered(Source.read(path))
        pieces = cut.split(source, REGISTRY)
        if pieces is None or len(pieces[0]) < 2:
            return False
        for block in pieces[0]:
            block.ingestor.parse(block.source)
    except ParseError:
        return False
    return True


def _sources(db: Path) -> dict[str, tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {sha: (fmt, rows) for sha, fmt, rows in
                con.execute("SELECT content_sha256, format, row_count FROM sources").fetchall()}
    finally:
        con.close()


def _cases():
    for root, names in PASTES.items():
        for name in names:
            yield pytest.param(root, name, id=f"{root}:{name}")


@pytest.mark.parametrize(("root", "name"), list(_cases()))
def test_a_paste_that_loses_one_block_stores_the_others(cli, tmp_path, root, name):
    path = shared(_ROOTS[root], name)
    blocks = _blocks(path)
    assert len(blocks) >= 2, blocks
    whole = cli("--db", tmp_path / "whole.duckdb", "ingest", path, "--model", "m", use_db=False)
    assert whole.code == 0, whole.err
    stored = _sources(tmp_path / "whole.duckdb")
    lines = path.read_text(encoding="utf-8").splitlines()
    for k, (fmt, first, last) in enumerate(blocks):
        pattern, replacement = _BREAKS[fmt]
        broken = lines[:first - 1] + [pattern.sub(replacement, line, count=1) for line in lines[first - 1:last]] + lines[last:]
        assert broken != lines, (fmt, first, last)
        bad = tmp_path / f"broken{k}_{path.name}"
        bad.write_text("\n".join(broken) + "\n", encoding="utf-8")
        db = tmp_path / f"broken{k}.duckdb"
        result = cli("--db", db, "ingest", bad, "--model", "m", use_db=False)
        assert result.code == 0 and "Traceback" not in result.err, result.err
        said = [w for w in result.err.splitlines() if "could not be read and were skipped" in w]
        # the broken block is named where it starts (breaking it may change where it ends),
        # with its format and its reader's reason
        assert len(said) == 1 and re.search(rf"{re.escape(str(bad))}: lines {first}-\d+ \({fmt}\) could not be read "
                                            r"and were skipped; .* \(--strict refuses the paste\): \S", said[0]), result.err
        left = _sources(db)
        assert len(left) == len(blocks) - 1
        assert all(stored.get(sha) == kept for sha, kept in left.items()), (left, stored)
        # --strict: the paste fails on that block, as a file does, and nothing is written
        strict = cli("--db", tmp_path / f"strict{k}.duckdb", "ingest", bad, "--model", "m", "--strict", use_db=False)
        assert strict.code == 1 and strict.err.startswith(f"error: {bad}:") and strict.err.count("\n") == 1, strict.err
        assert table_counts(tmp_path / f"strict{k}.duckdb").get("sources", 0) == 0


def test_made_broken_pastes_are_what_the_generator_writes(tmp_path):
    made.write(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in BROKEN.glob("*.txt"))
    for path in tmp_path.iterdir():
        assert path.read_text() == (BROKEN / path.name).read_text(), path.name


def test_a_relax_signature_with_elided_parameters_costs_only_the_module(cli, db):
    """The issue's case: `def forward(x: ..., ...) ->` fails the Relax reader ("expected a
    parameter name"); the MetaSchedule table beside it is the user's tuning state."""
    result = cli("ingest", ELIDED, "--model", "convnet")
    assert result.code == 0, result.err
    assert (f"warning: {ELIDED}: lines 4-27 (relax) could not be read and were skipped; the paste's other "
            "artifacts were stored (--strict refuses the paste): line 10: expected a parameter name") in result.err
    tasks = cli("sql", "SELECT task_name, flop, trials, best_latency_us, terminated FROM tasks ORDER BY task_index",
                "-f", "json").json()
    assert [(t["task_name"], t["flop"], t["trials"], t["terminated"]) for t in tasks] == [
        ("fused_conv2d_add_relu", 57344, 64, True), ("fused_conv2d1_add_relu", 296960, 64, True),
        ("fused_matmul_add1", 20490, 32, True)]
    assert [round(t["best_latency_us"], 4) for t in tasks] == [11.8062, 38.4407, 3.1259]
    assert cli("sql", "SELECT count(*) AS n FROM ir_calls", "-f", "json").json() == [{"n": 0}]


def test_strict_refuses_the_paste_and_writes_nothing(cli, db):
    result = cli("ingest", ELIDED, "--model", "convnet", "--strict")
    assert result.code == 1 and "Traceback" not in result.err
    assert result.err == f"error: {ELIDED}:10: expected a parameter name (column 57)\n"
    assert table_counts(db).get("sources", 0) == 0


def test_the_api_takes_strict_as_the_command_line_does(tmp_path):
    from hotdb import Hotdb
    from hotdb.errors import ParseError

    api = Hotdb(tmp_path / "api.duckdb")
    with pytest.raises(ParseError, match="expected a parameter name"):
        api.ingest([ELIDED], model="convnet", strict=True)
    result = api.ingest([ELIDED], model="convnet")
    assert [f.format for f in result.files] == ["ms-tuning-log"]
    assert any("(relax) could not be read" in w for f in result.files for w in f.warnings)


def test_a_file_of_one_format_fails_as_before(cli, db, tmp_path):
    """Only a text cut into several artifacts is read leniently: the same broken module
    alone is refused (exit 1), with or without --strict."""
    lines = ELIDED.read_text().splitlines()
    alone = tmp_path / "elided.relax.py"
    alone.write_text("\n".join(lines[3:27]) + "\n")
    for extra in ((), ("--strict",)):
        result = cli("ingest", alone, "--model", "convnet", *extra)
        assert result.code == 1 and result.err == f"error: {alone}:7: expected a parameter name (column 57)\n"
    assert table_counts(db).get("sources", 0) == 0


def test_a_paste_none_of_whose_blocks_reads_fails_on_the_first(cli, db, tmp_path):
    lines = ELIDED.read_text().splitlines()
    both = tmp_path / "both_broken.txt"
    both.write_text("\n".join(line.replace("fused", "") if re.match(r"\s+\d+ \|", line) else line
                              for line in lines).replace("  0 |", "  0 | |") + "\n")
    result = cli("ingest", both, "--model", "convnet")
    assert result.code == 1 and result.err.startswith(f"error: {both}:10: expected a parameter name"), result.err


def test_the_list_of_pastes_is_every_text_that_cuts_into_several_artifacts():
    if not (REAL.is_dir() and SEED.is_dir()):
        pytest.skip("the shared corpus is not beside this checkout")
    found = {root: sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                          if p.is_file() and p.suffix not in (".md", ".json", ".py") and _whole_paste(p))
             for root, folder in _ROOTS.items()}
    assert found == {root: sorted(names) for root, names in PASTES.items()}
