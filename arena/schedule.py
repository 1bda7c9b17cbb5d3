"""Who sits where in each arena game, and with which deal.

Games are grouped in rounds: a round is one group of policies played on one deal (one game
seed) in every rotation of its seating, so each member takes each seat once and the luck
of the deal cancels out (duplicate play). Groups: every combination of ``m`` distinct
policies when there are at least ``m`` (``m`` = the sides of a game: the players, or the
teams); with fewer policies than sides, all of them, cycled over the sides from each
starting policy. The cycle of all groups repeats until the requested number of games is
reached, rounded up to whole cycles so that every seat stays equally covered.

Team games seat partners from the same policy (the unit rotated is the team) unless
``mixed_teams``. In a cooperative game (one team holds every player) a round plays each
lineup on the same deal and the lineups are compared with each other: each policy filling
every seat, or with ``mixed_teams`` every assignment of policies to seats.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

import numpy as np

from catzoo.games.registry import get_game


class ArenaSetupError(ValueError):
    """A user error in the arena's configuration (policies, players, games)."""


@dataclass(frozen=True)
class Seating:
    index: int  # game number in the arena
    round: int
    seed: int  # the deal: every rotation of a round shares it
    seats: tuple[int, ...]  # policy index at each seat


@dataclass(frozen=True)
class Structure:
    """The sides of a game: ``teams`` lists the seats of each team (singletons when there
    are no partnerships); ``cooperative`` when one team holds every player."""

    teams: tuple[tuple[int, ...], ...]

    @property
    def cooperative(self) -> bool:
        return len(self.teams) == 1

    def team_of(self) -> list[int]:
        out = [0] * sum(len(t) for t in self.teams)
        for k, team in enumerate(self.teams):
            for seat in team:
                out[seat] = k
        return out


def game_structure(game: str, num_players: int, options: dict | None = None) -> Structure:
    # the cache's key: sequence options (take_counts=[1, 2, 0]) as tuples
    key = tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                       for k, v in (options or {}).items()))
    return _structure(get_game(game).name, int(num_players), key)


@cache
def _structure(game: str, n: int, options: tuple) -> Structure:
    """The teams, as the engine declares them (``GameState.teams``)."""
    probe = get_game(game).engine_class().new(seed=0, num_players=n, **dict(options))
    return Structure(tuple(tuple(t) for t in probe.teams()))


def sides(structure: Structure, n: int, mixed_teams: bool) -> list[tuple[int, ...]]:
    """The units a policy is given: whole teams, or single seats. Mixed seats are listed
    team by team, so that policies cycled over them land on different teams' partners."""
    if structure.cooperative:
        return [(s,) for s in range(n)]
    if mixed_teams:
        return [(s,) for team in structure.teams for s in team]
    return list(structure.teams)


def cycle(num_policies: int, structure: Structure, n: int, mixed_teams: bool) -> list[list[tuple]]:
    """One cycle of rounds; each round is the list of seatings (policy per seat) it plays."""
    if num_policies < 2:
        raise ArenaSetupError("the arena needs at least two policies to compare")
    if structure.cooperative:
        # The lineups of a round play the same deal and are compared with each other:
        # each policy alone at every seat, or (mixed) every assignment of policies to seats.
        if not mixed_teams:
            return [[tuple([p] * n) for p in range(num_policies)]]
        return [list(itertools.product(range(num_policies), repeat=n))]
    units = sides(structure, n, mixed_teams)
    m = len(units)
    if num_policies >= m:
        groups = [list(g) for g in itertools.combinations(range(num_policies), m)]
    else:
        groups = [[(o + s) % num_policies for s in range(m)] for o in range(num_policies)]
    rounds = []
    for group in groups:
        seatings = []
        for shift in range(m):
            seats = [0] * n
            for u, unit in enumerate(units):
                for seat in unit:
                    seats[seat] = group[(u - shift) % m]
            seatings.append(tuple(seats))
        rounds.append(seatings)
    return rounds


def schedule(num_policies: int, games: int, num_players: int, structure: Structure,
             seed: int, mixed_teams: bool = False) -> list[Seating]:
    if games < 1:
        raise ArenaSetupError(f"the number of games must be at least 1, not {games}")
    rounds = cycle(num_policies, structure, num_players, mixed_teams)
    per_cycle = sum(len(r) for r in rounds)
    cycles = -(-games // per_cycle)
    out = []
    for c in range(cycles):
        for g, seatings in enumerate(rounds):
            r = c * len(rounds) + g
            deal = int(np.random.SeedSequence([seed, r]).generate_state(1)[0])
            for seats in seatings:
                out.append(Seating(len(out), r, deal, seats))
    return out
