"""Where Relay text lies in a pasted text (RelayText.blocks): whole modules, from a header
or first definition to the '}' closing the last definition that follows; a function glued
to the sentence before it; statements printed without their function. The patterns that
say where a module or a statement starts are shared with the reader (relay.py)."""

from __future__ import annotations

import re

from hotdb.ingest.text import bracket_depth

DEF = re.compile(r"^def\s+(@[\w.]+)\s*(\[[^\]]*\])?\s*\(")
TYPE_DEF = re.compile(r"^type\s+\w+")
HEADER = re.compile(r'^(#\[version = "[\d.]+"\]|v0\.0\.\d+)$')
# A statement pasted without its function. TorchScript (`%x : Float(...) = aten::conv(...)`)
# and MLIR (`%0 = tensor.empty() : ...`, no `;`) look alike: a Relay line ends with `;`.
HEADLESS = re.compile(r"^(?:let\s+)?%[\w.]+(?::\d+)?(?:\s*:[^=;]+)?\s*=\s*(?:[A-Za-z_][\w.]*\(|%[\w.]+\s*;|\(|meta\[)")
# Code a page glued to the sentence before it: a function header or a bound op call.
GLUED = re.compile(r"(?:\bdef\s+@[\w.]+\s*\(\s*%|\bfn\s*\(\s*%|%\d+\s*=\s*[A-Za-z_][\w.]*\(%)")
# A statement may span lines (a long tuple type); a line this far from its start is not
# part of it, and the statement is reported broken where it began.
MAX_STATEMENT_LINES = 400


def blocks(lines: list[str]) -> list[tuple[int, int]]:
    """Each module: from its header or first definition to the '}' that closes its last
    definition (definitions that follow each other, `type` ones included, are one module);
    a function glued to a sentence from that line; statements pasted without their
    function as one run, in a text that holds no whole module (beside one, they quote it)."""
    modules, runs, i = [], [], 0
    while i < len(lines):
        text = lines[i].strip()
        end = None
        if _starts_module(text) or re.search(r"\bdef\s+@[\w.]+\s*\(\s*%|\bfn\s*\(\s*%", text):
            end = _module_end(lines, i)
            modules.append((i, end))
        elif HEADLESS.match(text) or GLUED.search(text):
            end = _headless_end(lines, i)
            runs.append((i, end))
        if end is None:
            i += 1
            continue
        i = end
    return modules or [run for run in runs if run[1] is not None]


def _starts_module(text: str) -> bool:
    return bool(DEF.match(text) or re.match(r"^fn\s*\(\s*%", text) or HEADER.match(text)
                or (TYPE_DEF.match(text) and text.endswith("{")))


def _module_end(lines: list[str], start: int) -> int:
    """One past the '}' that closes the last of the definitions that begin at `start`."""
    depth, opened, j = 0, False, start
    while j < len(lines):
        depth += bracket_depth(lines[j].strip(), "{", "}")
        opened = opened or depth > 0
        j += 1
        if opened and depth <= 0:
            k = j
            while k < len(lines) and (not lines[k].strip() or lines[k].strip().startswith("// meta")):
                k += 1
                if lines[k - 1].strip():
                    j = k  # the note on omitted metadata belongs to the module
            if k < len(lines) and _starts_module(lines[k].strip()):
                j, opened = k, False
                continue
            break
        if not opened and j - start > MAX_STATEMENT_LINES:
            break
    return j


_RESULT_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*\((?:%|meta\[)|%[\w.]+\s*(?:/\*.*)?$|\(%)")


def _headless_end(lines: list[str], start: int) -> int | None:
    """One past the last line of a run of statements printed without their function (the
    function's result and its '}' included); None when no line of it ends a statement."""
    j, depth, ended, end = start, 0, False, None
    while j < len(lines):
        text = lines[j].strip()
        if depth > 0:  # a statement printed over several lines
            depth += bracket_depth(text)
        elif not text:
            k = next((k for k in range(j, len(lines)) if lines[k].strip()), len(lines))
            if k == len(lines) or not HEADLESS.match(lines[k].strip()):
                break
            j = k
            continue
        elif text.startswith("}"):
            end = j + 1
            break
        elif j == start or HEADLESS.match(text) or _RESULT_LINE.match(text):
            depth = bracket_depth(text)
        else:
            break
        ended = ended or (depth <= 0 and text.endswith(";"))
        j += 1
        end = j
    return end if ended else None
