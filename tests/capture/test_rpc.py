"""Profiling through TVM's RPC tracker, on loopback: a tracker and two device servers
started by the `fleet` fixture (127.0.0.1 only, stopped after the module, or by a reaper
when the tests are killed). What a capture over RPC stores against a local capture of
the same model, the call sequence it reads from the executable, the tracker's devices,
every way a device or tracker fails, the targets TVM users write, and an aarch64
cross-compile (slow: each compiles and times the MLP)."""

from __future__ import annotations

import json
import os
import shutil
import statistics

import pytest
from helpers import ROOT, Fleet, table_counts

from hotdb import Hotdb
from hotdb.errors import DeviceError

pytestmark = pytest.mark.slow

AARCH64 = '{"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mattr": ["+neon"], "num-cores": 4}'


def rpc(fleet, key=None) -> list[str]:
    return ["--rpc", fleet.tracker, "--key", key or fleet.key]


def calls(cli, run: str) -> list[tuple]:
    """A run's VM calls in order: symbol, kernel or not, workload, shapes."""
    return [tuple(r.values()) for r in cli("sql", f"""
        SELECT n.func_name, n.is_kernel, m.workload_key, n.input_shapes, n.out_shape
        FROM nodes AS n JOIN runs AS r USING (run_id) LEFT JOIN kernel_matches AS m USING (run_id, func_name)
        WHERE r.label = '{run}' AND n.func_name <> 'vm.overhead' ORDER BY n.node_index""", "-f", "json").json()]


# ResNet-18 is the long run (HOTDB_RPC_MODELS=mlp,resnet18: ~2 min a capture here)
@pytest.mark.parametrize("model", os.environ.get("HOTDB_RPC_MODELS", "mlp").split(","))
def test_a_capture_over_rpc_is_a_local_capture_measured_there(cli, fleet, model):
    """The same calls, kernels, workloads and tasks as a local capture of the model; its sum
    of kernel medians within the local capture's fidelity band of its end to end; the run
    says where it ran. Runs of two devices are two builds: the gate refuses to judge
    across them, and runs, history and top --all-models keep one device's."""
    assert cli("profile", model, "--repeat", "3", "--run", "here").code == 0
    there = cli("profile", model, "--repeat", "3", "--run", "there", *rpc(fleet))
    assert there.code == 0, there.err
    assert "Traceback" not in there.err and "already ingested" in there.err  # the same IR and tasks, stored once
    assert calls(cli, "there") == calls(cli, "here") and any(c[1] for c in calls(cli, "here"))
    run = cli("sql", "SELECT device_key, rpc_tracker, rpc_server, device_name, host, cpu_model, others_cpu_pct, "
                     "timing_method, end_to_end_us, profile_variant FROM runs WHERE label = 'there'", "-f", "json").json()[0]
    assert run["device_key"] == fleet.key and run["rpc_tracker"] == fleet.tracker
    assert run["rpc_server"] in fleet.servers(fleet.key)
    assert run["cpu_model"] is None and run["others_cpu_pct"] is None  # the device's, which it does not say
    assert "over RPC" in run["timing_method"] and run["profile_variant"] == "live capture (rpc)"
    kernels = cli("sql", "SELECT sum(time_us) AS t, count(*) AS n FROM nodes JOIN runs USING (run_id) "
                         "WHERE label = 'there' AND is_kernel", "-f", "json").json()[0]
    end_to_end = statistics.median(run["end_to_end_us"])
    # the local capture's band (tests/cli/test_profile.py: check_capture), where it holds:
    # on a quiet machine. The device is this machine, whose load a capture over RPC cannot
    # measure; the local capture beside it did (hotdb's own rule, queries/_quiet_run.sql)
    quiet = cli("sql", "SELECT _quiet_run(others_cpu_pct) AS q FROM runs WHERE label = 'here'", "-f", "json").json()
    if quiet[0]["q"]:
        assert abs(kernels["t"] - end_to_end) <= max(0.15 * end_to_end, 30.0 * kernels["n"]), (kernels, end_to_end)
    samples = cli("sql", "SELECT count(*) AS n FROM node_samples JOIN runs USING (run_id) WHERE label = 'there'",
                  "-f", "json").json()[0]["n"]
    assert samples == 3 * kernels["n"]
    # two devices: two builds
    gate = cli("compare", "here", "there", "--fail-on-regression", "5")
    assert gate.code == 1 and f"different devices (local vs {fleet.key})" in gate.err
    assert "error: --fail-on-regression compares builds of the same IR, target and device" in gate.err
    allowed = cli("compare", "here", "there", "--fail-on-regression", "5", "--allow-different-builds")
    assert "compares builds of the same" not in allowed.err  # judged (one capture a side: nothing told, exit 1)
    assert [r["run"] for r in cli("runs", "--device", fleet.key, "-f", "json").json()] == ["there"]
    assert [r["run"] for r in cli("runs", "--device", "local", "-f", "json").json()] == ["here"]
    hottest = cli("top", "--run", "there", "-f", "json").json()[0]["task_name"]
    history = cli("history", "--task", hottest, "--device", fleet.key, "-f", "json").json()
    assert [(r["run"], r["device_key"]) for r in history] == [("there", fleet.key)]
    assert cli("history", "--task", hottest, "--device", "jetson").code == 1
    # the device's runs only (with the local run too, twice the time): by workload across
    # models, so compared whole (ResNet-18 has tasks of one workload that --all-models joins)
    fleet_top = cli("top", "--all-models", "--device", fleet.key, "--coverage", "100", "-f", "json").json()
    there_top = cli("top", "--run", "there", "--coverage", "100", "-f", "json").json()
    assert fleet_top and sum(r["time_us"] for r in fleet_top) == pytest.approx(sum(r["time_us"] for r in there_top))
    assert cli("top", "--all-models", "--device", "jetson", "-f", "json").json() == []


@pytest.mark.parametrize("model", ["mlp", "mobilenet_v2"])
def test_the_call_sequence_read_from_the_executable_is_the_recorded_one(model):
    """Where the VM's instrument cannot go (over RPC), the call sequence is read from the
    executable's bytecode and the kernels' shapes from the lowered module: every call of the
    instrumented run, in order, builtins included, with the same kernel signatures."""
    import tvm
    from tvm import relax

    from hotdb.capture.models import input_arrays, load_model
    from hotdb.capture.profile import compiled
    from hotdb.capture.sequence import recorded, static
    from hotdb.capture.targets import parse_target

    loaded, target = load_model(model), parse_target(None)
    _, lowered, executable = compiled(loaded, target)
    dev = tvm.cpu()
    inputs = [tvm.runtime.tensor(a, dev) for a in input_arrays(loaded.mod, loaded.entry)]
    seen = recorded(relax.VirtualMachine(executable, dev), loaded.entry, inputs, dev)
    read = static(executable, lowered, loaded.entry)
    assert [c["symbol"] for c in read] == [c["symbol"] for c in seen] and len(read) > 10
    assert [(c["symbol"], c["shapes"], c["dtypes"]) for c in read if c["kernel"]] == \
           [(c["symbol"], c["shapes"], c["dtypes"]) for c in seen if c["kernel"]]


def test_devices_lists_the_trackers_keys(cli, fleet):
    table = cli("devices", "--rpc", fleet.tracker, use_db=False)
    assert table.code == 0 and fleet.key in table.out and fleet.tracker in table.out
    rows = cli("devices", "--rpc", fleet.tracker, "-f", "json", use_db=False).json()
    assert rows == [{"key": fleet.key, "total": 2, "free": 2, "pending": 0, "servers": sorted(fleet.servers(fleet.key))}]
    bad = cli("devices", "--rpc", "no-port-here", use_db=False)
    assert bad.code == 2 and "HOST:PORT" in bad.err


def test_a_busy_key_and_an_unknown_one_are_said_and_nothing_is_stored(cli, db, fleet):
    """Both devices held (two sessions of the API's own): a capture waits --rpc-timeout for
    a free one, then says so; a key the tracker does not hold is named with the keys it does."""
    from hotdb.capture.remote import Device, Rpc

    held = [Device(Rpc(fleet.tracker, fleet.key, 30.0)) for _ in range(2)]
    try:
        busy = cli("profile", "mlp", "--rpc-timeout", "2", *rpc(fleet))
    finally:
        for device in held:
            device.session = None  # the session ends with its connection
        del held
    assert busy.code == 1 and "Traceback" not in busy.err
    assert f"no device under key '{fleet.key}' was free within 2 s" in busy.err and "--rpc-timeout" in busy.err
    assert len([line for line in busy.err.splitlines() if line.startswith("error:")]) == 1
    unknown = cli("profile", "mlp", *rpc(fleet, "jetson"))
    assert unknown.code == 1 and f"holds no device under key 'jetson'; its keys: {fleet.key} (2)" in unknown.err
    assert table_counts(db).get("runs", 0) == 0
    half = cli("profile", "mlp", "--key", fleet.key)
    assert half.code == 2 and "--rpc HOST:PORT" in half.err
    fleet.wait_free(fleet.key, 2)


def test_a_device_lost_mid_capture_and_a_dead_tracker_are_one_line_errors(cli, db, tmp_path):
    """A tracker and one device of their own: the device killed while its kernels are
    timed is named as lost, and nothing is stored; the tracker killed, a capture and
    `devices` say that nothing answers there, at once, on one line."""
    mini = Fleet(tmp_path / "mini")
    try:
        mini.start_tracker()
        server = mini.add_server("solo")

        def progress(stage: str, done: int, total: int) -> None:
            if stage == "kernels" and server in mini.processes:
                mini.kill(server)

        with pytest.raises(DeviceError) as lost:
            Hotdb(db).profile("mlp", repeat=2, rpc=mini.tracker, key="solo", progress=progress)
        assert f"the device {server} (key 'solo') was lost mid-capture" in str(lost.value)
        assert "\n" not in str(lost.value) and "nothing was stored" in str(lost.value)
        assert table_counts(db).get("runs", 0) == 0
        tracker = mini.tracker
        mini.kill("tracker")
        for command in (("profile", "mlp", "--rpc", tracker, "--key", "solo"), ("devices", "--rpc", tracker)):
            dead = cli(*command)
            assert dead.code == 1, dead.err
            said = [line for line in dead.err.splitlines() if line.startswith("error:")]
            assert said == [f"error: the RPC tracker at {tracker} is unreachable: Connection refused (is `python -m "
                            "tvm.exec.rpc_tracker` running there?)"], dead.err
            assert "Traceback" not in dead.err
    finally:
        mini.stop()


TARGETS = [  # (as written, kind, attributes TVM must hold, the dict a note shows where translated)
    ('{"kind": "llvm", "num-cores": 2}', "llvm", {"num-cores": 2}, None),
    ("raspberry-pi/4b-aarch64", "llvm", {"mtriple": "aarch64-linux-gnu", "mcpu": "cortex-a72"}, None),
    ("nvidia/geforce-rtx-3090", "cuda", {"arch": "sm_86"}, None),
    ("llvm -mcpu=cortex-a72 -mtriple=aarch64-linux-gnu -mattr=+neon", "llvm",
     {"mtriple": "aarch64-linux-gnu", "mcpu": "cortex-a72", "mattr": ["+neon"]},
     {"kind": "llvm", "mcpu": "cortex-a72", "mtriple": "aarch64-linux-gnu", "mattr": ["+neon"]}),
    ("cuda -arch=sm_80", "cuda", {"arch": "sm_80"}, {"kind": "cuda", "arch": "sm_80"}),
    ("llvm", "llvm", {}, None),
]


@pytest.mark.parametrize("text, kind, attrs, translated", TARGETS)
def test_every_target_form_tvm_users_write(text, kind, attrs, translated):
    from hotdb.capture.targets import parse_target, target_note

    target = parse_target(text)
    assert target.kind.name == kind
    exported = target.export()
    for name, value in attrs.items():
        held = exported[name]
        assert (list(held) if isinstance(value, list) else held) == value, (name, held)
    if kind == "cuda":
        assert target.host is not None and target.host.kind.name == "llvm"  # what MetaSchedule needs
    note = target_note(text)
    assert (note is None) == (translated is None)
    if translated:
        assert "TVM 0.27 refuses" in note and note.endswith(json.dumps(translated))


def test_targets_on_the_command_line(cli):
    """The old text form runs, saying the dict it became; a target TVM rejects says TVM's
    reason on one line; a target of another machine is sent to a tracker."""
    old = cli("profile", "mlp", "--repeat", "1", "--target", "llvm -num-cores=2", "-f", "json")
    assert old.code == 0, old.err
    assert "--target 'llvm -num-cores=2' is TVM's old text form" in old.err
    assert 'used as {"kind": "llvm", "num-cores": 2}' in old.err
    stored = cli("sql", "SELECT target FROM runs", "-f", "json").json()
    assert [json.loads(r["target"])["num-cores"] for r in stored] == [2]
    rejected = cli("profile", "mlp", "--target", '{"kind": "llvm", "bogus": 1}')
    assert rejected.code == 1 and "TVM rejects it: Unknown config option 'bogus'" in rejected.err
    assert rejected.err.strip().count("\n") == 0
    foreign = cli("profile", "mlp", "--target", "raspberry-pi/4b-aarch64")
    assert foreign.code == 1 and "the target is for aarch64-linux-gnu, not this machine" in foreign.err
    assert "--rpc HOST:PORT --key KEY" in foreign.err and "Traceback" not in foreign.err
    words = cli("profile", "mlp", "--target", "not a target")
    assert words.code == 1 and "TVM target tag" in words.err


def cross_compiler_here() -> str:
    """Debian's aarch64 cross compiler; skipped only where it is missing and .ci/run
    installs it (a CI run then tests it), failed where nothing would."""
    found = shutil.which("aarch64-linux-gnu-gcc")
    if found:
        return found
    if "gcc-aarch64-linux-gnu" in (ROOT / ".ci" / "run").read_text():
        pytest.skip("aarch64-linux-gnu-gcc is not installed here (.ci/run installs gcc-aarch64-linux-gnu)")
    pytest.fail("aarch64-linux-gnu-gcc is missing and .ci/run does not install it")


def test_an_aarch64_target_is_cross_compiled_into_an_aarch64_library(cli, db, fleet, tmp_path):
    """The library a capture for aarch64 uploads is an AArch64 ELF, linked by Debian's
    cross compiler, found by the target's triple; the x86 devices here refuse to load it,
    which the capture says on one line, storing nothing."""
    from hotdb.capture.models import load_model
    from hotdb.capture.profile import compiled
    from hotdb.capture.targets import cross_compiler, parse_target

    compiler = cross_compiler_here()
    target = parse_target(AARCH64)
    fcompile, found = cross_compiler(target, None)
    assert found == compiler
    _, _, executable = compiled(load_model("mlp"), target)
    library = tmp_path / "mlp.so"
    executable.export_library(str(library), fcompile=fcompile)
    header = library.read_bytes()[:20]
    assert header[:4] == b"\x7fELF" and header[4] == 2 and int.from_bytes(header[18:20], "little") == 183  # EM_AARCH64
    refused = cli("profile", "mlp", "--target", AARCH64, *rpc(fleet))
    assert refused.code == 1 and "Traceback" not in refused.err
    assert "could not load the model's library built for aarch64-linux-gnu" in refused.err
    assert "is --target the device's?" in refused.err and table_counts(db).get("runs", 0) == 0
    missing = cli("profile", "mlp", "--target", AARCH64, "--cc", "no-such-gcc", *rpc(fleet))
    assert missing.code == 1 and "--cc 'no-such-gcc': no such compiler" in missing.err
