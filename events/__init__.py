"""The vocabulary of initiative: actions, events, the encounter description, and the log.

This package knows only msgspec and the standard library.
"""

from ._actions import (
    Action as Action,
    AnyAction as AnyAction,
    Attack as Attack,
    Dodge as Dodge,
    EndTurn as EndTurn,
    Move as Move,
    Offer as Offer,
    Parry as Parry,
    Pass as Pass,
    ReadyWeapon as ReadyWeapon,
)
from ._encounter import (
    MAX_COMBATANTS as MAX_COMBATANTS,
    CombatantSpec as CombatantSpec,
    EncounterSpec as EncounterSpec,
    Item as Item,
    Weapon as Weapon,
    check_encounter_data as check_encounter_data,
)
from ._errors import (
    EncounterFileError as EncounterFileError,
    IllegalActionError as IllegalActionError,
    InitiativeError as InitiativeError,
    LogBusyError as LogBusyError,
    LogFormatError as LogFormatError,
    LogNeverStartedError as LogNeverStartedError,
    PolicyFailedError as PolicyFailedError,
    PolicyLoadError as PolicyLoadError,
    ReplayDivergedError as ReplayDivergedError,
    UnknownNameError as UnknownNameError,
    UnknownRulesetError as UnknownRulesetError,
    did_you_mean as did_you_mean,
)
from ._events import (
    DECISION_EVENTS as DECISION_EVENTS,
    ActionDeclared as ActionDeclared,
    ActionRejected as ActionRejected,
    AnyEvent as AnyEvent,
    APChanged as APChanged,
    AttackResolved as AttackResolved,
    CheckResolved as CheckResolved,
    CombatantDefeated as CombatantDefeated,
    CombatantJoined as CombatantJoined,
    CombatantLeft as CombatantLeft,
    ConditionAdded as ConditionAdded,
    ConditionRemoved as ConditionRemoved,
    CounterChanged as CounterChanged,
    DamageDealt as DamageDealt,
    DecisionFailed as DecisionFailed,
    DiceGiven as DiceGiven,
    DiceRolled as DiceRolled,
    EncounterEnded as EncounterEnded,
    EncounterStarted as EncounterStarted,
    Event as Event,
    Healed as Healed,
    InitiativeOrdered as InitiativeOrdered,
    InitiativeRolled as InitiativeRolled,
    InsertedTurnEnded as InsertedTurnEnded,
    Moved as Moved,
    OpeningClosed as OpeningClosed,
    OpeningOpened as OpeningOpened,
    PriorityGranted as PriorityGranted,
    PriorityPassed as PriorityPassed,
    RoundEnded as RoundEnded,
    RoundStarted as RoundStarted,
    SeedChanged as SeedChanged,
    StateDigested as StateDigested,
    TurnEnded as TurnEnded,
    TurnInserted as TurnInserted,
    TurnStarted as TurnStarted,
)
from ._log import (
    LOG_FORMAT as LOG_FORMAT,
    LogContents as LogContents,
    LogWriter as LogWriter,
    decode_event as decode_event,
    encode_event as encode_event,
    encode_lines as encode_lines,
    parse_log as parse_log,
    read_log as read_log,
)
from ._text import visible as visible
from ._upcast import (
    Upcaster as Upcaster,
    lift_combatant as lift_combatant,
    upcaster_for as upcaster_for,
)
from ._values import (
    POSITION_DECIMALS as POSITION_DECIMALS,
    TURN as TURN,
    Position as Position,
    Trigger as Trigger,
    Window as Window,
)
from ._vocabulary import (
    RULESET_GROUP as RULESET_GROUP,
    action_types as action_types,
    as_declared as as_declared,
    canonical_options as canonical_options,
    decode_action as decode_action,
    encounter_type as encounter_type,
    load_ruleset_actions as load_ruleset_actions,
    qualify_encounter as qualify_encounter,
    register_actions as register_actions,
    ruleset_of as ruleset_of,
    widened as widened,
)
