"""Make the screenshots of ``initiative view`` that docs/debugging.md shows.

    python docs/images/screenshots.py

It runs examples/thriller-ambush.toml with the seed the file gives, writes the fight's page with
``initiative view``, and takes it in Debian's chromium (through Playwright, as the tests do)
1000 pixels wide at three points of the fight: the first turn, a turn in the middle (with the
pointer on the token whose turn it is, to show its reach) and the end. Each picture runs from
the top of the page down to the state table, written as view-start.png, view-middle.png and
view-end.png beside this script.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from initiative.events import read_log

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from browser import Page  # noqa: E402  (the tests' own driver, found beside them)

EXAMPLE = ROOT / "examples" / "thriller-ambush.toml"


def main() -> None:
    command = shutil.which("initiative") or "initiative"
    with tempfile.TemporaryDirectory() as tmp:
        log, html = Path(tmp) / "fight.jsonl", Path(tmp) / "fight.html"
        subprocess.run([command, "run", str(EXAMPLE), "--quiet", "--out", str(log)], check=True)
        subprocess.run([command, "view", str(log), "-o", str(html)], check=True)
        events = read_log(log).events
        turns = [e.seq for e in events if type(e).__name__ == "TurnStarted"]
        middle = next(seq for seq in turns if seq >= len(events) // 2)
        points = {"start": turns[0], "middle": middle, "end": len(events) - 1}
        page = Page()
        try:
            page.resize(1000, 900)
            page.open(html)
            for name, seq in points.items():
                page.js(
                    f"(() => {{ const s = document.getElementById('slider'); s.value = '{seq}';"
                    " s.dispatchEvent(new Event('input')); })()"
                )
                if name == "middle":
                    page.hover("#map circle.active")
                else:
                    page.hover("#title")
                page.screenshot(HERE / f"view-{name}.png", down_to="#state-table")
                print(f"view-{name}.png: after event {seq}")
            assert page.errors == [], page.errors
        finally:
            page.close()


if __name__ == "__main__":
    main()
