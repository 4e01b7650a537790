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


def busy_capture(what: str, others_cpu_pct: float, slowdown: float) -> str:
    """What a capture beside busy processes means for its figures (queries/_quiet_run.sql
    decides which is busy, and by how much it may be slower), said where they are shown."""
    return (f"{what} was captured while other processes used {others_cpu_pct:.0f} % of the CPUs: its times may be up "
            f"to {slowdown:.1f}x a quiet machine's, and its runtime overhead inflated with them; profile again on a "
            "quiet machine for figures to keep (compare allows for the load)")
