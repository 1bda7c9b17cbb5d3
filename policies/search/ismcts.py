"""Information-set Monte Carlo tree search, one implementation for every card game.

Each iteration searches one determinization: ``state.resample(player, rng)`` re-deals the
cards hidden from the searching player consistently with what it saw, as OpenSpiel's
ISMCTS does. Tree nodes are keyed by information state, here (player to act, that
player's observation vector), so one node gathers every determinization the acting player
cannot tell apart and the search cannot exploit hidden cards. Actions that are legal in
some determinizations only are handled with availability counts (Cowling, Powley and
Whitehouse 2012): a child's exploration term uses how often it was available, not how often
its parent was visited. Leaves are valued by uniformly random playouts to the end of the
game, scored with ``returns()`` (so partners of a team, and cooperative players, pull in
the same direction); the compiled card games play a playout in one call to their core
(``CompiledState.playout_returns``, its moves drawn from a seed of the search's generator),
the others move by move here.

Options (``ismcts:iterations=400,c=1.4``): ``iterations`` per move (default 200), or
``seconds`` of thinking per move (then iterations are capped only if given too; a time
budget makes the play depend on the machine's speed, so the arena's reproducibility
needs iterations); ``c`` the exploration constant; ``rollout_depth`` cuts playouts after
that many actions and scores the standing reached (for very long games).

``prior`` (``ismcts:prior=shipped``) guides the tree with a network's move probabilities,
as AlphaZero's PUCT does: a child is chosen by its mean return plus ``c * P(a) *
sqrt(availability) / (1 + visits)`` (an unvisited child's mean counts as 0, the mean of a
zero-sum return), so the iterations go to the moves the network rates and to the replies
it expects, where plain ISMCTS tries every legal move alike. ``prior`` names a network as
``make_policy`` reads it (``shipped``: the shipped one for the table's player count, or a
checkpoint path). Every new node asks the network, about once an iteration (CATsle
Builders, 3 players, 200 iterations: 0.16 s a move in the arena against plain ISMCTS's
0.037). Asking only at nodes reached twice was tried and dropped: in the card games the
next player's node holds that player's hand, which every determinization deals anew, so
such a search is nearly plain ISMCTS with a prior at the root, and played worse. Stronger
it is not: ``ismcts:prior=shipped,c=2.5`` finishes ahead of plain ISMCTS-200 in 49.1%
[44.1%, 54.2%] of 3-player CATsle Builders meetings (checkpoints/README.md).

``seconds`` bounds a move's time, not only the number of iterations started: a playout
still running at the deadline stops there and is scored on the standing reached, as a
``rollout_depth`` cut is. One playout of Cats Knocking Things Off Ledges simulates a
whole game (about 1.3 s), so a move of 200 iterations took minutes there; with
``seconds=S`` a move takes S plus at most one action's simulation and one
determinization (the web server offers ``ismcts`` with such a budget). The clock is the
process's (``catzoo.policies.search.budget``: wall time at the tables, the thread's CPU
time in the arena), or the bot's ``clock`` when one is set.

``redeal=weighted`` draws the determinizations weighted by how likely the other players'
moves since the deal were under ``redeal_policy`` (default ``shipped``), from ``candidates``
(default 4) times as many uniform ones, 32 at a time (``catzoo.policies.search.determinize``);
the default ``uniform`` draws one per iteration.
"""

from __future__ import annotations

import math
import random

from catzoo.games.base import TERMINAL
from catzoo.policies.base import Policy, legal_actions
from catzoo.policies.search.budget import Budget
from catzoo.policies.search.determinize import (
    REDEAL_OPTIONS,
    Redealer,
    determinizations,
    determinize,
)
from catzoo.policies.search.inner import InnerPolicy
from catzoo.policies.search.options import SearchOptionError, check_options, require_state

DEFAULT_ITERATIONS = 200

OPTIONS = {
    "iterations": (int, DEFAULT_ITERATIONS, lambda v: v >= 1, "at least 1"),
    "seconds": (float, None, lambda v: v > 0, "positive"),
    "c": (float, 1.0, lambda v: v >= 0, "at least 0"),
    "rollout_depth": (int, None, lambda v: v >= 1, "at least 1"),
    "prior": (str, None, lambda v: bool(v) and v.partition(":")[0] not in ("ismcts", "pimc"),
              "a network's name or checkpoint path (not a search bot)"),
    **REDEAL_OPTIONS,
}
# Weighted re-deals are drawn this many at a time (their network weighs a chunk's
# candidates in one forward pass); uniform ones one per iteration, as always.
REDEAL_CHUNK = 32

# A child's statistics: [visits, total return of the player who chose it, availability].
VISITS, TOTAL, AVAIL = 0, 1, 2
PRIOR = -1  # a node's key holding the prior's probabilities over its actions (never an action)


class ISMCTSPolicy(Policy):
    name = "ismcts"

    def __init__(self, num_players: int | None = None, seed: int | None = None, **options):
        opts = check_options("ismcts", options, OPTIONS)
        self.seconds = opts["seconds"]
        # A time budget alone is not capped by the default number of iterations.
        self.iterations = None if self.seconds and "iterations" not in options else opts["iterations"]
        self.c = opts["c"]
        self.rollout_depth = opts["rollout_depth"]
        self.rng = random.Random(seed)
        self.prior = (None if opts["prior"] is None
                      else InnerPolicy("ismcts: its prior policy", opts["prior"], seed))
        self._net = None  # the prior's policy for the table of the current search
        self.redealer = Redealer("ismcts", opts, seed)
        self.last_iterations = 0  # of the last search, for benchmarks and curious users
        self.clock = None  # the budget's clock: None for the process's (budget.py)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = random.Random(seed)
        if self.prior is not None:
            self.prior.reset(seed)

    def act(self, observation, *, state=None, player=None) -> int:
        legal = legal_actions(observation)
        if legal.size == 1:
            return int(legal[0])
        require_state("ismcts", "searches", state, player)
        return self.search(state, int(player), [int(a) for a in legal])

    def search(self, state, player: int, legal: list[int]) -> int:
        budget = Budget(self.seconds, self.clock)
        rng = self.rng
        root: dict[int, list] = {}
        if self.prior is not None:
            self._net = self.prior.for_state(state)
            if not hasattr(self._net, "action_probabilities"):
                raise SearchOptionError(f"ismcts: prior={self.prior.spec!r} is not a network "
                                        "(it has no action probabilities)")
            root[PRIOR] = self._probabilities(state.observation(player), state.legal_mask())
        table: dict[tuple, dict] = {}
        redeal = self.redealer.for_state(state)
        pool: list = []
        done = 0
        while True:
            if self.iterations is not None and done >= self.iterations:
                break
            if done and budget.over():
                break
            if redeal is None:
                det = determinize(state, player, rng)
            else:
                if not pool:
                    size = REDEAL_CHUNK if self.iterations is None else min(
                        REDEAL_CHUNK, self.iterations - done)
                    pool = determinizations(state, player, rng, size, redeal)[::-1]
                det = pool.pop()
            self._iterate(det, root, table, rng, budget)
            done += 1
        self.last_iterations = done
        # The most visited legal move; equal visits go to the better mean, then the order
        # of first visit (deterministic, unlike a set's order).
        best, best_key = legal[0], None
        for a in legal:
            st = root.get(a)
            key = (-1, 0.0) if st is None else (st[VISITS], st[TOTAL] / max(st[VISITS], 1))
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best

    def _iterate(self, det, root: dict, table: dict, rng: random.Random,
                 budget: Budget | None = None) -> None:
        path = []
        node = root
        c = self.c
        while True:
            p = det.current_player
            legal = det.legal_actions()
            untried = []
            for a in legal:
                st = node.get(a)
                if st is None:
                    st = node[a] = [0, 0.0, 0]
                st[AVAIL] += 1
                if st[VISITS] == 0:
                    untried.append(a)
            if PRIOR in node:
                action = self._puct(node, legal)
            elif untried:
                action = untried[int(rng.random() * len(untried))]
            else:
                best_value = -math.inf
                for a in legal:
                    v, t, n_avail = node[a]
                    value = t / v + c * math.sqrt(math.log(n_avail) / v)
                    if value > best_value:
                        action, best_value = a, value
            new_edge = node[action][VISITS] == 0
            path.append((node[action], p))
            det.apply_unchecked(action)
            q = det.current_player
            if new_edge or q == TERMINAL:
                break  # one new edge per iteration, then a playout from it
            obs = det.observation(q)
            key = (q, obs.tobytes())
            node = table.get(key)
            if node is None:
                node = table[key] = {}
                if self._net is not None:
                    node[PRIOR] = self._probabilities(obs, det.legal_mask())
        if hasattr(det, "playout_returns"):  # a compiled game: the whole playout in C
            result = det.playout_returns(rng.getrandbits(64), self.rollout_depth)
        else:
            self._playout(det, rng, budget)
            result = det.returns()
        for st, p in path:
            st[VISITS] += 1
            st[TOTAL] += result[p]

    def _probabilities(self, obs, mask) -> list[float]:
        return self._net.action_probabilities(obs[None], mask[None])[0].tolist()

    def _puct(self, node: dict, legal: list[int]) -> int:
        """AlphaZero's rule, with a child's availability in place of its parent's visits;
        an unvisited child's value counts as 0 (the mean of a zero-sum return)."""
        prior, c = node[PRIOR], self.c
        best_value, action = -math.inf, legal[0]
        for a in legal:
            v, t, n_avail = node[a]
            value = (t / v if v else 0.0) + c * prior[a] * math.sqrt(n_avail) / (1 + v)
            if value > best_value:
                action, best_value = a, value
        return action

    def _playout(self, det, rng: random.Random, budget: Budget | None = None) -> None:
        limit = self.rollout_depth
        steps = 0
        while det.current_player != TERMINAL:
            if limit is not None and steps >= limit:
                return
            if budget is not None and budget.over():
                return  # out of time: scored on the standing reached
            legal = det.legal_actions()
            det.apply_unchecked(legal[int(rng.random() * len(legal))])
            steps += 1
