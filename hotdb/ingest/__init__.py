"""Readers, one file per input format, in one ordered registry.

A reader lives in the folder of the role its rows take (profile/, graph/, ir/, tasks/),
in a file named for its format (`debug-table` is profile/debug_table.py), and is
registered by one line below. Detection asks each reader in order whether it recognises
an input; the first that does reads it. Order matters only where formats could overlap:
the more specific first. A pasted text is cut into its artifacts first (paste/), and the
whole path from files to parsed rows is pipeline.py's.
"""

from __future__ import annotations

from hotdb.errors import ParseError, UsageError
from hotdb.ingest.graph.graph_json import GraphJson
from hotdb.ingest.ir.relax import RelaxScript
from hotdb.ingest.ir.relay import RelayText
from hotdb.ingest.profile.debug_dump import DebugDump
from hotdb.ingest.profile.debug_log import DebugLog
from hotdb.ingest.profile.debug_table import DebugTable
from hotdb.ingest.profile.kernel_table import KernelTable
from hotdb.ingest.profile.profile_report import ProfileReport
from hotdb.ingest.profile.vm_stat import VmStat
from hotdb.ingest.reader import Reader
from hotdb.ingest.source import Source
from hotdb.ingest.tasks.ansor_fallback import AnsorFallback
from hotdb.ingest.tasks.ansor_log import AnsorLog
from hotdb.ingest.tasks.ansor_tasks import AnsorTasks
from hotdb.ingest.tasks.autotvm_tasks import AutotvmTasks
from hotdb.ingest.tasks.ms_database import MsDatabase
from hotdb.ingest.tasks.ms_tuning_log import MsTuningLog

REGISTRY: list[Reader] = [
    DebugDump(),
    MsDatabase(),
    MsTuningLog(),  # before the text tables: its table has a Name and a Latency (us) column
    DebugTable(),
    ProfileReport(),
    VmStat(),
    DebugLog(),
    KernelTable(),
    GraphJson(),
    AutotvmTasks(),
    AnsorLog(),
    AnsorTasks(),
    AnsorFallback(),
    RelayText(),
    RelaxScript(),
]

_BY_NAME = {ingestor.name: ingestor for ingestor in REGISTRY}


def get(name: str) -> Reader:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UsageError(f"unknown format {name!r}; known formats: {', '.join(_BY_NAME)}") from None


def detect(source: Source) -> Reader:
    if not source.members:
        if not source.data.strip():
            raise ParseError(source.path, None, "the file is empty")
        if source.streamed_size is None:
            source.text  # not text at all (binary, wrong encoding): say so, not "not recognised"
    for ingestor in REGISTRY:
        if ingestor.sniff(source):
            return ingestor
    if not source.data.strip():
        raise ParseError(source.path, None, "the file is empty")
    # one line a user reads: `hotdb formats` lists every format with how it is recognised
    raise ParseError(source.path, None, f"format not recognised: it is none of the {len(REGISTRY)} formats hotdb "
                     "reads (hotdb formats lists them, with what each is recognised by); --format NAME reads it as one")


__all__ = ["REGISTRY", "Reader", "Source", "detect", "get"]
