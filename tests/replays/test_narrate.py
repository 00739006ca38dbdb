"""Narration from the log alone."""

from initiative.events import OpeningClosed, OpeningOpened, RoundStarted, Trigger
from initiative.replays import Narrator


def test_lines_inside_an_opening_are_indented_and_the_indent_ends_with_it():
    """Events inside an opening are indented one step deeper; after it closes they are not."""
    narrate = Narrator()
    narrate(RoundStarted(seq=0, round=1))
    opened = narrate(
        OpeningOpened(seq=1, trigger=Trigger(kind="turn_ended", by="a"), offered=("b",))
    )
    assert (
        opened is not None and "opening (turn_ended by [bold]a[/bold]) for [bold]b[/bold]" in opened
    )
    assert narrate(OpeningClosed(seq=2, returns_to=None)) is None
    assert narrate.depth == 0
    after = narrate(RoundStarted(seq=3, round=2))
    assert after == "[dim]    3[/dim] [bold cyan]-- Round 2 --[/bold cyan]"
