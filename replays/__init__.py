"""Visitors over logs: the state at any event, re-simulation and verification, narration."""

from ._narrate import Narrator as Narrator, summary as summary, who_of as who_of
from ._query import Row as Row, select as select, state_at as state_at, with_rounds as with_rounds
from ._resim import (
    Divergence as Divergence,
    OutOfDecisions as OutOfDecisions,
    Recorded as Recorded,
    Verification as Verification,
    check_header as check_header,
    differing_fields as differing_fields,
    recorded_decisions as recorded_decisions,
    replay_decider as replay_decider,
    resimulate as resimulate,
    verify_log as verify_log,
)
