"""A PettingZoo AEC environment of an encounter, and a Gymnasium wrapper for one learner.

Needs the ``env`` extra (``pip install 'initiative[env]'``)::

    from initiative.env import env
    e = env("openings-duel", log_dir="logs")   # a path, a bundled example's name or its id
    e.reset(seed=3)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0])
        e.step(action)

**Agents** are the encounter's combatants (their ids), all present from ``reset``. The agent
selected is the one holding priority. A defeated combatant stays among the agents and is never
selected again, so at the end it gets its side's reward with the rest; every agent is
terminated when the encounter ends (truncated instead when it ended at the round limit).

**Actions** are ``Discrete(max_offers + move slots)``: action ``k < max_offers`` is the ``k``-th legal offer of the
current priority token (``info["view"].legal[k]``, the engine's own order; the closing
``EndTurn``/``Pass`` is always the last valid one). ``observation["action_mask"]`` has a 1 for
each valid index. When a token has more offers than ``max_offers``, the first
``max_offers - 1`` and the closing one are kept. The move slots follow: for each combatant row
but the observer's own (``max_combatants - 1`` rows), one slot per :data:`MOVE_KINDS` (toward
it to strike, to just outside its reach, away, around it either way), open when the fight
offers a ``Move`` now and the point is one it accepts; :meth:`Encoder.slot` names a slot. The
size is fixed per ruleset (87 with the defaults). An index outside the mask raises
:class:`InvalidActionError` (``invalid_action="refuse"``, the default); with
``invalid_action="pass"`` it is recorded in the log as an invalid decision (``DecisionFailed``),
as for any policy, and the combatant passes; with a number ``p`` nothing is sent, the same agent
decides again and its reward is ``-p``.

**Observations** are ``{"observation": float32 vector, "observations": the same vector (the key
RLlib's action-masking models read), "action_mask": int8 vector}``. The
vector has the same length for every encounter of a ruleset (given ``max_combatants``, default
12 or the encounter's number of combatants if larger, and ``max_offers``), so one network reads
a duel and a skirmish. It is four blocks (:meth:`Encoder.split` cuts them apart):

- the global features (the round, turn or opening, the opening's trigger kind);
- one row per combatant, ``max_combatants`` rows: the observer's own first, then its allies,
  then its enemies, each in the encounter's order; a row is all 0 (``present`` 0) for a
  combatant the observer does not see standing. A row holds hit points, AP, the position
  relative to the observer, its weapons' reach, range and damage, its stats, one column per
  condition and counter type the ruleset declares, and whether it made or is the target of
  the opening's trigger;
- one row per offer slot, ``max_offers`` rows: its kind (one column per action kind of the
  ruleset, :func:`action_kinds`: the shared tags and the ruleset's declared actions, sorted by
  tag), the action's markers, its cost, the combatant row it names, its weapon, and a
  destination relative to the actor.
- one row per move slot: whether it is open, where it ends, how far it goes, and how far the
  point is from its combatant and from the nearest enemy.

Every feature lies in a documented range, which the ``Box``'s bounds state feature by feature;
:func:`feature_table` lists them (docs/env.md shows that table).

``info["view"]`` is the typed :class:`engine.View` (without ``fork``) for the agent selected.
:class:`Encoder` gives the same observation and mask from any view (``encoder(view)``), and
:func:`model_policy` makes a policy of a model trained on them (``model(observation, mask) ->
index``), for ``initiative.run``, ``batch``, ``duel`` and ``--policy ID=file.py:NAME``.

**Rewards**: ``reward="win"`` (default) gives +1 to each combatant of the winning side and -1
to the others when the encounter ends (0 to all for no winner); ``reward="damage"`` gives each
combatant the damage it deals, as it deals it; ``"win+damage"`` both. A function
``reward(event, agent) -> float`` is called for every new event and agent.

**Seeds**, as Gymnasium does it: ``reset(seed=s)`` fights the encounter with seed ``s`` (the
same seed and actions give the same fight and the same log bytes) and seeds the environment's
generator; a later ``reset()`` without a seed draws the next fight's seed from that generator,
so copies seeded ``s, s+1, ...`` never fight each other's fights. A first ``reset()`` without a
seed draws from the system's entropy. Every info holds ``info["seed"]``, the fight's seed:
``initiative run ENCOUNTER --seed S`` with the same decisions replays the episode.

**Registered ids**: importing :mod:`initiative.env` registers
``initiative/<example>-v0`` for every bundled example (``gymnasium.make(id, learner=...)`` is
:func:`single_agent` in a ``TimeLimit`` of ``max_rounds * STEPS_PER_ROUND`` steps) and
``initiative/encounter-v0`` (``encounter=PATH``); :func:`env` takes the same ids.

**Pickling**: every environment pickles (``AsyncVectorEnv``, ``SubprocVecEnv``): a copy has
the same options and seed generator, not the fight under way (call ``reset()`` on it).

**Rendering**: with ``render_mode="ansi"``, ``render()`` returns the events since the last
render as text; ``step()`` prints nothing. ``step()`` after the end raises
:class:`EpisodeEndedError` (PettingZoo's order-enforcing wrapper of :func:`env` warns first).

**Logs**: with ``log_dir``, every episode writes ``NAME.seedS.epN.jsonl`` there; a log is a
normal log that ``initiative verify`` accepts once its episode ended. Without it, the lines are
kept in memory (``env.unwrapped.stepper.lines``).
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as missing:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        f"initiative.env needs the 'env' extra ({missing.name} is missing):"
        " pip install 'initiative[env]'"
    ) from None

from ._aec import (
    EpisodeEndedError as EpisodeEndedError,
    InvalidActionError as InvalidActionError,
    env as env,
    raw_env as raw_env,
)
from ._encoder import Encoder as Encoder, find_encounter as find_encounter
from ._features import (
    ACTION_FLAGS as ACTION_FLAGS,
    ACTION_KINDS as ACTION_KINDS,
    DEFAULT_MAX_COMBATANTS as DEFAULT_MAX_COMBATANTS,
    MOVE_KINDS as MOVE_KINDS,
    TRIGGER_KINDS as TRIGGER_KINDS,
    Feature as Feature,
    action_kinds as action_kinds,
    feature_docs as feature_docs,
    feature_table as feature_table,
    mark_names as mark_names,
)
from ._gym import SingleAgentEnv as SingleAgentEnv, single_agent as single_agent
from ._models import Model as Model, model_policy as model_policy
from ._registry import (
    ENCOUNTER_ID as ENCOUNTER_ID,
    STEPS_PER_ROUND as STEPS_PER_ROUND,
    example_ids as example_ids,
    register_examples as register_examples,
)

register_examples()

__all__ = [
    "ENCOUNTER_ID",
    "STEPS_PER_ROUND",
    "InvalidActionError",
    "example_ids",
    "register_examples",
    "ACTION_FLAGS",
    "ACTION_KINDS",
    "DEFAULT_MAX_COMBATANTS",
    "MOVE_KINDS",
    "TRIGGER_KINDS",
    "Encoder",
    "EpisodeEndedError",
    "Feature",
    "Model",
    "SingleAgentEnv",
    "action_kinds",
    "env",
    "feature_docs",
    "find_encounter",
    "feature_table",
    "mark_names",
    "model_policy",
    "raw_env",
    "single_agent",
]
