"""The layers inside the house: use cases (hotdb/ops/) do not call each other, only their
shared helpers (ops/common.py, ops/stats.py); the option choices live in one module that imports
nothing; the CLI decides nothing about a result. And the rules it used to hold are the
API's: the regression gate, the weights' check, the empty query, held here through
hotdb.Hotdb itself."""

from __future__ import annotations

import ast
import math
import random
from pathlib import Path

import pytest
from helpers import ROOT

from hotdb import Hotdb, choices
from hotdb.cli import words
from hotdb.errors import BadArgument, DifferentBuilds, HotdbError, NothingTested, Regressions, TuneFailed, UsageError
from hotdb.examples import make_vgg16 as gen

HOTDB = ROOT / "hotdb"


def imported_modules(path: Path) -> set[str]:
    """Every module a file of hotdb imports, at any depth (imports inside functions too),
    as absolute names: `from hotdb.ops import rank` imports hotdb.ops.rank."""
    package = ".".join(path.relative_to(HOTDB.parent).parts[:-1])
    return imports_in(path.read_text(), package)


def imports_in(text: str, package: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from package, up level - 1
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


OPS = sorted(p for p in (HOTDB / "ops").glob("*.py") if p.name != "__init__.py")


def test_the_rule_sees_imports_of_every_form():
    # what the rules below rest on: absolute, from-package, relative and nested imports
    text = ("import hotdb.ops.a\nfrom hotdb.ops import b\nfrom hotdb.ops.c import f\nfrom . import d\n"
            "from .e import g\nfrom ..store import database\ndef h():\n    from hotdb.ops import i as j\n")
    found = imports_in(text, "hotdb.ops")
    assert {f"hotdb.ops.{m}" for m in "abcdei"} <= found and "hotdb.store.database" in found
    assert {"hotdb.ops.rank", "hotdb.ops.tune", "hotdb.ops.lake"} <= imported_modules(HOTDB / "api.py")


def test_no_module_imports_itself_through_others():
    """No import circle, counting imports inside functions and under TYPE_CHECKING (where a
    circle hides until a type checker or a refactor meets it): a module that needs what
    imports it is in the wrong place."""
    modules = {".".join(path.relative_to(HOTDB.parent).with_suffix("").parts).removesuffix(".__init__"): path
               for path in HOTDB.rglob("*.py")}
    def imported(path: Path) -> set[str]:  # `from hotdb.rows import lists` imports hotdb.rows.lists
        found = imported_modules(path)
        return {m for m in found if m in modules and not any(n.startswith(m + ".") and n in modules for n in found)}

    edges = {name: imported(path) - {name} for name, path in modules.items()}
    circles = set()
    for start in edges:
        seen, todo = set(), list(edges[start])
        while todo:
            name = todo.pop()
            if name == start:
                circles.add(start)
                break
            if name not in seen and not name.startswith(start + "."):
                seen.add(name)
                todo.extend(edges[name])
    packages = {name for name, path in modules.items() if path.name == "__init__.py"}
    assert not circles - packages, sorted(circles - packages)


@pytest.mark.parametrize("path", OPS, ids=lambda p: p.name)
def test_no_use_case_imports_another(path):
    others = {f"hotdb.ops.{p.stem}" for p in OPS} - {"hotdb.ops.common", "hotdb.ops.stats"}
    assert not imported_modules(path) & others, f"{path.name} imports another use case; share it through ops/common.py (or ops/stats.py)"


def test_every_use_case_module_is_there():
    # the lake is a use case like the rest; common.py is the only helper
    assert {p.stem for p in OPS} >= {"capture", "common", "compare", "export", "ingest", "lake", "rank", "runs", "sql",
                                     "tune"}


def test_the_choices_import_nothing_and_are_the_clis_and_the_apis():
    tree = ast.parse((HOTDB / "choices.py").read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    from hotdb.cli import app as cli

    for enum, offered in ((cli.OutputFormat, choices.OUTPUT_FORMATS), (cli.TopBy, choices.TOP_BY),
                          (cli.ShareOf, choices.SHARE_OF), (cli.ExportFormat, choices.EXPORT_TO),
                          (cli.CompareBy, choices.COMPARE_BY)):
        assert tuple(member.value for member in enum) == offered
    # no use case keeps a copy of its own: a tuple of string choices is choices.py's
    for path in OPS:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple) and node.value.elts and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.value.elts):
                values = tuple(e.value for e in node.value.elts)
                assert values not in {getattr(choices, n) for n in dir(choices) if n.isupper()}, (path.name, values)


def test_the_cli_decides_nothing_about_a_result():
    """cli/app.py parses and renders: no `if` (or conditional expression) of a command or its
    helpers looks at what the API returned or raised (main's map of errors to exit codes
    and one-line messages aside)."""
    tree = ast.parse((HOTDB / "cli" / "app.py").read_text())
    functions = [f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name not in ("main", "_environment_error")]
    assert len(functions) > 20
    for node in (n for f in functions for n in ast.walk(f)):
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            names = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
            assert not names & {"result", "counts", "worst", "warning", "exc"}, ast.unparse(node.test)


# --- the rules, through the API ------------------------------------------------------------

def write_run(path: Path, slow_factor: float, seed: int) -> Path:
    """The example VGG-16 debug table with 5 samples a node, conv4_1 made `slow_factor` slower."""
    calls = gen.build_calls(random.Random(16))
    funcs = gen.name_kernels(calls, "tvmgen_default_")
    nodes = gen.node_names(funcs)
    slow = next(c for c in calls if c.shape_key == (256, 512, 28))
    slow.time_us *= slow_factor
    path.write_text(gen.debug_table(calls, funcs, nodes, random.Random(seed), measurements=True, repeats=5))
    return path


@pytest.fixture
def two_runs(tmp_path, vgg16) -> Hotdb:
    api = Hotdb(tmp_path / "db.duckdb")
    api.ingest([write_run(tmp_path / "base.txt", 1.0, 1), vgg16["relay"], vgg16["tasks"]], model="vgg16", run="base")
    api.ingest([write_run(tmp_path / "slow.txt", 2.0, 2)], model="vgg16", run="slow")
    return api


def test_the_regression_gate_is_the_apis(two_runs):
    api = two_runs
    with pytest.raises(Regressions) as raised:
        api.compare("base", "slow", fail_above_pct=5)
    gate = raised.value
    assert isinstance(gate, HotdbError) and gate.exit_code == 1
    # the one task made twice as slow, above 5 % with 95 % confidence; the comparison comes with it
    assert [r["task_args"][1] for r in gate.regressions] == [["TENSOR", [512, 256, 3, 3], "float32"]]
    assert gate.regressions[0]["ratio"] == pytest.approx(2.0, rel=0.05)
    assert str(gate).startswith("1 items slower by more than 5 % beyond the noise: ") and "95 % interval" in str(gate)
    again = api.compare("base", "slow").records()  # sums in any order: equal to the last digits
    assert [(r["item"], r["verdict"]) for r in gate.result.records()] == [(r["item"], r["verdict"]) for r in again]
    assert [r["ratio"] for r in gate.result.records()] == pytest.approx([r["ratio"] for r in again], rel=1e-9)
    # +100 % is not above 150 %; an improvement is no regression; the whole run's row is not judged
    assert api.compare("base", "slow", fail_above_pct=150).rows
    assert api.compare("slow", "base", fail_above_pct=5).rows
    with pytest.raises(BadArgument):
        api.compare("base", "slow", fail_above_pct=math.nan)


def test_the_gate_judges_one_build_unless_allowed(two_runs, vgg16, tmp_path):
    api = two_runs
    other_ir = tmp_path / "vgg16.relay.txt"
    other_ir.write_text(Path(vgg16["relay"]).read_text() + "\n\n")  # another IR source: another build
    api.ingest([write_run(tmp_path / "rebuilt.txt", 1.0, 3), other_ir], model="vgg16", run="rebuilt")
    assert api.compare("base", "rebuilt").facts["same_ir"] is False  # without a gate: compared, and said
    with pytest.raises(DifferentBuilds) as raised:
        api.compare("base", "rebuilt", fail_above_pct=5)
    assert raised.value.result.facts["same_ir"] is False and "same IR, target and device" in str(raised.value)
    assert "--" not in str(raised.value)  # the API names no option; the CLI's words do
    assert words.error(raised.value).startswith("--fail-on-regression compares builds of the same IR, target and device")
    with pytest.raises(NothingTested):  # judged: one capture a side, nothing beyond the noise between captures
        api.compare("base", "rebuilt", fail_above_pct=5, allow_different_builds=True)


def test_a_gate_that_tested_nothing_fails(tmp_path, vgg16, cli):
    """Tables of one time a node (no Measurements(us)), one run a side: no item can be told
    from the noise, and the gate says so and fails rather than pass on nothing; without a
    gate the comparison is shown."""
    from hotdb.errors import NothingTested

    api = Hotdb(tmp_path / "one.duckdb")
    api.ingest([vgg16["table"], vgg16["relay"], vgg16["tasks"]], model="vgg16", run="a")
    slower = tmp_path / "b.txt"
    slower.write_text(Path(vgg16["table"]).read_text() + "\n")  # other bytes: another run of the same times
    api.ingest([slower], model="vgg16", run="b")
    rows = [r for r in api.compare("a", "b").records() if r["item"] != "(end to end)"]
    assert {r["verdict"] for r in rows} == {"can't tell"} and {r["samples_a"] for r in rows} == {0}
    with pytest.raises(NothingTested) as raised:
        api.compare("a", "b", fail_above_pct=5)
    assert raised.value.exit_code == 1 and "tested nothing" in str(raised.value)
    assert [r["verdict"] for r in raised.value.result.records()] == [r["verdict"] for r in api.compare("a", "b").records()]
    shown = cli("--db", tmp_path / "one.duckdb", "compare", "a", "b", "--fail-on-regression", "5", use_db=False)
    assert shown.code == 1 and "tested nothing" in shown.err and "--replicates 3" in shown.err
    assert "can't tell" in shown.out  # the comparison is still shown


@pytest.mark.parametrize("weight", [0, -1, math.nan, math.inf, -math.inf])
def test_weights_above_0_are_the_apis_rule(tmp_path, weight):
    api = Hotdb(tmp_path / "missing.duckdb")  # refused before any database is opened
    for call in (lambda: api.top(all_models=True, weights={"m": weight}),
                 lambda: api.export(to="json", all_models=True, weights={"m": weight})):
        with pytest.raises(BadArgument, match="weight is a number above 0") as raised:
            call()
        assert raised.value.exit_code == 2  # as the command line's own usage errors
    assert not (tmp_path / "missing.duckdb").exists()


def test_weights_scale_each_model(two_runs):
    ranked = two_runs.top(all_models=True, weights={"vgg16": 2.5})
    assert ranked.rows and ranked.facts["reached_pct"] is not None
    with pytest.raises(UsageError, match="unknown models: nope"):
        two_runs.top(all_models=True, weights={"nope": 1.0})


@pytest.mark.parametrize("text", ["", "  ", "\n\t"])
def test_an_empty_query_is_refused_by_the_api(tmp_path, text):
    with pytest.raises(BadArgument, match="no SQL given"):
        Hotdb(tmp_path / "missing.duckdb").sql(text)


@pytest.mark.parametrize("call", [
    lambda api: api.top(by="kernel"), lambda api: api.top(share_of="whole"), lambda api: api.export(to="xml"),
    lambda api: api.compare("a", "b", by="nodes"), lambda api: api.top(coverage=0)])
def test_choices_not_offered_are_refused_by_the_api(tmp_path, call):
    with pytest.raises(BadArgument):
        call(Hotdb(tmp_path / "missing.duckdb"))


def test_a_failed_tunes_limit_is_worded_with_its_option():
    failed = TuneFailed("no trial of 2 succeeded, so nothing was tuned: 2 x LocalBuilder: Timeout (the limit was "
                        "0.001 s).", trials=2, failures={"LocalBuilder: Timeout": 2}, limit="build_timeout_s")
    assert "--" not in str(failed)
    assert words.error(failed) == f"{failed} Raise it with --build-timeout SECONDS."
    plain = TuneFailed("the tune ran no trial", trials=0, failures={})
    assert words.error(plain) == str(plain)
