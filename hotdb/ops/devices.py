"""The devices an RPC tracker holds: each key with its registered, free and pending
devices and their servers' addresses (hotdb/capture/tracker.py: TVM's tracker protocol,
spoken without importing TVM). Reads no database."""

from __future__ import annotations

from hotdb.result import Result


def devices(tracker: str) -> Result:
    """The tracker at `tracker` (HOST:PORT): one row a key. A DeviceError, one line, where
    nothing answers there as a tracker."""
    from hotdb.capture.tracker import Tracker

    with Tracker(tracker) as connection:
        held = connection.devices()
    return Result(["key", "total", "free", "pending", "servers"],
                  [(d["key"], d["total"], d["free"], d["pending"], d["servers"]) for d in held], {"tracker": tracker})
