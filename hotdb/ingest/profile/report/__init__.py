"""The Report reader's helpers (profile_report.py): a large CSV or JSON streamed, a call's values
checked, the devices' totals."""
