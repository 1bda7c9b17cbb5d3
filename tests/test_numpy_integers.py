"""Integers given as numpy integers are those integers: every integer option of every game
(the env constructors, ``vector.make``, ``vector.single_agent``), seeds, the arena; and
the two limits next to them: ``threads`` beyond the CPUs, ``--ray`` with no cluster."""

from __future__ import annotations

import dataclasses
import socket
import warnings
from pathlib import Path

import numpy as np
import pytest

from catzoo import vector
from catzoo.games.registry import GAMES, get_game

# Options whose default is None ("the player count's"): a value to give instead.
GIVEN = {"catsle_builders": {"hand_size": 12, "take_counts": (1, 2, 1, 0)}}


def integer_options(game: str) -> dict:
    """Every integer option of ``game`` (and sequence of them) at a valid value, as numpy
    integers of assorted widths."""
    info = get_game(game)
    probe = info.engine_class().options_cls(num_players=info.default_players)
    kinds = [np.int64, np.int32, np.uint8, np.int16]
    out = {}
    for k, field in enumerate(dataclasses.fields(probe)):
        value = GIVEN.get(game, {}).get(field.name, getattr(probe, field.name))
        kind = kinds[k % len(kinds)]
        if isinstance(value, int) and not isinstance(value, bool):
            out[field.name] = kind(value)
        elif (isinstance(value, tuple) and value
              and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            out[field.name] = [kind(v) for v in value]
    return out


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_integer_option_of_every_game_takes_numpy_integers(game):
    given = integer_options(game)
    assert "num_players" in given
    plain = {k: (tuple(int(x) for x in v) if isinstance(v, list) else int(v))
             for k, v in given.items()}
    env = get_game(game).load_env_module().env(**given)
    options = env.unwrapped.game_options
    assert options == type(options)(**plain)
    for name in given:  # stored as Python ints, which JSON logs and checkpoints write
        value = getattr(options, name)
        assert all(type(v) is int for v in (value if isinstance(value, tuple) else (value,)))
    env.reset(seed=np.int64(3))
    if game != "ledges":  # the physics game's batches are slow to build; its options above
        vg = vector.make(game, num_envs=np.int64(2), seed=np.uint64(5), threads=np.int32(1),
                         **given)
        assert vg.options == options and vg.num_envs == 2
        vg.reset()


def test_an_array_of_integers_is_a_sequence_option_and_numpy_bools_stay_refused():
    from catzoo.envs import cat_in_the_box_v0, catsle_builders_v0
    from catzoo.games.base import OptionsError

    env = catsle_builders_v0.env(num_players=3, take_counts=np.array([1, 2, 0]))
    assert env.unwrapped.game_options.take_counts == (1, 2, 0)
    with pytest.raises(OptionsError, match="num_players=np.True_ is not allowed"):
        cat_in_the_box_v0.env(num_players=np.bool_(True))


def test_threads_beyond_the_cpus_are_capped_with_a_warning():
    with pytest.warns(RuntimeWarning, match=r"threads=1000000 is more than the \d+ CPU"):
        vg = vector.make("cat_in_the_box", num_envs=4, threads=1000000, seed=1)
    assert vg.threads == vector.usable_cores()
    one = vector.make("cat_in_the_box", num_envs=4, threads=1, seed=1)
    _, mask, _ = vg.reset()
    _, mask_one, _ = one.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):  # the same games
        np.testing.assert_array_equal(mask, mask_one)
        actions = (rng.random(mask.shape) + mask).argmax(1)
        obs, mask, *_ = vg.step(actions)
        obs_one, mask_one, *_ = one.step(actions)
        np.testing.assert_array_equal(obs, obs_one)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vector.make("cat_in_the_box", num_envs=2, threads=vector.usable_cores())


def test_the_arena_takes_numpy_integers_and_writes_json(tmp_path):
    from catzoo.arena import run_arena

    result = run_arena("catsle_builders", ["random", "heuristic"], games=np.int64(3),
                       num_players=np.int32(3), seed=np.uint32(3), workers=np.int64(1),
                       options={"hand_size": np.int64(9), "take_counts": np.array([1, 2, 0])})
    paths = result.save(tmp_path, plot=False)
    assert result.num_players == 3 and len(result.records) == 6  # 3 rounded up to 2 deals
    assert '"hand_size": 9' in Path(paths["json"]).read_text()


def test_ray_with_no_cluster_at_the_address_is_one_line(capsys, monkeypatch):
    ray = pytest.importorskip("ray")
    from catzoo.cli.main import main

    # The command runs in a process of its own, connected to no Ray; this test process may
    # hold the Ray tests' instance (conftest.ray_cluster, on the same xdist worker), which
    # the arena would play on as the caller's own connection.
    monkeypatch.setattr(ray, "is_initialized", lambda: False)

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = main(["arena", "cat_in_the_box", "--ray", f"127.0.0.1:{port}", "--policy", "random",
                 "--policy", "heuristic", "--games", "2", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and f"no Ray cluster at '127.0.0.1:{port}'" in err
    assert "ray start --head" in err and "no address" in err
