"""The HTML report, opened in headless Chromium like a reader would."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from test_cli_compare import write_run

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture
def report_files(cli, tmp_path, vgg16):
    cli("ingest", write_run(tmp_path / "base.txt", 1.0, 1), vgg16["relay"], vgg16["tasks"], "--model", "vgg16", "--run", "base")
    cli("ingest", write_run(tmp_path / "slow.txt", 2.0, 2), "--model", "vgg16", "--run", "slow")
    result = cli("report", "base", "slow", "--html", tmp_path / "r.html", "--md", tmp_path / "r.md")
    assert result.code == 0, result.err
    return tmp_path / "r.html", tmp_path / "r.md"


def test_report_is_self_contained_and_complete(report_files):
    page, markdown = (p.read_text() for p in report_files)
    assert page.count("<svg") == 3  # coverage, comparison, history
    assert not re.search(r"(src|href)=\"https?:", page)  # nothing fetched from a network
    assert "regression" in page and "conv2d_NCHWc.x86" in page
    assert markdown.startswith("## hotdb report: base, slow") and "| regression |" in markdown


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium (Debian package chromium) is not installed; .ci/run installs it")
def test_report_renders_in_headless_chromium(report_files, tmp_path):
    page = report_files[0]
    profile = tmp_path / "chromium-profile"
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                          "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    rendered = dom.stdout
    assert rendered.count("<svg") == 3 and rendered.count("<path") > 50  # the charts are in the rendered DOM
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == [], console
    shot = tmp_path / "report.png"
    subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--window-size=1200,2400",
                    f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120, check=True)
    assert shot.stat().st_size > 50_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
