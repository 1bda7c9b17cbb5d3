"""Determinized rollouts of a policy (perfect-information Monte Carlo): a search that plays
a learned policy forward, for the card games.

For a move, each of ``determinizations`` re-deals of the cards hidden from the player
(``state.resample(player, rng)``, as ISMCTS makes them) is copied once per legal action;
each copy takes its action, then ``policy`` plays every seat until the rollout stops. All
the rollouts of a move step together, so the policy decides for all of them in one
``act_batch`` call per step (a network's forward pass over the batch, not one per seat).
The copies of one re-deal share its generator's state, so the actions compared on it
meet the same later deals (common random numbers). The move is the action of the best
mean value; equal values go to the policy's own choice.

A rollout stops at the game's end, valued by ``returns()`` (the zero-sum final standing,
what the arena's "finished ahead" counts), or, with ``horizon=deal`` (the default), at the
next chance outcome (the next round's deal): from there nobody knows the cards, and the
rounds after it are far away. A cut rollout is valued by the player's score margin over
the other players' mean (in team games the scores are the teams'), what the move gained
on the table. The rollouts then cost a round, not the rest of the game. In the arena's
tables (s/move, same run): in Lunar (4 players) a move of 16 re-deals takes about a third
of ``ismcts:iterations=200``'s time, in CATsle Builders (4 players) one of 8 about 2.3
times it, since that network reads the heuristic's estimates, computed at every step
(measured with the estimates in numpy; in C since, about 1.5 times the re-deals fit in a
time budget at 3 players: benchmarks/catsle_estimates_speed.py).

Against ISMCTS, which grows a tree over its 200 re-deals but values leaves by uniformly
random playouts, this searches one move deep and values it by the policy's own play (GIB
searched bridge's re-deals the same way, valuing them with a double-dummy solver); the
policy is what makes it strong.

``playouts=M`` mixes in uniformly random playouts, as AlphaGo mixed its value network's
estimate with its rollouts' results (each alone played worse than the mix): a rollout cut
at the deal is finished by M random playouts to the game's end, played in C, so its value
is a return too, and M random playouts from the move itself make the other half of the
value; ``mix`` weighs the network's half (``mix=0``: the random playouts alone). The
playouts of one re-deal's copies share their seeds. The value is then what the arena
counts, the standing at the end. At CATsle Builders' 3 players (checkpoints/README.md)
16 re-deals with ``playouts=4`` finish ahead of ``ismcts:iterations=200`` in 60.2%
[54.5%, 65.8%] of 204 games (plain PIMC: about 51% on trial deals), but ``mix=0`` does
58.5% [54.1%, 62.8%] at an eighth of the time: there the random playouts, compared on
common random numbers, carry most of the strength and the network adds a few points.

Options (``pimc:policy=shipped,determinizations=8``): ``policy`` the rollout policy, a
name or checkpoint path as ``make_policy`` reads it, without options of its own, that reads
only its observation (a network, a heuristic, random; not a search bot) (default
``shipped``: the shipped network for the table's player count); ``determinizations`` per
move (default 8); ``horizon`` ``deal`` or ``end`` (play every rollout to the game's end);
``playouts`` random playouts per rollout and per move copy (default 0: none, the
values above); ``mix`` the network's weight beside them (default 0.5); ``redeal``
``uniform`` (default) or ``weighted``: re-deals weighted by how likely the other players'
moves since the deal were under ``redeal_policy`` (default ``shipped``), drawn from
``candidates`` (default 4) times as many (``catzoo.policies.search.determinize``).

``seconds=S`` makes the search anytime: re-deals are valued in chunks (2, then doubling up
to 32, each chunk's rollouts stepped together) until the budget is spent, a chunk started
only when the time the chunks so far took per re-deal says it ends in time, so a move takes
at most S plus one chunk (``catzoo.policies.search.budget``: the clock is the process's,
wall time at the tables, CPU time in the arena). ``determinizations``, given too, caps the
re-deals; without it they are bounded by the time alone. Without ``seconds`` the move is
exactly ``move_values`` of one search (tests/test_pimc.py).
"""

from __future__ import annotations

import random

from catzoo.games.base import TERMINAL
from catzoo.policies.base import Policy, legal_actions
from catzoo.policies.search.budget import Budget
from catzoo.policies.search.determinize import REDEAL_OPTIONS, Redealer
from catzoo.policies.search.inner import InnerPolicy
from catzoo.policies.search.options import SearchOptionError, check_options, require_state
from catzoo.policies.search.rollouts import Search, move_values

OPTIONS = {
    "policy": (str, "shipped", lambda v: bool(v) and v != "pimc" and not v.startswith("pimc:"),
               "a policy name or checkpoint path (not pimc itself)"),
    "determinizations": (int, 8, lambda v: v >= 1, "at least 1"),
    "horizon": (str, "deal", lambda v: v in ("deal", "end"), "deal or end"),
    "playouts": (int, 0, lambda v: v >= 0, "at least 0"),
    "mix": (float, 0.5, lambda v: 0 <= v <= 1, "between 0 and 1"),
    "seconds": (float, None, lambda v: v > 0, "positive"),
    "threshold": (float, 0.0, lambda v: v >= 0, "at least 0"),
    **REDEAL_OPTIONS,
}
# With a time budget: the first chunk of re-deals, the largest, and the most re-deals when
# no ``determinizations`` caps them (a bound on memory, far past any budget's reach).
FIRST_CHUNK, LARGEST_CHUNK, MOST_DETERMINIZATIONS = 2, 32, 100_000


class PIMCPolicy(Policy):
    name = "pimc"
    options = OPTIONS  # a bot built on this one (sparta) names its own table
    policy_picks = False  # re-deals keep their partner's unseen pick (sparta's unseen_pick)

    def __init__(self, num_players: int | None = None, seed: int | None = None, **options):
        bot = type(self).name
        opts = check_options(bot, options, type(self).options)
        self.checked_options = opts  # a bot built on this one reads its own options here
        self.spec = opts["policy"]
        self.seconds = opts["seconds"]
        # A time budget alone is not capped by the default number of re-deals.
        self.determinizations = (MOST_DETERMINIZATIONS
                                 if self.seconds and "determinizations" not in options
                                 else opts["determinizations"])
        self.clock = None  # the budget's clock: None for the process's (budget.py)
        self.last_determinizations = 0  # of the last move searched, for benchmarks
        self.horizon = opts["horizon"]
        self.playouts, self.mix = opts["playouts"], opts["mix"]
        self.threshold = opts["threshold"]
        self.seed = seed
        self.rng = random.Random(seed)
        self.rollout = InnerPolicy(f"{bot}: its rollout policy", self.spec, seed)
        self.redealer = Redealer(bot, opts, seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = random.Random(seed)
        self.rollout.reset(seed)

    def act(self, observation, *, state=None, player=None) -> int:
        legal = legal_actions(observation)
        if legal.size == 1:
            return int(legal[0])
        require_state(type(self).name, "plays", state, player)
        budget = Budget(self.seconds, self.clock)
        if self.playouts and not hasattr(state, "playout_returns"):
            raise SearchOptionError(f"{type(self).name}: playouts={self.playouts} needs a game whose rules "
                                    f"play in C (random playouts); {state.game_name} has none")
        rollout = self.rollout.for_state(state)
        own = int(rollout.act_batch(observation["observation"][None],
                                    observation["action_mask"][None])[0])
        moves = [int(a) for a in legal]
        values = self.values(state, int(player), moves, rollout, budget)
        best = max(values.values())
        # Equal values (often: a move that changes nothing this round) go to the policy,
        # and so do values less than ``threshold`` better than its move's.
        if values.get(own, -float("inf")) >= best - self.threshold:
            return own
        return next(a for a in moves if values[a] == best)

    def values(self, state, player: int, legal: list[int], rollout: Policy,
               budget: Budget | None = None) -> dict[int, float]:
        """Each legal action's mean rollout value for ``player``: over ``determinizations``
        re-deals, or over as many as ``budget`` allows (at least one chunk)."""
        if budget is None or budget.deadline is None:
            self.last_determinizations = self.determinizations
            return self._chunk(state, player, legal, rollout, self.determinizations)
        totals = dict.fromkeys(legal, 0.0)
        done, chunk, spent = 0, FIRST_CHUNK, 0.0
        while done < self.determinizations:
            size = min(chunk, self.determinizations - done)
            if done:
                per_redeal = spent / done
                left = budget.deadline - budget.clock()
                # (1e-9: a re-deal that fits exactly is not lost to rounding)
                size = min(size, int(left / per_redeal + 1e-9) if per_redeal > 0 else size)
                if size < 1:
                    break
            start = budget.clock()
            for a, v in self._chunk(state, player, legal, rollout, size).items():
                totals[a] += v * size
            spent += budget.clock() - start
            done += size
            chunk = min(2 * chunk, LARGEST_CHUNK)
        self.last_determinizations = done
        return {a: t / done for a, t in totals.items()}

    def _chunk(self, state, player: int, legal: list[int], rollout: Policy,
               determinizations: int) -> dict[int, float]:
        return move_values([Search(state, player, legal, self.rng,
                                   self.redealer.for_state(state),
                                   rollout if self.policy_picks else None)], rollout,
                           determinizations=determinizations, horizon=self.horizon,
                           playouts=self.playouts, mix=self.mix)[0]


def playout_value(sim, player: int, seeds: list[int]) -> float:
    """``player``'s mean return over uniformly random playouts of ``sim`` to the game's end,
    one per seed, played in C on copies (``sim`` is unchanged); its return if it is over."""
    if sim.current_player == TERMINAL:
        return float(sim.returns()[player])
    return sum(float(sim.playout_returns(seed)[player]) for seed in seeds) / len(seeds)
