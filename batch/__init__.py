"""Batches: many seeds of one encounter, their statistics, duels, and storage in SQLite.

The library behind ``initiative batch``, ``duel``, ``league`` and ``sweep``::

    from initiative.batch import Task, run_batch, side_stats
    results = run_batch("examples/openings-skirmish.toml", [Task(seed=s) for s in range(1, 101)])
    for side in side_stats(["north", "south"], results):
        print(side.side, side.rate, side.interval)

    from initiative.batch import duel
    verdict, games = duel("examples/openings-duel.toml", "aggressive", "cautious", runs=50)
    print(verdict.verdict())

See ``docs/batch.md`` ("The library").
"""

from ._cluster import check_cluster as check_cluster
from ._curves import Curves as Curves, attack_kind as attack_kind
from ._duel import (
    ALPHA as ALPHA,
    Duel as Duel,
    duel as duel,
    duel_tasks as duel_tasks,
    judge as judge,
)
from ._fight import (
    STALEMATE_ROUNDS as STALEMATE_ROUNDS,
    BatchError as BatchError,
    CombatantRecord as CombatantRecord,
    FightStats as FightStats,
    Summary as Summary,
    Task as Task,
    fight_one as fight_one,
    log_name as log_name,
    policy_of as policy_of,
    rerun_command as rerun_command,
)
from ._figures import (
    attack_rates as attack_rates,
    figures_json as figures_json,
    group_outcomes as group_outcomes,
    round_curves as round_curves,
)
from ._stats import (
    CombatantStats as CombatantStats,
    Mean as Mean,
    Outcomes as Outcomes,
    Paired as Paired,
    SideStats as SideStats,
    combatant_stats as combatant_stats,
    combatant_stats_by_policy as combatant_stats_by_policy,
    combatants_json as combatants_json,
    faults_by_policy as faults_by_policy,
    mean_ci as mean_ci,
    outcomes as outcomes,
    paired as paired,
    poisson_ci as poisson_ci,
    side_stats as side_stats,
    sign_test as sign_test,
    t95 as t95,
    wilson as wilson,
)
from ._store import ResultStore as ResultStore, store as store
from ._tasks import PRELOAD as PRELOAD, quiet_logging as quiet_logging, run_tasks as run_tasks
from ._workers import iter_batch as iter_batch, run_batch as run_batch
