"""The vocabulary of initiative: actions, events, the encounter description, and the log.

This package knows only msgspec and the standard library.
"""

from ._actions import (
    Action as Action,
)
from ._actions import (
    Aim as Aim,
)
from ._actions import (
    AnyAction as AnyAction,
)
from ._actions import (
    Arise as Arise,
)
from ._actions import (
    Assist as Assist,
)
from ._actions import (
    Attack as Attack,
)
from ._actions import (
    Bash as Bash,
)
from ._actions import (
    BlindOpponent as BlindOpponent,
)
from ._actions import (
    Block as Block,
)
from ._actions import (
    CastMagic as CastMagic,
)
from ._actions import (
    CounterAttack as CounterAttack,
)
from ._actions import (
    Dash as Dash,
)
from ._actions import (
    DefensiveStance as DefensiveStance,
)
from ._actions import (
    DelayTurn as DelayTurn,
)
from ._actions import (
    Disarm as Disarm,
)
from ._actions import (
    Disengage as Disengage,
)
from ._actions import (
    Dodge as Dodge,
)
from ._actions import (
    DrinkPotion as DrinkPotion,
)
from ._actions import (
    EndTurn as EndTurn,
)
from ._actions import (
    Evade as Evade,
)
from ._actions import (
    Feint as Feint,
)
from ._actions import (
    Flee as Flee,
)
from ._actions import (
    ForceMovement as ForceMovement,
)
from ._actions import (
    FreeAction as FreeAction,
)
from ._actions import (
    FullDefense as FullDefense,
)
from ._actions import (
    Hide as Hide,
)
from ._actions import (
    Interact as Interact,
)
from ._actions import (
    Intercept as Intercept,
)
from ._actions import (
    Move as Move,
)
from ._actions import (
    Offer as Offer,
)
from ._actions import (
    OpportunityAttack as OpportunityAttack,
)
from ._actions import (
    Parry as Parry,
)
from ._actions import (
    Pass as Pass,
)
from ._actions import (
    ReadyWeapon as ReadyWeapon,
)
from ._actions import (
    Resist as Resist,
)
from ._actions import (
    Retaliate as Retaliate,
)
from ._actions import (
    Special as Special,
)
from ._actions import (
    TakeCover as TakeCover,
)
from ._actions import (
    TakeDelayedTurn as TakeDelayedTurn,
)
from ._actions import (
    Trip as Trip,
)
from ._actions import (
    UseItem as UseItem,
)
from ._encounter import (
    CombatantSpec as CombatantSpec,
)
from ._encounter import (
    EncounterSpec as EncounterSpec,
)
from ._encounter import (
    Item as Item,
)
from ._encounter import (
    Shield as Shield,
)
from ._encounter import (
    SpecialAction as SpecialAction,
)
from ._encounter import (
    Spell as Spell,
)
from ._encounter import (
    Weapon as Weapon,
)
from ._errors import (
    EncounterFileError as EncounterFileError,
)
from ._errors import (
    IllegalActionError as IllegalActionError,
)
from ._errors import (
    InitiativeError as InitiativeError,
)
from ._errors import (
    LogFormatError as LogFormatError,
)
from ._errors import (
    PolicyLoadError as PolicyLoadError,
)
from ._errors import (
    ReplayDivergedError as ReplayDivergedError,
)
from ._errors import (
    UnknownRulesetError as UnknownRulesetError,
)
from ._events import (
    DECISION_EVENTS as DECISION_EVENTS,
)
from ._events import (
    ActionDeclared as ActionDeclared,
)
from ._events import (
    ActionRejected as ActionRejected,
)
from ._events import (
    AnyEvent as AnyEvent,
)
from ._events import (
    APChanged as APChanged,
)
from ._events import (
    AttackResolved as AttackResolved,
)
from ._events import (
    CheckResolved as CheckResolved,
)
from ._events import (
    CombatantDefeated as CombatantDefeated,
)
from ._events import (
    CombatantJoined as CombatantJoined,
)
from ._events import (
    CombatantLeft as CombatantLeft,
)
from ._events import (
    ConditionAdded as ConditionAdded,
)
from ._events import (
    ConditionRemoved as ConditionRemoved,
)
from ._events import (
    CounterChanged as CounterChanged,
)
from ._events import (
    DamageDealt as DamageDealt,
)
from ._events import (
    DecisionFailed as DecisionFailed,
)
from ._events import (
    DiceRolled as DiceRolled,
)
from ._events import (
    EncounterEnded as EncounterEnded,
)
from ._events import (
    EncounterStarted as EncounterStarted,
)
from ._events import (
    Event as Event,
)
from ._events import (
    Healed as Healed,
)
from ._events import (
    InitiativeOrdered as InitiativeOrdered,
)
from ._events import (
    InitiativeRolled as InitiativeRolled,
)
from ._events import (
    InsertedTurnEnded as InsertedTurnEnded,
)
from ._events import (
    Moved as Moved,
)
from ._events import (
    OpeningClosed as OpeningClosed,
)
from ._events import (
    OpeningOpened as OpeningOpened,
)
from ._events import (
    PriorityGranted as PriorityGranted,
)
from ._events import (
    PriorityPassed as PriorityPassed,
)
from ._events import (
    RoundEnded as RoundEnded,
)
from ._events import (
    RoundStarted as RoundStarted,
)
from ._events import (
    TurnEnded as TurnEnded,
)
from ._events import (
    TurnInserted as TurnInserted,
)
from ._events import (
    TurnStarted as TurnStarted,
)
from ._log import (
    LOG_FORMAT as LOG_FORMAT,
)
from ._log import (
    LogContents as LogContents,
)
from ._log import (
    LogWriter as LogWriter,
)
from ._log import (
    decode_event as decode_event,
)
from ._log import (
    encode_event as encode_event,
)
from ._log import (
    encode_lines as encode_lines,
)
from ._log import (
    parse_log as parse_log,
)
from ._log import (
    read_log as read_log,
)
from ._values import (
    POSITION_DECIMALS as POSITION_DECIMALS,
)
from ._values import (
    TURN as TURN,
)
from ._values import (
    Position as Position,
)
from ._values import (
    Trigger as Trigger,
)
from ._values import (
    Window as Window,
)
