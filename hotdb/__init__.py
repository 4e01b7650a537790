"""hotdb: a profiling database for deep-learning compilers (Apache TVM first).

    from hotdb import Hotdb
    db = Hotdb("hotdb.duckdb")
    db.ingest(["model.table.txt", "model.relay.txt", "model.tasks.txt"], model="vgg16")
    db.top(by="task", coverage=90)
"""

from hotdb.version import __version__


def __getattr__(name):
    # The API pulls in DuckDB; keep `import hotdb` itself free of it.
    if name in ("Hotdb", "task_scheduler", "kept_builder", "tune_options"):
        from hotdb import api
        return getattr(api, name)
    raise AttributeError(name)


__all__ = ["Hotdb", "__version__", "kept_builder", "task_scheduler", "tune_options"]
