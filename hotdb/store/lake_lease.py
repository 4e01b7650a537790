"""One compaction of a lake at a time, by a lease taken on the commit log.

deltalake 1.6 accepts two OPTIMIZE commits made from one snapshot (their removes do not
change data, so its conflict check lets them through): two `lake compact` at once would
keep both rewrites and double every row they merged (measured). A compaction therefore
takes a lease first: a claim `compact:<n> <owner>` on the commit log, decided like every
claim on a snapshot that shows no other compaction running (delta.claim: any commit since
refuses it), and released by a claim `compacted:<n>`. Another compaction that finds a
lease unreleased leaves the lake to it while its owner lives: on this host that is known
at once (a process id and its start time); one on another host holds it until its lease
runs out (half of HOTDB_LAKE_RETENTION).
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

LAKE_MODEL = 0  # the model id of the lake's own claims (model ids are hashes of names)
_HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:60] or "host"


def _start_time(pid: int) -> str | None:
    """The start time of a process (clock ticks since boot), None when it does not exist."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()[19]  # field 22 of proc(5), counted after the name


def this_owner() -> str:
    return f"{_HOST}.{os.getpid()}.{_start_time(os.getpid()) or 0}"


def _alive(owner: str) -> bool | None:
    """True or False for an owner on this host; None for one on another (unknowable)."""
    rest = owner.split(".")
    if len(rest) < 3:
        return False
    host, pid, started = ".".join(rest[:-2]), rest[-2], rest[-1]
    if host != _HOST:
        return None
    return pid.isdigit() and _start_time(int(pid)) == started


def holder(claims: list[tuple[str, float]], lease_s: float) -> str | None:
    """The owner of a compaction still running, from the lake's claims (claim, age in
    seconds), or None: the next lease is then free."""
    started, done = {}, set()
    for claim, age_s in claims:
        kind, _, rest = claim.partition(":")
        number, _, owner = rest.partition(" ")
        if kind == "compact":
            started[int(number)] = (owner, age_s)
        elif kind == "compacted":
            done.add(int(number))
    running = [(n, owner, age_s) for n, (owner, age_s) in started.items() if n not in done]
    for _, owner, age_s in running:
        alive = _alive(owner)
        if alive or (alive is None and age_s < lease_s):
            return owner
    return None


def next_lease(claims: list[tuple[str, float]]) -> int:
    numbers = [int(c.partition(":")[2].partition(" ")[0]) for c, _ in claims if c.startswith("compact:")]
    return max(numbers, default=0) + 1
