"""Use cases, one module each: what a command does, as functions of a Database.

Each runs named SQL files (queries/commands/, through hotdb.store.database.query) and
returns a Result whose `facts` a renderer words (hotdb/words.py). They raise hotdb's
errors with what went wrong in domain words, never in flag names.

    ingest    files into one build of a model          capture   a live profile with apache-tvm
    runs      runs, models, tasks, matches, listings   rank      top tasks, nodes, ops; coverage
    compare   two runs, one item's history             export    a coverage cut, in a tuner's format
    tune      hotspot tuning with MetaSchedule         sql       ad-hoc SQL
"""
