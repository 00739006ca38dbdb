"""The ``openings`` ruleset (seed ``003_bddf491e387d04a2.txt``): priority and openings. See
``_ruleset`` for the rules it implements and its defaults."""

from ._options import OpeningsOptions as OpeningsOptions
from ._ruleset import Openings as Openings

RULESET = Openings
