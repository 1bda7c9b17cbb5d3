"""Cats Knocking Things Off Ledges on the batched trainer (configs/ledges_ppo.yaml, trainer
ppo on catzoo.vector; at 2 players configs/ledges_2p.yaml, whose teacher is the lookahead
bot): at every player count a short run (imitation of the aimer, a few PPO
rollouts against itself, the aimer and its snapshots) writes a policy that loads for that
count only and plays whole games of legal moves; its network reads the aimer's move as
input features (ledges_aimer), made again from the engine state at a table without the
aiming features, where it plays the same game as at a table with them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("mujoco")

from catzoo.policies import features
from catzoo.policies.match import play_match
from catzoo.training import CheckpointError, load_policy
from catzoo.training import config as config_mod
from catzoo.training.ppo import train

ROOT = Path(__file__).resolve().parent.parent
# Two-round games, a small network, two rollouts of 4 games x 8 agent-steps.
TINY = ["network.hidden=[32]", "vector.num_envs=4", "ppo.rollout_steps=8", "ppo.n_epochs=1",
        "ppo.num_minibatches=2", "imitation.games=2", "imitation.epochs=1",
        "league.snapshot_interval=16", "checkpoint_interval=1000", "total_steps=48",
        "env.options.max_rounds=2"]


@pytest.mark.parametrize("name, players", [("ledges_2p", 2), ("ledges_ppo", 3), ("ledges_ppo", 4)])
def test_short_run_writes_a_policy_that_loads_and_plays_legal_moves(name, players, tmp_path):
    config = config_mod.load(ROOT / "configs" / f"{name}.yaml", [*TINY, f"env.num_players={players}"])
    path = train(config, tmp_path / "run", progress=False, log=lambda *_: None)
    meta = json.loads((path / "policy.json").read_text())
    assert meta["game"] == "ledges" and meta["num_players"] == players
    assert meta["steps"] >= 48
    assert meta["features"] == "ledges_aimer" and meta["env_options"]["aim_features"]
    assert meta["cpu_seconds"] >= meta["imitation"]["generate_cpu_seconds"] > 0
    policy = load_policy(path, game="ledges", num_players=players)
    other = 2 + players % 3  # 2 -> 4, 3 -> 2, 4 -> 3
    with pytest.raises(CheckpointError, match="player"):
        load_policy(path, game="ledges", num_players=other)
    # play_match's env raises on an illegal move. At the default table (no aiming
    # features) the policy makes its observation and input features from the engine
    # state; they are the ones a table with the aiming features shows it: the same game.
    plain = play_match("ledges", [policy] * players, seed=3, max_rounds=2)
    aimed = play_match("ledges", [policy] * players, seed=3, max_rounds=2, aim_features=True)
    assert plain.agent_steps > 5 * players
    assert plain.log["actions"] == aimed.log["actions"] and plain.scores == aimed.scores


def _decode(extra: np.ndarray) -> int:
    """The move a ``ledges_aimer`` feature row marks (the inverse of choice_features)."""
    from catzoo.games.ledges import geometry as G
    from catzoo.games.ledges import state as S
    from catzoo.policies.heuristics.ledges_aimer import CHOICE_BLOCKS

    starts = np.cumsum([0] + [size for _, size in CHOICE_BLOCKS])
    hot = {name: np.flatnonzero(extra[starts[i]:starts[i + 1]])
           for i, (name, _) in enumerate(CHOICE_BLOCKS)}
    marked = [name for name, where in hot.items() if where.size]
    assert all(hot[name].size == 1 for name in marked)
    if marked == ["anchor", "variant"]:
        return int(hot["anchor"][0]) * G.NUM_VARIANTS + int(hot["variant"][0])
    assert len(marked) == 1, marked
    base = {"cat": S.CAT_BASE, "toy": S.TOY_BASE, "bat": S.BAT_BASE}[marked[0]]
    return base + int(hot[marked[0]][0])


def test_the_aimer_move_features_mark_the_aimer_move_of_the_player_to_act():
    from catzoo.games.ledges import LedgesState
    from catzoo.policies.heuristics.ledges_aimer import CHOICE_WIDTH, LedgesAimer

    state = LedgesState.new(num_players=3, seed=5, aim_features=True)
    bot = LedgesAimer(3, seed=0)
    bot.random_ties = False
    rows, phases = [], set()
    for _ in range(12):  # a build, a cat, a toy and bats, over a few turns
        p = state.current_player
        obs, mask = state.observation(p), state.legal_mask()
        extra = features.augment("ledges_aimer", obs[None], mask[None], 3,
                                 {"aim_features": True})[0, obs.size:]
        assert extra.shape == (CHOICE_WIDTH,) and set(np.unique(extra)) <= {0.0, 1.0}
        move = bot.act({"observation": obs, "action_mask": mask})
        assert _decode(extra) == move and mask[move]
        phases.add(state.phase)
        rows.append(extra)
        state.apply(move)
    assert len(phases) == 4, phases
    assert len({r.tobytes() for r in rows}) > 4
    idle = features.augment("ledges_aimer", obs[None], np.zeros_like(mask)[None], 3,
                            {"aim_features": True})
    assert not idle[0, obs.size:].any()  # not to act: no move
    with pytest.raises(ValueError, match="aim_features"):
        features.augment("ledges_aimer", obs[None], mask[None], 3, {})
