"""The shared AEC adapter, exercised through Cat in the Box: errors, rewards, seeding,
observations, pickling and rendering."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from catzoo.envs import GameOverError, cat_in_the_box_v0
from catzoo.games.base import IllegalActionError, OptionsError
from tests.helpers import play_env_randomly


def first_legal(env) -> int:
    return int(np.flatnonzero(env.last()[0]["action_mask"])[0])


def an_illegal_action(env) -> int:
    return int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0])


def test_illegal_action_names_agent_action_and_legal_actions_and_keeps_state():
    env = cat_in_the_box_v0.env(num_players=3, illegal_action="raise")
    env.reset(seed=1)
    before = env.state().copy()
    bad = an_illegal_action(env)
    with pytest.raises(IllegalActionError) as err:
        env.step(bad)
    text = str(err.value)
    assert text.startswith("player_0:") and f"action {bad}" in text and "legal actions:" in text
    np.testing.assert_array_equal(env.state(), before)
    assert env.agent_selection == "player_0"
    env.step(first_legal(env))  # the game goes on


@pytest.mark.parametrize("mode", ["penalize", "raise"])
@pytest.mark.parametrize("action", [50, -1, 10**9])
def test_out_of_range_action(action, mode):
    env = cat_in_the_box_v0.env(illegal_action=mode)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="out of range 0..49"):
        env.step(action)


@pytest.mark.parametrize("mode", ["penalize", "raise"])
@pytest.mark.parametrize("action", [1.0, "3", True, None, [3], np.array([3])])
def test_wrongly_typed_action(action, mode):
    env = cat_in_the_box_v0.env(illegal_action=mode)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="must be an integer"):
        env.step(action)


def test_numpy_integers_are_accepted():
    env = cat_in_the_box_v0.env()
    env.reset(seed=0)
    env.step(np.int32(first_legal(env)))
    env.step(np.array(first_legal(env), dtype=np.int64))
    assert env.agent_selection == "player_2"


def test_step_after_the_game_is_over():
    env = cat_in_the_box_v0.env(num_players=2, rounds="single")
    play_env_randomly(env, seed=3)
    assert env.agents == []
    with pytest.raises(GameOverError, match="call reset"):
        env.step(0)


def test_penalize_mode_ends_the_game_and_penalises_only_the_offender():
    env = cat_in_the_box_v0.env(num_players=3, illegal_action="penalize", illegal_reward=-2.0)
    env.reset(seed=1)
    env.step(an_illegal_action(env))
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -2.0, "player_1": 0.0, "player_2": 0.0}
    assert env.infos["player_0"]["illegal_action"] is True


def test_by_default_an_illegal_move_ends_the_game_by_pettingzoos_own_wrapper():
    from pettingzoo.utils.env_logger import EnvLogger
    from pettingzoo.utils.wrappers import TerminateIllegalWrapper

    env = cat_in_the_box_v0.env(num_players=3)
    layers, layer = [], env
    while layer is not env.unwrapped:
        layers.append(layer)
        layer = layer.env
    assert sum(isinstance(w, TerminateIllegalWrapper) for w in layers) == 1
    env.reset(seed=1)
    EnvLogger.flush()
    bad = an_illegal_action(env)
    env.step(bad)
    assert any("Illegal move made" in str(m) for m in EnvLogger.mqueue)  # PettingZoo's warning
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    assert all(env.terminations.values())
    assert env.infos["player_0"]["illegal_action"] is True
    assert f"action {bad} is not legal" in env.infos["player_0"]["reason"]
    assert env.infos["player_1"]["illegal_action"] is False
    for _ in env.agent_iter():
        env.step(None)  # every agent leaves the ended game
    assert env.agents == []
    with pytest.raises(GameOverError, match="call reset"):
        env.step(0)


@pytest.mark.parametrize(("setting", "message"), [
    ({"colours": 5}, "unknown option.*'colours'"),
    ({"reward": "dense"}, "reward='dense'"),
    ({"render_mode": "rgb"}, "render_mode='rgb'"),
    ({"illegal_action": "ignore"}, "illegal_action"),
])
def test_unknown_options_and_bad_settings_are_named(setting, message):
    with pytest.raises(OptionsError, match=message):
        cat_in_the_box_v0.env(**setting)


def test_only_the_agent_on_turn_has_legal_actions():
    env = cat_in_the_box_v0.env(num_players=4)
    env.reset(seed=2)
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.dtype == np.int8
        assert mask.any() == (agent == env.agent_selection)


def test_standing_reward_is_zero_sum_and_delivered_to_every_agent():
    for seed in range(5):
        env = cat_in_the_box_v0.env(num_players=4, rounds="single")
        totals = play_env_randomly(env, seed)
        raw = env.unwrapped
        assert sum(totals.values()) == pytest.approx(0.0)
        np.testing.assert_allclose(list(totals.values()), raw.game.returns())


def test_score_reward_sums_to_the_final_scores():
    env = cat_in_the_box_v0.env(num_players=3, reward="score")
    totals = play_env_randomly(env, seed=4)
    assert list(totals.values()) == env.unwrapped.game.scores()
    # Dense: the first round's score changes arrive before the game ends.
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    seen_before_end = False
    for agent in env.agent_iter():
        obs, reward, terminated, _truncated, _ = env.last()
        if reward and not terminated:
            seen_before_end = True
        env.step(None if terminated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen_before_end


def test_unseeded_resets_follow_the_seeded_stream():
    a, b = cat_in_the_box_v0.env(), cat_in_the_box_v0.env()
    a.reset(seed=9)
    b.reset(seed=9)
    a.reset()
    b.reset()
    np.testing.assert_array_equal(a.state(), b.state())
    c = cat_in_the_box_v0.env()
    c.reset(seed=9)
    assert not np.array_equal(c.state(), a.state())


def test_pickle_round_trip_keeps_the_game():
    env = cat_in_the_box_v0.env(num_players=3)
    env.reset(seed=5)
    for _ in range(6):
        env.step(first_legal(env))
    copy = pickle.loads(pickle.dumps(env))
    assert copy.agent_selection == env.agent_selection
    np.testing.assert_array_equal(copy.state(), env.state())
    action = first_legal(env)
    env.step(action)
    copy.step(action)
    np.testing.assert_array_equal(copy.state(), env.state())


def test_observation_hides_other_hands_and_state_shows_them():
    env = cat_in_the_box_v0.env(num_players=4)
    env.reset(seed=6)
    raw = env.unwrapped
    layout = raw.game.layout
    for p, agent in enumerate(raw.possible_agents):
        view = layout.decode(env.observe(agent)["observation"])
        np.testing.assert_allclose(view["hand"] * 5, raw.game.hands[p])
    assert env.state().shape == (layout.master_size,)
    np.testing.assert_allclose(env.state()[layout.span("hand")] * 5, raw.game.hands.ravel())


def test_render_modes():
    env = cat_in_the_box_v0.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "research board" in text and "P3" in text
    human = cat_in_the_box_v0.env(render_mode="human")
    human.reset(seed=0)
    assert human.render() is None


def test_docstring_documents_the_real_layout():
    from catzoo.games.cat_in_the_box.layout import layout_for

    assert layout_for(4).describe() in cat_in_the_box_v0.__doc__
    for n in (2, 3, 4, 5):
        assert f"{n}: {layout_for(n).obs_size}" in cat_in_the_box_v0.__doc__
