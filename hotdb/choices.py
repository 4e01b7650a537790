"""Every choice an option offers, in one place: the CLI builds its enums from these tuples
and the use cases (hotdb/ops/) validate against them, so that the two cannot disagree.

This module imports nothing, so that reading it costs the CLI's start-up nothing. The
formats `ingest --input-format` takes are the ingest registry's names (hotdb/ingest/),
read from there: a reader added to the registry is a choice at once.
"""

OUTPUT_FORMATS = ("table", "json", "jsonl", "csv")  # -f/--format: table for people, the rest data only

TOP_BY = ("task", "node", "op")  # what `top` ranks
SHARE_OF = ("tunable", "run")  # what a task's share is of: the tunable kernels' time, or the whole run's

EXPORT_TO = ("autotvm-log", "autotvm-tasks", "ansor-log", "tvmc-tasks", "metaschedule", "json", "csv")

# what `compare` pairs: task and workload are one (a task is its workload), node and kernel
# are one (a node is its kernel symbol)
COMPARE_BY = ("task", "workload", "node", "kernel", "op")
