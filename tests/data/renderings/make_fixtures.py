"""Renderings of our own making: make_rendered.py's renderings (each what one page, pager or
terminal does to a text) applied to the bundled VGG-16 example (hotdb/examples/vgg16/)
instead of third-party texts, so that they can be kept here and run without the corpus.

    python tests/data/renderings/make_fixtures.py [OUT_FOLDER]   # default: made/ beside this file
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parents[2] / "hotdb" / "examples" / "vgg16"
RELAX = HERE.parent / "relax" / "small_convnet.relax.py"  # apache-tvm 0.27's print (tests/data/README.md)
_spec = importlib.util.spec_from_file_location("make_rendered", HERE / "make_rendered.py")
rendered = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rendered)


def made() -> dict[str, list[str]]:
    relay, table, tasks = ((EXAMPLE / name).read_text().splitlines()
                           for name in ("vgg16.relay.txt", "vgg16.debug_table.txt", "vgg16.autotvm_tasks.txt"))
    return {
        "vgg16_relay.cat-A.txt": rendered.cat_a(relay),
        "vgg16_relay.entities.txt": rendered.entities(relay),
        "vgg16_relay.wrapped-80.txt": rendered.cut(relay, 80),
        "vgg16_relay.eaten.txt": rendered.eaten(relay),
        "vgg16_relay.mail-quoted.txt": rendered.mail_quoted(relay),
        "vgg16_relay.coloured.txt": rendered.coloured(relay),
        "vgg16_relay.highlighted.html": rendered.highlighted(relay),
        "vgg16_relay.br.html": rendered.html_breaks(relay),
        "small_convnet_relax.styled.html": rendered.highlighted(RELAX.read_text().splitlines(), style=True),
        "vgg16_table.cat-A.txt": rendered.cat_a(table),
        "vgg16_table.list-wrapped-100.txt": rendered.cut(rendered.cat_a(table), 100),
        "vgg16_table.coloured.txt": rendered.coloured(table),
        "vgg16_tasks.typographic.txt": rendered.typographic(tasks),
    }


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, lines in made().items():
        (out / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "made")
