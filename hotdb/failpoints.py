"""Named steps where a crash test can stop a writer: HOTDB_FAILPOINT=NAME parks the
process there (said on stderr) until the test SIGKILLs it. No effect otherwise."""

from __future__ import annotations

import os
import sys
import time


def failpoint(name: str) -> None:
    """HOTDB_FAILPOINT=NAME parks the process here, said on stderr, so that crash tests
    can SIGKILL it at a known step."""
    if os.environ.get("HOTDB_FAILPOINT") == name:
        print(f"hotdb: failpoint {name}", file=sys.stderr, flush=True)
        time.sleep(float(os.environ.get("HOTDB_FAILPOINT_SLEEP", "600")))
