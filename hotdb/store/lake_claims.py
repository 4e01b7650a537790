"""The lake's own claims on its commit log (model id 0): what every process of every host
reads the same way, where a process's clock, process id or environment would differ.

    compact:<n> <owner>    compaction lease n taken; its fencing token is the version it landed as
    compacted:<n>          lease n released
    waiting:<n> <probe>    a compaction found lease n held: written to read the store's clock
    pending:<commit>       a compaction found rows of a commit that had not landed
    abandon:<commit>       ... and, at the next compaction, still not landed: it never will
    retention:<n> <s>      the lake's retention from the n-th setting on (HOTDB_LAKE_RETENTION)
    schema:<version>       a hotdb of this schema version wrote to the lake

A lease's owner is known alive or dead only on its own host, boot and PID namespace (two
containers of one host name see each other's process ids as other processes); elsewhere
it holds the lease for half the lake's retention, measured by the store's clock (the
modification times of the log's files: one clock, whatever the hosts' say).
"""

from __future__ import annotations

import os
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path

LAKE_MODEL = 0  # the model id of the lake's own claims (model ids are hashes of names)
RETENTION_S = 3600.0  # a lake's retention until a setting says otherwise


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


def _namespace() -> str:
    try:
        return re.sub(r"\D", "", os.readlink("/proc/self/ns/pid"))
    except OSError:
        return ""


def host_key() -> str:
    """This host, boot and PID namespace: where a process id names one process (no dots)."""
    name = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:60] or "host"
    return f"{name}~{_read('/proc/sys/kernel/random/boot_id')[:8]}~{_namespace()}"


def _start_time(pid: int) -> str | None:
    """The start time of a process (clock ticks since boot), None when it does not exist."""
    text = _read(f"/proc/{pid}/stat")
    return text.rsplit(")", 1)[1].split()[19] if text else None  # field 22 of proc(5), counted after the name


def this_owner() -> str:
    return f"{host_key()}.{os.getpid()}.{_start_time(os.getpid()) or 0}"


def alive(owner: str) -> bool | None:
    """True or False for an owner of this host, boot and PID namespace; None elsewhere
    (unknowable: its lease then runs out)."""
    parts = owner.split(".")
    if len(parts) != 3 or parts[0] != host_key():
        return None
    return parts[1].isdigit() and _start_time(int(parts[1])) == parts[2]


@dataclass
class LakeClaims:
    leases: dict[int, str] = field(default_factory=dict)
    released: set[int] = field(default_factory=set)
    pending: set[int] = field(default_factory=set)
    abandoned: set[int] = field(default_factory=set)
    retentions: dict[int, float] = field(default_factory=dict)
    schemas: set[int] = field(default_factory=set)

    @classmethod
    def parse(cls, claims: list[str]) -> "LakeClaims":
        out = cls()
        for claim in claims:
            kind, _, rest = claim.partition(":")
            head, _, tail = rest.partition(" ")
            if not head.lstrip("-").isdigit():
                continue  # a claim of a kind this hotdb does not know: a newer one's
            number = int(head)
            if kind == "compact":
                out.leases[number] = tail
            elif kind == "compacted":
                out.released.add(number)
            elif kind == "pending":
                out.pending.add(number)
            elif kind == "abandon":
                out.abandoned.add(number)
            elif kind == "retention":
                out.retentions[number] = float(tail)
            elif kind == "schema":
                out.schemas.add(number)
        return out

    def lease(self) -> tuple[int, str] | None:
        """The latest lease, when unreleased (an older one was superseded by it)."""
        if not self.leases:
            return None
        number = max(self.leases)
        return None if number in self.released else (number, self.leases[number])

    def next_lease(self) -> int:
        return max(self.leases, default=0) + 1

    def retention_s(self) -> float:
        return self.retentions[max(self.retentions)] if self.retentions else RETENTION_S

    def retention_claim(self, wanted: float | None) -> list[str]:
        """The setting to record when `wanted` (HOTDB_LAKE_RETENTION, when set) is not the lake's."""
        if wanted is None or wanted == self.retention_s():
            return []
        return [f"retention:{max(self.retentions, default=0) + 1} {wanted:g}"]

    def schema(self) -> int:
        return max(self.schemas, default=0)
