"""Training's bad input and bad luck (issues 24 and 27): every config value checked before
anything is created; a full disk reported in one line with nothing half-written kept; a
resume after partner refreshes finds every partner its checkpoint names; and a run
directory holds no pickle: resuming reads safetensors + JSON only, and an old SB3 zip is
loaded only when the user says the directory is trusted."""

from __future__ import annotations

import errno
import json
import pickle
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from catzoo.cli.main import main
from catzoo.training import checkpoint as ckpt_mod
from catzoo.training import config as config_mod
from catzoo.training.trainer import SB3_ZIP, Run, RunError, resume, train

ROOT = Path(__file__).resolve().parent.parent
TINY = ["network.hidden=[16]", "vec_env.n_envs=2", "ppo.n_steps=64", "ppo.batch_size=64",
        "ppo.n_epochs=1", "league.snapshot_interval=200", "league.partner_refresh_interval=100",
        "checkpoint_interval=128", "eval.interval=100000", "eval.games=0"]
QUIET = {"progress": False, "log": lambda *_: None}


def sb3_config(game: str):
    """The stable-baselines3 path's config of a game (configs/sb3/, or the game's own)."""
    path = ROOT / "configs" / "sb3" / f"{game}.yaml"
    return path if path.exists() else ROOT / "configs" / f"{game}.yaml"


def tiny(game: str, *extra: str) -> dict:
    return config_mod.load(sb3_config(game),
                           [*TINY, "imitation.games=0", *extra])


# --- config values -----------------------------------------------------------------------------
@pytest.mark.parametrize(("setting", "message"), [
    ("ppo.learning_rate=-1", "ppo.learning_rate must be positive, got -1.0; allowed: a number"),
    ("ppo.n_epochs=0", "ppo.n_epochs must be positive, got 0; allowed: an integer from 1"),
    ("ppo.batch_size=0", "ppo.batch_size must be at least 2, got 0"),
    ("seed=-1", "seed must be non-negative, got -1; allowed: an integer from 0 to"),
    ("env.options={rounds: triple}", ("env.options: cat_in_the_box: option rounds='triple' "
                                      "is not allowed; choose one of 'full', 'single'")),
    ("env.options={row_order: 5}", "env.options: cat_in_the_box: option row_order=5"),
    ("ppo.gamma=5", "ppo.gamma must be at most 1, got 5.0; allowed: a number from 0 to 1"),
    ("ppo.clip_range=-0.2", "ppo.clip_range must be positive, got -0.2"),
    ("ppo.ent_coef=-100", "ppo.ent_coef must be non-negative, got -100.0"),
    ("league.mix={league: .nan, random: 1}", "league.mix.league=nan is not allowed"),
    # beyond the issues
    ("ppo.gamma=.nan", "ppo.gamma must be a finite number, got nan"),
    ("ppo.gae_lambda=1.5", "ppo.gae_lambda must be at most 1"),
    ("ppo.max_grad_norm=0", "ppo.max_grad_norm must be positive"),
    ("ppo.target_kl=-1", "ppo.target_kl must be non-negative"),
    ("ppo.vf_coef=.inf", "ppo.vf_coef must be a finite number"),
    ("league.scheme={latest: -1}", "league.scheme.latest=-1 is not allowed"),
    ("league.weighted_power=.nan", "league.weighted_power must be a finite number"),
    ("league.max_snapshots=0", "league.max_snapshots must be positive"),
    ("vec_env.n_envs=0", "vec_env.n_envs must be positive"),
    ("torch_threads=100000", "torch_threads must be at most 256"),
    ("network.hidden=[100000]", "network.hidden=[100000] is not allowed"),
    ("env.reward=dense", "env.reward='dense' is not allowed; allowed: standing, score"),
    ("teams=[[0, true]]", "teams: each team must be a list of seat numbers"),
    ("eval.games=-1", "eval.games must be non-negative"),
])
def test_a_bad_config_value_is_one_line_naming_the_key_and_creates_nothing(
        setting, message, tmp_path, capsys):
    run_dir = tmp_path / "run"
    argv = ["train", "--config", str(sb3_config("cat_in_the_box")),
            "--run-dir", str(run_dir), "--no-progress", "--set", setting]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert not run_dir.exists()


def test_the_seed_shortcut_is_checked_too(tmp_path, capsys):
    assert main(["train", "--config", str(sb3_config("lunar")), "--seed", "-1",
                 "--run-dir", str(tmp_path / "run")]) == 2
    assert "seed must be non-negative" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


# --- a full disk --------------------------------------------------------------------------------
def test_a_full_disk_is_one_line_and_the_run_resumes_past_what_a_kill_left(
        tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    writes = []
    real = ckpt_mod.save_trainer_state

    def disk_fills_up(directory, state):
        writes.append(directory)
        if len(writes) == 2:  # the second checkpoint: the disk is full
            (Path(directory) / ckpt_mod.TRAINER_TENSORS).write_bytes(b"half")
            raise OSError(errno.ENOSPC, "No space left on device",
                          str(Path(directory) / ckpt_mod.TRAINER_TENSORS))
        real(directory, state)

    monkeypatch.setattr("catzoo.training.trainer.save_trainer_state", disk_fills_up)
    argv = ["train", "--config", str(sb3_config("cat_in_the_box")), "--run-dir",
            str(run), "--no-progress", "--steps", "256", "--set", "env.num_players=2",
            *[a for o in TINY for a in ("--set", o)]]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "No space left on device" in err and f"catzoo train --resume {run}" in err
    ckpts = run / "checkpoints"
    assert not list(ckpts.glob(".tmp-*")), "the half-written checkpoint was left behind"
    assert json.loads((ckpts / "latest.json").read_text())["step"] == 128
    # What a SIGKILL in the middle of a checkpoint leaves (another process's temporary).
    orphan = ckpts / ".tmp-step_0000000256-99999"
    (orphan / "policy").mkdir(parents=True)
    (orphan / ckpt_mod.TRAINER_TENSORS).write_bytes(b"half")
    monkeypatch.undo()
    # The disk stays full as long as the orphan holds its space (by hand, the only fix was
    # to find and delete it): resuming must clear it before it writes anything.
    from catzoo.training import run_dir

    real_write = run_dir.atomic_write_text

    def full_while_orphaned(path, text):
        if orphan.exists():
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(path, text)

    monkeypatch.setattr(run_dir, "atomic_write_text", full_while_orphaned)
    assert main(["train", "--resume", str(run), "--no-progress"]) == 0
    assert json.loads((ckpts / "latest.json").read_text())["step"] >= 256
    assert not orphan.exists() and not list(ckpts.glob(".tmp-*"))


# --- league pruning ---------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["cat_tree", "lunar"])
def test_a_run_killed_after_partner_refreshes_resumes(game, tmp_path, monkeypatch):
    """The issue's crash: the last checkpoint's partner copy had been pruned by later
    refreshes ("no checkpoint at .../league/partner-..."), so the run could not resume."""
    config = tiny(game, "league.partner_refresh_interval=16", "total_steps=512",
                  *(["env.num_players=4"] if game == "lunar" else []))
    assert config["teams"]

    class Killed(Exception):
        pass

    saved = []
    real = Run.save_checkpoint

    def killed_at_the_second(self, model, evals):
        if saved:
            raise Killed  # the process dies where it would write checkpoint 2
        saved.append(real(self, model, evals))
        return saved[-1]

    monkeypatch.setattr(Run, "save_checkpoint", killed_at_the_second)
    with pytest.raises(Killed):
        train(config, tmp_path / "run", **QUIET)
    monkeypatch.undo()
    league = tmp_path / "run" / "league"
    state = json.loads((saved[0] / "state.json").read_text())
    named = state["league"]["partner"]
    refreshed = sorted(p.name for p in league.glob("partner-*"))
    assert named and refreshed[-1] > named  # partners were refreshed after the checkpoint
    assert (league / named).is_dir()  # ... and the one the checkpoint names was kept
    path = resume(tmp_path / "run", **QUIET)
    assert json.loads((path / "policy.json").read_text())["steps"] >= 512


# --- resume without pickle ---------------------------------------------------------------------
def test_a_run_directory_holds_no_pickle_and_resumes_its_exact_training_state(tmp_path):
    import numpy as np
    import torch

    from catzoo.training.trainer import make_vec_env

    train(tiny("cat_in_the_box", "env.num_players=2", "total_steps=256"), tmp_path / "run",
          **QUIET)
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            head = path.read_bytes()[:4]
            assert not zipfile.is_zipfile(path) and not head.startswith(b"\x80"), path
            assert path.suffix not in (".zip", ".pkl", ".pt", ".pth"), path
    run = Run.open(tmp_path / "run")
    latest = run.latest_checkpoint()
    assert run.checkpoint_kind(latest) == "safe"
    saved = ckpt_mod.load_trainer_state(latest, as_torch=torch.from_numpy)
    vec = make_vec_env(run.config, run.league.dir, 0)
    try:
        model = run._load_checkpoint(latest, vec, seed=12345, trust_run_dir=False)
    finally:
        vec.close()
    assert model.num_timesteps == saved["counters"]["num_timesteps"] == 256
    assert model._n_updates == saved["counters"]["n_updates"] > 0
    for name, tensor in model.policy.state_dict().items():
        assert torch.equal(tensor, saved["policy"][name]), name
    moments = model.policy.optimizer.state_dict()["state"]
    assert moments.keys() == saved["optimizer"]["state"].keys()
    for key, entry in moments.items():
        assert torch.equal(entry["exp_avg_sq"], saved["optimizer"]["state"][key]["exp_avg_sq"])
    # The generators are the checkpoint's, not the new session seed's.
    assert torch.equal(torch.get_rng_state(), saved["rng"]["torch"])
    assert np.array_equal(np.random.get_state()[1], saved["rng"]["numpy"][1])


def _legacy_checkpoint(run_dir: Path, payload: bytes) -> Path:
    """Turn a run's latest checkpoint into one as runs were written before: SB3's zip."""
    run = Run.open(run_dir)
    latest = run.latest_checkpoint()
    for name in (ckpt_mod.TRAINER_TENSORS, ckpt_mod.TRAINER_STATE):
        (latest / name).unlink()
    (latest / SB3_ZIP).write_bytes(payload)
    return latest


class _Marker:
    """Unpickling this writes a file: proof that a pickle ran."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (Path.write_text, (Path(self.path), "ran"))


def test_an_sb3_zip_is_resumed_only_from_a_trusted_run_directory(tmp_path, capsys):
    run_dir = tmp_path / "run"
    train(tiny("cat_tree", "total_steps=128"), run_dir, **QUIET)
    marker = tmp_path / "pwned"
    import io

    blob = io.BytesIO()
    with zipfile.ZipFile(blob, "w") as z:
        z.writestr("data", pickle.dumps(_Marker(str(marker))))
        z.writestr("policy.pth", pickle.dumps(_Marker(str(marker))))
    _legacy_checkpoint(run_dir, blob.getvalue())
    with pytest.raises(RunError, match="holds pickles: loading it runs whatever code"):
        resume(run_dir, ["total_steps=256"], **QUIET)
    assert main(["train", "--resume", str(run_dir), "--no-progress", "--steps", "256"]) == 2
    err = capsys.readouterr().err
    assert "--trust-run-dir" in err and err.count("\n") == 1
    assert not marker.exists()
    seeds = json.loads((run_dir / "seeds.json").read_text())
    assert len(seeds["sessions"]) == 1  # refused before anything was written


def test_a_trusted_sb3_zip_still_resumes(tmp_path):
    from catzoo.training.trainer import build_model, make_vec_env

    run_dir = tmp_path / "run"
    train(tiny("cat_tree", "total_steps=128"), run_dir, **QUIET)
    run = Run.open(run_dir)
    vec = make_vec_env(run.config, run.league.dir, 0)
    try:
        model = build_model(run.config, vec, 0)
        model.num_timesteps = 128
        legacy = tmp_path / "legacy.zip"
        model.save(legacy)
    finally:
        vec.close()
    _legacy_checkpoint(run_dir, legacy.read_bytes())
    path = resume(run_dir, ["total_steps=256"], trust_run_dir=True, **QUIET)
    assert json.loads((path / "policy.json").read_text())["steps"] >= 256
    # Its new checkpoints are written without pickle.
    assert Run.open(run_dir).checkpoint_kind(Run.open(run_dir).latest_checkpoint()) == "safe"


def test_a_tampered_training_state_is_refused(tmp_path):
    run_dir = tmp_path / "run"
    train(tiny("cat_tree", "total_steps=128"), run_dir, **QUIET)
    latest = Run.open(run_dir).latest_checkpoint()
    blob = (latest / ckpt_mod.TRAINER_TENSORS).read_bytes()
    (latest / ckpt_mod.TRAINER_TENSORS).write_bytes(blob[:-8] + bytes(b ^ 0xFF for b in blob[-8:]))
    with pytest.raises(RunError, match="does not match the SHA-256"):
        resume(run_dir, ["total_steps=256"], **QUIET)
    seeds = json.loads((run_dir / "seeds.json").read_text())
    assert len(seeds["sessions"]) == 1  # refused before anything was written
    (latest / ckpt_mod.TRAINER_STATE).write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RunError, match="trainer.json is corrupt"):
        resume(run_dir, ["total_steps=256"], **QUIET)


def test_pack_state_round_trips_a_trainer_state(tmp_path):
    import random

    import numpy as np
    import torch

    state = {"a": {0: {"step": torch.tensor(3.0), "m": torch.zeros(2, 3)}},
             "groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "params": [0, 1], "fused": None}],
             "np": np.random.get_state(), "py": random.getstate(), "nan": float("nan")}
    ckpt_mod.save_trainer_state(tmp_path, state)
    back = ckpt_mod.load_trainer_state(tmp_path, as_torch=torch.from_numpy)
    assert torch.equal(back["a"][0]["step"], state["a"][0]["step"])
    assert back["a"][0]["step"].shape == ()
    assert back["groups"] == state["groups"] and back["py"] == state["py"]
    assert np.array_equal(back["np"][1], state["np"][1]) and back["np"][0] == "MT19937"
    assert back["nan"] != back["nan"]
    with pytest.raises(TypeError, match="cannot write a set"):
        ckpt_mod.pack_state({"x": {1, 2}})
