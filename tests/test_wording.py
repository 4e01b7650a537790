"""How counts and names read in every message (hotdb/wording.py): a count agrees with its
noun, an article with the sound that follows it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hotdb.wording import article, counted


@given(st.integers(min_value=0, max_value=10**7))
def test_a_count_agrees_with_its_noun(n):
    text = counted(n, "task")
    assert text.endswith(" task" if n == 1 else " tasks") and text.replace(",", "").startswith(str(n))
    assert counted(n, "op family", "op families").endswith("op family" if n == 1 else "op families")


def test_articles_follow_the_sound():
    assert article("auto_scheduler task") == "an auto_scheduler task"
    assert article("autotvm task") == "an autotvm task"
    assert article("meta_schedule task") == "a meta_schedule task"
    assert article("MLP") == "an MLP" and article("MetaSchedule") == "a MetaSchedule"


def test_the_messages_people_saw_read_right(cli, vgg16, tmp_path):
    """`ingest README.md`: one short line; an export whose tasks share names counts tasks,
    not names; a ranking of one task says `1 task covers`."""
    readme = tmp_path / "README.md"
    readme.write_text("# A project\n\nSome prose about it, with no artifact in it.\n")
    refused = cli("ingest", readme, "--model", "m")
    assert refused.code == 1 and refused.err.count("\n") == 1 and len(refused.err) < 300
    assert "format not recognised" in refused.err and "hotdb formats" in refused.err
    assert cli("ingest", vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "vgg16").code == 0
    selection = [r for r in cli("export", "--to", "json", "--coverage", "90").json() if r["task_name"]]
    untuned = [r["task_name"] for r in selection if not r["records"]]
    assert len(set(untuned)) < len(untuned)  # tasks that share a name: the case people saw
    exported = cli("export", "--to", "autotvm-tasks", "--coverage", "90")
    assert exported.code == 0
    said = " ".join(exported.err.split())
    assert f"{len(untuned)} of the {len(selection)} selected tasks have no tuning record: " in said
    assert f"conv2d_NCHWc.x86 x{untuned.count('conv2d_NCHWc.x86')}" in said
    one = cli("top", "--coverage", "1")
    assert "1 task covers" in " ".join(one.out.split())
