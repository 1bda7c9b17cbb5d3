"""Per-seat advantages of the batched trainer on hand-made trajectories (training.ppo)."""

import numpy as np
import pytest

pytest.importorskip("torch")

from catzoo.training.ppo import per_seat_advantages


def trajectory():
    """One slot, two seats, both the learner's. Game 1: seat 0, seat 1, seat 0, seat 1; the
    move at step 1 (seat 1's) gives seat 0 a point, and the game ends on seat 1's move at
    step 3 (seat 0 loses, seat 1 wins). Step 4: seat 1 opens game 2, still open."""
    player = np.array([[0], [1], [0], [1], [1]])
    rewards = np.zeros((5, 1, 2), dtype=np.float32)
    rewards[1, 0] = [1.0, 0.0]
    rewards[3, 0] = [-1.0, 1.0]
    done = np.array([[False], [False], [False], [True], [False]])
    values = np.array([[0.1], [0.2], [0.3], [0.4], [0.5]], dtype=np.float32)
    boot = np.array([[7.0, 2.0]], dtype=np.float32)
    return player, rewards, done, values, boot


def test_rewards_caused_by_another_seat_and_the_end_on_its_move_reach_the_right_seat():
    player, rewards, done, values, boot = trajectory()
    learner = np.ones((5, 1), dtype=bool)
    adv, ret = per_seat_advantages(player, learner, values, rewards, done, boot, 1.0, 1.0)
    # seat 0: step 0 earns the point seat 1's move gave it, then its last decision (step 2)
    # earns the loss that came on seat 1's move: returns 1 - 1 = 0 and -1.
    assert ret[0, 0] == pytest.approx(0.0) and ret[2, 0] == pytest.approx(-1.0)
    # seat 1: nothing until its winning move ends the game: returns 1 and 1.
    assert ret[1, 0] == pytest.approx(1.0) and ret[3, 0] == pytest.approx(1.0)
    # game 2's open decision of seat 1 bootstraps from seat 1's own view (2.0), not seat 0's.
    assert ret[4, 0] == pytest.approx(2.0)
    np.testing.assert_allclose(adv[:, 0], ret[:, 0] - values[:, 0], atol=1e-6)


def test_discounting_runs_per_decision_of_the_seat():
    player, rewards, done, values, boot = trajectory()
    learner = np.ones((5, 1), dtype=bool)
    g, lam = 0.9, 0.5
    adv, _ = per_seat_advantages(player, learner, values, rewards, done, boot, g, lam)
    a2 = -1.0 - 0.3  # terminal
    a0 = (1.0 + g * 0.3 - 0.1) + g * lam * a2
    a3 = 1.0 - 0.4
    a1 = (0.0 + g * 0.4 - 0.2) + g * lam * a3
    a4 = 0.0 + g * 2.0 - 0.5
    np.testing.assert_allclose(adv[:, 0], [a0, a1, a2, a3, a4], atol=1e-6)


def test_an_opponents_decisions_get_nothing_and_do_not_cut_the_learners_trajectory():
    player, rewards, done, values, boot = trajectory()
    learner = (player == 0)  # seat 1 is an opponent
    adv, ret = per_seat_advantages(player, learner, values, rewards, done, boot, 1.0, 1.0)
    assert (adv[~learner] == 0).all() and (ret[~learner] == 0).all()
    assert ret[0, 0] == pytest.approx(0.0) and ret[2, 0] == pytest.approx(-1.0)


def test_slots_are_independent():
    player, rewards, done, values, boot = trajectory()
    learner = np.ones((5, 1), dtype=bool)
    one, _ = per_seat_advantages(player, learner, values, rewards, done, boot, 0.95, 0.9)
    # the same slot twice beside a slot of zeros: the same advantages in its column
    two = per_seat_advantages(np.tile(player, 2), np.tile(learner, 2), np.tile(values, 2),
                              np.concatenate([rewards, np.zeros_like(rewards)], 1),
                              np.tile(done, 2), np.concatenate([boot, np.zeros_like(boot)]),
                              0.95, 0.9)[0]
    np.testing.assert_allclose(two[:, 0], one[:, 0], atol=1e-6)
    assert not np.allclose(two[:, 1], one[:, 0])
