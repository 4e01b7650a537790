"""Readers are linear in their input: no regular expression of hotdb repeats a group that
itself repeats (`(a+)+`, which backtracks exponentially or quadratically over a long
line) unless each repetition begins with what the one before cannot run on, so that the
engine has one way to split the text. Those few are listed here with that reason; a new
one is refused until it is. (A long line cost a reader minutes twice: issue 43.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

HOTDB = Path(__file__).resolve().parents[2] / "hotdb"
# a group ending with a quantifier, itself quantified
NESTED = re.compile(r"\((?:\?:)?(?:[^()\\]|\\.)*(?:[+*?]|\{\d*,\d*\})\)(?:[+*]|\{\d*,\d*\})")
# each: where it is, and why its repetitions cannot overlap
LINEAR = {
    ("ingest/tasks/autotvm_tasks.py", r"(\s*,\s*\d+){3,}"): "each repetition begins with ','",
    ("ingest/profile/kernel_table.py", r"\S+(?: \S+)*"): "each repetition begins with the one space a cell holds",
    ("ingest/profile/debug_table.py", r"(,\s*\d+\s*)*"): "each repetition begins with ','",
    ("ingest/profile/profile_report.py", r"(\s{2,}\S+)+"): "each repetition begins with spaces, which \\S+ never holds",
    ("ingest/ir/expr.py", r"(?:-?\d+[ \t]*,[ \t]*)*"): "each repetition ends with ','",
    ("ingest/paste/glued.py", r"(?:[ \t]+-{2,})*"): "each repetition begins with blanks, which -{2,} never holds",
}
_CALLS = {"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"}


def patterns():
    for path in sorted(HOTDB.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in _CALLS:
                if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                    yield str(path.relative_to(HOTDB)), node.lineno, node.args[0].value


def test_no_regex_repeats_a_repeating_group_unless_listed_with_why_it_is_linear():
    found = set()
    for where, line, pattern in patterns():
        if NESTED.search(pattern):
            listed = [key for key in LINEAR if key[0] == where and key[1] in pattern]
            assert listed, f"hotdb/{where}:{line}: {pattern!r} repeats a repeating group; make each repetition " \
                           "begin where the one before cannot run on, and list it in LINEAR with why"
            found.update(listed)
    assert found == set(LINEAR), f"listed but gone: {set(LINEAR) - found}"


def test_the_rule_sees_a_nested_quantifier():
    assert NESTED.search(r"^(\w+\s?)+$") and NESTED.search(r"(a*)*") and not NESTED.search(r"(ab)+c*")
