"""The rules and the scheduler's logic: state and its fold, dice, geometry, the rulesets.

Nothing here knows Trio; :class:`Fight` is driven by the actors' scheduler, by a replay, or by a
policy looking ahead. A ruleset of another package builds on :mod:`initiative.engine.kit` (the
helpers the bundled rulesets share) and is held to the engine's assumptions by
:func:`check_ruleset`.
"""

from ._branch import Branch as Branch
from ._conformance import (
    RulesetCheck as RulesetCheck,
    RulesetConformanceError as RulesetConformanceError,
    check_ruleset as check_ruleset,
)
from ._dice import Dice as Dice, parse_dice as parse_dice
from ._encounter import (
    decode_encounter as decode_encounter,
    load_encounter as load_encounter,
    normalize as normalize,
)
from ._fight import ENGINE_VERSION as ENGINE_VERSION, Fight as Fight, simulate as simulate
from ._geometry import (
    approach as approach,
    at as at,
    away as away,
    distance as distance,
    toward as toward,
)
from ._given import (
    DiceSource as DiceSource,
    RecordedDice as RecordedDice,
    given_dice as given_dice,
    recorded_dice as recorded_dice,
)
from ._gm import declared_conditions as declared_conditions
from ._hooks import RulesetHooks as RulesetHooks
from ._live import LiveState as LiveState, Snapshot as Snapshot, fold as fold
from ._odds import Odds as Odds, Sighted as Sighted
from ._position import (
    Board as Board,
    GivenDice as GivenDice,
    IllegalAction as IllegalAction,
    position as position,
)
from ._profile import SearchProfile as SearchProfile
from ._protocol import (
    Decision as Decision,
    PriorityToken as PriorityToken,
    Reaction as Reaction,
    View as View,
)
from ._rng import ALGORITHM as ALGORITHM, Rng as Rng, draw as draw, policy_rng as policy_rng
from ._rules import (
    Condition as Condition,
    Counter as Counter,
    Mark as Mark,
    Rules as Rules,
    UndeclaredMarkError as UndeclaredMarkError,
)
from ._ruleset import (
    Hook as Hook,
    Options as Options,
    Ruleset as Ruleset,
    find_ruleset as find_ruleset,
    ruleset_names as ruleset_names,
)
from ._sink import LogSink as LogSink
from ._state import (
    CombatantState as CombatantState,
    EncounterState as EncounterState,
    chain_step as chain_step,
    state_digest as state_digest,
    state_to_builtins as state_to_builtins,
)
from ._stepper import Stepper as Stepper
from ._units import ActionUnit as ActionUnit, Say as Say
