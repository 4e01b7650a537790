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


# a colour for every verdict; one no change could be told for is drawn in its direction's
# pale colour, hatched: a 10x change left untold (a busy side) still shows which way it went
VERDICT_STYLE = {"slower": ("#c0392b", None), "faster": ("#27ae60", None), "within noise": ("#7f8c8d", None),
                 "can't tell slower": ("#f1b0a8", "//"), "can't tell faster": ("#a9dfbf", "//")}


def _style(row: dict) -> tuple[str, str | None]:
    verdict = row["verdict"]
    if verdict == "can't tell":
        verdict += " slower" if (row["ratio"] or 1) >= 1 else " faster"
    return VERDICT_STYLE.get(verdict, ("#aaaaaa", None))


def log_ticks(low: float, high: float) -> list[float]:
    """Ticks for a log axis over [low, high], at 1, 2 and 5 of each decade (fewer where the
    range spans many), 1 always among them, one tick beyond each end so that the data lies
    between labelled ticks: a label every tick, none crowding the next."""
    import math

    low, high = min(low, 1.0), max(high, 1.0)
    decades = math.log10(high) - math.log10(low)
    steps = (1, 2, 5) if decades <= 3 else (1,)
    ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 2) for m in steps]
    below = [t for t in ticks if t <= low * (1 + 1e-9)]
    above = [t for t in ticks if t >= high * (1 - 1e-9)]
    return [t for t in ticks if (below[-1] if below else ticks[0]) <= t <= (above[0] if above else ticks[-1])]


def _comparison(data: ReportData) -> str:
    plt = _plt()
    from matplotlib.patches import Patch
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    # every item timed on both sides, those no change could be told for too (pale, hatched,
    # their interval drawn where there is one)
    rows = [r for r in data.compare.records() if r["ratio"] is not None][:15]
    figure, axis = plt.subplots(figsize=(7, 0.35 * len(rows) + 1.6))
    styles = [_style(r) for r in rows]
    labels = [_short(r) for r in rows]
    errors = [[r["ratio"] - (r["ratio_low"] or r["ratio"]) for r in rows],
              [(r["ratio_high"] or r["ratio"]) - r["ratio"] for r in rows]]
    bars = axis.barh(range(len(rows)), [r["ratio"] for r in rows], color=[c for c, _ in styles], xerr=errors,
                     ecolor="#333", capsize=2)
    for bar, (_, hatch) in zip(bars, styles):
        if hatch:
            bar.set_hatch(hatch)
    axis.axvline(1.0, color="#333", linewidth=1)
    axis.set_yticks(range(len(rows)), labels, fontsize=7)
    axis.set_gid("comparison-bars")
    axis.invert_yaxis()
    axis.set_xscale("log")
    ends = [v for r in rows for v in (r["ratio"], r["ratio_low"], r["ratio_high"]) if v]
    ticks = log_ticks(min(ends), max(ends))
    axis.set_xlim(ticks[0], ticks[-1])
    axis.xaxis.set_major_locator(FixedLocator(ticks))
    axis.xaxis.set_minor_locator(NullLocator())  # unlabelled: 0.07, 0.08, 0.09 crowded each other
    axis.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))  # not $10^{-1}$, shown raw
    axis.set_xlabel(words.plain(f"time in {data.runs[-1]} / time in {data.runs[0]}, 95 % interval"))
    axis.set_title(words.plain(f"{data.runs[0]} -> {data.runs[-1]}"))
    shown = sorted({_style(r) for r in rows}, key=lambda style: list(VERDICT_STYLE.values()).index(style)
                   if style in VERDICT_STYLE.values() else 99)
    names = {style: name for name, style in VERDICT_STYLE.items()}
    axis.legend([Patch(facecolor=c, hatch=h, edgecolor="#555") for c, h in shown],
                [names.get((c, h), "other").replace("can't tell", "not told,") for c, h in shown],
                fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.06), ncol=len(shown),
                frameon=False).set_gid("comparison-legend")
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
    """One series a task: tasks that share a workload (MetaSchedule makes one a fused
    function) are two lines, not one that zig-zags between them within a run."""
    plt = _plt()
    figure, axis = plt.subplots(figsize=(7, 3.6))
    order = [words.plain(run) for run in data.runs]
    for result in data.history:
        series: dict[str, list[dict]] = {}
        for record in result.records():
            series.setdefault(record.get("task_name") or "", []).append(record)
        for records in series.values():
            points = sorted(records, key=lambda r: order.index(words.plain(r["run"])) if words.plain(r["run"]) in order else 0)
            axis.plot([words.plain(r["run"]) for r in points], [r["time_us"] for r in points], marker="o",
                      label=_short(points[0]))
    axis.set_ylabel("time per inference (us)")  # the tables' unit
    axis.set_title("Top tasks across runs")
    axis.legend(fontsize=7)
    return _svg(figure)


def _table(result: Result, columns: list[str]) -> str:
    """A table whose numbers never wrap and whose text wraps at words (a long key at any
    character), each column its own class for the page's widths."""
    records = result.records()
    numeric = {c for c in columns if any(isinstance(r.get(c), (int, float)) and not isinstance(r.get(c), bool)
                                         for r in records)}
    kind = {c: "num" if c in numeric else "text" for c in columns}
    head = "".join(f'<th class="{kind[c]} col-{c}">{html.escape(c)}</th>' for c in columns)
    body = "".join("<tr>" + "".join(f'<td class="{kind[c]} col-{c}">{_breakable(cell(c, r.get(c)))}</td>'
                                    for c in columns) + "</tr>" for r in records)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


LONG_WORD = 16  # characters: a word up to this long is never broken in a table's cell


def _breakable(text: str) -> str:
    """Escaped text whose long words (kernel symbols: `tvmgen_default_fused_layout_...`)
    may break after an underscore: one such name would otherwise widen its column past
    the page."""
    return " ".join(html.escape(word).replace("_", "_<wbr>") if len(word) > LONG_WORD else html.escape(word)
                    for word in text.split(" "))


TOP_COLUMNS = words.TOP_COLUMNS["task"]
# the page's comparison: its answer and why (compare -f json has every column)
COMPARE_COLUMNS = ["item", "verdict", "ratio", "ratio_low", "ratio_high", "noise_pct", "time_a_us", "time_b_us",
                   "p_value", "reason"]


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
body {{ font-family: system-ui, sans-serif; margin: 2em auto; padding: 0 1em; max-width: 1400px; color: #222; }}
table {{ border-collapse: collapse; font-size: 12px; margin: 1em 0; width: 100%; }}
th, td {{ border: 1px solid #ccc; padding: 3px 6px; text-align: left; vertical-align: top; }}
th {{ background: #f0f3f7; }}
td.num, th.num {{ text-align: right; white-space: nowrap; }}
td.text {{ overflow-wrap: break-word; }}
td.col-reason {{ min-width: 12em; }}
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
