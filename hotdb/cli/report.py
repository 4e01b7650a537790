"""Reports: a self-contained HTML page (charts inline as SVG, no network) and Markdown.

Everything shown is computed by the API's SQL (top, its coverage cut, compare, history),
worded by hotdb/cli/words.py and put in cells as the terminal's tables put them (render.cell);
this module only draws (matplotlib, SVG backend) and lays out.
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass

from hotdb.api import Hotdb
from hotdb.cli import words
from hotdb.cli.render import cell
from hotdb.result import Result

COVERAGE_PCT = 90.0


@dataclass
class ReportData:
    runs: list[str]
    top: Result
    covered: Result  # top's own coverage cut: the fewest rows reaching COVERAGE_PCT
    compare: Result | None
    history: list[Result]

    @property
    def cut(self) -> int:
        return len(self.covered.rows)

    @property
    def reached_pct(self) -> float:
        return self.covered.facts.get("reached_pct") or 0.0  # NULL: no rows, or a run whose every time is zero


def collect(db: Hotdb, runs: list[str]) -> ReportData:
    runs = runs or [db.latest_run()]
    top = db.top(by="task", run=runs[-1])
    # the chart draws every row; where it cuts is top's rule, not one redone here
    covered = db.top(by="task", run=runs[-1], coverage=COVERAGE_PCT)
    compare = db.compare(runs[0], runs[-1]) if len(runs) >= 2 else None
    history = []
    if len(runs) >= 2 and top.facts["by"] == "task":  # a profile alone ranks kernel families: no workloads
        for row in top.records()[:5]:
            result = db.history(workload=row["workload"])
            result.rows = [r for r in result.rows if r[0] in runs]
            history.append(result)
    return ReportData(runs, top, covered, compare, history)


def _plt():
    import matplotlib

    matplotlib.use("svg")  # no display, no network: vector charts inlined in the page
    import matplotlib.pyplot as plt

    # text stays text (not glyph outlines): a reader can select it, a test can read it
    matplotlib.rcParams["svg.fonttype"] = "none"
    # a name is text: `$x$` in a run label is not a formula (mathtext would fail on `$\\foo{$`)
    matplotlib.rcParams["text.parse_math"] = False
    return plt


def _svg(figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    _plt().close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _pareto(data: ReportData) -> str:
    from matplotlib.ticker import MaxNLocator

    plt = _plt()
    rows = data.top.records()
    cumulative = [0.0] + [r["cumulative_pct"] or 0.0 for r in rows]
    cut, reached = data.cut, data.reached_pct
    of = "tunable kernel time" if data.top.facts.get("share_of") == "tunable" else "run time"
    figure, axis = plt.subplots(figsize=(7, 3.6))
    axis.bar(range(1, len(rows) + 1), [r["share_pct"] or 0.0 for r in rows], color="#9db4d0", label=f"share of {of}")
    axis.plot(range(len(cumulative)), cumulative, marker="o", color="#1f4e89", label="cumulative share")
    axis.axhline(COVERAGE_PCT, color="#888", linestyle=":", linewidth=1)
    kind = "tasks" if data.top.facts["by"] == "task" else "op families"
    reach = f"{cut} {kind} reach {reached:.1f} %" + ("" if reached >= COVERAGE_PCT else f" ({COVERAGE_PCT:g} % is out of reach)")
    axis.axvline(cut, color="#c0392b", linestyle="--", label=reach)
    axis.set_xlabel(f"{kind}, most time first")
    axis.set_ylabel(f"% of {of}")
    axis.xaxis.set_major_locator(MaxNLocator(integer=True))  # a task is whole
    axis.set_ylim(0, 100)
    axis.set_title(words.plain(f"Coverage, run {data.runs[-1]}"))
    axis.legend(loc="center right", fontsize=8).set_gid("coverage-legend")
    return _svg(figure)


def _comparison(data: ReportData) -> str:
    plt = _plt()
    from matplotlib.ticker import FuncFormatter

    # every item timed on both sides, those no change could be told for too (grey, their
    # interval drawn where there is one)
    rows = [r for r in data.compare.records() if r["ratio"] is not None][:15]
    figure, axis = plt.subplots(figsize=(7, 0.35 * len(rows) + 1.2))
    colors = ["#c0392b" if r["verdict"] == "slower" else "#27ae60" if r["verdict"] == "faster" else "#aaaaaa"
              for r in rows]
    labels = [_short(r) for r in rows]
    errors = [[r["ratio"] - (r["ratio_low"] or r["ratio"]) for r in rows],
              [(r["ratio_high"] or r["ratio"]) - r["ratio"] for r in rows]]
    axis.barh(range(len(rows)), [r["ratio"] for r in rows], color=colors, xerr=errors, ecolor="#333", capsize=2)
    axis.axvline(1.0, color="#333", linewidth=1)
    numbers = FuncFormatter(lambda value, _: f"{value:g}")  # not matplotlib's $10^{-1}$, which a browser shows raw
    axis.set_yticks(range(len(rows)), labels, fontsize=7)
    axis.set_gid("comparison-bars")
    axis.invert_yaxis()
    axis.set_xscale("log")
    axis.xaxis.set_major_formatter(numbers)
    axis.xaxis.set_minor_formatter(numbers)
    axis.set_xlabel(words.plain(f"time in {data.runs[-1]} / time in {data.runs[0]}, 95 % interval "
                                "(red: slower, green: faster, grey: no change told)"))
    axis.set_title(words.plain(f"{data.runs[0]} -> {data.runs[-1]}"))
    return _svg(figure)


def _short(row: dict) -> str:
    """A chart label: the task with its operand shapes (the name alone repeats across tasks),
    whole: a cut label can name two tasks alike."""
    if row.get("item") == "(end to end)":
        return "(end to end)"
    parts = str(row.get("item") or row.get("workload") or "").split()
    shapes = " ".join(p for p in parts if p.startswith(("d=", "w=")))
    name = row.get("task_name") or (parts[1] if parts[:1] == ["kernel"] else parts[0] if parts else "")
    return words.plain(f"{name} {shapes}".strip())


def _history(data: ReportData) -> str:
    plt = _plt()
    figure, axis = plt.subplots(figsize=(7, 3.6))
    for result in data.history:
        records = result.records()
        if records:
            axis.plot([words.plain(r["run"]) for r in records], [r["time_us"] for r in records], marker="o",
                      label=_short(records[0]))
    axis.set_ylabel("time per inference (us)")  # the tables' unit
    axis.set_title("Top tasks across runs")
    axis.legend(fontsize=7)
    return _svg(figure)


def _table(result: Result, columns: list[str]) -> str:
    records = result.records()
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(cell(c, r.get(c)))}</td>" for c in columns) + "</tr>"
                   for r in records)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


TOP_COLUMNS = words.TOP_COLUMNS["task"]
COMPARE_COLUMNS = words.COMPARE_COLUMNS


def to_html(data: ReportData) -> str:
    sections = [f"<h2>Coverage</h2>{_pareto(data)}", "<h2>Top tasks</h2>" + _table(data.top, TOP_COLUMNS)]
    sections.append("<p>" + html.escape(" · ".join(words.top(data.top).notes)) + "</p>")
    if data.compare is not None:
        sections.append(f"<h2>Comparison</h2>{_comparison(data)}" + _table(data.compare, COMPARE_COLUMNS))
        sections.append("<p>" + html.escape(" · ".join(words.compare(data.compare).notes)) + "</p>")
    if data.history:
        sections.append(f"<h2>History</h2>{_history(data)}")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="generator" content="hotdb"><title>hotdb report: {html.escape(words.plain(', '.join(data.runs)))}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }}
table {{ border-collapse: collapse; font-size: 12px; margin: 1em 0; }}
th, td {{ border: 1px solid #ccc; padding: 3px 6px; text-align: left; }}
th {{ background: #f0f3f7; }}
svg {{ max-width: 100%; height: auto; }}
</style></head><body>
<h1>hotdb report</h1><p>runs: {html.escape(words.plain(', '.join(data.runs)))}</p>
{''.join(f'<section>{s}</section>' for s in sections)}
</body></html>
"""


def _md_table(result: Result, columns: list[str]) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for r in result.records():
        lines.append("| " + " | ".join(words.markdown(cell(c, r.get(c))) for c in columns) + " |")
    return "\n".join(lines)


def to_markdown(data: ReportData) -> str:
    md = words.markdown
    parts = [f"## hotdb report: {md(', '.join(data.runs))}", "", "### Top tasks", "", _md_table(data.top, TOP_COLUMNS),
             "", md(" · ".join(words.top(data.top).notes))]
    if data.compare is not None:
        parts += ["", f"### {md(data.runs[0])} → {md(data.runs[-1])}", "", _md_table(data.compare, COMPARE_COLUMNS), "",
                  md(" · ".join(words.compare(data.compare).notes))]
    return "\n".join(parts) + "\n"
