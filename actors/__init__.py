"""Combatants as Trio tasks, their policies, and the nursery that runs an encounter."""

from ._builtin import BUILTIN as BUILTIN
from ._combatant import (
    FightOver as FightOver,
    PolicyRunner as PolicyRunner,
    Strict as Strict,
    choose_host as choose_host,
    combatant as combatant,
)
from ._conformance import Conformance as Conformance, check_policy as check_policy
from ._context import PolicyContext as PolicyContext
from ._gm_commands import (
    GM_HELP as GM_HELP,
    is_gm as is_gm,
    parse_gm as parse_gm,
    roster_text as roster_text,
)
from ._hosts import HOSTS as HOSTS
from ._human import Human as Human
from ._inline import (
    EXECUTORS as EXECUTORS,
    Executor as Executor,
    InlineSeat as InlineSeat,
    in_line as in_line,
    inline_seats as inline_seats,
    play_inline as play_inline,
)
from ._loading import (
    ENTRY_POINT_GROUP as ENTRY_POINT_GROUP,
    LoadedPolicy as LoadedPolicy,
    PolicyChoice as PolicyChoice,
    check_names as check_names,
    check_policies as check_policies,
    load_policy as load_policy,
    names_file as names_file,
    plain_code as plain_code,
    policy_label as policy_label,
    policy_names as policy_names,
)
from ._lookahead import Lookahead as Lookahead, hp_balance as hp_balance
from ._mailbox import Mailbox as Mailbox
from ._policies import (
    Cautious as Cautious,
    RandomPolicy as RandomPolicy,
    Scripted as Scripted,
    Tactician as Tactician,
    aggressive as aggressive,
    cautious as cautious,
    closing as closing,
    offers_that as offers_that,
)
from ._run import (
    Result as Result,
    make_runners as make_runners,
    play_fight as play_fight,
    run_encounter as run_encounter,
    run_encounter_sync as run_encounter_sync,
    schedule as schedule,
)
from ._screen import (
    Choice as Choice,
    Names as Names,
    Presentation as Presentation,
    Seen as Seen,
    StateTable as StateTable,
    health as health,
    present as present,
    render as render,
    screen as screen,
    table_of as table_of,
)
from ._search import Search as Search, kinds_first as kinds_first
from ._seat import Seat as Seat, SeatDropped as SeatDropped, new_token as new_token
from ._table_dice import (
    AskDice as AskDice,
    FileDice as FileDice,
    check_faces as check_faces,
    table_dice as table_dice,
)
from ._terminal import Terminal as Terminal, TerminalClosed as TerminalClosed
from ._typed import (
    MOVE_HELP as MOVE_HELP,
    Known as Known,
    MoveOffer as MoveOffer,
    NotAMove as NotAMove,
    Spot as Spot,
    looks_like_move as looks_like_move,
    move_frame as move_frame,
    move_hint as move_hint,
    move_offer as move_offer,
    typed_point as typed_point,
)
from ._words import (
    answer_words as answer_words,
    condition_words as condition_words,
    trigger_words as trigger_words,
)
