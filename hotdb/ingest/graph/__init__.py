"""Readers whose rows are a build's structure with shapes, no times (role `graph`)."""
