"""The HTML report, opened in headless Chromium like a reader would."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import pytest
from helpers import write_run

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
    assert "slower" in page and "conv2d_NCHWc.x86" in page
    assert markdown.startswith("## hotdb report: base, slow") and "| slower |" in markdown


def _rendered(page, tmp_path) -> str:
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'chromium-dom'}", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    return dom.stdout


def _texts(svg: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", t)).strip() for t in re.findall(r"<text\b[^>]*>(.*?)</text>", svg, re.S)]


def _table_after(rendered: str, heading: str) -> list[dict]:
    section = rendered[rendered.index(f"<h2>{heading}</h2>"):]
    table = section[section.index("<table"):section.index("</table>")]
    head = [html.unescape(h) for h in re.findall(r"<th\b[^>]*>(.*?)</th>", table)]
    rows = re.findall(r"<tr>((?:<td\b[^>]*>.*?</td>)+)</tr>", table)
    return [dict(zip(head, [html.unescape(c.replace("<wbr>", "")) for c in re.findall(r"<td\b[^>]*>(.*?)</td>", row)]))
            for row in rows]


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium (Debian package chromium) is not installed; .ci/run installs it")
def test_report_charts_say_what_the_tables_say(report_files, tmp_path, cli):
    """Read as Chromium renders it: the coverage legend states the share the tasks actually
    reach (the table's cumulative share at the cut), its axis counts whole tasks, the
    comparison draws only tested items, the history is in the tables' unit, p-values keep
    their precision."""
    rendered = _rendered(report_files[0], tmp_path)
    coverage_svg = rendered[rendered.index("<h2>Coverage</h2>"):rendered.index("<h2>Top tasks</h2>")]
    top = _table_after(rendered, "Top tasks")
    cumulative = [float(r["cumulative_pct"]) for r in top]
    cut = next(i + 1 for i, c in enumerate(cumulative) if c >= 90.0)
    legend = coverage_svg[coverage_svg.index('id="coverage-legend"'):]
    assert f"{cut} tasks reach {cumulative[cut - 1]:.1f} %" in _texts(legend)
    x_ticks = [_texts(tick)[0] for tick in re.split(r'<g id="xtick_\d+">', coverage_svg.split('id="matplotlib.axis_2"')[0])[1:]]
    assert x_ticks and all(re.fullmatch(r"\d+", t) for t in x_ticks), x_ticks  # whole tasks only
    raw = {r["item"]: r for r in cli("compare", "base", "slow", "-f", "json").json()}
    compare_start = rendered.index("<h2>Comparison</h2>")
    labels = " ".join(_texts(rendered[compare_start:rendered.index("<table", compare_start)]))
    shown = _table_after(rendered, "Comparison")
    assert len(shown) == len(raw)
    for row in shown:
        p = raw[row["item"]]["p_value"]
        assert row["p_value"] == ("" if p is None else f"{p:.3g}")  # 0.00794 stays 0.00794
        if row["verdict"] == "can't tell" and raw[row["item"]]["ratio_low"] is None:
            assert row["item"] not in labels and (row["task_name"] or "-") not in labels
    assert any(r["verdict"] == "slower" for r in shown)
    history_svg = rendered[rendered.index("<h2>History</h2>"):]
    assert "time per inference (us)" in _texts(history_svg)


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


# measured in the page as Chromium lays it out: tables past the right edge, a text cell
# narrower than one of its words (up to report.LONG_WORD characters: a longer name breaks
# after an underscore), and a chart's axis labels that overlap
LAYOUT_CHECK = """<script>
const LONG_WORD = %d;
window.addEventListener("load", () => {
  const width = document.documentElement.clientWidth, out = {width, past_edge: [], squeezed: [], overlapping: []};
  document.querySelectorAll("table, svg").forEach((element, i) => {
    const box = element.getBoundingClientRect();
    if (box.right > width + 1) out.past_edge.push(element.tagName + " " + i + ": " + Math.round(box.right));
  });
  const measure = document.createElement("canvas").getContext("2d");
  document.querySelectorAll("td.text").forEach(td => {
    const style = getComputedStyle(td);
    measure.font = style.font;
    const room = td.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) + 1;
    for (const word of td.textContent.split(/\\s+/)) {
      if (word.length <= LONG_WORD && measure.measureText(word).width > room) { out.squeezed.push(word); break; }
    }
  });
  document.querySelectorAll("svg").forEach((svg, i) => {
    for (const axis of ["xtick_", "ytick_"]) {
      const boxes = [...svg.querySelectorAll(`g[id^="${axis}"] text`)].map(t => t.getBoundingClientRect())
        .filter(b => b.width > 0).sort((a, b) => axis === "xtick_" ? a.left - b.left : a.top - b.top);
      for (let k = 1; k < boxes.length; k++) {
        const a = boxes[k - 1], b = boxes[k];
        if (axis === "xtick_" ? a.right > b.left + 0.5 : a.bottom > b.top + 0.5) out.overlapping.push(`svg ${i} ${axis}${k}`);
      }
    }
  });
  const pre = document.createElement("pre");
  pre.id = "layout-check";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium (Debian package chromium) is not installed; .ci/run installs it")
@pytest.mark.parametrize("width", [1000, 1600])
def test_report_lays_out_at_the_widths_people_read_it(report_files, tmp_path, width):
    """Nothing past the right edge, no column narrower than its words, no axis label over
    the next, at 1,000 and 1,600 px; and a screenshot of each, as a reader sees it."""
    page = tmp_path / f"checked-{width}.html"
    from hotdb.cli.report import LONG_WORD

    page.write_text(report_files[0].read_text().replace("</body>", LAYOUT_CHECK % LONG_WORD + "</body>"))
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'layout'}", f"--window-size={width},3000",
                          "--virtual-time-budget=10000", "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(r'<pre id="layout-check">(.*?)</pre>', dom.stdout, re.S)
    assert found, "the layout check did not run"
    checked = json.loads(html.unescape(found.group(1)))
    assert checked["width"] >= width - 30  # the page was laid out at that width (less a scroll bar)
    assert checked["past_edge"] == [] and checked["squeezed"] == [] and checked["overlapping"] == [], checked
    shot = tmp_path / f"report-{width}.png"
    subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'layout'}", f"--window-size={width},2400",
                    f"--screenshot={shot}", report_files[0].as_uri()], capture_output=True, timeout=120, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_log_ticks_cover_the_data_and_never_crowd():
    from hotdb.cli.report import log_ticks

    for low, high in [(0.07, 0.11), (0.9, 1.7), (0.05, 55.7), (0.5, 2.0), (1e-4, 50.0), (1.02, 1.04)]:
        ticks = log_ticks(low, high)
        assert ticks[0] <= low and ticks[-1] >= high and 1.0 in ticks  # the data between labelled ticks
        assert all(b / a >= 2 for a, b in zip(ticks, ticks[1:]))  # at least a factor 2 apart on the axis
