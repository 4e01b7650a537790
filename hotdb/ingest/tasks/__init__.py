"""Readers whose rows are tuning tasks and records (role `tasks`): AutoTVM, auto_scheduler
and MetaSchedule, printed and logged."""
