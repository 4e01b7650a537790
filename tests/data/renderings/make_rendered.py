"""Renderings no real paste could be found of, made mechanically from real clean texts
(SOURCES.md says which): each function does what one page, pager or terminal does to a text
and nothing else. The real texts are third-party and lie in ../shared/real/pastes/renderings/,
so what is made from them is made where it is used, never kept here:

    python tests/data/renderings/make_rendered.py ../shared/real/pastes/renderings OUT_FOLDER

tests/test_ingest_renderings.py makes them the same way, into a temporary folder.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

TABLE = "debugger_nnvm_table.rst.txt"
RELAY = "convert_layout_two_fns.rst.txt"
TASKS = "vta_tune_relay_sample_output.py.txt"


def cat_a(lines: list[str]) -> list[str]:
    """`cat -A` (and vi's `:set list`): a tab shows as ^I, every line ends with $."""
    return [line.replace("\t", "^I") + "$" for line in lines]


def cut(lines: list[str], width: int) -> list[str]:
    """A terminal that wraps at `width` columns, copied screen line by screen line (tabs
    expanded first, as the terminal shows them)."""
    out = []
    for line in lines:
        line = line.expandtabs(8)
        out.extend(line[i:i + width] for i in range(0, max(len(line), 1), width))
    return out


def entities(lines: list[str]) -> list[str]:
    """The text of an HTML page's source: & < > " ' escaped."""
    return [html.escape(line, quote=True) for line in lines]


def eaten(lines: list[str]) -> list[str]:
    """Markdown took each `/* ... */` for emphasis and ate both asterisks."""
    return [line.replace("/* ", "/ ").replace(" */", " /") for line in lines]


def mail_quoted(lines: list[str]) -> list[str]:
    """A mail reply quoting the text: `> ` before each line, a bare `>` for an empty one."""
    return ["> " + line if line else ">" for line in lines]


def uncommented(lines: list[str]) -> list[str]:
    """The sample output as the tutorial printed it: its `# ` comment marks taken off."""
    start = next(i for i, line in enumerate(lines) if "Extract tasks" in line)
    return [re.sub(r"^# ?", "", line) for line in lines[start:]]


def typographic(lines: list[str]) -> list[str]:
    """A forum's typographer outside code blocks: a quote after a space or an opening
    bracket opens (‘ “), any other closes (’ ”)."""
    def curl(match: re.Match) -> str:
        opening = match.start() == 0 or match.string[match.start() - 1] in " \t([{"
        return {("'", True): "\u2018", ("'", False): "\u2019", ('"', True): "\u201c", ('"', False): "\u201d"}[
            (match.group(), opening)]
    return [re.sub(r"['\"]", curl, line) for line in lines]


def coloured(lines: list[str]) -> list[str]:
    """A terminal's log of a highlighted print (TVMScript's `show()` through Pygments): each
    name and number wrapped in colour codes, as 256-colour SGR sequences."""
    def paint(match: re.Match) -> str:
        if match.group(1):  # a code already there (a coloured text coloured again) shows no name
            return match.group(1)
        return f"\x1b[38;5;{33 if match.group()[0].isalpha() else 172}m{match.group()}\x1b[39m"
    return [re.sub(r"(\x1b\[[0-9;]*m)|[A-Za-z_][\w.]*|\d+", paint, line) for line in lines]


_TOKEN = re.compile(r"([A-Za-z_][\w.]*)|(\d+(?:\.\d+)?)|([^\sA-Za-z_\d]+)")
_CLASSES = ("n", "mi", "o")  # Pygments' token classes: name, number, operator
_COLOURS = ("#008000", "#666666", "#AA22FF")  # and the colours its default style gives them


def _painted(line: str, style: bool) -> str:
    """Each name, number and run of operators of an escaped line in a span of its own."""
    def span(match: re.Match) -> str:
        kind = match.lastindex - 1
        attribute = f'style="color: {_COLOURS[kind]}"' if style else f'class="{_CLASSES[kind]}"'
        return f"<span {attribute}>{html.escape(match.group(), quote=True)}</span>"
    return _TOKEN.sub(span, line)


def highlighted(lines: list[str], style: bool = False) -> list[str]:
    """A page's source of a highlighted code block, as Pygments' HtmlFormatter writes it for
    Sphinx and Jupyter: `<div class="highlight"><pre><span></span>` before the first line,
    each name, number and run of operators in a `<span class="...">` (with `style`, an inline
    `<span style="color: ...">`, as noclasses=True and notebooks exported whole write it),
    & < > " ' as entities, and `</pre></div>` on a line of its own after the last."""
    if not lines:
        return lines
    body = [_painted(line, style) for line in lines]
    return ['<div class="highlight"><pre><span></span>' + body[0], *body[1:], "</pre></div>"]


def html_breaks(lines: list[str]) -> list[str]:
    """A forum's or a mail's HTML of a code block: the whole block on one line inside
    `<pre><code>`, each of its lines ended by `<br>`, & < > " ' as entities."""
    return ["<pre><code>" + "".join(html.escape(line, quote=True) + "<br>" for line in lines) + "</code></pre>"]


def made(real: Path) -> dict[str, list[str]]:
    """The name and lines of each made file, from the real texts in the folder `real`."""
    table, relay, tasks = ((real / name).read_text(encoding="utf-8").splitlines() for name in (TABLE, RELAY, TASKS))
    return {
        "debugger_nnvm_table.cat-A.txt": cat_a(table),
        "debugger_nnvm_table.list-wrapped-100.txt": cut(cat_a(table), 100),
        "convert_layout_two_fns.cat-A.txt": cat_a(relay),
        "convert_layout_two_fns.entities.txt": entities(relay),
        "convert_layout_two_fns.wrapped-80.txt": cut(relay, 80),
        "convert_layout_two_fns.eaten.txt": eaten(relay),
        "convert_layout_two_fns.mail-quoted.txt": mail_quoted(relay),
        "vta_tune_relay_sample_output.typographic.txt": typographic(uncommented(tasks)),
    }


def write(real: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, lines in made(real).items():
        (out / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: make_rendered.py REAL_FOLDER OUT_FOLDER")
    write(Path(sys.argv[1]), Path(sys.argv[2]))
