"""catzoo.vector.single_agent: the learner's seat of N games as a Gymnasium vector env.

Differential: every episode each sub-env played is replayed in the AEC env from its game
seed, the learner's recorded actions at its seat and fresh copies of the same opponents at
the others: every observation, mask, reward and ending must be the AEC env's. Then
Gymnasium's autoreset contract (both modes), RecordEpisodeStatistics, bad input.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from catzoo import vector
from catzoo.games.base import IllegalActionError, OptionsError
from catzoo.games.registry import get_game
from catzoo.policies.base import Policy, legal_actions
from catzoo.policies.registry import make_policy

FIRST_LEGAL = "tests.test_single_agent:FirstLegal"


class FirstLegal(Policy):
    """The lowest legal action: a deterministic opponent of any game."""

    def __init__(self, num_players: int, seed: int | None = None):
        pass

    def act(self, observation, *, state=None, player=None) -> int:
        return int(legal_actions(observation)[0])


def play(envs, games: int, rng, steps: int = 600) -> list[dict]:
    """Random legal learner actions until ``games`` games ended (at most ``steps`` steps);
    every episode each sub-env played
    (complete or not): its seed, seat, and per decision the observation, mask, action, and
    the reward and ending that followed; the terminal observation of a complete one."""
    obs, infos = envs.reset()
    current = [{"seed": int(envs.game_seeds[i]), "seat": int(infos["seat"][i]),
                "opponent": envs.opponent(i), "obs": [obs[i]], "mask": [infos["action_mask"][i]],
                "actions": [], "rewards": [], "ended": False} for i in range(envs.num_envs)]
    episodes = []
    for _ in range(steps):
        if len(episodes) + sum(e["ended"] for e in current) >= games:
            break
        masks = envs.action_masks()
        assert np.array_equal(masks, infos["action_mask"].astype(bool))
        actions = (rng.random(masks.shape) + masks).argmax(1)
        was_over = [e["ended"] for e in current]
        obs, rewards, term, trunc, infos = envs.step(actions)
        assert not trunc.any()
        for i, e in enumerate(current):
            if was_over[i]:  # NEXT_STEP: this step dealt the sub-env its next game
                assert rewards[i] == 0 and not term[i]
                episodes.append(e)
                e = current[i] = {"seed": int(envs.game_seeds[i]), "seat": int(infos["seat"][i]),
                                  "opponent": envs.opponent(i), "obs": [], "mask": [],
                                  "actions": [], "rewards": [], "ended": False}
            else:
                e["actions"].append(int(actions[i]))
                e["rewards"].append(float(rewards[i]))
                e["ended"] = bool(term[i])
            if e["ended"]:
                e["final"] = obs[i]
                e["standing"] = float(infos["standing"][i])
                assert infos["opponent"][i] == e["opponent"]
            else:
                e["obs"].append(obs[i])
                e["mask"].append(infos["action_mask"][i])
    return episodes + current


def replay(game: str, episode: dict, policies: dict, options: dict) -> None:
    """The episode in the AEC env, seat by seat: ``policies[seat]`` (a spec) for the others."""
    raw = get_game(game).load_env_module().raw_env(**options)
    raw.reset(seed=episode["seed"])
    agents, me = raw.possible_agents, episode["seat"]
    n = len(agents)
    bots = {s: make_policy(spec, game, n, seed=0, env_options={
        k: v for k, v in options.items() if k not in ("num_players", "reward")})
        for s, spec in policies.items()}
    game_state = raw.game

    def others() -> float:
        got = 0.0
        while not game_state.is_terminal() and game_state.current_player != me:
            p = game_state.current_player
            raw.step(bots[p].act(raw.observe(agents[p]), state=game_state, player=p))
            got += raw.rewards[agents[me]]
        return got

    others()
    for t, action in enumerate(episode["actions"]):
        seen = raw.observe(agents[me])
        np.testing.assert_array_equal(seen["observation"], episode["obs"][t])
        np.testing.assert_array_equal(seen["action_mask"], episode["mask"][t])
        raw.step(action)
        reward = raw.rewards[agents[me]] + others()
        assert reward == pytest.approx(episode["rewards"][t], abs=1e-4), (t, episode["seed"])
        last = t == len(episode["actions"]) - 1
        assert game_state.is_terminal() == (last and episode["ended"])
    if episode["ended"]:
        np.testing.assert_array_equal(game_state.observation(me), episode["final"])
        assert game_state.returns()[me] == pytest.approx(episode["standing"])
    elif len(episode["obs"]) > len(episode["actions"]):
        np.testing.assert_array_equal(raw.observe(agents[me])["observation"], episode["obs"][-1])


SINGLE = {"rounds": "single"}


@pytest.mark.parametrize("game, players, opponents, partner, reward, options", [
    ("cat_in_the_box", 4, ("heuristic", "shipped"), None, "score", {}),
    ("cat_in_the_box", 3, (FIRST_LEGAL,), None, "standing", SINGLE),
    ("lunar", 4, (FIRST_LEGAL,), "shipped", "standing", {}),
    ("lunar", 2, ("shipped",), None, "score", {}),
    ("catsle_builders", 3, ("shipped", FIRST_LEGAL), None, "score", {}),
    ("catsle_builders", 5, (FIRST_LEGAL,), None, "standing", SINGLE),
    ("cat_tree", 2, (FIRST_LEGAL,), None, "standing", {}),
])
def test_the_same_games_as_the_aec_env(game, players, opponents, partner, reward, options):
    envs = vector.single_agent(game, 6, num_players=players, opponents=opponents, seed=3,
                               reward=reward, partner=partner, **options)
    episodes = play(envs, 9, np.random.default_rng(0))
    assert sum(e["ended"] for e in episodes) >= 9  # whole games, beyond the first ones
    tables = {e["seed"]: None for e in episodes}
    assert len(tables) == len(episodes)  # every game its own deal
    teams = get_game(game).engine_class().new(num_players=players, seed=0).teams()
    for e in episodes:
        mates = {m for t in teams if e["seat"] in t for m in t} - {e["seat"]}
        seats = {s: (partner if partner and s in mates else e["opponent"])
                 for s in range(players) if s != e["seat"]}
        replay(game, e, seats, {"num_players": players, "reward": reward, **options})


def test_the_opponent_of_each_game_is_reported_and_drawn_by_the_weights():
    envs = vector.single_agent("cat_in_the_box", 64, opponents={"random": 3.0, FIRST_LEGAL: 1.0},
                               seed=1, rounds="single")
    envs.reset()
    held = np.array([envs.opponent(i) for i in range(64)])
    share = np.mean(held == "random")
    assert 0.6 < share < 0.9  # 0.75 expected: 64 draws, 4.3 standard deviations apart
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(40):
        _, _, term, _, infos = envs.step((rng.random((64, envs.num_actions))
                                          + envs.action_masks()).argmax(1))
        if term.any():
            seen |= set(infos["opponent"][term])
            assert infos["_opponent"].tolist() == term.tolist()
    assert seen == {"random", FIRST_LEGAL}


def test_next_step_autoreset_ignores_the_action_and_deals_the_next_seed():
    envs = vector.single_agent("cat_in_the_box", 4, num_players=2, opponents=(FIRST_LEGAL,),
                               seed=5, rounds="single")
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    envs.reset()
    rng = np.random.default_rng(1)
    while True:
        before = envs.game_seeds.copy()
        _, _, term, _, _ = envs.step((rng.random((4, envs.num_actions))
                                      + envs.action_masks()).argmax(1))
        if term.any():
            break
    i = int(np.flatnonzero(term)[0])
    assert envs.action_masks()[i].all()  # any action: it is ignored
    actions = (rng.random((4, envs.num_actions)) + envs.action_masks()).argmax(1)
    actions[i] = 10**6  # out of range, and ignored
    obs, rewards, term2, _, infos = envs.step(actions)
    assert rewards[i] == 0 and not term2[i]
    assert envs.game_seeds[i] == vector.next_seed(int(before[i]))
    state = envs.state(i)
    np.testing.assert_array_equal(obs[i], state.observation(int(infos["seat"][i])))
    np.testing.assert_array_equal(infos["action_mask"][i], state.legal_mask())


def test_same_step_autoreset_returns_the_next_game_and_the_final_observation():
    kwargs = {"num_players": 2, "opponents": (FIRST_LEGAL,), "seed": 5, "rounds": "single"}
    nxt = vector.single_agent("cat_in_the_box", 4, **kwargs)
    same = vector.single_agent("cat_in_the_box", 4, autoreset_mode="SameStep", **kwargs)
    nxt.reset()
    same.reset()
    rng = np.random.default_rng(1)
    for _ in range(200):
        actions = (rng.random((4, nxt.num_actions)) + nxt.action_masks()).argmax(1)
        o1, r1, t1, _, _ = nxt.step(actions)
        o2, r2, t2, _, i2 = same.step(actions)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(t1, t2)
        if t1.any():
            break
    ended = np.flatnonzero(t1)
    assert i2["_final_obs"].tolist() == t1.tolist()
    for i in ended:
        np.testing.assert_array_equal(i2["final_obs"][i], o1[i])  # NEXT_STEP's terminal obs
    # the next step of NEXT_STEP deals what SAME_STEP already returned
    actions = (rng.random((4, nxt.num_actions)) + same.action_masks()).argmax(1)
    o3, r3, t3, _, i3 = nxt.step(actions)
    assert not t3[ended].any() and not r3[ended].any()
    for i in ended:
        np.testing.assert_array_equal(o3[i], o2[i])
        np.testing.assert_array_equal(i3["action_mask"][i], i2["action_mask"][i])
        assert same.game_seeds[i] == nxt.game_seeds[i]


def test_record_episode_statistics_reads_one_game_per_episode():
    """The wrapper's episodes are the games: their lengths the learner's decisions, their
    returns the sums of its rewards (the final standing, here)."""
    envs = RecordEpisodeStatistics(vector.single_agent(
        "cat_in_the_box", 8, num_players=3, opponents=("random",), seed=2, rounds="single"))
    envs.reset()
    rng = np.random.default_rng(3)
    length, total, ended = np.zeros(8, int), np.zeros(8), 0
    for _ in range(60):
        before = envs.unwrapped._ended.copy()
        masks = envs.unwrapped.action_masks()
        _, rewards, term, _, infos = envs.step((rng.random(masks.shape) + masks).argmax(1))
        length[before], total[before] = 0, 0.0  # NEXT_STEP: a reset step is no decision
        length[~before] += 1
        total += rewards
        if term.any():
            ended += term.sum()
            assert infos["_episode"].tolist() == term.tolist()
            np.testing.assert_array_equal(infos["episode"]["l"][term], length[term])
            np.testing.assert_allclose(infos["episode"]["r"][term], total[term])
            np.testing.assert_allclose(infos["episode"]["r"][term], infos["standing"][term])
    assert ended >= 8


def test_an_illegal_learner_action_is_refused_and_changes_nothing():
    envs = vector.single_agent("catsle_builders", 3, num_players=3, opponents=(FIRST_LEGAL,))
    obs, infos = envs.reset()
    masks = envs.action_masks()
    bad = masks.argmax(1)
    bad[1] = int(np.flatnonzero(~masks[1])[0])
    with pytest.raises(IllegalActionError, match="sub-env 1.*not legal"):
        envs.step(bad)
    with pytest.raises(IllegalActionError, match="one per sub-env"):
        envs.step(bad[:2])
    with pytest.raises(IllegalActionError, match="one per sub-env"):
        envs.step(bad.astype(float))
    for i in range(3):  # nothing moved
        np.testing.assert_array_equal(envs.state(i).observation(int(infos["seat"][i])), obs[i])
    envs.step(masks.argmax(1))


@pytest.mark.parametrize("kwargs, message", [
    ({"opponents": ("ismcts",)}, "searches the rules engine"),
    ({"opponents": ("heuristc",)}, "did you mean 'heuristic'"),
    ({"opponents": ()}, "one or more policy specs"),
    ({"opponents": {"random": -1.0}}, "non-negative"),
    ({"seat": 4}, "seat=4"),
    ({"num_envs": 0}, "num_envs=0"),
    ({"reward": "points"}, "reward='points'"),
    ({"autoreset_mode": "Disabled"}, "NEXT_STEP or SAME_STEP"),
    ({"colour": "red"}, "unknown option"),
])
def test_bad_arguments_are_one_clear_error(kwargs, message):
    kwargs = {"num_envs": 2, "num_players": 4, **kwargs}
    with pytest.raises(OptionsError, match=message):
        vector.single_agent("cat_in_the_box", **kwargs)


def test_numpy_integers_and_a_fixed_seat():
    envs = vector.single_agent("cat_in_the_box", np.int64(3), num_players=np.int32(5),
                               seed=np.uint32(7), threads=np.int64(1), seat=np.int64(2))
    obs, infos = envs.reset(seed=np.int64(9))
    assert obs.shape == (3, envs.obs_size) and envs.num_players == 5
    assert (infos["seat"] == 2).all()
    assert envs.game_seeds.tolist() == vector.slot_seeds(9, 3)


def test_the_ledges_python_engine_plays_the_aec_games():
    envs = vector.single_agent("ledges", 2, num_players=2, opponents=(FIRST_LEGAL,), seed=4,
                               reward="score", winning_score=2, max_rounds=2)
    episodes = play(envs, 2, np.random.default_rng(2), steps=40)
    assert any(e["ended"] for e in episodes)
    for e in episodes:
        replay("ledges", e, {1 - e["seat"]: FIRST_LEGAL},
               {"num_players": 2, "reward": "score", "winning_score": 2, "max_rounds": 2})
