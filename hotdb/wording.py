"""How a count or a name reads in a sentence, the one rule every message follows: `1 task`,
`2 tasks`; `an auto_scheduler task`, `a MetaSchedule task`. Imports nothing."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n noun` with the noun's number: 1 task, 0 tasks, 2 tasks."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def article(word: str) -> str:
    """`word` with a or an, by its first sound as a letter spells it (an auto_scheduler,
    an MLP, a MetaSchedule): vowels take an, and so do the letters named with one."""
    first = word[:1]
    vowel = first.lower() in "aeiou" or (first.isupper() and word[1:2].isupper() and first in "FHLMNRSX")
    return f"{'an' if vowel else 'a'} {word}"
