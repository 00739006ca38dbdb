"""Package discovery and data that pyproject.toml cannot state.

The repository keeps its folders (events/, engine/, actors/, replays/, initiative/); installed,
they import as initiative.events, initiative.engine, ... so that nothing generic lands at the top
of site-packages. The repository's examples/ folder ships as initiative/examples/.
"""

from setuptools import find_packages, setup

FOLDERS = ["events", "engine", "actors", "replays", "batch"]

setup(
    packages=[
        *find_packages(include=["initiative", "initiative.*"]),
        "initiative.examples",
        *(f"initiative.{name}" for name in find_packages(include=[f"{f}*" for f in FOLDERS])),
    ],
    package_dir={
        "initiative": "initiative",
        "initiative.examples": "examples",
        **{f"initiative.{folder}": folder for folder in FOLDERS},
    },
    package_data={
        **{f"initiative.{folder}": ["py.typed"] for folder in FOLDERS},
        "initiative": ["py.typed"],
        "initiative.table": ["pages/*.html", "pages/*.css", "pages/*.js"],
        "initiative.replays": ["*.html", "py.typed", "parts/*.js", "parts/*.css"],
        "initiative.examples": ["*.toml"],
        "initiative.actors": ["py.typed", "value_weights.json"],
    },
)
