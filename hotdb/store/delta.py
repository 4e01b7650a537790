"""Delta tables through `deltalake` (delta-rs): the lake's storage, on a local disk or an
object store (s3://, gs://, az://; credentials from the environment, as delta-rs reads
them: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ...). The only module that imports deltalake.

Two kinds of write, and why:

* **appends** of data rows (`append`): blind, so concurrent writers never conflict
  (delta-rs retries the commit at the next version);
* **claims** (`claim`): a MERGE that inserts rows only where their key is not yet taken.
  A MERGE reads the table, so delta-rs refuses its commit when another commit landed
  after the snapshot it read (measured: two merges of one key from one snapshot, one
  fails with CommitFailedError) — that is what makes a claim exclusive.
"""

from __future__ import annotations

import math
import os
import re
import sys
import tempfile
from contextlib import contextmanager
from datetime import datetime, timezone

from hotdb.failpoints import failpoint

COMMITS = "_commits"


@contextmanager
def _rust_said():
    """delta-rs's threads print a Rust panic's report ("thread ... panicked at", a
    backtrace) on standard error before the error it raises (a full disk did): while a
    write runs, standard error goes to a file, and afterwards what was not such a report
    is passed on. (Only around delta-rs's own calls: a failpoint's line is said at once.)"""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            kept = [line for line in caught.read().decode(errors="replace").splitlines(keepends=True)
                    if line.strip() and not _PANIC.search(line)]
            if kept:
                sys.stderr.write("".join(kept))


def said(exc: BaseException) -> str:
    """A delta-rs error in one line: its chain of causes ("↳" lines, coloured) joined."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    parts = [part.strip(" ↳\t") for part in text.splitlines()]
    return ": ".join(part for part in parts if part) or type(exc).__name__


_PANIC = re.compile(r"panicked at|^stack backtrace:|^\s+\d+: |^\s+at |RUST_BACKTRACE|^note: |Already shut down")


def _commits_schema():
    """The commit log of the lake: one row per claim of a commit (hotdb/store/lake.py)."""
    import pyarrow as pa

    return pa.schema([
        pa.field("commit_id", pa.int64(), nullable=False),
        pa.field("model_id", pa.int64(), nullable=False),
        pa.field("claim", pa.string(), nullable=False),
        pa.field("committed_at", pa.timestamp("us", tz="UTC"), nullable=False),
    ])


_CLAIM_KEY = "t.model_id = s.model_id AND t.claim = s.claim"
# a checkpoint every 10 commits: a reader replays at most 9 log entries (13 ms each on S3,
# measured; every command opens each table)
_CONFIGURATION = {"delta.checkpointInterval": "10"}


class Conflict(Exception):
    """Another commit landed after the snapshot a claim was decided on."""


def join(root: str, name: str) -> str:
    return f"{root.rstrip('/')}/{name}"


def is_remote(root: str) -> bool:
    return "://" in root and not root.startswith("file://")


# where AWS's credential chain finds credentials without asking the network
_AWS_CREDENTIALS = ("AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
                    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI")


def check_credentials(uri: str) -> None:
    """An s3:// lake with no credentials in the environment is refused in one line: the
    default chain would ask the cloud's instance-metadata address for them (a laptop's run
    reaching out unasked). AWS_EC2_METADATA_DISABLED=false asks for that lookup."""
    if not uri.startswith(("s3://", "s3a://")) or any(os.environ.get(name) for name in _AWS_CREDENTIALS):
        return
    files = [os.environ.get("AWS_SHARED_CREDENTIALS_FILE") or "~/.aws/credentials",
             os.environ.get("AWS_CONFIG_FILE") or "~/.aws/config"]
    if any(os.path.isfile(os.path.expanduser(path)) for path in files):
        return  # the chain reads its profiles from there
    if os.environ.get("AWS_EC2_METADATA_DISABLED", "").lower() == "false":
        return
    raise CredentialsMissing(f"{uri}: no AWS credentials in the environment or ~/.aws: set AWS_ACCESS_KEY_ID and "
                             "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE); on a cloud machine whose role gives them, "
                             "AWS_EC2_METADATA_DISABLED=false lets hotdb ask the instance metadata")


class CredentialsMissing(Exception):
    """An object store's lake without credentials to reach it."""


def _options() -> dict | None:
    """Storage options for an object store: delta-rs reads the rest from the environment.
    Its commits are exclusive on S3 by conditional writes (If-None-Match), which S3,
    MinIO and moto honour: no lock table."""
    if os.environ.get("AWS_ENDPOINT_URL", "").startswith("http://"):
        return {"allow_http": "true"}  # a local S3-compatible server (MinIO, moto)
    return None


def open_table(uri: str, version: int | str | None = None):
    """The table at its latest version (or VERSION, or the last version at TIMESTAMP, an
    ISO string); None when there is none."""
    from deltalake import DeltaTable
    from deltalake.exceptions import TableNotFoundError

    try:
        table = DeltaTable(uri, storage_options=_options() if is_remote(uri) else None,
                           version=version if isinstance(version, int) else None)
    except TableNotFoundError:
        return None
    if isinstance(version, str):
        table.load_as_version(datetime.fromisoformat(version))
    return table


def append(uri: str, rows) -> None:
    """Rows appended in one commit (the table made on first use; columns a newer hotdb
    added are added to it)."""
    from deltalake import CommitProperties, write_deltalake
    from deltalake.exceptions import CommitFailedError, DeltaError

    failpoint("delta-append")
    for attempt in range(3):
        try:
            # many writers append at once: delta-rs's default 15 retries ran out under 6
            with _rust_said():
                write_deltalake(uri, rows, mode="append", schema_mode="merge", configuration=_CONFIGURATION,
                                commit_properties=CommitProperties(max_commit_retries=1000),
                                storage_options=_options() if is_remote(uri) else None)
            return
        except (CommitFailedError, DeltaError):
            # two writers made the table at once: the loser appends to the winner's
            if attempt == 2 or open_table(uri) is None:
                raise


def ensure_commits(root: str, commit_id: int, model_id: int, claims: list[str]):
    """The commit log, made when missing with `claims` (the lake's first commit); the
    table at its latest version."""
    from deltalake import write_deltalake

    uri = join(root, COMMITS)
    table = open_table(uri)
    if table is None:
        try:
            with _rust_said():
                write_deltalake(uri, _claim_rows(commit_id, model_id, claims), mode="error",
                                configuration=_CONFIGURATION, storage_options=_options() if is_remote(uri) else None)
        except Exception:  # noqa: BLE001 - another writer made it first: read theirs
            pass
        table = open_table(uri)
    return table


def _claim_rows(commit_id: int, model_id: int, claims: list[str]):
    import pyarrow as pa

    now = datetime.now(timezone.utc)
    return pa.Table.from_pylist([{"commit_id": commit_id, "model_id": model_id, "claim": key, "committed_at": now}
                                 for key in [f"commit:{commit_id}", *claims]], schema=_commits_schema())


def claim(snapshot, commit_id: int, model_id: int, claims: list[str]) -> int:
    """Commit `claims` (with the commit's own) on the commit log as read at `snapshot`,
    whose reader checked that none is taken; Conflict when another commit landed since.
    The version it landed as (the snapshot's next: any commit since refuses it)."""
    from deltalake.exceptions import CommitFailedError

    rows = _claim_rows(commit_id, model_id, claims)
    keys = rows.column("claim").to_pylist()
    failpoint("delta-claim")
    try:
        with _rust_said():
            metrics = (snapshot.merge(rows, predicate=_CLAIM_KEY, source_alias="s", target_alias="t")
                       .when_not_matched_insert_all().execute())
    except CommitFailedError as exc:
        raise Conflict(str(exc).splitlines()[0]) from None
    if metrics["num_target_rows_inserted"] != len(keys):  # the snapshot's reader missed one: a bug
        raise RuntimeError(f"claims {keys} met taken ones at the snapshot they were checked against")
    return snapshot.version()


# the fencing token's name in each table's log: a compaction's rewrite carries its lease's version
COMPACTION_APP = "hotdb-compact"
# files at least this large are left as they are (a rewrite reads and writes what it merges)
SMALL_FILE_BYTES = 32 * 2**20


class Superseded(Exception):
    """A newer compaction (a higher fencing token) has rewritten this table."""


def _commit_column(table) -> str:
    """The column that names a row's commit: `lake_commit` in a table of data, `commit_id` in the log."""
    return "lake_commit" if "lake_commit" in table.schema().to_arrow().names else "commit_id"


def files_by_commit(table) -> list[tuple[str, int, set[int]]]:
    """(path, bytes, commit ids of its rows) of each file of the table at its version."""
    import pyarrow as pa

    sizes = {row["path"]: row["size_bytes"] for row in pa.table(table.get_add_actions(flatten=True)).select(
        ["path", "size_bytes"]).to_pylist()}
    out = []
    for fragment in table.to_pyarrow_dataset().get_fragments():
        ids = set(fragment.to_table(columns=[_commit_column(table)]).column(0).unique().to_pylist())
        size = next((n for path, n in sizes.items() if fragment.path.endswith(path)), 0)
        out.append((fragment.path, size, ids))
    return out


def rewrite(uri: str, token: int, drop: set[int], table=None, files=None) -> int:
    """Merge the table's small files into one, leaving out the rows of the commits in
    `drop`, as a commit that carries `token` (transaction COMPACTION_APP) and removes, as
    data changes, exactly the files it read: Delta then refuses it when another rewrite
    removed one of them since (measured: deltalake 1.6 lets two OPTIMIZE commits from one
    snapshot through, doubling rows; two such rewrites, the second is refused), while
    appends that land meanwhile are kept. Superseded when a higher token rewrote the
    table. `table` and its `files_by_commit`, when the caller read them; the files removed."""
    from deltalake.exceptions import CommitFailedError

    for attempt in range(10):
        table = table if table is not None else open_table(uri)
        if table is None:
            return 0
        if (table.transaction_version(COMPACTION_APP) or 0) > token:
            raise Superseded(f"{uri}: rewritten by a newer compaction")
        files = files if files is not None else files_by_commit(table)
        small = [ids for _, size, ids in files if size < SMALL_FILE_BYTES]
        present = set().union(*(ids for _, _, ids in files))
        dropping = drop & present
        if len(small) < 2 and not dropping:
            return 0
        replace = set().union(*small) | dropping
        failpoint("compact-rewrite")  # read, not yet rewritten: a test slows a compaction here
        try:
            with _rust_said():
                _overwrite(table, replace, dropping, token)
            return sum(1 for _, _, ids in files if ids & replace)
        except CommitFailedError:
            if attempt == 9:
                raise
            table = files = None  # another rewrite landed: read the table again
    return 0


def _overwrite(table, replace: set[int], drop: set[int], token: int) -> None:
    import pyarrow as pa
    import pyarrow.compute as pc
    from deltalake import CommitProperties, Transaction, write_deltalake

    column = _commit_column(table)  # a name of this module's: the only name in the predicate
    keep = pc.field(column).isin(pa.array(sorted(replace), pa.int64()))
    if drop:
        keep = keep & ~pc.field(column).isin(pa.array(sorted(drop), pa.int64()))
    rows = table.to_pyarrow_dataset().scanner(filter=keep).to_reader()
    # ids are integers read from the table: the only values in the predicate
    predicate = f"{column} IN ({', '.join(str(int(i)) for i in sorted(replace))})"
    write_deltalake(table, rows, mode="overwrite", predicate=predicate, configuration=_CONFIGURATION,
                    commit_properties=CommitProperties(app_transactions=[Transaction(COMPACTION_APP, token)],
                                                       max_commit_retries=1000))


def vacuum(uri: str, retention_s: float, checkpoint: bool) -> None:
    """Files no version of the last `retention_s` needs removed (vacuum, which counts whole
    hours: rounded up; the files removed by rewrites alone, never a file no commit names),
    and (`checkpoint`, after a rewrite) a checkpoint so that readers replay a short log."""
    from deltalake.exceptions import CommitFailedError

    table = open_table(uri)
    if table is None:
        return
    failpoint("delta-vacuum")
    try:
        with _rust_said():
            table.vacuum(retention_hours=math.ceil(retention_s / 3600), enforce_retention_duration=False, dry_run=False)
            if checkpoint:
                table.create_checkpoint()
                table.cleanup_metadata()
    except CommitFailedError:
        pass  # another compaction's commit landed meanwhile: the table is left to it


def store_times(table, claims: set[str]) -> tuple[dict[str, float], float]:
    """When each of these claims of the commit log was written, by the store's own clock
    (the modification time of the file holding it: the disk's or the object store's, one
    clock for every host, whatever theirs say; a claim in no file is missing), and when
    the newest file of the log was (what the store's clock said at the last commit)."""
    dataset = table.to_pyarrow_dataset()
    times, newest = {}, 0.0
    for fragment in dataset.get_fragments():
        mtime = dataset.filesystem.get_file_info(fragment.path).mtime.timestamp()
        newest = max(newest, mtime)
        for claim in set(fragment.to_table(columns=["claim"]).column(0).to_pylist()) & claims:
            times[claim] = max(times.get(claim, 0.0), mtime)
    return times, newest


def dataset(table):
    """The table's files at its version, as an Arrow dataset DuckDB scans in place."""
    return table.to_pyarrow_dataset()
