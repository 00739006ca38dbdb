"""``examples``: list the example encounters shipped with the package, and copy them out."""

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ._app import UsageProblem, app, out


def _about(text: str) -> tuple[str, str, str]:
    """The ruleset, name and description an example's TOML declares (blank when absent)."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return ("", "", "")
    return tuple(str(data.get(key, "")) for key in ("ruleset", "name", "description"))  # type: ignore[return-value]


@app.command("examples", rich_help_panel="Fights and logs")
def examples_command(
    name: Annotated[
        str | None,
        typer.Argument(help="An example to copy out (see the list); omit to list them all."),
    ] = None,
    to: Annotated[
        Path | None,
        typer.Option("--to", help="Copy NAME (or every example, with --all) into this folder."),
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Copy every example.")] = False,
) -> None:
    """List the example encounters shipped with initiative, or copy one or all into a folder.

    NAME alone copies it into the current folder; nothing that is already there is
    overwritten.
    """
    from .._examples import examples

    found = examples()
    if name is not None and every:
        raise UsageProblem("give an example NAME or --all, not both")
    if name is None and not every:
        if to is not None:
            raise UsageProblem("--to needs an example NAME or --all")
        width = max(map(len, found), default=0)
        for key, item in found.items():
            ruleset, title, description = _about(item.read_text(encoding="utf-8"))
            about = f"{title}: {description}" if description else title
            out.print(escape(f"{key:<{width}}  {ruleset:<10}  {about}"))
        return
    if name is not None and name.removesuffix(".toml") not in found:
        raise UsageProblem(f"no example {name!r} (known: {', '.join(found)})")
    chosen = list(found) if every else [name.removesuffix(".toml")] if name else []
    target = Path(".") if to is None else to
    if target.exists() and not target.is_dir():
        raise UsageProblem(f"--to {target}: not a folder")
    for key in chosen:
        dest = target / f"{key}.toml"
        if dest.exists():
            raise UsageProblem(f"{dest}: already exists; not overwritten")
    target.mkdir(parents=True, exist_ok=True)
    for key in chosen:
        dest = target / f"{key}.toml"
        dest.write_bytes(found[key].read_bytes())
        out.print(escape(f"wrote {dest}"))
