"""Named steps where a test can stop a process: HOTDB_FAILPOINT=NAME parks the process
the first time it reaches NAME (said on stderr) for HOTDB_FAILPOINT_SLEEP seconds (600:
until the test SIGKILLs it), then lets it go on. No effect otherwise.

In one process, a test may instead install a hook (`install`): the deterministic lake
simulation (tests/store/test_lake_simulation.py) parks, kills or fails each actor at
every failpoint it reaches."""

from __future__ import annotations

import os
import sys
import time
from typing import Callable

_parked: set[str] = set()
_hook: Callable[[str], None] | None = None


def failpoint(name: str) -> None:
    """HOTDB_FAILPOINT=NAME parks the process here, said on stderr, so that crash tests
    can SIGKILL it at a known step (or let it go on after HOTDB_FAILPOINT_SLEEP)."""
    if _hook is not None:
        _hook(name)
    if os.environ.get("HOTDB_FAILPOINT") == name and name not in _parked:
        _parked.add(name)  # once: a step reached per table parks at the first
        print(f"hotdb: failpoint {name}", file=sys.stderr, flush=True)
        time.sleep(float(os.environ.get("HOTDB_FAILPOINT_SLEEP", "600")))


def install(hook: Callable[[str], None] | None) -> None:
    """Call `hook(name)` at every failpoint (None: no hook): a simulation's scheduler."""
    global _hook
    _hook = hook
