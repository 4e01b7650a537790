"""Example builds shipped with hotdb, for the README's main job and for tests.

vgg16/ holds one VGG-16 x86 build as TVM 0.8 printed it; make_vgg16.py wrote it and
says how (the times are modelled, not measured).
"""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def example_dir(name: str) -> Path:
    return _HERE / name


def example_files(name: str) -> list[Path]:
    """The artifacts of the example build: profile, IR, task listing, tuning log."""
    folder = example_dir(name)
    return [folder / f"{name}.{suffix}" for suffix in ("debug_table.txt", "relay.txt", "autotvm_tasks.txt", "autotvm.log")]
