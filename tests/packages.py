"""The project's packages: their folders in the repository and the names they import by.

The folders stay at the top of the repository; installed, they may be imported either as
top-level packages (``events``) or under the ``initiative`` namespace (``initiative.events``).
Tests that look at packages as a whole ask here, so they hold for either layout.
"""

from __future__ import annotations

import importlib.util

#: The package folders, lowest first: each may import only those before it.
FOLDERS = ["events", "engine", "actors", "replays", "batch", "initiative"]

#: Whether the packages are installed under ``initiative.`` (``initiative.events`` ...).
NAMESPACED = importlib.util.find_spec("initiative.events") is not None


def import_name(folder: str) -> str:
    """The name ``folder``'s package is imported by."""
    if folder == "initiative" or not NAMESPACED:
        return folder
    return f"initiative.{folder}"


def folder_of(module: str) -> tuple[str, list[str]] | None:
    """The package folder a dotted module name lives in, and the rest of the name; ``None`` for
    a module outside the project."""
    parts = module.split(".")
    if parts[0] == "initiative" and len(parts) > 1 and parts[1] in FOLDERS[:-1]:
        return parts[1], parts[2:]
    if parts[0] in FOLDERS:
        return parts[0], parts[1:]
    return None
