"""Package discovery and data that pyproject.toml cannot state: the repository's ``examples/``
folder ships inside the wheel as ``initiative/examples/``."""

from setuptools import find_packages, setup

PACKAGES = ["events", "engine", "actors", "replays", "initiative"]

setup(
    packages=[
        *find_packages(include=[f"{name}*" for name in PACKAGES]),
        "initiative.examples",
    ],
    package_dir={"initiative.examples": "examples"},
    package_data={
        **{name: ["py.typed"] for name in PACKAGES},
        "replays": ["*.html", "py.typed"],
        "initiative": ["*.html", "py.typed"],
        "initiative.examples": ["*.toml"],
    },
)
