"""A profile alone (the commonest artifact people have) still answers: `top` ranks the
kernel families and says which missing artifact would add what, and how to print it."""

from __future__ import annotations


def test_a_profile_alone_ranks_kernel_families_and_says_what_would_add_tasks(cli, vgg16):
    assert cli("ingest", vgg16["table"], "--model", "vgg16").code == 0
    result = cli("top", "--coverage", "90")
    assert result.code == 0, result.err
    assert "top by op" in result.out and "conv2d" in result.out
    assert "has no tuning tasks stored, so its kernel families are ranked instead" in result.out + result.err
    assert "to rank tasks, ingest the model's tasks" in result.out and "extract_tasks" in result.out + result.err
    assert "ingest the model's IR: print(mod['main'])" in result.out + result.err
    rows = cli("top", "--coverage", "90", "-f", "json").json()
    families = cli("sql", "SELECT kernel_family, sum(time_us) AS t FROM nodes GROUP BY ALL ORDER BY t DESC", "-f", "json").json()
    assert [r["op"] for r in rows] == [f["kernel_family"] for f in families][:len(rows)]
    assert rows[-1]["cumulative_pct"] >= 90 and (len(rows) == 1 or rows[-2]["cumulative_pct"] < 90)


def test_the_hints_go_once_the_tasks_and_the_ir_are_there(cli, vgg16):
    cli("ingest", vgg16["table"], "--model", "vgg16")
    assert cli("ingest", vgg16["tasks"], "--model", "vgg16").code == 0
    with_tasks = cli("top", "--coverage", "90")
    assert "top by task" in with_tasks.out and "to rank tasks" not in with_tasks.out
    assert "ingest the model's IR" in with_tasks.out
    assert cli("ingest", vgg16["relay"], "--model", "vgg16").code == 0
    complete = cli("top", "--coverage", "90")
    assert "to rank tasks" not in complete.out and "ingest the model's IR" not in complete.out


def test_a_report_of_a_profile_alone_is_written(cli, vgg16, tmp_path):
    cli("ingest", vgg16["table"], "--model", "vgg16")
    page = tmp_path / "report.md"
    result = cli("report", "--md", page)
    assert result.code == 0, result.err
    assert "has no tuning tasks stored" in page.read_text()
