"""Targets in one normal form, whoever wrote them.

TVM has spelled a target three ways: a text (`llvm -keys=cpu -mcpu=core-avx2`, AutoTVM
and Ansor logs), a JSON dict (MetaSchedule's database, `Target.export()` of TVM >= 0.2x),
and `export()` passed through `json.dumps(default=str)`, which turns arrays into tuple
texts (`"keys": "(\"cpu\",)"`). hotdb stores the JSON form with sorted keys and arrays as
lists, compact, exactly as MetaSchedule writes it, so that a record and its task, or a
run and its tune, compare equal. Commands show it the way TVM printed targets before
JSON, `llvm -keys=cpu -mtriple=x86_64-linux-gnu -num-cores=2` (the SQL macro
`target_text`).
"""

from __future__ import annotations

import ast
import json
import re
from functools import lru_cache

# options TVM's text form lists with commas (-keys=arm_cpu,cpu -mattr=+neon,+v8.2a)
_LIST_OPTIONS = {"keys", "mattr", "libs", "device_list", "from_device"}
_TUPLE_TEXT = re.compile(r"^\((.*)\)$", re.S)


def canonical(target) -> str | None:
    """The normal form (compact JSON, keys sorted, arrays as lists) of a target given as
    a tvm Target, a dict, a JSON text, or TVM's text form; None for no target. A text that is neither
    is kept as {"kind": <text>} so that it still compares equal to itself."""
    if target is None:
        return None
    if hasattr(target, "export"):  # a tvm.target.Target
        target = target.export()
    if isinstance(target, dict) or hasattr(target, "items"):  # a dict, or the TVM Map export() gives
        return json.dumps(_normal(target), sort_keys=True, separators=(",", ":"))
    return _canonical_text(str(target))


@lru_cache(maxsize=4096)
def _canonical_text(text: str) -> str | None:
    text = text.strip()
    if not text:
        return None
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            return canonical(value)
    return canonical(_from_text(text))


def from_text(text: str) -> dict | None:
    """TVM's text form (`llvm -mcpu=cortex-a72 -mtriple=aarch64-linux-gnu`, `cuda
    -arch=sm_80`), which TVM 0.27 no longer parses, as the dict it takes instead; None
    for a text that is not of that form (a JSON dict, a tag, a bare kind)."""
    text = text.strip()
    if not re.fullmatch(r"[a-z_][a-z0-9_]*(\s+-[^\s=]+(=\S*)?)+", text):
        return None
    return _from_text(text)


def _from_text(text: str) -> dict:
    """TVM's text form: a kind, then -option=value (or a bare -flag)."""
    kind, *options = text.split()
    out: dict = {"kind": kind}
    for option in options:
        name, has_value, value = option.lstrip("-").partition("=")
        if not name:
            continue
        if not has_value:
            out[name] = True
        elif name in _LIST_OPTIONS:
            out[name] = [v for v in value.split(",") if v]
        else:
            out[name] = int(value) if re.fullmatch(r"-?\d+", value) else value
    return out


def _normal(value):
    if isinstance(value, dict):
        return {str(k): _normal(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normal(v) for v in value]
    if isinstance(value, str):
        match = _TUPLE_TEXT.match(value)
        if match:  # an array that json.dumps(default=str) wrote as its tuple text
            try:
                parsed = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                return value
            if isinstance(parsed, tuple):
                return [_normal(v) for v in parsed]
        return value
    if hasattr(value, "items"):  # a TVM Map
        return {str(k): _normal(v) for k, v in value.items()}
    if hasattr(value, "__len__") and hasattr(value, "__getitem__") and not isinstance(value, (bytes, str)):
        return [_normal(v) for v in value]  # a TVM Array
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    return str(value)
