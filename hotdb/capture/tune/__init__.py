"""Tuning, as one room: the parent's driver (driver.py) starts the tuner process
(process.py), which tunes under hotdb's task scheduler (scheduler.py) with kept build
workers (builder.py) and the CPU's tensor intrinsics only (intrinsics.py). What is tuned
and why is the use case's (hotdb/ops/tune.py)."""
