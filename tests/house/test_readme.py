"""The README's examples are produced, not written: its command blocks are what the
commands print now (`python -m hotdb.cli.docs` rewrites them), its main job's block keeps
its words when captured again, and its Python snippet runs."""

from __future__ import annotations

import contextlib
import io
import os
import re

import pytest
from helpers import ROOT

from hotdb.cli.docs import _LIVE, normalised, readme_markdown, skeleton

README = ROOT / "README.md"


def test_the_readme_command_blocks_are_what_the_commands_print():
    text = README.read_text()
    assert "<!-- run: " in text and "<!-- run-live: " in text
    assert normalised(readme_markdown(text, live=False)) == normalised(text), \
        "README.md is stale: run python -m hotdb.cli.docs"


@pytest.mark.slow
def test_the_readme_stays_short():
    """The main job first, details in docs/: the README under 10 KB."""
    assert len(README.read_bytes()) < 10_000


def test_the_main_job_prints_what_the_readme_shows():
    """`hotdb profile resnet18` captured again: the same lines and words, other times."""
    text = README.read_text()
    again = readme_markdown(text)
    shown, now = (next(_LIVE.finditer(t)).group(0) for t in (text, again))
    assert skeleton(now) == skeleton(shown)
    assert re.search(r"^\d+ tasks cover \d+\.\d % of the tunable kernel time", now, re.M)


def test_a_busy_machine_s_warning_is_no_change_to_the_main_job():
    """Whether other processes shared the CPUs is the machine's: the main job run beside
    them (a busy CI runner) warns so, as a line of its own, and still shows what the
    README shows."""
    from hotdb.wording import busy_capture

    shown = next(_LIVE.finditer(README.read_text())).group(0)
    first, rest = shown.split("\n", 2)[:2], shown.split("\n", 2)[2]
    busy = "\n".join([*first, "warning: " + busy_capture("run resnet18-1", 62, 2.6), rest])
    assert skeleton(busy) == skeleton(shown) and busy != shown


def test_the_readme_python_snippet_runs(tmp_path):
    snippet = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    printed = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(snippet, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    lines = printed.getvalue().splitlines()
    assert lines and all(re.match(r"\S+ \S.* \d+\.\d$", line) for line in lines), lines
    assert (tmp_path / "hotdb.duckdb").exists()
