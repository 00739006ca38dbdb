"""The process host's messages: the protocol's own msgspec types, length-prefixed msgpack.

Parent to child: one :class:`Hello` (which policy, for whom, in which encounter), then one
:class:`Call` per token (the news and the view; no view at the end of the fight). Child to
parent: one :class:`Answer` for each. A frame is a 4-byte big-endian length and the msgpack
bytes.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec
import trio
from initiative.engine import View
from initiative.events import (
    AnyAction,
    AnyEvent,
    EncounterSpec,
    as_declared,
    load_ruleset_actions,
    widened,
)


class Hello(msgspec.Struct, frozen=True, kw_only=True, tag=True):
    """Load ``policy`` for ``combatant`` of ``encounter``; its random stream from ``seed``."""

    policy: str
    combatant: str
    encounter: EncounterSpec
    seed: int


class Call(msgspec.Struct, frozen=True, kw_only=True, tag=True):
    """Observe ``news``, then decide on ``view`` (none at the end of the fight)."""

    news: tuple[AnyEvent, ...] = ()
    view: View | None = None


class Answer(msgspec.Struct, frozen=True, kw_only=True, tag=True):
    """The child's answer: an action, or the failure it met (``failure`` as in ``Decision``)."""

    action: AnyAction | None = None
    failure: str | None = None
    detail: str = ""


Message = Union[Hello, Call, Answer]  # noqa: UP007 - msgspec needs a real Union object

_encoder = msgspec.msgpack.Encoder()
_decoders: dict[Any, msgspec.msgpack.Decoder[Any]] = {}
MAX_FRAME = 64 * 1024 * 1024


def frame(message: Message) -> bytes:
    body = _encoder.encode(message)
    return len(body).to_bytes(4, "big") + body


def unframe(body: bytes) -> Message:
    """Decode one frame; its actions may be the encounter's ruleset's own (a :class:`Hello`
    registers that ruleset's actions, for itself and the frames after it)."""
    try:
        message = _decoder().decode(body)
    except msgspec.ValidationError:
        plain = msgspec.msgpack.decode(body)
        encounter = plain.get("encounter") if isinstance(plain, dict) else None
        if not (isinstance(encounter, dict) and isinstance(encounter.get("ruleset"), str)):
            raise
        load_ruleset_actions(encounter["ruleset"])
        message = _decoder().decode(body)
    found: Message = as_declared(message)
    return found


def _decoder() -> msgspec.msgpack.Decoder[Any]:
    wide = widened(Message)
    decoder = _decoders.get(wide)
    if decoder is None:
        decoder = _decoders[wide] = msgspec.msgpack.Decoder(wide)
    return decoder


def portable(view: View | None) -> View | None:
    """The view without its ``fork`` and ``estimate`` functions (a look-ahead cannot cross a
    process; :meth:`View.odds` answers ``None`` there), ``known`` as a plain dict."""
    return None if view is None else view.plain()


class FrameReader:
    """Reads whole frames from a Trio receive stream; EOFError when the stream ends."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream = stream
        self.buffer = bytearray()

    async def _fill(self, size: int) -> None:
        while len(self.buffer) < size:
            chunk = await self.stream.receive_some(65536)
            if not chunk:
                raise EOFError
            self.buffer += chunk

    async def receive(self) -> Answer:
        await self._fill(4)
        size = int.from_bytes(self.buffer[:4], "big")
        if size > MAX_FRAME:
            raise EOFError
        await self._fill(4 + size)
        body = bytes(self.buffer[4 : 4 + size])
        del self.buffer[: 4 + size]
        message = unframe(body)
        if not isinstance(message, Answer):
            raise EOFError
        return message
