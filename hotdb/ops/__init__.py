"""Use cases, one module each: what a command does, as functions of a Database.

Each runs named SQL files (queries/commands/, through hotdb.store.database.query) and
returns a Result whose `facts` a renderer words (hotdb/cli/words.py). They raise hotdb's
errors with what went wrong in domain words, never in flag names.

    ingest    files into one build of a model          capture   a live profile with apache-tvm
    runs      runs, models, tasks, matches, listings   rank      top tasks, nodes, ops; coverage
    compare   two runs, one item's history             export    a coverage cut, in a tuner's format
    tune      hotspot tuning with MetaSchedule         sql       ad-hoc SQL
    lake      a database file into a lake, compaction, manifests

No use case imports another: what they share (which run a command means, the checks of
values against hotdb/choices.py, fleet parameters, storing a live capture) is common.py,
the one module of ops/ that the others import (tests/house/test_layers.py holds them to it).
"""
