"""hotdb's version: one small module that everything may import."""

__version__ = "0.2.0"


def versions() -> dict[str, str]:
    """hotdb's version and those of what it runs with, read from the installed packages'
    metadata: apache-tvm is not imported (that takes seconds)."""
    import platform
    from importlib import metadata

    def installed(package: str) -> str:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return "not installed"

    return {"hotdb": __version__, "duckdb": installed("duckdb"), "apache-tvm": installed("apache-tvm"),
            "python": platform.python_version()}
