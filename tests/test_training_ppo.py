"""The batched self-play trainer (training.ppo) end to end: short runs of every game write
a policy that loads and plays only legal moves; SIGKILL and resume; the learning curve; no
duplicate log rows after a resume; a finished run resumed does nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from catzoo.cli.main import main
from catzoo.games.registry import GAMES
from catzoo.policies.match import play_match
from catzoo.training import config as config_mod
from catzoo.training import load_policy
from catzoo.training.ppo import RunError, resume, train
from tests.helpers import rows, sigkill_past_a_checkpoint

ROOT = Path(__file__).resolve().parent.parent
TINY = ["network.hidden=[16]", "vector.num_envs=16", "vector.threads=1", "torch_threads=1",
        "ppo.rollout_steps=8", "ppo.n_epochs=1", "ppo.num_minibatches=2",
        "league.snapshot_interval=200", "checkpoint_interval=300", "eval.interval=100000",
        "eval.games=4", "imitation.games=0"]
CARD_GAMES = [g for g in sorted(GAMES) if g != "ledges"]


def quiet(*_args):
    pass


@pytest.mark.parametrize("game", CARD_GAMES)
def test_short_run_writes_a_policy_that_loads_and_plays_legal_moves(game, tmp_path):
    config = config_mod.load(ROOT / "configs" / f"{game}.yaml", [*TINY, "total_steps=600"])
    path = train(config, tmp_path / "run", progress=False, log=quiet)
    meta = json.loads((path / "policy.json").read_text())
    assert meta["steps"] >= 600 and meta["game"] == game
    n = config["env"]["num_players"]
    policy = load_policy(path, game=game, num_players=n)
    result = play_match(game, [policy] * n, seed=5, **config["env"]["options"])
    assert result.agent_steps > 0  # the env raises on an illegal action
    league = json.loads((tmp_path / "run" / "league" / "league.json").read_text())
    assert league["snapshots"][0]["step"] == 0 and len(league["snapshots"]) >= 3
    evals = rows(tmp_path / "run" / "logs" / "eval.csv")
    assert {r["opponent"] for r in evals} == set(config["eval"]["opponents"])
    assert all(int(r["step"]) == meta["steps"] for r in evals)  # one final evaluation
    assert list((tmp_path / "run" / "logs" / "tb").glob("events.out.tfevents*"))


def test_the_learning_curve_is_a_readable_png_drawn_at_every_evaluation(tmp_path):
    import matplotlib.image

    config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml",
                             [*TINY, "env.num_players=2", "total_steps=800", "eval.interval=300"])
    train(config, tmp_path / "run", progress=False, log=quiet)
    image = matplotlib.image.imread(tmp_path / "run" / "learning_curve.png")
    assert image.ndim == 3 and image.shape[0] > 200 and image.shape[1] > 400
    assert image[..., :3].std() > 0.05  # not a blank canvas
    steps = sorted({int(r["step"]) for r in rows(tmp_path / "run" / "logs" / "eval.csv")})
    assert len(steps) >= 3  # at 300, 600 and the end


def test_sigkill_mid_run_then_resume_reaches_the_target_without_duplicate_rows(tmp_path):
    run = tmp_path / "run"
    cmd = [sys.executable, "-m", "catzoo.cli.main", "train",
           "--config", str(ROOT / "configs" / "cat_in_the_box.yaml"), "--run-dir", str(run),
           "--no-progress", "--steps", "6000", "--set", "env.num_players=2",
           "--set", "eval.interval=500", *[a for o in TINY for a in ("--set", o)]]
    log = run / "logs" / "train.csv"
    killed_at = sigkill_past_a_checkpoint(cmd, run, log)
    pointer = run / "checkpoints" / "latest.json"
    assert 0 < killed_at < 6000
    assert main(["train", "--resume", str(run), "--no-progress"]) == 0
    final = json.loads(pointer.read_text())["step"]
    assert final >= 6000 and load_policy(run / "policy").meta["steps"] == final
    sessions = json.loads((run / "seeds.json").read_text())["sessions"]
    assert [s["start_step"] for s in sessions] == [0, killed_at]
    train_steps = [int(r["step"]) for r in rows(run / "logs" / "train.csv")]
    assert train_steps == sorted(set(train_steps))  # no row twice, in order
    keys = [(r["step"], r["opponent"]) for r in rows(run / "logs" / "eval.csv")]
    assert len(keys) == len(set(keys))
    assert not list((run / "checkpoints").glob(".tmp-*"))
    # and a finished run resumed does nothing: no new session, no new rows
    before = (run / "logs" / "eval.csv").read_text()
    assert main(["train", "--resume", str(run), "--no-progress"]) == 0
    assert (run / "logs" / "eval.csv").read_text() == before
    assert len(json.loads((run / "seeds.json").read_text())["sessions"]) == 2


def test_a_resumed_run_continues_the_same_weights_and_optimizer(tmp_path):
    import torch

    from catzoo.training.checkpoint import load_trainer_state

    config = config_mod.load(ROOT / "configs" / "lunar.yaml", [*TINY, "total_steps=400"])
    train(config, tmp_path / "run", progress=False, log=quiet)
    latest = json.loads((tmp_path / "run" / "checkpoints" / "latest.json").read_text())
    ckpt = tmp_path / "run" / "checkpoints" / latest["dir"]
    state = load_trainer_state(ckpt, as_torch=torch.from_numpy)
    assert json.loads((ckpt / "state.json").read_text())["step"] == latest["step"]
    assert state["optimizer"]["state"]  # Adam's moments travel with the weights
    policy = load_policy(tmp_path / "run" / "policy")
    np.testing.assert_array_equal(policy.actor.weights()["action.weight"],
                                  state["net"]["action_head.weight"].numpy())
    resume(tmp_path / "run", ["total_steps=700"], progress=False, log=quiet)
    assert load_policy(tmp_path / "run" / "policy").meta["steps"] >= 700


def test_no_pickle_anywhere_in_a_run_directory(tmp_path):
    config = config_mod.load(ROOT / "configs" / "cat_tree.yaml",
                             [*TINY, "total_steps=300", "network.critic=shared"])
    train(config, tmp_path / "run", progress=False, log=quiet)
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            assert path.suffix not in (".zip", ".pkl", ".pt", ".pickle"), path
            head = path.read_bytes()[:2]
            assert head != b"\x80\x04" and head != b"\x80\x05", path  # pickle protocols 4, 5


def test_an_override_of_one_proportion_keeps_the_others():
    root = Path(__file__).resolve().parent.parent / "configs"
    cfg = config_mod.load(root / "cat_in_the_box.yaml",
                          ["league.mix.heuristic=0.5", "league.mix.league=0.4"])
    assert cfg["league"]["mix"] == {"league": 0.4, "heuristic": 0.5, "random": 0.1}
    whole = config_mod.load(root / "cat_in_the_box.yaml", ["league.mix={heuristic: 1.0}"])
    assert whole["league"]["mix"] == {"heuristic": 1.0}  # a whole mapping replaces it
    with pytest.raises(config_mod.ConfigError, match="league.mix: unknown key"):
        config_mod.load(root / "cat_in_the_box.yaml", ["league.mix.heuristics=0.5"])


def test_reward_scale_is_checked_and_recorded():
    root = Path(__file__).resolve().parent.parent / "configs"
    for bad in ("0", "-1", ".nan"):
        with pytest.raises(config_mod.ConfigError, match="ppo.reward_scale must be"):
            config_mod.load(root / "lunar.yaml", [f"ppo.reward_scale={bad}"])
    assert config_mod.load(root / "lunar.yaml")["ppo"]["reward_scale"] == 0.1
    with pytest.raises(config_mod.ConfigError, match="unknown config key 'ppo.reward_scale'"):
        config_mod.resolve({"game": "lunar", "trainer": "sb3"}, ["ppo.reward_scale=0.1"])


def test_a_warm_start_clones_the_heuristic_before_ppo_and_resumes_without_cloning(tmp_path):
    config = config_mod.load(ROOT / "configs" / "catsle_builders.yaml", [
        *TINY, "env.num_players=3", "total_steps=300", "eval.games=0", "imitation.games=30",
        "imitation.epochs=3", "imitation.batch_size=128", "network.hidden=[64]"])
    logs: list[str] = []
    path = train(config, tmp_path / "run", progress=False, log=logs.append)
    figures = json.loads((tmp_path / "run" / "logs" / "imitation.json").read_text())
    assert figures["games"] == 30 and figures["teacher"] == "heuristic"
    assert figures["val_agreement"] > figures["random_agreement"] + 0.1
    assert len(figures["epochs"]) == 3
    meta = json.loads((path / "policy.json").read_text())
    assert meta["imitation"]["val_agreement"] == figures["val_agreement"]
    logs.clear()
    resume(tmp_path / "run", ["total_steps=600"], progress=False, log=logs.append)
    assert not any("imitation" in line for line in logs)  # cloned once, in the first session
    meta = json.loads((tmp_path / "run" / "policy" / "policy.json").read_text())
    assert meta["steps"] >= 600 and meta["imitation"]["games"] == 30


def test_a_warm_start_scales_the_critics_returns_as_ppo_does():
    from catzoo.training import imitation

    base = ["env.num_players=3", "imitation.games=2"]
    plain = config_mod.load(ROOT / "configs" / "catsle_builders.yaml", [*base, "ppo.reward_scale=1"])
    scaled = config_mod.load(ROOT / "configs" / "catsle_builders.yaml",
                             [*base, "ppo.reward_scale=0.1"])
    a, b = imitation.generate(plain, 2, seed=3), imitation.generate(scaled, 2, seed=3)
    assert np.abs(a.returns).max() > 1
    np.testing.assert_allclose(b.returns, 0.1 * a.returns, rtol=1e-5, atol=1e-6)


def test_an_unknown_teacher_is_refused_by_the_batched_trainer_too():
    with pytest.raises(config_mod.ConfigError, match="imitation.teacher"):
        config_mod.load(ROOT / "configs" / "catsle_builders.yaml",
                        ["imitation.games=5", "imitation.teacher=nobody"])


def test_the_learners_sampler_never_picks_a_masked_action_even_on_a_zero_draw():
    import torch

    from catzoo.training.ppo import gumbel_max

    logits = torch.full((3, 5), -1e9)
    logits[0, 2], logits[1, 4], logits[2, 1], logits[2, 3] = 0.3, -2.0, 0.0, 0.0
    u = torch.zeros(3, 5)  # every draw exactly 0 (torch.rand gives 0 once in 2**24)
    u[2, 1] = 0.5
    assert gumbel_max(logits, u).tolist() == [2, 4, 1]
    # and with ordinary draws it samples the softmax
    row = torch.tensor([[1.0, 0.0, -1e9, -0.5]]).expand(40_000, 4)
    picks = gumbel_max(row, torch.rand(row.shape, generator=torch.Generator().manual_seed(0)))
    share = np.bincount(picks.numpy(), minlength=4) / picks.numel()
    np.testing.assert_allclose(share, torch.softmax(row[0], 0).numpy(), atol=0.01)


def test_a_run_from_a_checkpoint_starts_from_its_actor_and_names_its_weights(tmp_path):
    """network.init: the actor starts as the checkpoint's, its CPU seconds count in the run's,
    and the run names the weights it started from by their sha256, which a resume keeps
    even when the folder it named holds other weights by then (as `shipped` does after a
    release)."""
    import shutil

    from safetensors.numpy import load_file

    def tiny(seed: int, *more: str) -> list[str]:
        return [*TINY, "env.num_players=2", f"seed={seed}", *more]

    first, other = (train(config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml",
                                          tiny(seed, "total_steps=300")),
                          tmp_path / f"start{seed}", progress=False, log=quiet)
                    for seed in (0, 1))
    start = tmp_path / "start"
    shutil.copytree(first, start)
    config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml",
                             tiny(2, f"network.init={start}", "total_steps=300"))
    path = train(config, tmp_path / "run", progress=False, log=quiet)
    started = load_policy(first).meta
    meta = load_policy(path).meta
    assert meta["init"] == str(start) and meta["init_weights_sha256"] == started["weights_sha256"]
    assert meta["cpu_seconds"] >= started["cpu_seconds"]
    step0 = load_file(tmp_path / "run" / "league" / "s0000000000" / "policy.safetensors")
    for name, tensor in load_file(first / "policy.safetensors").items():
        np.testing.assert_array_equal(step0[name], tensor)
    shutil.rmtree(start)
    shutil.copytree(other, start)  # the folder network.init names, other weights by now
    resume(tmp_path / "run", ["total_steps=600"], progress=False, log=quiet)
    meta = load_policy(tmp_path / "run" / "policy").meta
    assert meta["steps"] >= 600 and meta["init_weights_sha256"] == started["weights_sha256"]


def test_a_forged_start_in_a_checkpoint_is_refused_by_name(tmp_path):
    config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml",
                             [*TINY, "env.num_players=2", "total_steps=300"])
    train(config, tmp_path / "run", progress=False, log=quiet)
    latest = json.loads((tmp_path / "run" / "checkpoints" / "latest.json").read_text())
    state = tmp_path / "run" / "checkpoints" / latest["dir"] / "state.json"
    state.write_text(json.dumps({**json.loads(state.read_text()),
                                 "init_weights_sha256": "<script>"}))
    with pytest.raises(RunError, match="init_weights_sha256 is not a sha256"):
        resume(tmp_path / "run", ["total_steps=600"], progress=False, log=quiet)


def test_the_same_seed_trains_the_same_weights_and_another_seed_others(tmp_path):
    def weights(seed: int, run: str) -> str:
        config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml",
                                 [*TINY, "env.num_players=2", "total_steps=300", f"seed={seed}"])
        return load_policy(train(config, tmp_path / run, progress=False, log=quiet)).meta[
            "weights_sha256"]

    assert weights(0, "a") == weights(0, "b") != weights(1, "c")
