"""The tuner's runner on the devices of an RPC tracker: MetaSchedule's RPCRunner with a
worker per device the key holds, so that a batch's candidates are measured on every free
device at once (the tracker lends each trial's session to a free device of the key).

Its steps are RPCRunner's own, each wrapped (`f_create_session`, `f_upload_module`,
`f_run_evaluator` are its hooks, run in its worker processes):

* the session is lent through hotdb's tracker client (hotdb/capture/tracker.py): a key
  whose devices stay busy fails the trial after --rpc-timeout instead of waiting forever,
  and a dead tracker fails it at once;
* each trial appends a line to the work folder's `devices.jsonl`: the server that
  measured it, its upload and measure seconds, or its error. The parent reads it
  (capture/tune/driver.py): how many candidates each device measured, and where a
  trial's time went (bench/tune_fleet.py). A line is one write of a few hundred bytes to a
  file opened for appending: lines of several workers do not interleave.
"""

from __future__ import annotations

import functools
import json
import os
import time

from hotdb.capture.targets import one_line
from hotdb.wording import counted

DEVICE_LOG = "devices.jsonl"


def rpc_runner(rpc: dict, devices: int, timeout_s: float, log: str):
    """An RPCRunner measuring on `devices` devices of `rpc` ({"tracker", "key", "wait_s"})
    at once, each trial within `timeout_s` on its device, each trial said in `log`."""
    from tvm.s_tir.meta_schedule.runner import RPCConfig, RPCRunner

    from hotdb.capture.tracker import address

    host, port = address(rpc["tracker"])
    config = RPCConfig(tracker_host=host, tracker_port=port, tracker_key=rpc["key"],
                       session_timeout_sec=max(1, int(timeout_s)))
    return RPCRunner(config, f_create_session=functools.partial(create_session, rpc=rpc, log=log),
                     f_upload_module=functools.partial(upload_module, log=log),
                     f_run_evaluator=functools.partial(run_evaluator, log=log), max_workers=max(1, devices))


def create_session(rpc_config, *, rpc: dict, log: str):
    """A session on a device of the key, lent within rpc["wait_s"]; it carries its
    server's address for the steps after it."""
    from tvm import rpc as tvm_rpc

    from hotdb.capture.tracker import Tracker
    from hotdb.errors import DeviceError

    try:
        with Tracker(rpc["tracker"]) as tracker:
            host, port, match = tracker.request(rpc["key"], rpc["wait_s"])
    except DeviceError as exc:  # MetaSchedule records the trial as failed, with this message
        _said(log, {"server": None, "error": str(exc)})
        raise RuntimeError(str(exc)) from None
    server = f"{host}:{port}"
    try:
        session = tvm_rpc.connect(host, port, match, rpc_config.session_timeout_sec)
    except Exception as exc:
        _said(log, {"server": server, "error": f"connecting: {exc}".splitlines()[0]})
        raise
    session.hotdb_server, session.hotdb_upload_s = server, None
    return session


def upload_module(session, local_path: str, remote_path: str, *, log: str):
    from tvm.s_tir.meta_schedule.runner.rpc_runner import default_upload_module

    started = time.monotonic()
    try:
        module = default_upload_module(session, local_path, remote_path)
    except Exception as exc:
        _said(log, {"server": session.hotdb_server, "error": f"uploading: {one_line(exc)}"})
        raise
    session.hotdb_upload_s = time.monotonic() - started
    return module


def run_evaluator(session, rt_mod, device, evaluator_config, repeated_args, *, log: str):
    from tvm.s_tir.meta_schedule.runner.rpc_runner import default_run_evaluator

    started = time.monotonic()
    try:
        costs = default_run_evaluator(session, rt_mod, device, evaluator_config, repeated_args)
    except Exception as exc:
        _said(log, {"server": session.hotdb_server, "error": f"measuring: {one_line(exc)}"})
        raise
    _said(log, {"server": session.hotdb_server, "upload_s": session.hotdb_upload_s,
                "measure_s": time.monotonic() - started})
    return costs


def _said(log: str, entry: dict) -> None:
    line = (json.dumps({"at": time.time(), **entry}) + "\n").encode()
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def read_log(path, offset: int = 0) -> tuple[list[dict], int]:
    """The trials said in a devices.jsonl from byte `offset` on (whole lines only), and the
    offset after them."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return [], offset
    whole = data[:data.rfind(b"\n") + 1]
    entries = []
    for line in whole.splitlines():
        try:
            entries.append(json.loads(line))
        except ValueError:
            continue
    return entries, offset + len(whole)


POLL_S = 5.0  # how often the parent asks the tracker which devices it still holds


class DeviceWatch:
    """The parent's view of a tune's devices (capture/tune/driver.py): which servers of the
    key the tracker holds, asked every POLL_S seconds, a device that leaves said once
    through `notify`; and what each device measured, from the runner's log."""

    def __init__(self, rpc: dict, servers: list[str], log, notify):
        self.rpc, self.notify, self.log = rpc, notify, log
        self.servers = list(servers)
        self.lost: list[str] = []
        self.offset = os.path.getsize(log) if os.path.exists(log) else 0  # earlier rounds' trials
        self.measured: dict[str, int] = {}
        self.failed: dict[str, int] = {}
        self.upload_s = self.measure_s = 0.0
        self.asked = time.monotonic()

    def poll(self) -> str | None:
        """Read the runner's new lines; every POLL_S, ask the tracker. Why the tune must
        stop (the tracker gone, or every device of the key), else None."""
        self._read()
        if time.monotonic() - self.asked < POLL_S:
            return None
        self.asked = time.monotonic()
        return self.check()

    def check(self) -> str | None:
        from hotdb.capture.tracker import Tracker
        from hotdb.errors import DeviceError

        try:
            with Tracker(self.rpc["tracker"]) as tracker:
                held = set(tracker.servers(self.rpc["key"]))
        except DeviceError as exc:
            return f"{exc}; the tune stopped with what it had measured"
        for server in self.servers:
            if server not in held and server not in self.lost:
                self.lost.append(server)
                left = [s for s in self.servers if s not in self.lost]
                if self.notify:
                    self.notify(f"device {server} (key {self.rpc['key']}) left the RPC tracker: a trial it was measuring "
                                f"fails, the {counted(len(left), 'device')} left measure the rest")
        if not held:
            return (f"every device of key {self.rpc['key']!r} left the RPC tracker at {self.rpc['tracker']}; "
                    "the tune stopped with what it had measured")
        self.servers += sorted(held - set(self.servers))  # a device that joined measures too
        return None

    def _read(self) -> None:
        entries, self.offset = read_log(self.log, self.offset)
        for entry in entries:
            server = entry.get("server") or "(none lent)"
            if "error" in entry:
                self.failed[server] = self.failed.get(server, 0) + 1
            else:
                self.measured[server] = self.measured.get(server, 0) + 1
                self.upload_s += entry.get("upload_s") or 0.0
                self.measure_s += entry.get("measure_s") or 0.0

    def close(self) -> dict:
        """What the devices did, for the tune's outcome; a device that left since the last
        poll is named now (a short tune may end between polls)."""
        self._read()
        self.check()
        return {"measured": dict(sorted(self.measured.items())), "failed": dict(sorted(self.failed.items())),
                "lost": list(self.lost), "upload_s": round(self.upload_s, 3), "measure_s": round(self.measure_s, 3)}
