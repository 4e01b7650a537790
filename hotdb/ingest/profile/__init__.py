"""Readers whose rows are a run's times (role `profile`): one file per format."""
