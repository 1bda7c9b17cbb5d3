"""The nearest valid name to a mistyped one, for "did you mean ..." in error messages.

Every layer's errors about an unknown name (a game, an option, a policy, a config key, a
sub-command) end with the same hint; difflib's ratio is the measure, so a typo or a
missing letter is caught while an unrelated word suggests nothing.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def nearest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The choice closest to ``word`` (case-insensitive), or None when none is close."""
    choices = [str(c) for c in choices]
    lowered = {c.lower(): c for c in choices}
    found = difflib.get_close_matches(str(word).lower(), list(lowered), n=1, cutoff=cutoff)
    return lowered[found[0]] if found else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the nearest choice, or ``""``."""
    found = nearest(word, choices)
    return f" (did you mean {found!r}?)" if found is not None and found != word else ""
