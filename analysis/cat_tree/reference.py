"""The Cat Tree reference deals: fixed deals with the best plan known for each.

The oracle's search (``oracle.solve``) is fast enough for thousands of deals but falls a
few percent short of the best plans on many of them; CP-SAT (``program.improve``) finds
better ones given a minute a deal. The reference deals ship those better plans, so a
policy can be reported as a percentage of the best *known* score without the minutes of
solving: the standard set of this game, as TSPLIB's best-known tours are for the
travelling salesman. ``catzoo.analysis.cat_tree.build`` builds and improves the file.

Every plan is replayed through the rules engine when the file is loaded: a plan that is
illegal or does not reach its recorded score is refused, naming the deal, so the
scores cannot be wrong (only beatable). ``bound`` is the deal's upper bound
(``grid_bound.best_bound``); where it equals ``score`` the plan is proven optimal.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from catzoo.analysis.cat_tree.oracle import replay_plan
from catzoo.games.cat_tree.options import LETTERS, CatTreeOptions

FORMAT = 1
PATH = Path(__file__).with_name("reference_deals.json")
_DECK = Counter({letter: 4 for letter in LETTERS})


class ReferenceError(ValueError):
    """A reference file that cannot be trusted; the message names the deal and why."""


@dataclass(frozen=True)
class ReferenceDeal:
    seed: int  # the deck of a game seeded so (``oracle.deals(1, seed)``)
    deck: tuple[int, ...]
    score: int  # best known: ``actions`` reach it
    bound: int  # no game on the deal scores more
    actions: tuple[int, ...]
    found_by: str


def deck_text(deck) -> str:
    """A deck as its cards' letters (``LETTERS``), in dealing order."""
    return "".join(LETTERS[kind] for kind in deck)


def _deck_of(text: str, seed: int) -> tuple[int, ...]:
    """The deck written as ``deck_text`` wrote it."""
    if Counter(text) != _DECK:
        raise ReferenceError(f"reference deal {seed}: the deck {text!r} is not the 32 cards "
                             f"(four of each of {''.join(LETTERS)})")
    return tuple(LETTERS.index(letter) for letter in text)


def _replayed(deck, actions, seed: int) -> int:
    try:
        state = replay_plan(deck, actions, CatTreeOptions())
    except ValueError as err:
        raise ReferenceError(f"reference deal {seed}: its plan is illegal: {err}") from None
    if not state.is_terminal():
        raise ReferenceError(f"reference deal {seed}: its plan stops before the game ends")
    return state.total


def load(path: str | Path = PATH) -> list[ReferenceDeal]:
    """The reference deals of ``path`` (default: the shipped file), each plan checked."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
        if data.get("format") != FORMAT:
            raise ReferenceError(f"{path}: format {data.get('format')!r}, expected {FORMAT}")
        entries = data["deals"]
        found = []
        for entry in entries:
            seed = int(entry["seed"])
            deck = _deck_of(entry["deck"], seed)
            actions = tuple(int(a) for a in entry["actions"])
            score, bound = int(entry["score"]), int(entry["bound"])
            replayed = _replayed(deck, actions, seed)
            if replayed != score:
                raise ReferenceError(f"reference deal {seed}: its plan scores {replayed}, "
                                     f"not the recorded {score}")
            if bound < score:
                raise ReferenceError(f"reference deal {seed}: bound {bound} below its "
                                     f"score {score}")
            found.append(ReferenceDeal(seed, deck, score, bound, actions,
                                       str(entry.get("found_by", ""))))
    except ReferenceError:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:  # JSON errors too
        raise ReferenceError(f"{path}: not a reference file ({type(err).__name__}: {err})"
                             ) from None
    return found
