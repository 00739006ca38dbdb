"""The ``initiative`` command: the Typer app and every command module registered on it.

Commands are thin: parse, call the library (:mod:`initiative.analysis`, :mod:`initiative.table`,
the packages below), render with Rich. :func:`main` is the console script's entry point.
"""

from ._main import main as main
