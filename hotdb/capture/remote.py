"""A device lent by TVM's RPC tracker, for a capture: libraries built on this machine are
uploaded to it, loaded there and timed there (hotdb/capture/profile.py).

The tracker is asked for a device of the key (hotdb/capture/tracker.py: within the wait
given, naming a busy key or a dead tracker), and the session is TVM's own
(`tvm.rpc.connect` with the tracker's match key). An error of TVM's while the device is
used is said as the device lost (the tracker no longer holds its server) or as a failure
on the device (it does), with TVM's reason, on one line: never a traceback.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from hotdb.capture.targets import one_line
from hotdb.capture.tracker import Tracker
from hotdb.errors import DeviceError

DEFAULT_WAIT_S = 60.0  # --rpc-timeout: how long a capture waits for a free device of its key


@dataclass(frozen=True)
class Rpc:
    """Where a capture or a tune measures: a tracker, a key, how long to wait for a device."""

    tracker: str  # HOST:PORT
    key: str
    wait_s: float = DEFAULT_WAIT_S

    def as_job(self) -> dict:
        return {"tracker": self.tracker, "key": self.key, "wait_s": self.wait_s}


class Device:
    """One device of `rpc.key`, lent for a capture (`with Device(rpc) as device:`)."""

    def __init__(self, rpc: Rpc):
        from tvm import rpc as tvm_rpc

        self.rpc = rpc
        with Tracker(rpc.tracker) as tracker:
            host, port, match = tracker.request(rpc.key, rpc.wait_s)
        self.server = f"{host}:{port}"
        try:
            self.session = tvm_rpc.connect(host, port, match)
        except Exception as exc:  # TVM's socket and RPC errors
            raise DeviceError(f"the device {self.server} (key {rpc.key!r}) that the tracker lent could not be reached: "
                              f"{one_line(exc)}") from None

    def __enter__(self) -> "Device":
        return self

    def __exit__(self, *exc) -> None:
        self.session = None  # the server ends the session when its connection closes

    def device(self, kind: str):
        """The remote device of a kind (cpu, cuda, ...); a DeviceError where it has none."""
        try:
            dev = self.session.device(kind, 0)
            exists = dev.exist
        except Exception:  # noqa: BLE001 - a runtime built without that device type refuses to name it
            exists = False
        if not exists:
            raise DeviceError(f"the device {self.server} (key {self.rpc.key!r}) has no {kind} device: "
                              "is --target the device's?")
        return dev

    def name(self, dev) -> str | None:
        """What the device says it is, where it says (a GPU's name; a CPU says nothing)."""
        try:
            name = dev.device_name
        except Exception:  # noqa: BLE001 - a device type that has no name attribute
            return None
        return str(name) if name else None

    def load(self, path: str, what: str, triple: str | None):
        """Upload a library and load it on the device."""
        name = os.path.basename(path)
        try:
            self.session.upload(path, name)
            return self.session.load_module(name)
        except Exception as exc:  # noqa: BLE001 - TVM's RPC errors, said as what they mean
            raise self.failed(exc, f"could not load the {what}" + (f" built for {triple}" if triple else "")) from None

    def failed(self, exc: BaseException, doing: str) -> DeviceError:
        """A TVM error while using the device, as a DeviceError: the device lost (the
        tracker no longer holds its server, or the tracker itself is gone), or `doing`
        failed there."""
        if isinstance(exc, DeviceError):
            return exc
        where = f"the device {self.server} (key {self.rpc.key!r})"
        if self._held() and (time.sleep(1.0) or self._held()):  # the tracker may hear of a loss a moment late
            hint = ": is --target the device's?" if "load" in doing else ""
            return DeviceError(f"{where} {doing}: {one_line(exc)}{hint}; nothing was stored")
        return DeviceError(f"{where} was lost mid-capture ({one_line(exc)}); nothing was stored")

    def _held(self) -> bool:
        """Whether the tracker still holds this device's server."""
        try:
            with Tracker(self.rpc.tracker) as tracker:
                return self.server in tracker.servers(self.rpc.key)
        except DeviceError:
            return False
