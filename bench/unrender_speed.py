"""Time of undoing a pasted text's renderings (hotdb/ingest/paste/unrender.py), two
checkouts paired run by run, on texts of the largest size read as a paste (16 MiB).

    python bench/unrender_speed.py OLD NEW [--rounds 5]

OLD and NEW are checkouts of hotdb (each run imports hotdb from it: PYTHONPATH). Each round
runs both, in alternating order, each in a fresh process, on the same texts, made here from
the bundled VGG-16 example: its debug table and its Relay text repeated (clean: no rule may
cost more than a look), the table run into one paragraph (every row re-split) and the Relay
text highlighted as a page's source (every tag removed). The figure per text is the median
of the per-round ratios NEW / OLD, and NEW's time as a multiple of one regex scan of the
text (what "a clean text pays one scan" is held to).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

MiB = 2**20
ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "hotdb" / "examples" / "vgg16"
TIMED = """
import json, re, sys, time
from hotdb.ingest.paste import unrender
text = open(sys.argv[1], encoding="utf-8").read()
lines = text.splitlines()
times = []
for _ in range(3):
    started = time.perf_counter()
    done = unrender.undo(text, lines)
    times.append(time.perf_counter() - started)
started = time.perf_counter()
re.search(r"\\x1b\\[[0-9;?]*[ -/]*[@-~]", text)
scan = time.perf_counter() - started
print(json.dumps({"undo": min(times), "scan": scan, "rules": sorted(done.rules)}))
"""


def _rendered():
    spec = importlib.util.spec_from_file_location("make_rendered", ROOT / "tests/data/renderings/make_rendered.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _repeated(lines: list[str], head: int, tail: int, size: int) -> list[str]:
    body, out = lines[head:len(lines) - tail], lines[:head]
    while sum(len(line) + 1 for line in out) < size:
        out.extend(body)
    return out + lines[len(lines) - tail:]


def inputs(folder: Path, size: int) -> dict[str, Path]:
    table = (EXAMPLE / "vgg16.debug_table.txt").read_text().splitlines()
    relay = (EXAMPLE / "vgg16.relay.txt").read_text().splitlines()
    big_table = _repeated(table, 2, 1, size)
    texts = {
        "clean debug table": big_table,
        "clean Relay text": _repeated(relay, 2, 1, size),
        "debug table as one paragraph": [" ".join(" ".join(line.split()) for line in big_table)],
        "Relay text highlighted (HTML)": _rendered().highlighted(_repeated(relay, 2, 1, size // 6)),
    }
    out = {}
    for name, lines in texts.items():
        path = folder / (name.replace(" ", "_").replace("(", "").replace(")", "") + ".txt")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out[name] = path
    return out


def run(checkout: Path, path: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-c", TIMED, str(path)], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mib", type=float, default=16)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        texts = inputs(Path(tmp), int(args.mib * MiB))
        print(f"| text ({args.mib:g} MiB) | OLD s | NEW s | NEW / OLD | NEW / one scan | rules NEW undid |")
        print("|---|---|---|---|---|---|")
        for name, path in texts.items():
            ratios, old_s, new_s, scans, rules = [], [], [], [], []
            for k in range(args.rounds):
                order = [("old", args.old), ("new", args.new)][:: 1 if k % 2 == 0 else -1]
                got = {side: run(checkout, path) for side, checkout in order}
                ratios.append(got["new"]["undo"] / got["old"]["undo"])
                old_s.append(got["old"]["undo"])
                new_s.append(got["new"]["undo"])
                scans.append(got["new"]["scan"])
                rules = got["new"]["rules"]
            print(f"| {name} | {statistics.median(old_s):.3f} | {statistics.median(new_s):.3f} | "
                  f"{statistics.median(ratios):.2f} | {statistics.median(new_s) / statistics.median(scans):.0f} | "
                  f"{', '.join(rules) or '-'} |")


if __name__ == "__main__":
    main()
