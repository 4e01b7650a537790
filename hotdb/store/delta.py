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
from datetime import datetime, timezone

from hotdb.failpoints import failpoint

COMMITS = "_commits"


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

    for attempt in range(3):
        try:
            # many writers append at once: delta-rs's default 15 retries ran out under 6
            write_deltalake(uri, rows, mode="append", schema_mode="merge", configuration=_CONFIGURATION,
                            commit_properties=CommitProperties(max_commit_retries=1000),
                            storage_options=_options() if is_remote(uri) else None)
            return
        except (CommitFailedError, DeltaError):
            # two writers made the table at once: the loser appends to the winner's
            if attempt == 2 or open_table(uri) is None:
                raise


def ensure_commits(root: str):
    """The commit log, made empty when missing; the table at its latest version."""
    from deltalake import DeltaTable

    uri = join(root, COMMITS)
    table = open_table(uri)
    if table is None:
        try:
            DeltaTable.create(uri, schema=_commits_schema(), mode="ignore", configuration=_CONFIGURATION,
                              storage_options=_options() if is_remote(uri) else None)
        except Exception:  # noqa: BLE001 - another writer made it first: read theirs
            pass
        table = open_table(uri)
    return table


def claim(snapshot, commit_id: int, model_id: int, claims: list[str]) -> None:
    """Commit `claims` (with the commit's own) on the commit log as read at `snapshot`,
    whose reader checked that none is taken; Conflict when another commit landed since."""
    import pyarrow as pa
    from deltalake.exceptions import CommitFailedError

    now = datetime.now(timezone.utc)
    keys = [f"commit:{commit_id}", *claims]
    rows = pa.Table.from_pylist([{"commit_id": commit_id, "model_id": model_id, "claim": key, "committed_at": now}
                                 for key in keys], schema=_commits_schema())
    try:
        metrics = (snapshot.merge(rows, predicate=_CLAIM_KEY, source_alias="s", target_alias="t")
                   .when_not_matched_insert_all().execute())
    except CommitFailedError as exc:
        raise Conflict(str(exc).splitlines()[0]) from None
    if metrics["num_target_rows_inserted"] != len(keys):  # the snapshot's reader missed one: a bug
        raise RuntimeError(f"claims {keys} met taken ones at the snapshot they were checked against")


def compact(uri: str, retention_s: float, delete: str | None = None) -> dict:
    """One table's small files merged (optimize), rows matching `delete` removed, files no
    version of the last `retention_s` needs removed (vacuum, which counts whole hours:
    rounded up), and a checkpoint so that readers replay a short log. Another compaction's concurrent commit is not an error: the
    table is left to it."""
    from deltalake.exceptions import CommitFailedError

    table = open_table(uri)
    if table is None:
        return {"files_removed": 0}
    failpoint("compact-rewrite")  # read, not yet rewritten: a test slows a compaction here
    removed = 0
    try:
        if delete:
            removed += table.delete(delete)["num_removed_files"]
        removed += table.optimize.compact()["numFilesRemoved"]
        table.vacuum(retention_hours=math.ceil(retention_s / 3600), enforce_retention_duration=False, dry_run=False)
        table.create_checkpoint()
        table.cleanup_metadata()
    except CommitFailedError:
        pass
    return {"files_removed": removed}


def dataset(table):
    """The table's files at its version, as an Arrow dataset DuckDB scans in place."""
    return table.to_pyarrow_dataset()
