"""Tables whose rows a page ran together, made from tables of our own in the form TVM prints
them; each must read as the table it was made from (hotdb/ingest/paste/glued.py). No real
text of this kind was found (tests/data/README.md says where we looked), so the three ways a
page runs rows together are made here, each by one function:

* `paragraph`: a forum showing a table outside a code block joins its lines into one
  paragraph and collapses every run of blanks into one space;
* `glued`: a copy that lost the line breaks and kept the padding: each row's last cell runs
  into the next row's first (`... 3       1fused_nn_...`);
* `header_alone`: the header (and its rule) kept on a line of its own, the rows run into one
  paragraph after it.

Made files (all in this folder):

* thread.paragraph.txt: tests/data/thread/thread.txt (the forum thread of our own making)
  with its debug table as one paragraph, prose and IR and tasks as they were;
* vgg16_tvm09.glued.txt: tests/data/debug-table/vgg16_tvm09/'s table (Measurements(us)), its
  header and rule on their lines, its rows and Total_time glued one onto the next;
* resnet50_report.header-alone.txt: tests/data/profile-report/resnet50_nhwc.report.txt cut
  after its Hash column (a graph executor's report of CUDA prints no layout columns), the
  rows, rule, Sum and Total as one paragraph, the Configuration after it as printed;
* classifier_profile.paragraph.txt: tests/data/kernel-table/made/vgg16_classifier_profile.txt
  (a deploy script's profile: Time (ms), Count, Total time (ms), Pct (%), Memory (MB),
  Bandwidth (GB/s), Shape) as one paragraph after its banner;
* convnet_tuning.paragraph.txt: the MetaSchedule table of tests/data/broken-paste/ with its
  rules and totals as one paragraph.

    python tests/data/glued-tables/make_fixtures.py [OUT_FOLDER]   # default: this folder
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent


def paragraph(lines: list[str]) -> str:
    """The lines as one paragraph: joined by a space, every run of blanks one space."""
    return " ".join(re.sub(r"\s+", " ", line.strip()) for line in lines if line.strip())


def glued(lines: list[str]) -> str:
    """The lines with their breaks lost and their padding kept (trailing blanks dropped)."""
    return "".join(line.rstrip() for line in lines)


def header_alone(lines: list[str], header_lines: int = 1) -> list[str]:
    return lines[:header_lines] + [paragraph(lines[header_lines:])]


def _table_span(lines: list[str], first: str, last: str) -> tuple[int, int]:
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(last)) + 1
    return start, end


def _tuning_table() -> list[str]:
    spec = importlib.util.spec_from_file_location("make_broken", DATA / "broken-paste" / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.tuning_table()


def made() -> dict[str, list[str]]:
    thread = (DATA / "thread" / "thread.txt").read_text().splitlines()
    a, b = _table_span(thread, "Node Name", "Total_time")
    table = (DATA / "debug-table" / "vgg16_tvm09" / "vgg16.debug_table.txt").read_text().splitlines()
    report = (DATA / "profile-report" / "resnet50_nhwc.report.txt").read_text().splitlines()
    cut = report[0].index("Hash") + len("Hash")
    report = [line[:cut].rstrip() for line in report]
    rows_end = next(i for i, line in enumerate(report) if line.startswith("Total")) + 1
    profile = (DATA / "kernel-table" / "made" / "vgg16_classifier_profile.txt").read_text().splitlines()
    return {
        "thread.paragraph.txt": thread[:a] + [paragraph(thread[a:b])] + thread[b:],
        "vgg16_tvm09.glued.txt": table[:2] + [glued(table[2:])],
        "resnet50_report.header-alone.txt": header_alone(report[:rows_end]) + report[rows_end:],
        "classifier_profile.paragraph.txt": profile[:1] + [paragraph(profile[1:])],
        "convnet_tuning.paragraph.txt": [paragraph(_tuning_table())],
    }


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, lines in made().items():
        (out / name).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
