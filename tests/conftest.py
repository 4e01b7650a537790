"""Shared fixtures: paths to data, a fresh database, and the CLI run in-process."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import duckdb
import pytest

from hotdb.examples import example_dir, example_files

DATA = Path(__file__).parent / "data"
# Public samples live in the steering repository beside this one; never copied here.
SAMPLES = Path(os.environ.get("HOTDB_SAMPLES", Path(__file__).resolve().parents[2] / "shared" / "formats" / "samples"))


# Real pasted texts found in issues, PRs, forum posts and blogs (each test file's folder has
# a SOURCES.md) are third-party text: never copied here, read where the shared corpus holds
# them. A test module names its folders in REAL_PASTE_FOLDERS (constants holding a path under
# PASTES); a test whose code uses a folder that is absent is skipped with the reason.
PASTES = Path(os.environ.get("HOTDB_PASTES", Path(__file__).resolve().parents[2] / "shared" / "real" / "pastes"))


def pytest_collection_modifyitems(config, items):
    import inspect
    import re

    def users(module, constant: str) -> set[str]:
        """The names of the module's functions that read the folder, directly or through another."""
        code = {}
        for name, f in vars(module).items():
            if inspect.isfunction(f) and f.__module__ == module.__name__:
                try:
                    code[name] = inspect.getsource(inspect.unwrap(f))
                except (OSError, TypeError):
                    continue
        found, names = set(), {constant}
        while names:
            pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
            names = {name for name, text in code.items() if name not in found and pattern.search(text)}
            found |= names
        return found

    for item in items:
        module = getattr(item, "module", None)
        for constant in getattr(module, "REAL_PASTE_FOLDERS", ()):
            if getattr(module, constant).is_dir():
                continue
            folder = getattr(module, constant)
            if item.function.__name__ in users(module, constant):
                item.add_marker(pytest.mark.skip(reason=f"real pasted texts not found in {folder} "
                                                        "(set HOTDB_PASTES to the shared/real/pastes folder)"))


def parse(path, fmt=None):
    """(format name, parsed rows) of a file, detected or read as `fmt`."""
    from hotdb.ingest import detect, get
    from hotdb.ingest.base import Source

    source = Source.read(path)
    ingestor = get(fmt) if fmt else detect(source)
    return ingestor.name, ingestor.parse(source)


def sample(name: str) -> Path:
    path = SAMPLES / name
    if not path.exists():
        pytest.skip(f"public sample {name} not found in {SAMPLES} (set HOTDB_SAMPLES to the shared/formats/samples folder)")
    return path


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "test.duckdb"


@pytest.fixture
def vgg16() -> dict[str, Path]:
    files = example_files("vgg16")
    return {"table": files[0], "relay": files[1], "tasks": files[2], "log": files[3],
            "truth": example_dir("vgg16") / "vgg16.truth.json"}


class CliResult:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err

    def json(self):
        return json.loads(self.out)


@pytest.fixture
def cli(capsys, db):
    """Run `hotdb --db <tmp> ARGS...` in this process; returns exit code, stdout, stderr."""
    from hotdb.cli import invoke

    def run(*args: str, use_db: bool = True) -> CliResult:
        argv = ["hotdb"] + (["--db", str(db)] if use_db else []) + [str(a) for a in args]
        old = sys.argv
        sys.argv = argv
        code = 0
        try:
            invoke()  # not main(), which ends a process that loaded deltalake with os._exit
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.argv = old
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def table_counts(db: Path) -> dict[str, int]:
    """Row count of every table, to check that a failed ingest changed nothing."""
    if not db.exists():
        return {}
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
        return {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchall()[0][0] for t in tables}
    finally:
        con.close()


def stored_rows(db: Path, queries: dict[str, str]) -> dict[str, list]:
    """The rows each named query reads from the database: what a whole read and a streamed
    read of one file must both store."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {name: con.execute(query).fetchall() for name, query in queries.items()}
    finally:
        con.close()
