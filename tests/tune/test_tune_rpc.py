"""Tuning through TVM's RPC tracker on loopback (slow: real MetaSchedule tunes of the zoo's
MLP): docs/devices.md run step by step as written, its tune measuring on both devices of
its key; and a device killed mid-tune, named once, the tune ending 0 on the other."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, Fleet, interruptible

pytestmark = pytest.mark.slow

# trial limits for a machine others keep busy (tests/tune/test_tune.py says why)
BUSY = ("--build-timeout", "900", "--run-timeout", "300")
DOC_TRACKER = "127.0.0.1:9190"  # the tracker docs/devices.md starts; the test's is on a free port
_BLOCK = re.compile(r"(?:<!-- one machine: (?P<expect>.*?) -->\n)?```sh\n(?P<body>.*?)```", re.S)
_PORTS = ("--port", "--port-end")


def _without_ports(args: list[str]) -> list[str]:
    """A tracker's or server's command without its ports (the fleet gives free ones)."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in _PORTS:
            skip = True
        else:
            out.append(arg)
    return out


def _expanded(text: str, env: dict) -> str:
    """$NAME as a shell expands it: its value, or nothing where it is unset."""
    return re.sub(r"\$([A-Za-z_][A-Za-z0-9_]*)", lambda m: env.get(m.group(1), ""), text)


class _Page:
    """docs/devices.md's commands, run in order as a user on one machine runs them."""

    def __init__(self, root: Path):
        self.root, self.fleet = root, Fleet(root / "fleet")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("HOTDB_RPC", "HOTDB_CC", "ANDROID_NDK"))}
        self.env["HOTDB_CACHE_DIR"] = str(root / "cache")
        self.db, self.skipped, self.results = root / "hotdb.duckdb", [], []

    def line(self, text: str, expect: str | None, held: list) -> None:
        text = text.replace(DOC_TRACKER, self.fleet.tracker or DOC_TRACKER)
        args = shlex.split(_expanded(text.rstrip(" &"), self.env))
        if args[:3] == ["python", "-m", "tvm.exec.rpc_tracker"]:
            self.fleet.start_tracker([sys.executable, *_without_ports(args[1:])])
        elif args[:3] == ["python", "-m", "tvm.exec.rpc_server"]:
            key = args[args.index("--key") + 1]
            args = [a.replace(DOC_TRACKER, self.fleet.tracker) for a in args]
            self.fleet.add_server(key, [sys.executable, *_without_ports(args[1:])])
        elif args[0] == "export":
            self.env.update(dict(a.split("=", 1) for a in args[1:]))
        elif args[:2] == ["apt-get", "install"]:
            held.append(self._installed(args[2]))
        elif args[0] == "hotdb":
            if held and not all(held):
                return  # the block needs what is not installed here
            self.results.append((text, expect, self._hotdb(args[1:])))
        else:
            pytest.fail(f"docs/devices.md: a command the test does not know how to run: {text}")

    def _installed(self, package: str) -> bool:
        """A Debian package the page installs: its compiler is here, or .ci/run installs it
        (where it does not, the test fails)."""
        assert package == "gcc-aarch64-linux-gnu", package
        if shutil.which("aarch64-linux-gnu-gcc"):
            return True
        assert package in (ROOT / ".ci" / "run").read_text(), f"{package} is missing and .ci/run does not install it"
        self.skipped.append(package)
        return False

    def _hotdb(self, args: list[str]) -> subprocess.CompletedProcess:
        if args[0] == "tune":
            args = [*args, *BUSY]
        # in the page's own folder, as a user's shell: a tune's work folder (./hotdb-tune-MODEL) lands there
        return subprocess.run([sys.executable, "-m", "hotdb", "--db", str(self.db), *args], capture_output=True,
                              text=True, env=self.env, timeout=1800, cwd=self.root)


def test_docs_devices_md_runs_as_written(tmp_path):
    """Every command of docs/devices.md, in order, on one machine: the tracker and the
    "board"'s servers it starts (on free ports of 127.0.0.1), then hotdb's commands, each
    ending as the page says (0, or on this machine the one-line error it names); the tune
    measures on both devices of the key."""
    page = _Page(tmp_path)
    text = (ROOT / "docs" / "devices.md").read_text()
    try:
        for block in _BLOCK.finditer(text):
            held: list = []
            for line in block["body"].splitlines():
                if line.strip():
                    page.line(line.strip(), block["expect"], held)
    finally:
        page.fleet.stop()
    ran: dict = {}
    for command, _, result in page.results:  # each command's first run
        ran.setdefault(command.split()[1], result)
    assert {"devices", "profile", "runs", "tune"} <= set(ran)
    for command, expect, result in page.results:
        assert "Traceback" not in result.stderr, (command, result.stderr)
        if expect is None:
            assert result.returncode == 0, (command, result.stderr)
        else:
            errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
            assert result.returncode == 1 and len(errors) == 1 and expect in errors[0], (command, result.stderr)
    assert re.search(r"rasp4\s*│\s*2\s*│\s*2\s*│\s*0", ran["devices"].stdout), ran["devices"].stdout
    assert "mlp-1" in ran["runs"].stdout
    tuned = ran["tune"].stderr + ran["tune"].stdout  # progress on stderr, the summary's notes under its table
    assert "measuring on 2 devices of key rasp4" in tuned
    measured = re.search(r"measured on 2 devices of key rasp4 at \S+: (.*)", tuned)
    assert measured, tuned
    counts = [int(n) for n in re.findall(r"\((\d+) trials", measured.group(1))]
    assert len(counts) == 2 and all(n >= 1 for n in counts), measured.group(0)  # both devices measured
    if page.skipped:
        pytest.skip(f"the rest ran; the cross-compile step needs {', '.join(page.skipped)} (.ci/run installs it)")


JOINED = re.compile(r"^(\d+)/\d+ trials  \S+: \d+ of \d+ measured", re.M)


def _batches(path: Path) -> list[int]:
    """The trials done as each batch landed, as the tune said them."""
    return [int(n) for n in JOINED.findall(path.read_text(errors="replace"))]


def _wait(proc: subprocess.Popen, path: Path, batches: int) -> None:
    started = time.monotonic()
    while len(_batches(path)) < batches:
        assert proc.poll() is None and time.monotonic() - started < 900, path.read_text()
        time.sleep(0.5)


def test_a_device_killed_mid_tune_is_named_and_the_tune_goes_on(fleet, tmp_path):
    """One of the two devices killed once a first batch has landed: it is named once, the
    other measures the next batch; then Ctrl-C: the tune applies and re-profiles what it
    has on the device left, ends 0 with no traceback, and leaves no process of its own and
    the device left free. Every task of the model, so that the round has six batches and
    the Ctrl-C lands mid-tune (one task's two would leave it to the re-profile)."""
    import psutil

    from hotdb import Hotdb

    db, err_path = tmp_path / "hotdb.duckdb", tmp_path / "stderr.txt"
    with err_path.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "hotdb", "--db", str(db), "tune", "mlp", "--coverage", "100",
                                 "--trials", "60", "--rounds", "1", "--work-dir", str(tmp_path / "tune"),
                                 "--rpc", fleet.tracker, "--key", fleet.key, *BUSY], stdout=subprocess.PIPE,
                                stderr=err, text=True, start_new_session=True, preexec_fn=interruptible,
                                env={**os.environ, "HOTDB_CACHE_DIR": str(tmp_path / "cache")})
    try:
        _wait(proc, err_path, 1)
        victim, survivor = fleet.servers(fleet.key)
        fleet.kill(victim)
        _wait(proc, err_path, 2)  # a batch measured without it
        tuner = [p for p in psutil.Process(proc.pid).children(recursive=True)]
        os.killpg(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    said = err_path.read_text() + out  # progress on stderr, the summary's notes under its table
    assert proc.returncode == 0, said
    assert "Traceback" not in said and "stopped: interrupted" in said
    assert said.count(f"device {victim} (key {fleet.key}) left the RPC tracker") == 1, said
    summary = re.search(r"measured on \d devices of key \S+ at \S+: (.*)", said).group(1)
    assert f"{victim} (" in summary and "lost mid-tune" in summary
    assert re.search(rf"{re.escape(survivor)} \((\d+) trials", summary)
    last = Hotdb(db).sql("SELECT rpc_server, device_key FROM runs ORDER BY run_id DESC LIMIT 1").rows[0]
    assert last == (survivor, fleet.key)  # the round's re-profile ran on the device left
    time.sleep(1.0)
    assert not [p for p in tuner if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    fleet.wait_free(fleet.key, 1)  # the sessions the tune held ended with it
