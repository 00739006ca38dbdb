"""The tokens of a served fight, kept beside its log so that ``serve --resume`` keeps them.

The links ``serve`` printed stay good across a restart: the tokens (every seat's, the GM's,
the spectators') are written to ``LOG.tokens`` when the fight is served, readable and writable
by its owner only (mode 0600), and read back by ``serve --resume LOG``. They are never in the
log (nor in a copy of it: a log is shared, replayed, attached to bug reports). A token file
that is missing or unreadable costs the old links, never the fight: new tokens are made, and
one line says so.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

#: The longest token file read (a handful of tokens; anything bigger is not ours).
_MOST = 64 * 1024


def tokens_path(log: str | Path) -> Path:
    """Where the tokens of the fight logged at ``log`` are kept: ``LOG.tokens`` beside it."""
    p = Path(log)
    return p.with_name(p.name + ".tokens")


def read_tokens(log: str | Path) -> tuple[dict[str, str], str | None]:
    """The tokens kept for ``log`` (``gm``, ``spectators``, ``seat:NAME``), and a one-line
    warning when there are none to read (then the dict is empty: new tokens are made)."""
    path = tokens_path(log)
    try:
        with path.open("rb") as f:
            data = f.read(_MOST + 1)
    except FileNotFoundError:
        return {}, f"{path}: no tokens kept for this fight; new tokens (and links) are made"
    except OSError as err:
        reason = err.strerror or str(err)
        return {}, f"{path}: cannot read the tokens ({reason}); new tokens (and links) are made"
    try:
        if len(data) > _MOST:
            raise msgspec.DecodeError("too long")
        tokens = msgspec.json.decode(data, type=dict[str, str])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return {}, f"{path}: not a token file; new tokens (and links) are made"
    if not all(
        key and value.isprintable() and 0 < len(value) <= 200 for key, value in tokens.items()
    ):
        return {}, f"{path}: not a token file; new tokens (and links) are made"
    return tokens, None


def write_tokens(log: str | Path, tokens: dict[str, str]) -> None:
    """Keep ``tokens`` beside ``log``, readable by its owner only (written whole, then moved
    into place, so a crash leaves the old file or the new one)."""
    path = tokens_path(log)
    part = path.with_name(path.name + ".part")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # (an older file of that name keeps its mode otherwise)
        os.write(fd, msgspec.json.encode(dict(sorted(tokens.items()))) + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(part, path)
