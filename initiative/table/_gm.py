"""The game master's desk in a served fight: ``gm`` frames in, overrides applied, results out.

A connection whose role is ``gm`` sends ``{"type": "gm", "id": 7, "override": {...}}``
(``docs/protocol.md``). :func:`gm_frame` (the one call the server's reader makes) leaves it on
the :class:`GmDesk`; the scheduler (:func:`initiative.actors.schedule`, given the desk as its
``interrupts``) applies what waits there at the next decision point, while a combatant decides,
through the same :meth:`engine.Stepper.override` the library and the terminal use. The sender
gets a ``gm_result``: the seq of the recorded ``GmOverride``, or the rules' reason for refusing
it. Everyone hears of an accepted override as news, like any event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
import structlog
import trio

from initiative.actors import GM_HELP, is_gm, parse_gm, roster_text
from initiative.engine import Stepper
from initiative.events import IllegalOverrideError, visible

from . import _wire as wire

log = structlog.get_logger("initiative.serve")

ONLY_THE_GM = "only the GM may do that"

__all__ = ["GmDesk", "gm_frame", "gm_said", "gm_typed", "is_gm"]


@dataclass
class _Request:
    conn: Any
    """The connection to answer (its ``errors`` list is its outbox of frames)."""
    frame: wire.Gm


class GmDesk:
    """Overrides waiting for the next decision point, in the order they came."""

    def __init__(self, tell: Any = None) -> None:
        self.waiting_list: list[_Request] = []
        self._knock = trio.Event()
        self.tell = tell
        """Called after a result is left in a connection's outbox (the server's ``notify``)."""

    def submit(self, conn: Any, frame: wire.Gm) -> None:
        self.waiting_list.append(_Request(conn, frame))
        self._knock.set()

    # --- what the scheduler asks (``actors.Interrupts``) ---------------------------------------

    def waiting(self) -> bool:
        return bool(self.waiting_list)

    async def wait(self) -> None:
        while not self.waiting_list:
            await self._knock.wait()
            self._knock = trio.Event()

    def apply(self, stepper: Stepper) -> None:
        """Apply every waiting override in turn (each at the decision then pending)."""
        while self.waiting_list:
            request = self.waiting_list.pop(0)
            frame = request.frame
            try:
                seq = stepper.override(frame.override)
            except IllegalOverrideError as err:
                result = wire.GmResult(id=frame.id, ok=False, reason=str(err))
                log.info("override refused", reason=str(err))
            else:
                result = wire.GmResult(id=frame.id, ok=True, seq=seq)
            request.conn.errors.append(wire.encode(result))
            if self.tell is not None:
                self.tell()


def gm_frame(server: Any, conn: Any, frame: wire.Gm) -> None:
    """A ``gm`` frame read from ``conn``: on the desk when it is the GM's, else refused."""
    if getattr(conn, "role", None) != "gm":
        server._refuse(conn, ONLY_THE_GM)
        return
    if server.ended:
        conn.errors.append(
            wire.encode(wire.GmResult(id=frame.id, ok=False, reason="the fight is over"))
        )
        server.notify()
        return
    server.desk.submit(conn, frame)


# --- ``join --gm``: typed gm commands sent as gm frames -----------------------------------------


async def gm_typed(client: Any, text: str) -> None:
    """A ``gm ...`` line typed at ``join --gm`` (a ``join`` :class:`~initiative._join.Client`):
    sent as a ``gm`` frame, or what is wrong with it shown."""
    found = parse_gm(text)
    if found == "help":
        client.screen.say(GM_HELP)
    elif found == "who":
        names = getattr(client, "names", None)
        if names is None:
            client.screen.say("no names yet: the fight has not started")
        else:
            specs = names.specs.values()
            client.screen.say(roster_text((c.id, c.display, c.side) for c in specs))
    elif isinstance(found, str):
        client.screen.say(found)
    else:
        client.gm_sent = getattr(client, "gm_sent", 0) + 1
        override = msgspec.to_builtins(found)
        await client.send({"type": "gm", "id": client.gm_sent, "override": override})


def gm_said(client: Any, frame: dict[str, Any]) -> None:
    """A ``gm_result``: a refusal shown with its reason (what was done is told as news)."""
    if not frame.get("ok"):
        client.screen.say(f"The GM cannot do that: {visible(str(frame.get('reason')))}")
