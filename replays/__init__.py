"""Visitors over logs: the state at any event, re-simulation and verification, narration."""

from initiative.events import visible as visible

from ._diff import FieldDiff as FieldDiff, LogDiff as LogDiff, diff_logs as diff_logs
from ._fork import (
    NothingToResume as NothingToResume,
    fork_description as fork_description,
    fork_log as fork_log,
    live_policies as live_policies,
    read_to_resume as read_to_resume,
    resume_log as resume_log,
)
from ._gm_words import gm_words as gm_words
from ._literal import literal as literal, plain as plain
from ._narrate import Narrator as Narrator, summary as summary, who_of as who_of
from ._odds import ODDS_ROLLOUTS as ODDS_ROLLOUTS, Odds as Odds, odds as odds
from ._query import (
    Row as Row,
    check_filters as check_filters,
    follow as follow,
    select as select,
    state_at as state_at,
    with_rounds as with_rounds,
)
from ._resim import (
    ChainCheck as ChainCheck,
    DigestMismatch as DigestMismatch,
    Divergence as Divergence,
    OutOfDecisions as OutOfDecisions,
    Recorded as Recorded,
    Verification as Verification,
    check_chain as check_chain,
    check_digests as check_digests,
    check_header as check_header,
    differing_fields as differing_fields,
    recorded_decisions as recorded_decisions,
    replay_decider as replay_decider,
    reseeds as reseeds,
    resimulate as resimulate,
    verify_log as verify_log,
)
from ._review import (
    Budget as Budget,
    accuracy as accuracy,
    check_log as check_log,
    default_rollouts as default_rollouts,
    grade as grade,
    review as review,
    review_folder as review_folder,
    wilson as wilson,
)
from ._table_talk import TableNarrator as TableNarrator
from ._view import embed_json as embed_json, render_html as render_html, view_data as view_data
from ._why import (
    Step as Step,
    cause_chain as cause_chain,
    causes_and_effects as causes_and_effects,
    deciding_rolls as deciding_rolls,
    effects as effects,
    step_of as step_of,
)
