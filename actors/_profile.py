"""A ruleset's search profile (:attr:`engine.Ruleset.search_profile`) as the policies read it:
checked as a whole when it is read, so that a malformed one is refused in one line naming the
ruleset and the field, never deep inside a search."""

from __future__ import annotations

import math

import msgspec
from initiative.engine import SearchProfile, find_ruleset
from initiative.events import PolicyLoadError


def search_profile(ruleset: str) -> SearchProfile:
    """The search profile of the ruleset called ``ruleset`` (``SearchProfile()``, the generic
    settings, for one that declares none); :class:`PolicyLoadError` for one that is not a
    :class:`~engine.SearchProfile`, has a field of the wrong type or out of its range, or a
    learned weight that is not finite."""
    profile = find_ruleset(ruleset).search_profile
    where = f"ruleset {ruleset!r}: search_profile"
    if not isinstance(profile, SearchProfile):
        raise PolicyLoadError(f"{where} is a {type(profile).__name__}, not an engine.SearchProfile")
    try:
        msgspec.convert(msgspec.structs.asdict(profile), SearchProfile)
    except msgspec.ValidationError as err:
        raise PolicyLoadError(f"{where}: {err}") from None
    if profile.value is not None and not all(math.isfinite(w) for w in profile.value):
        raise PolicyLoadError(f"{where}: a weight of value is not finite: {profile.value}")
    return profile
