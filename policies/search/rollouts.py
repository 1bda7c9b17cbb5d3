"""PIMC's move values for many searches at once: determinized rollouts of a policy, all of
them stepped together.

A search is one position to value from one player's view (``Search``): ``determinizations``
re-deals of the cards hidden from the player (``determinize``), each copied once per legal
move, each copy taking its move and then played on by the rollout policy for every seat
until it stops. Every live copy of every search in the batch moves at once: the policy
decides for all of them in one ``act_batch`` call per step (one forward pass of a network),
so valuing many positions together costs about as many policy calls as valuing one. A
compiled card game steps its copies in C (the core's ``RolloutBatch``); any other game steps
its Python states.

A rollout stops at the game's end, valued by ``returns()`` (the zero-sum final standing), or
with ``horizon="deal"`` at the next chance outcome (the next round's deal), valued by the
player's score margin over the other players' mean (``score_margin``). With ``playouts=M``
(compiled games only) both halves of a value are returns: the rollout, finished by M
uniformly random playouts in C, weighted ``mix``, and M random playouts from the move itself,
weighted ``1 - mix``; a half that weighs nothing is not played. The copies of one re-deal
share its generator's state and its playouts' seeds (common random numbers), so the moves
compared on it meet the same later deals and the same random play.

For the same generator, ``move_values([Search(state, player, legal, rng)], ...)`` is exactly
what the ``pimc`` bot computes for that move (tests/test_pimc.py): the bot is this function
with one search.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from catzoo.games.base import TERMINAL
from catzoo.policies.search.determinize import Redeal, determinizations
from catzoo.policies.search.planner import margin_of, score_margin


@dataclass
class Search:
    """One position to value: ``state`` seen by ``player`` (to act), its ``legal`` moves, and
    the generator its re-deals and playout seeds come from (consumed as the bot consumes its
    own)."""

    state: object
    player: int
    legal: list[int]
    rng: random.Random
    redeal: Redeal | None = None  # weighted re-deals (determinize.py), None for uniform
    picks: object = None  # the policy making the partner's unseen pick (partner_picks), or None


@dataclass
class _Copies:
    """The copies of one batch: for copy i, its search, the move it took first, its re-deal
    and the seeds of its random playouts."""

    search: list[int]
    move: list[int]
    redeal: list[int]
    seeds: list[list[int]]


def move_values(searches: list[Search], rollout, *, determinizations: int, horizon: str = "deal",
                playouts: int = 0, mix: float = 0.5, threads: int = 1) -> list[dict[int, float]]:
    """Each search's mean value of each of its legal moves for its player (see the module's
    docstring). ``rollout`` is a policy with ``act_batch`` (it reads observations only)."""
    if not searches:
        return []
    dets, copies = _redeal(searches, determinizations, playouts)
    compiled = hasattr(dets[0], "_core") and hasattr(type(dets[0]), "core_module")
    if playouts and not compiled:
        raise ValueError(f"playouts={playouts} needs a game whose rules play in C; "
                         f"{dets[0].game_name} has none")
    run = _compiled if compiled else _python
    values = run(searches, dets, copies, rollout, horizon=horizon, playouts=playouts, mix=mix,
                 threads=threads)
    out: list[dict[int, float]] = [dict.fromkeys(s.legal, 0.0) for s in searches]
    for i, value in enumerate(values):
        out[copies.search[i]][copies.move[i]] += value
    for totals in out:
        for a in totals:
            totals[a] /= determinizations
    return out


def _redeal(searches: list[Search], count: int, playouts: int):
    """The re-deals of every search and the copies made of them, drawing from each search's
    generator in the bot's order: its re-deals first, then one generator for its playouts'
    seeds (so the re-deals do not depend on ``playouts``)."""
    dets, copies = [], _Copies([], [], [], [])
    for k, s in enumerate(searches):
        first = len(dets)
        dets += determinizations(s.state, s.player, s.rng, count, s.redeal, s.picks)
        if playouts:
            gen = random.Random(s.rng.getrandbits(64))
            seeds = [[gen.getrandbits(64) for _ in range(playouts)]
                     for _ in range(count)]
        for d in range(count):
            for a in s.legal:
                copies.search.append(k)
                copies.move.append(a)
                copies.redeal.append(first + d)
                copies.seeds.append(seeds[d] if playouts else [])
    return dets, copies


def _compiled(searches, dets, copies: _Copies, rollout, *, horizon, playouts, mix, threads):
    core_module = type(dets[0]).core_module
    dealt_bit = int(core_module.CoreEvent.DEALT)
    cores = [dets[r]._core for r in copies.redeal]
    batch = core_module.RolloutBatch(cores[0].config, len(cores), threads)
    batch.load(cores)
    every = np.arange(len(cores), dtype=np.int64)
    if batch.step(every, np.asarray(copies.move, dtype=np.int64)) >= 0:
        raise ValueError("move_values: a search's legal move is not legal in its re-deal")
    player = np.array([searches[k].player for k in copies.search])
    seeds = np.array(copies.seeds, dtype=np.uint64) if playouts else None
    rolls = not (playouts and mix == 0)
    random_half = (batch.playouts(every, seeds)[every, player]
                   if playouts and mix < 1 else np.zeros(len(cores)))
    dealt = (batch.events & dealt_bit) != 0
    cut = horizon == "deal"
    live = every[(batch.player[: len(cores)] >= 0) & ~(cut & dealt[: len(cores)])] if rolls else every[:0]
    while live.size:
        # while every copy plays (all of Cat Tree's do), a view of the rows, not a copy
        rows = slice(0, live.size) if live.size == len(cores) else live
        actions = rollout.act_batch(batch.obs[rows], batch.mask[rows])
        batch.step(live, np.asarray(actions, dtype=np.int64))
        dealt[live] |= (batch.events[live] & dealt_bit) != 0
        live = live[(batch.player[live] >= 0) & ~(cut & dealt[live])]
    if playouts:
        rollout_half = batch.playouts(every, seeds)[every, player] if rolls else 0.0
        return mix * rollout_half + (1 - mix) * random_half
    over = batch.player[: len(cores)] < 0
    values = np.empty(len(cores))
    if over.any():
        ended = every[over]
        one = np.zeros((ended.size, 1), dtype=np.uint64)  # a game over plays no move
        values[over] = batch.playouts(ended, one)[np.arange(ended.size), player[over]]
    if (~over).any():
        cut_at = every[~over]
        scores = batch.scores(cut_at)
        values[~over] = [margin_of(row, int(p)) for row, p in zip(scores, player[~over])]
    return values


def _python(searches, dets, copies: _Copies, rollout, *, horizon, playouts, mix, threads):
    """The same rollouts on Python states, for games without a compiled core."""
    del playouts, mix, threads
    sims = []
    for r, a in zip(copies.redeal, copies.move):
        sim = dets[r].clone()
        sim.apply_unchecked(a)
        sims.append(sim)
    deals = [len(searches[k].state.chance) for k in copies.search]
    cut = horizon == "deal"

    def going(i: int) -> bool:
        sim = sims[i]
        return sim.current_player != TERMINAL and not (cut and len(sim.chance) != deals[i])

    live = [i for i in range(len(sims)) if going(i)]
    while live:
        obs = np.stack([sims[i].observation(sims[i].current_player) for i in live])
        masks = np.stack([sims[i].legal_mask() for i in live])
        actions = rollout.act_batch(obs, masks)
        for i, action in zip(live, actions.tolist()):
            sims[i].apply_unchecked(action)
        live = [i for i in live if going(i)]
    values = []
    for i, sim in enumerate(sims):
        player = searches[copies.search[i]].player
        values.append(float(sim.returns()[player]) if sim.current_player == TERMINAL
                      else score_margin(sim, player))
    return values
