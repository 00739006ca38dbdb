"""The example encounters shipped with the package, found where the install put them.

A wheel carries them as package data in ``initiative/examples/``; an editable install or a
source checkout reads them from the repository's ``examples/`` folder.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

SUFFIX = ".toml"


def examples_dir() -> Traversable:
    """Where the example encounters are."""
    shipped = resources.files("initiative") / "examples"
    if shipped.is_dir():
        return shipped
    return Path(__file__).resolve().parents[1] / "examples"


def examples() -> dict[str, Traversable]:
    """Every example encounter by name (the file name without ``.toml``), sorted."""
    found = {
        item.name.removesuffix(SUFFIX): item
        for item in examples_dir().iterdir()
        if item.name.endswith(SUFFIX) and item.is_file()
    }
    return dict(sorted(found.items()))
