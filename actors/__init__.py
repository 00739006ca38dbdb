"""Combatants as Trio tasks, their policies, and the nursery that runs an encounter."""

from ._combatant import PolicyRunner as PolicyRunner
from ._combatant import combatant as combatant
from ._loading import (
    ENTRY_POINT_GROUP as ENTRY_POINT_GROUP,
)
from ._loading import (
    LoadedPolicy as LoadedPolicy,
)
from ._loading import (
    load_policy as load_policy,
)
from ._loading import (
    policy_names as policy_names,
)
from ._policies import (
    BUILTIN as BUILTIN,
)
from ._policies import (
    PolicyContext as PolicyContext,
)
from ._policies import (
    RandomPolicy as RandomPolicy,
)
from ._policies import (
    Scripted as Scripted,
)
from ._policies import (
    aggressive as aggressive,
)
from ._policies import (
    cautious as cautious,
)
from ._policies import (
    closing as closing,
)
from ._run import (
    Result as Result,
)
from ._run import (
    make_runners as make_runners,
)
from ._run import (
    run_encounter as run_encounter,
)
from ._run import (
    run_encounter_sync as run_encounter_sync,
)
from ._run import (
    schedule as schedule,
)
