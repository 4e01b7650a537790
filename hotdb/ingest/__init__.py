"""Ingestors, one module per format, in one ordered registry.

Detection asks each ingestor in order whether it recognises a file; the first that does
reads it. Order matters only where formats could overlap: the more specific first.
"""

from __future__ import annotations

from hotdb.errors import ParseError, UsageError
from hotdb.ingest.ansor import AnsorLog
from hotdb.ingest.ansor_tasks import AnsorTasks
from hotdb.ingest.autotvm import AutotvmTasks
from hotdb.ingest.base import Ingestor, Source
from hotdb.ingest.debug_dump import DebugDump
from hotdb.ingest.debug_log import DebugLog
from hotdb.ingest.debug_table import DebugTable
from hotdb.ingest.fallback import AnsorFallback
from hotdb.ingest.graph_json import GraphJson
from hotdb.ingest.kernel_table import KernelTable
from hotdb.ingest.ms_database import MsDatabase
from hotdb.ingest.ms_tuning_log import MsTuningLog
from hotdb.ingest.profile_report import ProfileReport
from hotdb.ingest.relax import RelaxScript
from hotdb.ingest.relay import RelayText
from hotdb.ingest.vm_stat import VmStat

REGISTRY: list[Ingestor] = [
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


def get(name: str) -> Ingestor:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UsageError(f"unknown format {name!r}; known formats: {', '.join(_BY_NAME)}") from None


def detect(source: Source) -> Ingestor:
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
    raise ParseError(source.path, None, "format not recognised; expected one of: "
                     + "; ".join(f"{i.name} ({i.detects})" for i in REGISTRY)
                     + ". Use --format NAME to choose one")


__all__ = ["REGISTRY", "Ingestor", "Source", "detect", "get"]
