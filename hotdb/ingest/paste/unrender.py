"""Step 1 of reading a pasted text: undo what a page, a mail client, a pager or a terminal
did to it, so that the readers see the text as TVM printed it.

Each rendering is one rule: a test on the whole text first (a file that shows no sign of
it costs one regex scan), then a rewrite of the lines it touches. Rules keep one output
line per input line, except the joining of wrapped lines, which records where each line
came from (`Undone.origin`) so that errors still name the line of the file.

    rule             what a reader saw                          what it reads
    colours          ESC[95;03m@tvmESC[39;00m (in a log)         @tvm
    html             <span class="o">-&gt;</span> (a page's source) -&gt;  (then entities: ->)
    characters       ‘conv2d’  “float32”  1 × 64 (NBSP)         'conv2d'  "float32"  plain spaces
    entities         &lt;  &quot;  &#39;                         <  "  '
    pager            fused_nn_relu$   (cat -A, `:set list`)      fused_nn_relu
    prefixes         # Node Name ...  > %0 = ...  >>> print(..)  Node Name ...  %0 = ...  print(..)
    eaten comments   / ty=Tensor[(1, 64), float32] /             /* ty=Tensor[(1, 64), float32] */
    wrapped lines    a statement cut at the terminal's width    the statement on one line
    glued rows       Node Name Ops ... Outputs fused_a ... 3 1fused_b ...   a row a line (glued.py)

A highlighter's markup (Pygments, Rouge, a notebook's or a forum's HTML: `<span class=...>`,
`<span style=...>`, `<pre>`, `<code>`, `<div class="highlight">`) is removed only from a text
that holds such a tag and closes one: TVM never prints a closing tag, so Relay's and
TVMScript's own `<` (comparisons) and C++ templates (`Array<PrimExpr>`) are never taken for
markup. A line that held markup only (a wrapper's `<div ...>`, `</pre></div>`) is dropped and
`<br>` ends a line, so this rule too keeps where each line came from (`Undone.origin`).

Prose glued to code (`...) /* ty=... */;would you be able to`) is left to the readers,
which read a statement up to its end and say what they skipped after it.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from hotdb.ingest.paste import glued
from hotdb.ingest.text import bracket_depth

_CHARACTERS = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u00a0": " ", "\u202f": " ", "\u2007": " ", "\u2009": " ", "\u3000": " ",
    "\u200b": None, "\u200c": None, "\u200d": None, "\u2060": None, "\ufeff": None,
    "\u2212": "-", "\u2026": "...",
})
# A terminal's control sequences (CSI: colours, bold, cursor moves), as a log or notebook
# output keeps them when TVMScript's `show()` or a coloured logger printed to it.
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_SPACES = str.maketrans({c: " " for c in "\u00a0\u202f\u2007\u2009\u3000"})
_CHARACTERS_FOUND = re.compile("[" + "".join(chr(c) for c in _CHARACTERS) + "]")
# Readers whose values are quoted (task tuples, workload keys) straighten quotes themselves,
# so that a line read under a forced format or as a file of its own reads the same.
QUOTES = str.maketrans({c: _CHARACTERS[ord(c)] for c in "\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f"})
# What marks a text as a page's source: a highlighter's opening tag, and a closing tag.
_HTML_OPEN = re.compile(r"<(?:span|div|pre|code|font)\b[^<>]*>")
_HTML_CLOSE = re.compile(r"</(?:span|div|pre|code|font)\s*>")
# The markup removed: the tags a highlighter or a page wraps code in; a line number's span
# (Pygments' `linenos`, Rouge's `lineno`) with its number
_HTML_LINENO = re.compile(r"<span\b[^<>]*\bclass=[\"']?(?:linenos?|lineno|ln)\b[^<>]*>[^<]*</span>")
_HTML_TAG = re.compile(r"</?(?:span|div|pre|code|font|a|b|i|em|strong|p|tt|kbd|samp|var)\b[^<>]*>")
_HTML_BREAK = re.compile(r"<br\s*/?>")
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|apos|nbsp|#\d{1,6}|#x[0-9a-fA-F]{1,6});")
# A comment or quote prefix shared by a run of lines: shell and Python comments, mail and
# Markdown quotes, C++ comments, the Python prompt.
_PREFIX = re.compile(r"^[ \t]*(?:#|>|//|>>>|\.\.\.)(?: |$)")
_PREFIXES = (">>> ", "... ", "// ", "# ", "> ", "#", ">")
_MIN_PREFIX_RUN = 3
# Comments that are part of what TVM prints (TVMScript's imports and directives) or of a
# log (an AutoTVM log's `#` lines beside its JSON records) are no rendering.
_KEPT_COMMENT = re.compile(r"^[ \t]*#[ \t]*(?:from tvm|import |fmt:|\{|tvm\.|metadata)")
_PAGER_END = re.compile(r"\$$", re.M)
# Markdown turned `/* ty=... */` into emphasis and ate the asterisks (one or both).
_EATEN = re.compile(r"(?<![*/])/\*?[ ]?(ty=[^/]*?)[ ]?\*?/(?![*/])")
# No line TVM prints starts with a type comment or a `;`: such a line is a statement's rest.
_STATEMENT_REST = re.compile(r"\s*(?:/\*|;)")
_TERMINAL_WIDTHS = frozenset((80, 100, 120, 132, 140, 150, 160, 180, 200, 220, 240))


@dataclass
class Undone:
    """The lines as TVM printed them, where each came from, and what was undone."""

    lines: list[str]
    origin: list[int] | None = None  # 1-based line of the file for each line; None: the same
    rules: dict[str, int] = field(default_factory=dict)  # rule -> lines it changed

    @property
    def changed(self) -> bool:
        return bool(self.rules)

    def note(self, name: str) -> str | None:
        if not self.rules:
            return None
        said = ", ".join(f"{_WORDS[rule]} ({count} {'line' if count == 1 else 'lines'})"
                         for rule, count in self.rules.items())
        return f"{name}: read as rendered text: {said}"


_WORDS = {
    "colours": "terminal colour codes removed",
    "html": "HTML markup removed",
    "characters": "typographic quotes and spaces made plain",
    "entities": "HTML entities decoded",
    "pager": "pager line ends ($) removed",
    "prefixes": "comment and quote prefixes removed",
    "eaten comments": "type comments whose asterisks a page ate restored",
    "wrapped lines": "lines cut at the terminal's width joined",
    "glued rows": "table rows run together split again",
}


def undo(text: str, lines: list[str]) -> Undone:
    """Every rendering found in `text` (whose lines are `lines`) undone."""
    done = Undone(list(lines))
    # Each rule tests the text as the rules before it left it: colour codes between `ty`
    # and `=` hide a type comment until they are gone (undoing twice must be undoing once).
    if "\x1b" in text and _each_line(done, "colours", lambda line: _ESCAPES.sub("", line)):
        text = "\n".join(done.lines)
    if _marked_up(text) and _html(done):
        text = "\n".join(done.lines)
        if "\x1b" in text and _each_line(done, "colours", lambda line: _ESCAPES.sub("", line)):
            text = "\n".join(done.lines)  # codes a highlighter's spans cut apart
    if _CHARACTERS_FOUND.search(text) and _each_line(done, "characters", lambda line: line.translate(_CHARACTERS)):
        text = "\n".join(done.lines)
    for _ in range(4):  # a page's source shown on a page: the markup decoded is markup again
        if "&" in text and _ENTITY.search(text) and _each_line(done, "entities", _unescape):
            text = "\n".join(done.lines)
        if not (_marked_up(text) and _html(done)):
            break
        text = "\n".join(done.lines)
    if "$" in text and _PAGER_END.search(text):
        _pager(done)
    _prefixes(done)
    if "ty=" in text:
        _each_line(done, "eaten comments", lambda line: _EATEN.sub(r"/* \1 */", line) if "ty=" in line else line)
    _wrapped(done)
    if glued.found(text) and (split := glued.split(done.lines)) is not None:
        lines, origin, count = split
        done.origin = [_origin(done, k) for k in origin]
        done.lines = lines
        done.rules["glued rows"] = count
    return done


def _each_line(done: Undone, rule: str, rewrite) -> int:
    """`rewrite` applied to every line; the count of lines it changed."""
    count = 0
    for i, line in enumerate(done.lines):
        new = rewrite(line)
        if new != line:
            done.lines[i] = new
            count += 1
    if count:
        done.rules[rule] = done.rules.get(rule, 0) + count
    return count


def _unescape(line: str) -> str:
    """Entities decoded until none is left: a page that escaped a text twice (`&amp;lt;`)
    still shows a rendering of TVM's `<`, which never prints an entity."""
    for _ in range(4):
        if not _ENTITY.search(line):
            break
        line = html.unescape(line)
    return line.translate(_SPACES)  # &nbsp; is a no-break space: a plain one, as the characters rule makes it


def _marked_up(text: str) -> bool:
    return "</" in text and bool(_HTML_CLOSE.search(text)) and bool(_HTML_OPEN.search(text))


def _html(done: Undone) -> int:
    """A highlighter's markup removed from each line that has some; a line that held markup
    only is dropped, and each `<br>` ends a line (one at the end of a line, or followed by
    markup only, ends that line). The count of lines changed."""
    out, origin, count, moved = [], [], 0, False
    for i, line in enumerate(done.lines):
        if "<" not in line:
            out.append(line)
            origin.append(_origin(done, i))
            continue
        pieces = _HTML_BREAK.split(line)
        texts = [_HTML_TAG.sub("", _HTML_LINENO.sub("", piece)) for piece in pieces]
        if len(pieces) > 1 and not texts[-1].strip():
            pieces, texts = pieces[:-1], texts[:-1]  # the last <br> ended the line
        elif len(pieces) == 1 and texts[0] != line and not texts[0].strip():
            texts = []  # markup only: a wrapper's own line
        if texts != [line]:
            count += 1
            moved = moved or len(texts) != 1
        out.extend(texts)
        origin.extend([_origin(done, i)] * len(texts))
    if count:
        done.lines = out
        if moved:
            done.origin = origin
        done.rules["html"] = count
    return count


def _pager(done: Undone) -> None:
    """`cat -A` and vi's list mode end every line with `$` (an empty line is a lone `$`)
    and show a tab as `^I`; a line that does not end with `$` there was wrapped, and is
    joined to the next. Only a text whose lines nearly all end in `$` is such a rendering,
    or one whose other lines are all cut at one width, the widest (the window's)."""
    lines = done.lines
    filled = [line for line in lines if line.strip()]
    ending = sum(1 for line in filled if line.endswith("$"))
    cut = {len(line) for line in filled if not line.endswith("$")}
    in_window = len(filled) - ending >= 2 and cut == {max(map(len, filled))}
    if len(filled) < 3 or ending < 3 or (ending < 0.8 * len(filled) and not in_window):
        return
    out, origin, count, i = [], [], 0, 0
    while i < len(lines):
        line, start = lines[i], i
        while not line.endswith("$") and line.strip() and i + 1 < len(lines):
            i += 1  # cut by the terminal: the rest of it is on the next line
            line += lines[i]
        if line.endswith("$"):
            line = line[:-1]
            count += 1
        out.append(line.replace("^I", "\t"))
        origin.append(_origin(done, start))
        i += 1
    done.lines, done.origin = out, origin
    done.rules["pager"] = count


def _prefixes(done: Undone) -> None:
    """A run of at least three lines that all start with the same comment or quote prefix
    (a debug table pasted into a shell script, a mail reply) loses it; lone comments stay.
    A bare `#` or `>` (a blank line of the comment or quote) belongs to the run around it;
    a reply to a reply (`> > `) loses one level a pass, until none is left."""
    changed: set[int] = set()
    while stripped := _strip_runs(done.lines):
        changed |= stripped
    if changed:
        done.rules["prefixes"] = len(changed)


def _strip_runs(lines: list[str]) -> set[int]:
    """One prefix taken off each run of prefixed lines; the indexes of the lines changed."""
    stripped, i = set(), 0
    while i < len(lines):
        prefix = _prefix_of(lines[i])
        if prefix is None:
            i += 1
            continue
        j = i
        while j < len(lines) and (_prefix_of(lines[j]) or "").rstrip() == prefix.rstrip():
            j += 1
        prefix = prefix.rstrip() + " "  # _strip takes `# ` or a bare `#` off each line
        if j - i >= _MIN_PREFIX_RUN and any(_strip(line, prefix).strip() for line in lines[i:j]):
            for k in range(i, j):
                lines[k] = _strip(lines[k], prefix)
            stripped.update(range(i, j))
        i = j
    return stripped


def _prefix_of(line: str) -> str | None:
    if not _PREFIX.match(line) or _KEPT_COMMENT.match(line):
        return None
    body = line.lstrip(" \t")
    for prefix in _PREFIXES:
        if body.startswith(prefix) or body == prefix.rstrip():
            return prefix.rstrip() if body == prefix.rstrip() else prefix
    return None


def _strip(line: str, prefix: str) -> str:
    body = line.lstrip(" \t")
    if body.startswith(prefix):
        return body[len(prefix):]
    return body[len(prefix.rstrip()):] if body.startswith(prefix.rstrip()) else line


def _wrapped(done: Undone) -> None:
    """Lines cut at a terminal's width: many lines exactly as long as the longest, which is
    a usual width. A cut line is joined to the next only where the cut left a bracket or a
    comment open that the next line closes (or that a next full-width piece carries on), or
    cut a statement from its type comment: rows of a table padded to one width stay rows."""
    lengths = [len(line) for line in done.lines]
    if not lengths:
        return
    width = max(lengths)
    if width not in _TERMINAL_WIDTHS or lengths.count(width) < 2:
        return
    out, origin, count, i, lines = [], [], 0, 0, done.lines
    while i < len(lines):
        line, start = lines[i], i
        while (len(lines[i]) == width and i + 1 < len(lines) and lines[i + 1].strip()
               and _left_open(line, lines[i + 1], width)):
            i += 1
            line += lines[i]
            count += 1
        out.append(line)
        origin.append(_origin(done, start))
        i += 1
    if count:
        done.lines, done.origin = out, origin
        done.rules["wrapped lines"] = count


def _left_open(line: str, following: str, width: int) -> bool:
    depth = bracket_depth(line)
    if line.count("/*") > line.count("*/"):
        return True
    if _STATEMENT_REST.match(following) or (line.endswith("/") and following.startswith("*")):
        return True  # cut between a call and its type comment or `;` (or through the `/*`)
    # A line cut more than once: a full-width middle piece need not close anything yet.
    return depth > 0 and (len(following) == width or bracket_depth(line + following) < depth)


def _origin(done: Undone, index: int) -> int:
    return done.origin[index] if done.origin is not None else index + 1
