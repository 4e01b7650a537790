"""The command line: parse arguments, call the API, render. No behaviour lives here."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from hotdb.cli import options
from hotdb.cli.args import hoisted, narrowed
from hotdb.cli.options import (
    CcOption,
    CompareBy,
    DeviceOption,
    ExportFormat,
    ForceOption,
    FormatOption,
    KeyOption,
    ModelOption,
    OutputFormat,
    RpcOption,
    RpcTimeoutOption,
    RunOption,
    ShareOf,
    ShareOfOption,
    TopBy,
)
from hotdb.cli.output import write_export, write_whole
from hotdb.errors import DifferentBuilds, HotdbError, NothingTested, Regressions, ctrl_c

app = typer.Typer(
    help="hotdb: which tuning tasks cover most of a TVM model's runtime. "
         "Ingest profiles, IR and tuning tasks; rank, match and export.",
    no_args_is_help=True, pretty_exceptions_enable=False,
)

_state = {"db": None, "lake": None, "as_of": None, "debug": False}


def _show_version(value: bool) -> None:
    if value:
        from hotdb.version import versions

        sys.stdout.write("".join(f"{name} {version}\n" for name, version in versions().items()))
        raise typer.Exit()


def _known_input_format(name: str | None) -> str | None:
    if name is not None:
        from hotdb.ingest import REGISTRY

        known = [i.name for i in REGISTRY]
        if name not in known:
            raise typer.BadParameter(f"{name!r} is not one of {', '.join(known)} (hotdb formats describes each)")
    return name


@app.callback()
def _global(
    version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                          help="Print the versions of hotdb, DuckDB, apache-tvm and Python.")] = False,
    db: Annotated[Optional[Path], typer.Option("--db", envvar="HOTDB_DB", help="Database file (default ./hotdb.duckdb).")] = None,
    lake: Annotated[Optional[str], typer.Option("--lake", envvar="HOTDB_LAKE", metavar="<path|uri>", help="Use a lake of Delta tables (a folder, or s3://... ) instead of a database file: many writers, no lock.")] = None,
    as_of: Annotated[Optional[str], typer.Option("--as-of", metavar="VERSION|TIME", help="Read the lake as it was at a version of its commit log, or at a time (2026-12-01T09:00Z).")] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    _state["db"] = db
    _state["lake"] = lake
    _state["as_of"] = as_of
    _state["debug"] = debug


def _api():
    from hotdb.api import Hotdb

    return Hotdb(_state["db"], lake=_state["lake"], as_of=_state["as_of"])


def _inputs() -> tuple:
    """What a command reads, which no output may replace: the database file, the lake."""
    from hotdb.store.connection import default_path

    return (_state["db"] or default_path(), _state["lake"])


def _render(result, fmt: OutputFormat, view=None) -> None:
    from hotdb.cli import render

    render.render(result, fmt.value, view)


def _tags(values: list[str]) -> dict[str, str]:
    tags = {}
    for value in values:
        key, sep, val = value.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"expected KEY=VALUE, got {value!r}", param_hint="--tag")
        tags[key] = val
    return tags


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files (or folders) of one build: its profiles, IR and task files (a pasted text is cut into its artifacts).")],
    model: Annotated[Optional[str], typer.Option("--model", help="Model name (default: the first file's name up to its first dot; for MetaSchedule's task logs, the tune's work folder).")] = None,
    run: Annotated[list[str], typer.Option("--run", help="Label of the run a profile becomes (default MODEL-N); once per profile, in order, when there are several.")] = [],
    input_format: Annotated[Optional[str], typer.Option("--input-format", help="Read every file as this format instead of detecting it (see `hotdb formats`).", callback=_known_input_format)] = None,
    input_format_alias: Annotated[Optional[str], typer.Option("--format", hidden=True, callback=_known_input_format)] = None,
    tag: Annotated[list[str], typer.Option("--tag", help="KEY=VALUE metadata for the run; repeatable.")] = [],
    strict: Annotated[bool, typer.Option("--strict", help="Refuse a pasted text whose artifacts do not all read (default: store the others and warn).")] = False,
) -> None:
    """Store profiles, IR and tuning tasks of one build of one model (atomically)."""
    from hotdb.cli import render

    result = _api().ingest(paths, model=model, run=run or None, input_format=input_format or input_format_alias,
                           tags=_tags(tag), strict=strict)
    render.ingest_summary(result)


def _weights(values: list[str]) -> dict[str, float]:
    """--weight MODEL=NUMBER as {model: number}; which numbers a weight may be is the API's."""
    weights = {}
    for key, value in _tags(values).items():
        try:
            weights[key] = float(value)
        except ValueError:
            raise typer.BadParameter(f"expected MODEL=NUMBER, got {key}={value}", param_hint="--weight") from None
    return weights


@app.command()
def top(
    coverage: Annotated[Optional[float], typer.Option("--coverage", help="Keep the fewest rows that cover PCT % of the run's time.", metavar="PCT", callback=options.PERCENT)] = None,
    by: Annotated[TopBy, typer.Option("--by", help="Rank tasks, nodes or op families.")] = TopBy.task,
    run: RunOption = None,
    model: ModelOption = None,
    all_models: Annotated[bool, typer.Option("--all-models", help="Tasks over the latest run of every model.")] = False,
    weight: Annotated[list[str], typer.Option("--weight", help="MODEL=W: scale a model's times (with --all-models); repeatable.")] = [],
    share_of: ShareOfOption = ShareOf.tunable,
    projected: Annotated[bool, typer.Option("--projected", help="Rank tasks by the time they will hold once the "
                                            "tuning records already stored are applied.")] = False,
    device: Annotated[Optional[str], typer.Option("--device", metavar="KEY", help="With --all-models: only runs measured on "
                                                  "devices of this RPC tracker key (local: not through a tracker).")] = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Rank by time with share and cumulative share (tasks: of the tunable kernel time)."""
    from hotdb.cli import words

    table = fmt is OutputFormat.table  # the run's totals only make the notes under a table
    result = _api().top(by=by.value, coverage=coverage, run=run, model=model, all_models=all_models,
                        weights=_weights(weight), share_of=share_of.value, projected=projected, totals=table,
                        device=device)
    _render(result, fmt, words.top(result) if table else None)


@app.command()
def export(
    to: Annotated[ExportFormat, typer.Option("--to", help="The tuner's format (or json, csv).")],
    coverage: Annotated[Optional[float], typer.Option("--coverage", metavar="PCT", help="Select the fewest tasks covering PCT % (default 90).", callback=options.PERCENT)] = 90.0,
    run: RunOption = None,
    model: ModelOption = None,
    output: Annotated[Optional[Path], typer.Option("-o", "--output", help="Write here instead of standard output.")] = None,
    log: Annotated[Optional[Path], typer.Option("--log", help="Filter this tuning log instead of the ingested records.")] = None,
    all_models: Annotated[bool, typer.Option("--all-models", help="Select over the latest run of every model (see top --all-models).")] = False,
    share_of: ShareOfOption = ShareOf.tunable,
    force: Annotated[bool, typer.Option("--force", help="Replace what -o names: a file hotdb did not write, or a "
                                        "MetaSchedule database instead of merging into it (never the database "
                                        "or a lake).")] = False,
) -> None:
    """Export the tasks that cover most of a run's time, in a tuner's own format."""
    from hotdb.cli import render, words

    result = _api().export(to=to.value, coverage=coverage, run=run, model=model, log=log, all_models=all_models,
                           share_of=share_of.value, into=output if to.value == "metaschedule" else None, force=force)
    if output is None:
        sys.stdout.write(result.text)
    else:
        write_export(output, result.text, result.files, protected=_inputs(), force=force)
        render.info(f"wrote {output}")
    for note in words.export_notes(result.facts):
        render.note(note)


@app.command()
def compare(
    run_a: Annotated[Optional[str], typer.Argument(help="Side A: a run, a replicate group, or runs separated by commas (default: the model's second-latest run or group).")] = None,
    run_b: Annotated[Optional[str], typer.Argument(help="Side B, as side A (default: the model's latest run or group).")] = None,
    by: Annotated[CompareBy, typer.Option("--by", help="task (= workload), node (= kernel symbol) or op.")] = CompareBy.task,
    threshold: Annotated[float, typer.Option("--threshold", metavar="PCT", help="Changes smaller than PCT % are unchanged.", callback=options.NON_NEGATIVE)] = 0.0,
    fail_on_regression: Annotated[Optional[float], typer.Option("--fail-on-regression", metavar="PCT", callback=options.NON_NEGATIVE,
                                  help="Exit 1 when an item is slower by more than PCT % beyond the noise (its 95 % interval above), or when no item could be told from the noise.")] = None,
    allow_different_builds: Annotated[bool, typer.Option(
        "--allow-different-builds", help="Let --fail-on-regression judge runs of different IR, target or device.")] = False,
    model: ModelOption = None,
    all_items: Annotated[bool, typer.Option("--all-items", help="Also the items no side timed (VM builtins).")] = False,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Compare runs per task, each change judged against the noise between runs; a CI gate with --fail-on-regression."""
    from hotdb.cli import words

    try:
        result = _api().compare(run_a, run_b, by=by.value, threshold=threshold, model=model,
                                fail_above_pct=fail_on_regression, allow_different_builds=allow_different_builds,
                                all_items=all_items)
    except DifferentBuilds as exc:  # refused before the comparison is shown: only its warnings are
        _warn(words.compare_warnings(exc.result.facts))
        raise
    except (Regressions, NothingTested) as exc:  # shown, then refused (main says why)
        _show_comparison(exc.result, fmt)
        raise
    _show_comparison(result, fmt)


def _warn(warnings: list[str]) -> None:
    from hotdb.cli import render

    for warning in warnings:
        render.warn(warning)


def _show_comparison(result, fmt: OutputFormat) -> None:
    from hotdb.cli import words

    _warn(words.compare_warnings(result.facts))
    _render(result, fmt, words.compare(result))


@app.command()
def history(
    model: ModelOption = None,
    task: Annotated[Optional[str], typer.Option("--task", help="Task name.")] = None,
    workload: Annotated[Optional[str], typer.Option("--workload", help="Workload key.")] = None,
    device: DeviceOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """One task's time across runs, with each run's TVM version, target and tags."""
    from hotdb.cli import words

    result = _api().history(model=model, task=task, workload=workload, device=device)
    _render(result, fmt, words.history(result))


@app.command()
def report(
    runs: Annotated[Optional[list[str]], typer.Argument(help="Runs to report on (default: the latest); two or more add a comparison of the first and last and a history.")] = None,
    html_path: Annotated[Optional[Path], typer.Option("--html", help="Write a self-contained HTML page here.")] = None,
    md_path: Annotated[Optional[Path], typer.Option("--md", help="Write Markdown (for pull-request comments) here.")] = None,
    force: ForceOption = False,
) -> None:
    """Write a report with the coverage chart, top tasks, comparison and history."""
    from hotdb.cli import render
    from hotdb.cli import report as reports

    if html_path is None and md_path is None:
        raise typer.BadParameter("give --html PATH and/or --md PATH")
    data = reports.collect(_api(), list(runs or []))
    if html_path is not None:
        write_whole(html_path, reports.to_html(data), protected=_inputs(), force=force)
        render.info(f"wrote {html_path}")
    if md_path is not None:
        write_whole(md_path, reports.to_markdown(data), protected=_inputs(), force=force)
        render.info(f"wrote {md_path}")


@app.command()
def matches(run: RunOption = None, model: ModelOption = None, fmt: FormatOption = OutputFormat.table) -> None:
    """Every node of a run: its task or candidates, the rule that matched it, how sure."""
    from hotdb.cli import words

    result = _api().matches(run=run, model=model)
    _render(result, fmt, words.matches(result))


@app.command()
def tasks(model: Annotated[Optional[str], typer.Option("--model", help="Only this model's tasks.")] = None,
          fmt: FormatOption = OutputFormat.table) -> None:
    """List tuning tasks with their workload, weight and best tuning record."""
    from hotdb.cli import words

    result = _api().tasks(model=model)
    _render(result, fmt, words.tasks(result))


@app.command()
def runs(device: DeviceOption = None, fmt: FormatOption = OutputFormat.table) -> None:
    """List runs with their time and matched share."""
    from hotdb.cli import words

    result = _api().runs(device=device)
    _render(result, fmt, words.runs(result))


@app.command()
def models(fmt: FormatOption = OutputFormat.table) -> None:
    """List models with their runs, sources and tasks."""
    from hotdb.cli import words

    result = _api().models()
    _render(result, fmt, words.models(result))


@app.command()
def sql(query: Annotated[str, typer.Argument(help="SQL over hotdb's tables and views (see docs/views.md).")],
        timeout: Annotated[Optional[float], typer.Option("--timeout", metavar="SECONDS", callback=options.SQL_SECONDS,
                           help="Stop the query after SECONDS (default: HOTDB_SQL_TIMEOUT, else 300).")] = None,
        memory_limit: Annotated[Optional[str], typer.Option("--memory-limit", metavar="SIZE", callback=options.memory_size,
                                help="Stop the query when DuckDB needs more memory, e.g. 2GB "
                                     "(default: HOTDB_MEMORY_LIMIT, else 384MiB).")] = None,
        fmt: FormatOption = OutputFormat.table) -> None:
    """Run one read-only query on the database or lake: no writes, files, attaches or extensions; rows streamed."""
    from hotdb.cli import render, words

    with _api().sql_batches(query, timeout_s=timeout, memory_limit=memory_limit) as (columns, batches):
        render.streamed(columns, batches, fmt.value, words.sql)


@app.command()
def upgrade() -> None:
    """Bring a database an older hotdb wrote up to date (reads never change a file)."""
    from hotdb.cli import render

    before, after = _api().upgrade()
    render.info(f"schema version {before} -> {after}; views and stored matches are this hotdb's"
                if before != after else f"schema version {after}: views and stored matches are this hotdb's")


@app.command()
def formats(fmt: FormatOption = OutputFormat.table) -> None:
    """List the formats hotdb reads and how each is detected."""
    from hotdb.api import Hotdb
    from hotdb.cli import words

    result = Hotdb.formats()
    _render(result, fmt, words.formats(result))


@app.command()
def profile(
    model: Annotated[str, typer.Argument(help="A zoo name (see `hotdb zoo`), an .onnx file, or path/to/file.py:function.")],
    target: Annotated[Optional[str], typer.Option("--target", help="llvm (default, all host cores), cuda, a JSON target dict, a TVM target tag, or TVM's text form (llvm -mcpu=... -mtriple=...).")] = None,
    repeat: Annotated[int, typer.Option("--repeat", help="Timing samples per kernel and for the whole model.", callback=options.COUNT)] = 5,
    warmup: Annotated[int, typer.Option("--warmup", help="Untimed runs of the whole model first.", callback=options.ZERO_OR_MORE)] = 1,
    name: Annotated[Optional[str], typer.Option("--model", help="Model name in the database (default: the zoo name or file stem).")] = None,
    run: Annotated[Optional[str], typer.Option("--run", help="Run label (default MODEL-N).")] = None,
    tag: Annotated[list[str], typer.Option("--tag", help="KEY=VALUE metadata for the run; repeatable.")] = [],
    entry: Annotated[Optional[str], typer.Option("--entry", help="Entry function of an IRModule (default main).")] = None,
    coverage: Annotated[float, typer.Option("--coverage", metavar="PCT", help="Coverage shown when done.", callback=options.PERCENT)] = 90.0,
    replicates: Annotated[int, typer.Option("--replicates", help="Captures, each in a process of its own, stored as runs RUN.1 .. RUN.N of the group RUN (compare takes RUN as one side).", callback=options.COUNT)] = 1,
    rpc: RpcOption = None,
    key: KeyOption = None,
    rpc_timeout: RpcTimeoutOption = None,
    cc: CcOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Capture a live profile with apache-tvm: kernels, MetaSchedule tasks, coverage (here, or on a remote device)."""
    from hotdb.cli import render

    api = _api()
    with render.progress() as progress:
        result = api.profile(model, target=target, repeat=repeat, warmup=warmup, name=name, run=run,
                             tags=_tags(tag), entry=entry, progress=progress, replicates=replicates, rpc=rpc, key=key,
                             rpc_timeout_s=rpc_timeout, cc=cc)
    render.ingest_summary(result)
    _top(api, coverage, result.run_label, fmt)


def _top(api, coverage: float, run: str, fmt: OutputFormat) -> None:
    from hotdb.cli import words

    result = api.top(by="task", coverage=coverage, run=run)
    _render(result, fmt, words.top(result))


@app.command()
def tune(
    model: Annotated[str, typer.Argument(help="A zoo name, an .onnx file, or path/to/file.py:function.")],
    coverage: Annotated[float, typer.Option("--coverage", metavar="PCT", help="Each round tunes the fewest tasks covering PCT % of the current runtime first; tasks no round has tried follow, by expected gain.", callback=options.PERCENT)] = 90.0,
    trials: Annotated[int, typer.Option("--trials", help="Trial budget for all selected tasks together.", callback=options.COUNT)] = 64,
    per_task_max: Annotated[Optional[int], typer.Option("--per-task-max", help="At most this many trials per task.", callback=options.COUNT)] = None,
    work_dir: Annotated[Optional[Path], typer.Option("--work-dir", help="Where the MetaSchedule database is kept (default ./hotdb-tune-MODEL).")] = None,
    target: Annotated[Optional[str], typer.Option("--target", help="As for `hotdb profile`.")] = None,
    repeat: Annotated[int, typer.Option("--repeat", help="Timing samples when profiling.", callback=options.COUNT)] = 3,
    build_timeout: Annotated[Optional[float], typer.Option("--build-timeout", metavar="SECONDS", callback=options.POSITIVE,
                             help="Time limit for building one trial (default 120).")] = None,
    run_timeout: Annotated[Optional[float], typer.Option("--run-timeout", metavar="SECONDS", callback=options.POSITIVE,
                           help="Time limit for running one trial (default 60).")] = None,
    budget: Annotated[Optional[str], typer.Option("--budget", metavar="TIME", callback=options.duration,
                      help="Wall-clock budget, e.g. 20m, 1h30m or 90s: no batch of trials starts that would end after it.")] = None,
    min_gain: Annotated[Optional[float], typer.Option("--min-gain", metavar="PCT", callback=options.NON_NEGATIVE,
                        help="Stop when a round made the model less than PCT % faster (default: off).")] = None,
    rounds: Annotated[Optional[int], typer.Option("--rounds", callback=options.COUNT,
                      help="At most this many rounds (default: until the budget is spent).")] = None,
    share_of: ShareOfOption = ShareOf.tunable,
    rpc: RpcOption = None,
    key: KeyOption = None,
    rpc_timeout: RpcTimeoutOption = None,
    cc: CcOption = None,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Tune the hotspots with MetaSchedule in rounds: tune (the hottest first, each batch stored as it lands, warm
    from the stored records of the same workloads), apply, re-profile, repeat on the new times."""
    from hotdb.cli import render, words

    with render.progress() as progress:
        result = _api().tune(model, coverage=coverage, trials=trials, per_task_max=per_task_max,
                             work_dir=work_dir, target=target, repeat=repeat, build_timeout_s=build_timeout,
                             run_timeout_s=run_timeout, share_of=share_of.value, budget_s=budget,
                             min_gain_pct=min_gain, max_rounds=rounds, progress=progress, notify=render.warn,
                             inform=render.note, rpc=rpc, key=key, rpc_timeout_s=rpc_timeout, cc=cc)
    _render(result, fmt, words.tune(result))


@app.command()
def devices(
    rpc: Annotated[str, typer.Option("--rpc", envvar="HOTDB_RPC", metavar="HOST:PORT", help="TVM's RPC tracker.")],
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """List the devices an RPC tracker holds: each key with its total, free and pending devices."""
    from hotdb.api import Hotdb
    from hotdb.cli import words

    result = Hotdb.devices(rpc)
    _render(result, fmt, words.devices(result))


@app.command()
def zoo(fmt: FormatOption = OutputFormat.table) -> None:
    """List the built-in models `hotdb profile` takes by name."""
    from hotdb.api import Hotdb
    from hotdb.cli import words

    result = Hotdb.zoo()
    _render(result, fmt, words.zoo(result))


@app.command()
def example(
    coverage: Annotated[float, typer.Option("--coverage", metavar="PCT", callback=options.PERCENT)] = 90.0,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Ingest the bundled example build (VGG-16, x86, TVM 0.8 era) and show its top tasks."""
    from hotdb.cli import render
    from hotdb.examples import example_files

    api = _api()
    render.ingest_summary(api.ingest(example_files("vgg16"), model="vgg16", run="vgg16-example"))
    _top(api, coverage, "vgg16-example", fmt)


lake_app = typer.Typer(help="Lakes of Delta tables (--lake): import a database file, compact, export, convert.",
                       no_args_is_help=True)
app.add_typer(lake_app, name="lake")


LakeDir = Annotated[Optional[str], typer.Argument(help="The lake: a folder or s3://... (default: --lake).", metavar="LAKE")]


def _lake_dir(given: str | None) -> str:
    if given is None and _state["lake"] is None:
        raise typer.BadParameter("give the lake, as an argument or with --lake", param_hint="LAKE")
    return given or _state["lake"]


@lake_app.command("import")
def lake_import(lake: LakeDir = None) -> None:
    """Copy the database file (--db) into a lake: one commit per model; what it holds already is skipped."""
    from hotdb.api import Hotdb
    from hotdb.cli import render, words

    lake = _lake_dir(lake)
    render.info(words.lake_imported(Hotdb(_state["db"]).lake_import(lake), lake))


@lake_app.command("compact")
def lake_compact(lake: LakeDir = None) -> None:
    """Merge small files, delete what unfinished writers left, vacuum; safe while others read and write."""
    from hotdb.api import Hotdb
    from hotdb.cli import render, words

    lake = _lake_dir(lake)
    render.info(words.lake_compacted(Hotdb(_state["db"], lake=lake, as_of=_state["as_of"]).lake_compact(lake), lake))


@lake_app.command("export")
def lake_export(
    lake: LakeDir = None,
    parquet: Annotated[Path, typer.Option("--parquet", metavar="DIR", help="A new folder: one folder of Parquet per table.")] = ...,
    fmt: FormatOption = OutputFormat.table,
) -> None:
    """Write the lake's rows as plain Parquet (DIR/<table>/data.parquet) for engines without Delta."""
    from hotdb.api import Hotdb
    from hotdb.cli import words
    from hotdb.result import Result

    lake = _lake_dir(lake)
    counts = Hotdb(_state["db"], lake=lake, as_of=_state["as_of"]).lake_export_parquet(lake, parquet)
    _render(Result(["table", "rows"], sorted(counts.items())), fmt, words.View(f"tables written to {parquet}"))


@lake_app.command("convert")
def lake_convert(lake: LakeDir = None) -> None:
    """Rewrite a lake of hotdb 0.2's folder layout as Delta tables, once (it is read-only until then)."""
    from hotdb.cli import render

    lake = _lake_dir(lake)
    counts = _api().lake_convert(lake)
    render.info(f"converted {counts['models']} models, {counts['runs']} runs of {lake} to Delta tables")


def main() -> None:
    """The process's entry point (the `hotdb` script, `python -m hotdb`); in a process
    that goes on afterwards (a test, a notebook), call `invoke`."""
    # what the imports made so far (typer, the commands) lives as long as the process: frozen,
    # the collector's passes while the command runs (as DuckDB is imported) skip it
    gc.freeze()
    try:
        invoke()
        code = 0
    except SystemExit as exc:
        code = exc.code
    if "deltalake" in sys.modules:
        # delta-rs's runtime threads can abort the interpreter's shutdown ("terminate called
        # without an active exception": exit 134, about 1 run in 12 here) after the command
        # has finished: its commits are made and its stores closed, so end here, on its code
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code if isinstance(code, int) else (0 if code is None else 1))
    # the process ends here: the collector's passes at shutdown would walk every object left
    # (DuckDB's module, the result), ~25 ms of `hotdb top -f json`'s ~250 (bench/cli_start.py).
    # Frozen, they are freed as their modules go, without the walk; every store is closed by
    # now, and what only a cycle holds has nothing left to finish
    gc.freeze()
    sys.exit(code)


def invoke() -> None:
    """Run the command of sys.argv; raises SystemExit with its exit code."""
    for stream in (sys.stdout, sys.stderr):  # a name an ascii terminal cannot show is shown escaped, not a traceback
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        # click returns, not raises, a command's exit code with standalone_mode=False
        args = hoisted(sys.argv[1:])
        try:
            code = narrowed(app, args)(args=args, prog_name="hotdb", standalone_mode=False)
        except RuntimeError as exc:  # (typer's Exit is one too: it is itself)
            raise ctrl_c(exc) from None
        if code == 130:  # typer's answer to Ctrl-C, returned without a word
            _interrupted()
        if isinstance(code, int) and code:
            sys.exit(code)
    except HotdbError as exc:
        if _state["debug"] or "--debug" in sys.argv:
            raise
        from hotdb.cli import render, words

        render.error(words.error(exc))
        sys.exit(exc.exit_code)  # the one map from errors to exit codes: hotdb/errors.py
    except (typer.Abort, KeyboardInterrupt):
        _interrupted()
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except Exception as exc:  # usage errors carry their own exit code and message
        show, exit_code = getattr(exc, "show", None), getattr(exc, "exit_code", None)
        # typer >= 0.29 vendors click (typer._click): match the interface, not a class
        if callable(show) and isinstance(exit_code, int) and not _state["debug"]:
            show()
            sys.exit(exit_code)
        from hotdb.cli import words

        message = words.environment_error(exc)
        if message is None or _state["debug"]:
            raise
        from hotdb.cli import render

        render.error(message + " (--debug shows where)")
        sys.exit(1)


def _interrupted() -> None:
    """Ctrl-C: what was done is kept (an ingest lands whole or not at all, a tune keeps every
    batch measured); said in plain text first (a second Ctrl-C while Rich loads would
    leave the exit silent), never a traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stderr.write("error: interrupted\n")
    sys.stderr.flush()
    sys.exit(130)
