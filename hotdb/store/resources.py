"""Where the SQL files are: kept importable here for the tests that ask; the module is
hotdb/resources.py (the bottom floor, which ingest/ may import too)."""

from hotdb.resources import query_files, schema_files, sql_dir

__all__ = ["query_files", "schema_files", "sql_dir"]
