"""The forum thread this project answers, in the forms it was pasted: a printed debug
table (TVM 0.6/0.7, NCHW{c}c shapes), `print(mod["main"])` (a top-level `fn`, repeated
annotations, a sentence glued to a statement) and the user's own `[Kernel i/N]` printout
of the tasks (tensors only). tests/data/thread/make_thread.py wrote them, with the truth."""

from __future__ import annotations

import json

from helpers import DATA

THREAD = DATA / "thread"
FILES = [THREAD / "vgg16.debug_table.txt", THREAD / "vgg16.relay.txt", THREAD / "vgg16.kernels.txt"]


def _truth() -> dict[str, dict]:
    return {row["node"]: row for row in json.loads((THREAD / "vgg16.truth.json").read_text())}


def _rounded(records: list[dict]) -> list[dict]:
    """Records with floats to 9 digits: sums over rows in another order differ in the last bits."""
    return [{k: round(v, 9) if isinstance(v, float) else v for k, v in r.items()} for r in records]


def _tensors(task_args) -> list:
    return task_args[:2] if task_args else None


def _expected_selection(cli) -> list[tuple]:
    """The fewest true tasks whose true times reach 90 % of the table's total time."""
    truth = _truth()
    nodes = cli("matches", "-f", "json").json()
    total = sum(n["time_us"] for n in nodes)
    per_task: dict[tuple, float] = {}
    for n in nodes:
        row = truth[n["node"]]
        if row["task_name"]:
            key = (row["task_name"], json.dumps(row["tensors"]))
            per_task[key] = per_task.get(key, 0.0) + n["time_us"]
    chosen, covered = [], 0.0
    for key, time_us in sorted(per_task.items(), key=lambda kv: -kv[1]):
        if covered >= 0.9 * total:
            break
        chosen.append(key)
        covered += time_us
    return sorted(chosen)


def _check_matches_and_selection(cli) -> tuple[list, list]:
    truth = _truth()
    matches = cli("matches", "-f", "json").json()
    tunable = [m for m in matches if truth[m["node"]]["task_name"]]
    assert len(tunable) == 16  # 13 convolutions and 3 dense layers
    for m in tunable:
        row = truth[m["node"]]
        assert (m["task_name"], _tensors(m["task_args"])) == (row["task_name"], row["tensors"]), m
        assert m["method"] not in ("ambiguous", "unmatched") and m["confidence"] >= 0.7
    top = cli("top", "--coverage", "90", "-f", "json").json()
    selected = sorted((t["task_name"], json.dumps(_tensors(t["task_args"]))) for t in top)
    assert selected == _expected_selection(cli)
    assert top[-1]["cumulative_pct"] >= 90
    return matches, top


def test_the_three_pasted_artifacts_match_every_convolution_and_dense_layer(cli):
    result = cli("ingest", *FILES, "--model", "vgg16")
    assert result.code == 0, result.err
    assert [line.split(" as ")[1].split(" ")[0] for line in result.err.splitlines() if line.startswith("ingested")] == \
        ["debug-table", "relay", "autotvm-tasks"]
    assert "vgg16.relay.txt:58: text after the statement skipped: 'would you be able" in result.err
    _check_matches_and_selection(cli)
    tasks = cli("sql", "SELECT task_name, workload_from FROM model_tasks WHERE task_name LIKE 'conv2d%'", "-f", "json").json()
    assert len(tasks) == 9 and {t["workload_from"] for t in tasks} == {"ir"}  # strides and padding from the IR


def test_the_whole_post_gives_what_the_three_files_give(cli, tmp_path):
    cli("ingest", *FILES, "--model", "vgg16")
    files_matches, files_top = _check_matches_and_selection(cli)
    pasted = cli("--db", tmp_path / "pasted.duckdb", "ingest", THREAD / "thread.txt", "--model", "vgg16", use_db=False)
    assert pasted.code == 0, pasted.err
    assert [line.split(" as ")[1].split(" ")[0] for line in pasted.err.splitlines() if line.startswith("ingested")] == \
        ["debug-table", "relay", "autotvm-tasks"]
    # the prose between the blocks is said once, as a count and its lines
    notes = [line for line in pasted.err.splitlines() if "artifacts found" in line]
    assert len(notes) == 1 and "3 artifacts found; 7 lines between them" in notes[0] and "(lines 1-2, 4," in notes[0]
    # the glued sentence keeps the whole text's line numbers
    assert "thread.txt:95: text after the statement skipped" in pasted.err
    pasted_matches = cli("--db", tmp_path / "pasted.duckdb", "matches", "-f", "json", use_db=False).json()
    pasted_top = cli("--db", tmp_path / "pasted.duckdb", "top", "--coverage", "90", "-f", "json", use_db=False).json()
    assert _rounded(pasted_matches) == _rounded(files_matches) and _rounded(pasted_top) == _rounded(files_top)


def test_a_pasted_block_and_the_same_text_as_a_file_are_one_source(cli):
    cli("ingest", THREAD / "thread.txt", "--model", "vgg16")
    again = cli("ingest", *FILES[1:], "--model", "vgg16")
    assert again.code == 0 and "nothing new" in again.err


def test_two_tables_in_one_paste_become_two_runs(cli, tmp_path):
    table = FILES[0].read_text()
    paste = tmp_path / "two_runs.txt"
    paste.write_text("before tuning:\n\n" + table + "\nafter tuning:\n\n" + table.replace("81132.926", "41132.926"))
    result = cli("ingest", paste, THREAD / "vgg16.relay.txt", "--model", "vgg16", "--run", "before", "--run", "after")
    assert result.code == 0, result.err
    runs = cli("runs", "-f", "json").json()
    assert sorted(r["run"] for r in runs) == ["after", "before"]
    assert cli("ingest", paste, "--model", "other").code == 0  # without labels: other-1, other-2
    assert {r["run"] for r in cli("runs", "-f", "json").json()} >= {"other-1", "other-2"}


def test_the_post_with_its_table_run_into_a_paragraph_gives_what_the_three_files_give(cli, tmp_path):
    """The forum showed the table outside a code block: one paragraph, blanks collapsed
    (tests/data/glued-tables/). Its rows are split again; the matches, the 16 tunable kernels
    and the selection are those of the three files."""
    cli("ingest", *FILES, "--model", "vgg16")
    files_matches, files_top = _check_matches_and_selection(cli)
    path = DATA / "glued-tables" / "thread.paragraph.txt"
    db = ("--db", tmp_path / "paragraph.duckdb")
    pasted = cli(*db, "ingest", path, "--model", "vgg16", use_db=False)
    assert pasted.code == 0, pasted.err
    assert f"warning: {path}: read as rendered text: table rows run together split again (1 line)" in pasted.err
    assert [line.split(" as ")[1].split(" ")[0] for line in pasted.err.splitlines() if line.startswith("ingested")] == \
        ["debug-table", "relay", "autotvm-tasks"]
    assert "(lines 6-6) as debug-table (profile): 26 rows" in pasted.err  # the table's one line of the file
    matches = cli(*db, "matches", "-f", "json", use_db=False).json()
    top = cli(*db, "top", "--coverage", "90", "-f", "json", use_db=False).json()
    assert _rounded(matches) == _rounded(files_matches) and _rounded(top) == _rounded(files_top)
