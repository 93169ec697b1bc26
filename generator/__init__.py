"""chgen: describe a GPU programming challenge once, in YAML; generate and prove everything else."""

import importlib.metadata


def _version() -> str:
    """The version written in pyproject.toml, as the installed metadata carries it."""
    try:
        return importlib.metadata.version("chgen")
    except importlib.metadata.PackageNotFoundError:  # a bare checkout on sys.path
        return "0+unknown"


__version__ = _version()
