"""Readers whose rows are the model's operator calls (role `ir`): Relay text and Relax
TVMScript, with the expression grammar and scopes they share."""
