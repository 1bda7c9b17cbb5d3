"""The one actor (training/actor.py): its numpy and torch passes agree, the learner's is live
over its parameters, and a league snapshot plays from the arrays it was read into."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from catzoo.training.actor import Actor
from catzoo.training.checkpoint import load_policy, save_policy
from catzoo.training.ppo import ActorCritic
from catzoo.training.tables import ActorOpponent


@pytest.mark.parametrize("activation", ["tanh", "relu"])
@pytest.mark.parametrize("hidden", [[7], [64, 32], [128, 128, 64]])
def test_the_numpy_and_torch_passes_agree_on_random_inputs(hidden, activation):
    rng = np.random.default_rng(len(hidden))
    net = ActorCritic(40, 13, hidden, activation)
    for p in net.parameters():  # weights far from the small initial ones
        with torch.no_grad():
            p.copy_(torch.from_numpy(rng.normal(0, 0.5, p.shape).astype(np.float32)))
    x = rng.normal(0, 2, (257, 40)).astype(np.float32)
    numpy_logits = net.actor.logits(x)
    with torch.no_grad():
        torch_logits = net.actor.logits_torch(torch.from_numpy(x)).numpy()
        masked, _ = net(torch.from_numpy(x), torch.ones((257, 13), dtype=torch.int8))
    # float32 arithmetic in two libraries: equal to 1e-6 of the logits' scale
    scale = np.abs(torch_logits).max()
    np.testing.assert_allclose(numpy_logits, torch_logits, rtol=0, atol=1e-6 * scale)
    np.testing.assert_array_equal(masked.numpy(), torch_logits)
    np.testing.assert_allclose(net.actor.logits(x[3]), numpy_logits[3], rtol=0,
                               atol=1e-6 * scale)


@pytest.mark.parametrize("live", [False, True])
def test_the_first_layer_over_each_blocks_set_columns_is_the_whole_inputs(live):
    # a batch whose rows set few columns (a search's rollouts) reads, block by block, only
    # the columns the block's rows set: the same logits as the whole input's to float
    # rounding (blocks of few columns, of many, and a short last one), a row alone as in
    # the batch, and a learner's live weights seen after they change
    from catzoo.training import actor as actor_module

    rng = np.random.default_rng(3)
    net = ActorCritic(40, 13, [32, 16], "tanh")
    block = actor_module.SPARSE_BLOCK
    x = np.zeros((2 * block + 9, 40), dtype=np.float32)
    for start, count in ((0, 4), (block, 39), (2 * block, 9)):
        cols = rng.choice(40, count, replace=False)
        rows = slice(start, start + block)
        x[rows, cols] = rng.normal(0, 2, (x[rows].shape[0], count)) * (rng.random((x[rows].shape[0], count)) < 0.5)
    actor = net.actor if live else net.actor.copy()

    def whole():
        h = x
        for w, b in actor.layers[:-1]:
            h = np.tanh(h @ w.T + b)
        w, b = actor.layers[-1]
        return h @ w.T + b

    for _ in range(2):
        logits, expected = actor.logits(x), whole()
        scale = np.abs(expected).max()
        np.testing.assert_allclose(logits, expected, rtol=0, atol=1e-6 * scale)
        np.testing.assert_allclose(actor.logits(x[7]), logits[7], rtol=0, atol=1e-6 * scale)
        with torch.no_grad():
            torch_logits = actor.logits_torch(torch.from_numpy(x)).numpy()
            np.testing.assert_allclose(logits, torch_logits, rtol=0, atol=1e-6 * scale)
            if live:
                net.trunk[0].weight.mul_(-1.5)  # an optimizer step, as far as the actor sees


def test_the_learners_actor_sees_every_optimizer_step():
    net = ActorCritic(10, 4, [8], "tanh")
    before = net.actor.weights()["pi.0.weight"].copy()
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    logits, value = net(torch.ones((3, 10)), torch.ones((3, 4)))
    (logits.sum() + value.sum()).backward()
    opt.step()
    after = net.actor.weights()["pi.0.weight"]
    assert not np.array_equal(before, after)
    np.testing.assert_array_equal(after, net.trunk[0].weight.detach().numpy())
    frozen = net.actor.copy()
    with torch.no_grad():
        net.trunk[0].weight.add_(1.0)
    assert not np.array_equal(frozen.weights()["pi.0.weight"], net.actor.weights()["pi.0.weight"])


def test_a_snapshot_plays_through_torch_views_of_the_arrays_it_was_read_into(tmp_path):
    from catzoo.games.cat_in_the_box.state import CatInTheBoxState

    probe = CatInTheBoxState.new(num_players=2, seed=0)
    D, A = probe.observation_size, probe.num_actions
    net = ActorCritic(D, A, [16], "tanh")
    meta = {"game": "cat_in_the_box", "env_version": 0, "num_players": 2, "env_options": {},
            "reward": "standing", "observation_size": D, "num_actions": A,
            "architecture": {"type": "mlp", "hidden": [16], "activation": "tanh"}}
    save_policy(tmp_path / "snap", net.actor.weights(), meta)
    policy = load_policy(tmp_path / "snap", game="cat_in_the_box", num_players=2)
    opponent = ActorOpponent(policy.actor, deterministic=True)
    obs = np.random.default_rng(0).normal(size=(6, D)).astype(np.float32)
    mask = np.ones((6, A), dtype=np.int8)
    mask[:, 0] = 0
    actions = opponent.act(obs, mask, torch.Generator().manual_seed(0))
    # no copy on the way: the tensors it played with are the arrays read from the file
    for array, tensor in zip([a for layer in policy.actor.layers for a in layer],
                             policy.actor.tensors()):
        assert np.shares_memory(array, tensor.numpy())
    np.testing.assert_array_equal(actions, np.where(mask > 0, policy.actor.logits(obs),
                                                    -np.inf).argmax(1))
    assert (actions != 0).all()


def test_an_actor_refuses_an_unknown_activation():
    with pytest.raises(ValueError, match="unknown activation 'gelu'"):
        Actor({"pi.0.weight": np.zeros((2, 2)), "pi.0.bias": np.zeros(2),
               "action.weight": np.zeros((1, 2)), "action.bias": np.zeros(1)}, [2], "gelu")
