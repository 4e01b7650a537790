"""hotdb's version: one small module that everything may import."""

__version__ = "0.2.0"
