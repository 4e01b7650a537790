"""`lake compact`: each table's small files merged, the rows of commits that will never
land deleted, old files vacuumed; beside writers and readers, on any number of hosts.

Nothing here trusts a clock, a process id or a process's environment for what it keeps:

* **Doubling is impossible.** A table is compacted by a rewrite (delta.rewrite) that
  removes, as data changes, exactly the files it read and carries the compaction's
  fencing token; Delta refuses it when another rewrite removed one of those files since,
  and a holder whose token is lower than the table's last is stopped (Superseded). So
  two compactions from one snapshot, in two PID namespaces or after a lease ran out,
  cannot both land.
* **A commit's rows are deleted only once it can never land.** A compaction marks the
  commits it finds rows of but not in the log (`pending:<id>`); the next compaction that
  still finds one so commits `abandon:<id>` and only then deletes its rows. Both are
  claims decided on a snapshot of the log: a writer whose commit lands first is seen; a
  writer whose commit comes after the abandon conflicts with it (any commit since its
  snapshot refuses a claim), reads the log again, finds its commit abandoned and does its
  ingest again. A paused writer, or one whose clock is hours off, loses a retry, never a
  run. (HOTDB_LAKE_RETENTION=0: abandoned at the first compaction.)
* **One compaction at a time** (a lease, lake_claims.py) keeps two from doing the same
  work; its token is the version the lease landed as. A lease whose owner is unknowable
  runs out after half the lake's retention by the store's clock.
* **The retention is the lake's** (a claim on the log): HOTDB_LAKE_RETENTION, when set,
  is recorded by the next compaction and read by every process from then on.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import duckdb

from hotdb import limits
from hotdb.errors import DatabaseError, UsageError
from hotdb.failpoints import failpoint
from hotdb.store import delta
from hotdb.store.lake import Attempts, Lake, new_commit_id, tables
from hotdb.store.lake_claims import LAKE_MODEL, LakeClaims, alive, this_owner

_SETTING = object()  # the retention HOTDB_LAKE_RETENTION sets, if any (limits.lake_retention_setting)


@dataclass(frozen=True)
class Lease:
    number: int
    token: int  # the version of the commit log the lease landed as
    retention_s: float


def after_commit(lake: Lake) -> None:
    """A writer's compaction, once the commit log holds HOTDB_LAKE_AUTO_COMPACT files (each
    commit adds one to it and to each table it wrote): a reader opens every file of every
    table, so a lake left as writers leave it grows slower to read (bench/lake_top.py). The
    ingest has landed: a compaction that cannot run now (another holds the lease, or it
    fails) is left to the next writer."""
    threshold = limits.lake_auto_compact_files()
    log = delta.open_table(lake.uri(delta.COMMITS)) if threshold else None
    if log is None or len(log.file_uris()) < threshold:
        return
    try:
        compact(lake, may_probe=False)
    except (DatabaseError, UsageError, OSError, duckdb.Error):
        pass


def compact(lake: Lake, wanted_retention_s: float | None = _SETTING, may_probe: bool = True) -> dict:
    """Compact the lake, or leave it to the compaction that holds its lease ({"busy": owner}).
    Without `may_probe` (a writer's compaction, just after its commit: the log's newest
    file tells the store's time), no probe is written to learn whether a lease ran out."""
    if wanted_retention_s is _SETTING:
        wanted_retention_s = limits.lake_retention_setting()
    lake._writable()
    lease = _take_lease(lake, wanted_retention_s, may_probe)
    if isinstance(lease, str):
        return {"busy": lease, "tables": 0, "files_removed": 0, "orphan_commits": 0}
    try:
        return _compact_tables(lake, lease)
    except delta.Superseded:
        raise DatabaseError(f"{lake.root}: this compaction's lease ran out and a newer one took the lake over: "
                            "it stopped, and what it had not committed is dropped (nothing is lost)") from None
    finally:
        _release(lake, lease)


def _take_lease(lake: Lake, wanted_retention_s: float | None, may_probe: bool) -> Lease | str:
    probed = not may_probe
    with Attempts(lake.root) as attempts:
        while True:
            log = delta.open_table(lake.uri(delta.COMMITS))
            if log is None:
                raise UsageError(f"no lake at {lake.root}")
            claims = lake._lake_claims(log)
            setting = claims.retention_claim(wanted_retention_s)
            retention_s = wanted_retention_s if setting else claims.retention_s()
            held = claims.lease()
            if held is not None:
                state = _lease_state(log, claims, held, retention_s / 2, probed)
                if state == "held":
                    return held[1]
                if state == "probe":
                    probed = True
                    try:
                        delta.claim(log, new_commit_id(), LAKE_MODEL, [f"waiting:{held[0]} {secrets.token_hex(8)}"])
                    except delta.Conflict:
                        attempts.progress(1)
                    continue
            try:
                keys = [*setting, f"compact:{claims.next_lease()} {this_owner()}"]
                token = delta.claim(log, new_commit_id(), LAKE_MODEL, keys)
                return Lease(claims.next_lease(), token, retention_s)
            except delta.Conflict:  # another commit landed since: look again
                attempts.progress(1)
                attempts.wait()


def _lease_state(log, claims: LakeClaims, held: tuple[int, str], lease_s: float, probed: bool) -> str:
    """"free", "held", or "probe" (its age is not known yet: write a probe, then look again)."""
    number, owner = held
    known = alive(owner)
    if known is not None:
        return "held" if known else "free"
    lease_claim = f"compact:{number} {owner}"
    times, newest = delta.store_times(log, {lease_claim})
    if lease_claim not in times:
        return "free"  # the file holding it is gone (a log compacted since): long ago
    if newest - times[lease_claim] >= lease_s:  # the store's time at the log's last commit, or a probe
        return "free"
    return "held" if probed else "probe"


def _release(lake: Lake, lease: Lease) -> None:
    with Attempts(lake.root) as attempts:
        while True:
            try:
                delta.claim(delta.open_table(lake.uri(delta.COMMITS)), new_commit_id(), LAKE_MODEL,
                            [f"compacted:{lease.number}"])
                return
            except delta.Conflict:
                attempts.progress(1)
                attempts.wait()


def _check_lease(claims: LakeClaims, lease: Lease) -> None:
    if max(claims.leases, default=0) > lease.number:
        raise delta.Superseded(f"lease {lease.number} superseded")


def _compact_tables(lake: Lake, lease: Lease) -> dict:
    read = {}
    for table in tables():  # each table read once: the commits it holds rows of, file by file
        data = delta.open_table(lake.uri(table))
        read[table] = (data, delta.files_by_commit(data) if data is not None else [])
    present = {c for _, files in read.values() for _, _, ids in files for c in ids}
    drop = _sweep(lake, lease, present)
    counts = {"tables": 0, "files_removed": 0, "orphan_commits": len(drop & present)}
    for table, (data, files) in read.items():
        failpoint("compact-table")
        removed = delta.rewrite(lake.uri(table), lease.token, drop, data, files)
        delta.vacuum(lake.uri(table), lease.retention_s, checkpoint=bool(removed))
        counts["files_removed"] += removed
        counts["tables"] += 1
    removed = delta.rewrite(lake.uri(delta.COMMITS), lease.token, set())
    delta.vacuum(lake.uri(delta.COMMITS), lease.retention_s, checkpoint=bool(removed))
    return counts


def _sweep(lake: Lake, lease: Lease, present: set[int]) -> set[int]:
    """The commits whose rows this compaction deletes: those abandoned, by earlier
    compactions or by the claims it commits now, decided on the log's snapshot."""
    with Attempts(lake.root) as attempts:
        while True:
            log = delta.open_table(lake.uri(delta.COMMITS))
            claims = lake._lake_claims(log)
            _check_lease(claims, lease)
            landed = {commit for commit, _ in lake._commit_rows(log)}
            unlanded = present - landed - claims.abandoned
            grace = lease.retention_s > 0  # a commit first seen unlanded gets until the next compaction
            abandon = unlanded & claims.pending if grace else unlanded
            pending = unlanded - claims.pending if grace else set()
            keys = [f"abandon:{c}" for c in sorted(abandon)] + [f"pending:{c}" for c in sorted(pending)]
            if not keys:
                return claims.abandoned
            try:
                delta.claim(log, new_commit_id(), LAKE_MODEL, keys)
                failpoint("compact-swept")
                return claims.abandoned | abandon
            except delta.Conflict:  # a commit landed since: decide again on the newer log
                attempts.progress(1)
                attempts.wait()
