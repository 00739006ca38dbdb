"""The rules and the scheduler's logic: state and its fold, dice, geometry, the rulesets.

Nothing here knows Trio; :class:`Fight` is driven by the actors' scheduler, by a replay, or by a
policy looking ahead.
"""

from ._dice import Dice as Dice
from ._dice import parse_dice as parse_dice
from ._encounter import (
    decode_encounter as decode_encounter,
)
from ._encounter import (
    load_encounter as load_encounter,
)
from ._encounter import (
    normalize as normalize,
)
from ._fight import (
    ENGINE_VERSION as ENGINE_VERSION,
)
from ._fight import (
    Decision as Decision,
)
from ._fight import (
    Fight as Fight,
)
from ._fight import (
    PriorityToken as PriorityToken,
)
from ._fight import (
    Reaction as Reaction,
)
from ._fight import (
    View as View,
)
from ._fight import (
    simulate as simulate,
)
from ._geometry import (
    approach as approach,
)
from ._geometry import (
    at as at,
)
from ._geometry import (
    away as away,
)
from ._geometry import (
    distance as distance,
)
from ._geometry import (
    toward as toward,
)
from ._rng import ALGORITHM as ALGORITHM
from ._rng import Rng as Rng
from ._rng import draw as draw
from ._rng import policy_rng as policy_rng
from ._ruleset import (
    Hook as Hook,
)
from ._ruleset import (
    Options as Options,
)
from ._ruleset import (
    Ruleset as Ruleset,
)
from ._ruleset import (
    find_ruleset as find_ruleset,
)
from ._ruleset import (
    ruleset_names as ruleset_names,
)
from ._state import (
    CombatantState as CombatantState,
)
from ._state import (
    EncounterState as EncounterState,
)
from ._state import (
    apply as apply,
)
from ._state import (
    fold as fold,
)
from ._state import (
    state_to_builtins as state_to_builtins,
)
