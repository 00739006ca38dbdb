"""The child side of the process host: ``python -m actors._child``.

Reads a :class:`~actors._wire.Hello`, loads the policy, then answers each
:class:`~actors._wire.Call` until its standard input closes. Whatever the policy raises (even
``SystemExit`` or ``KeyboardInterrupt``) is answered as an ``error``; a crash of the whole
process is seen by the parent as the end of the pipe. The real standard output is kept for
frames; the policy's own prints go to standard error.
"""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any, BinaryIO

import trio


def _read(stream: BinaryIO, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


async def _await(awaitable: Any) -> Any:
    return await awaitable


def main() -> None:
    wire_in = os.fdopen(os.dup(0), "rb", buffering=0)
    wire_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # a policy that prints must not write into the pipe
    sys.stdout = sys.stderr
    from initiative.engine import policy_rng
    from initiative.events import Action

    from . import _wire
    from ._context import PolicyContext
    from ._hosts import _call_policy, fault
    from ._loading import load_policy

    def send(answer: _wire.Answer) -> None:
        wire_out.write(_wire.frame(answer))

    policy: Any = None
    while True:
        head = _read(wire_in, 4)
        if head is None:
            return
        body = _read(wire_in, int.from_bytes(head, "big"))
        if body is None:
            return
        message = _wire.unframe(body)
        if isinstance(message, _wire.Hello):
            spec = next(c for c in message.encounter.combatants if c.id == message.combatant)
            ctx = PolicyContext(
                combatant=spec,
                encounter=message.encounter,
                rng=policy_rng(message.seed, spec.id),
            )
            try:
                policy = load_policy(message.policy, ctx).policy
            except BaseException as err:
                send(_wire.Answer(failure="error", detail=f"loading the policy failed: {err}"))
                return
            send(_wire.Answer())
            continue
        assert isinstance(message, _wire.Call)
        try:
            result = _call_policy(policy, message.news, message.view)
            if inspect.isawaitable(result):
                result = trio.run(_await, result)
            if isinstance(result, Action):
                send(_wire.Answer(action=result))  # type: ignore[arg-type]
            else:
                send(
                    _wire.Answer(
                        failure="invalid",
                        detail=f"the policy returned {type(result).__name__}, not an action",
                    )
                )
        except BaseException as err:
            decision = fault(err)
            send(_wire.Answer(failure=decision.failure, detail=decision.detail))


if __name__ == "__main__":
    main()
