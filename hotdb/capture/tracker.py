"""TVM's RPC tracker, spoken to directly: the devices it holds under each key, and one of
them lent within a time limit.

The protocol is TVM's (tvm/rpc/base.py, tvm/rpc/tracker.py): a magic number each way,
then JSON messages, each after its length as a little-endian int32. hotdb speaks it
itself rather than through tvm.rpc, for three reasons: `hotdb devices` then starts
without importing TVM; TVM's client waits without end for a key whose devices are all
busy (hotdb waits --rpc-timeout, then says so); and it retries a tracker that refuses
connections for 60 s before failing (hotdb says at once that nothing listens there).
"""

from __future__ import annotations

import json
import socket
import struct

from hotdb.errors import BadArgument, DeviceError

TRACKER_MAGIC = 0x2F271  # RPC_TRACKER_MAGIC
SUCCESS, REQUEST, SUMMARY = 0, 4, 6  # TrackerCode
ANSWER_S = 10.0  # a tracker answers a summary at once; one silent this long is not working


def address(text: str) -> tuple[str, int]:
    """(host, port) of `HOST:PORT`."""
    host, sep, port = (text or "").strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BadArgument(f"--rpc {text!r}: expected the tracker's HOST:PORT, such as 127.0.0.1:9190")
    return host.strip("[]"), int(port)


class Tracker:
    """One connection to a tracker at `HOST:PORT`."""

    def __init__(self, where: str):
        self.where = where
        self.host, self.port = address(where)
        self.sock: socket.socket | None = None

    def __enter__(self) -> "Tracker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _connect(self) -> socket.socket:
        if self.sock is None:
            try:
                sock = socket.create_connection((self.host, self.port), timeout=ANSWER_S)
            except OSError as exc:
                raise self._unreachable(exc) from None
            self.sock = sock
            self._send_raw(struct.pack("<i", TRACKER_MAGIC))
            if struct.unpack("<i", self._receive(4, ANSWER_S))[0] != TRACKER_MAGIC:
                self.close()
                raise DeviceError(f"{self.where} is not a TVM RPC tracker (it answered, but not as one)")
        return self.sock

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None

    def summary(self) -> dict:
        """The tracker's own summary: {"queue_info": {key: {"free", "pending"}},
        "server_info": [{"key": "server:KEY", "addr": [host, port]}]}."""
        self._call([SUMMARY])
        answer = self._answer(ANSWER_S)
        if not (isinstance(answer, list) and answer and answer[0] == SUCCESS):
            raise DeviceError(f"the RPC tracker at {self.where} answered a summary with {answer!r}")
        return answer[1]

    def devices(self) -> list[dict]:
        """Each key with its devices: total (registered), free, pending (requests waiting),
        and the servers' addresses."""
        data = self.summary()
        servers: dict[str, list[str]] = {}
        for server in data.get("server_info", []):
            key = str(server.get("key", "")).partition(":")[2]
            host, port = server.get("addr", [None, None])
            servers.setdefault(key, []).append(f"{host}:{port}")
        keys = sorted(set(servers) | set(data.get("queue_info", {})))
        queue = data.get("queue_info", {})
        return [{"key": key, "total": len(servers.get(key, [])), "free": queue.get(key, {}).get("free", 0),
                 "pending": queue.get(key, {}).get("pending", 0), "servers": sorted(servers.get(key, []))}
                for key in keys if servers.get(key) or queue.get(key, {}).get("pending")]

    def servers(self, key: str) -> list[str]:
        """The addresses of the devices registered under `key`."""
        return next((d["servers"] for d in self.devices() if d["key"] == key), [])

    def request(self, key: str, wait_s: float) -> tuple[str, int, str]:
        """A device of `key`, lent: (host, port, match key), for tvm.rpc.connect. A key with
        no device, or none free within `wait_s` seconds, is a DeviceError naming it."""
        held = {d["key"]: d for d in self.devices()}
        if not held.get(key, {}).get("total"):
            keys = ", ".join(f"{k} ({d['total']})" for k, d in held.items() if d["total"]) or "none"
            raise DeviceError(f"the RPC tracker at {self.where} holds no device under key {key!r}; "
                              f"its keys: {keys} (hotdb devices --rpc {self.where})")
        self._call([REQUEST, key, "", 1])
        try:
            answer = self._answer(wait_s)
        except DeviceError as exc:
            if "did not answer" not in str(exc):
                raise
            self.close()  # the tracker drops a request whose connection closed
            busy = held[key]
            raise DeviceError(f"no device under key {key!r} was free within {wait_s:g} s at the RPC tracker {self.where} "
                              f"({busy['total']} registered, {busy['free']} free, {busy['pending']} requests waiting "
                              "before this one); raise --rpc-timeout, or free one") from None
        if not (isinstance(answer, list) and answer and answer[0] == SUCCESS):
            raise DeviceError(f"the RPC tracker at {self.where} refused a device of key {key!r}: {answer!r}")
        host, port, match = answer[1]
        return str(host), int(port), str(match)

    # -- the wire ----------------------------------------------------------------------------
    def _call(self, message: list) -> None:
        self._connect()
        data = json.dumps(message).encode()
        self._send_raw(struct.pack("<i", len(data)) + data)

    def _answer(self, wait_s: float):
        size = struct.unpack("<i", self._receive(4, wait_s))[0]
        return json.loads(self._receive(size, ANSWER_S).decode("utf-8"))

    def _send_raw(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except OSError as exc:
            self.close()
            raise self._unreachable(exc) from None

    def _receive(self, size: int, wait_s: float) -> bytes:
        sock = self.sock
        sock.settimeout(wait_s)
        chunks, got = [], 0
        try:
            while got < size:
                chunk = sock.recv(size - got)
                if not chunk:
                    raise DeviceError(f"the RPC tracker at {self.where} closed the connection (it stopped?)")
                chunks.append(chunk)
                got += len(chunk)
        except socket.timeout:
            raise DeviceError(f"the RPC tracker at {self.where} did not answer within {wait_s:g} s") from None
        except OSError as exc:
            self.close()
            raise self._unreachable(exc) from None
        return b"".join(chunks)

    def _unreachable(self, exc: OSError) -> DeviceError:
        reason = exc.strerror or str(exc) or type(exc).__name__
        if isinstance(exc, ConnectionRefusedError):
            reason += " (is `python -m tvm.exec.rpc_tracker` running there?)"
        return DeviceError(f"the RPC tracker at {self.where} is unreachable: {reason}")
