"""Both trainers keep their runs through one module (training.run_dir): a pointer to the last
checkpoint that is corrupt or names an incomplete directory is handled the same way by the
batched trainer and the SB3 one (the newest complete checkpoint, with a warning), and the
run directory's pieces behave as documented."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from catzoo.training import config as config_mod
from catzoo.training import ppo, trainer
from catzoo.training.run_dir import RunDir, RunError, next_multiple

ROOT = Path(__file__).resolve().parent.parent
PPO_TINY = ["vector.num_envs=16", "ppo.rollout_steps=8", "ppo.num_minibatches=2",
            "ppo.n_epochs=1", "eval.games=0", "league.snapshot_interval=100",
            "checkpoint_interval=100", "imitation.games=0", "env.num_players=2",
            "network.hidden=[16]", "total_steps=300"]
SB3_TINY = ["vec_env.n_envs=1", "ppo.n_steps=64", "ppo.batch_size=32", "ppo.n_epochs=1",
            "eval.games=0", "league.snapshot_interval=64", "league.partner_refresh_interval=64",
            "checkpoint_interval=64", "imitation.games=0", "env.num_players=2",
            "network.hidden=[16]", "total_steps=192"]
TRAINERS = {
    "ppo": (lambda: config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml", PPO_TINY),
            ppo.train, ppo.resume),
    "sb3": (lambda: config_mod.load(ROOT / "configs" / "sb3" / "cat_in_the_box.yaml", SB3_TINY),
            trainer.train, trainer.resume),
}


def _pointer_damages():
    return {
        "names a directory that is gone": lambda ckpts, newest: json.dumps(
            {"dir": "step_0000999999", "step": 999999}),
        "names an incomplete directory": lambda ckpts, newest: _incomplete(ckpts, newest),
        "is cut short": lambda ckpts, newest: '{"dir": "step_00',
        "names a path outside": lambda ckpts, newest: json.dumps({"dir": "../../etc", "step": 1}),
    }


def _incomplete(ckpts: Path, newest: Path) -> str:
    half = ckpts / "step_0000999998"
    shutil.copytree(newest, half)
    (half / "state.json").unlink()
    return json.dumps({"dir": half.name, "step": 999998})


@pytest.mark.parametrize("damage", sorted(_pointer_damages()))
@pytest.mark.parametrize("name", sorted(TRAINERS))
def test_a_bad_latest_pointer_resumes_from_the_newest_complete_checkpoint(name, damage,
                                                                          tmp_path):
    make_config, train, resume = TRAINERS[name]
    run = tmp_path / "run"
    train(make_config(), run, progress=False, log=lambda *_: None)
    ckpts = run / "checkpoints"
    complete = sorted(p for p in ckpts.glob("step_*"))
    newest = complete[-1]
    step = json.loads((newest / "state.json").read_text())["step"]
    (ckpts / "latest.json").write_text(_pointer_damages()[damage](ckpts, newest))
    said: list[str] = []
    resume(run, ["total_steps=" + str(step + 100)], progress=False, log=said.append)
    warnings = [s for s in said if s.startswith("warning:") and "latest.json" in s]
    assert warnings and newest.name in warnings[0], said
    assert any(f"from step {step}" in s for s in said), said
    sessions = json.loads((run / "seeds.json").read_text())["sessions"]
    assert [s["start_step"] for s in sessions] == [0, step]
    assert json.loads((ckpts / "latest.json").read_text())["step"] >= step + 100


def test_without_a_complete_checkpoint_a_run_starts_afresh_with_a_warning(tmp_path):
    config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml", PPO_TINY)
    run = RunDir.create(tmp_path / "run", config)
    (run.ckpt_dir / "latest.json").write_text('{"dir": "step_0000000100", "step": 100}')
    said: list[str] = []
    assert run.latest(said.append) is None
    assert "starting afresh" in said[0]


def test_checkpoints_are_atomic_pruned_and_named_by_the_pointer(tmp_path):
    config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml", PPO_TINY)
    run = RunDir.create(tmp_path / "run", config, complete=lambda p: (p / "state.json").is_file())

    def write(tmp: Path) -> None:
        (tmp / "weights").write_text("w")

    for step in (10, 20, 30):
        run.write_checkpoint(step, write, {"rollouts": step // 10})
    names = sorted(p.name for p in run.ckpt_dir.iterdir())
    assert names == ["latest.json", "step_0000000020", "step_0000000030"]  # the newest two
    assert run.latest() == run.ckpt_dir / "step_0000000030"
    state = run.checkpoint_state(run.latest())
    assert state["step"] == 30 and state["rollouts"] == 3 and "league" in state

    def full_disk(tmp: Path) -> None:
        (tmp / "weights").write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        run.write_checkpoint(40, full_disk, {})
    assert not list(run.ckpt_dir.glob(".tmp-*")) and run.latest().name == "step_0000000030"


def test_resumed_rows_after_the_checkpoint_are_dropped_in_every_log(tmp_path):
    config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml", PPO_TINY)
    run = RunDir.create(tmp_path / "run", config)
    for name in ("train.csv", "expert.csv"):
        for step in (100, 200, 300):
            run.append_row(name, ["step", "x"], {"step": step, "x": step / 100})
    run.truncate_rows(200)
    for name in ("train.csv", "expert.csv"):
        lines = (run.logs / name).read_text().splitlines()
        assert lines == ["step,x", "100,1.0", "200,2.0"], name


def test_a_row_with_a_column_the_log_lacks_widens_its_header_and_keeps_the_old_rows(tmp_path):
    # A run resumed by a newer CatZoo logs columns its older rows lack.
    config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml", PPO_TINY)
    run = RunDir.create(tmp_path / "run", config)
    run.append_row("expert.csv", ["step", "x"], {"step": 100, "x": 1})
    run.append_row("expert.csv", ["step", "x", "y"], {"step": 200, "x": 2, "y": 3})
    run.append_row("expert.csv", ["step", "x"], {"step": 300, "x": 4})
    lines = (run.logs / "expert.csv").read_text().splitlines()
    assert lines == ["step,x,y", "100,1,", "200,2,3", "300,4,"]


def test_a_state_json_that_is_not_a_checkpoint_state_is_refused(tmp_path):
    config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml", PPO_TINY)
    run = RunDir.create(tmp_path / "run", config)
    bad = run.ckpt_dir / "step_0000000001"
    bad.mkdir()
    (bad / "state.json").write_text('{"step": true}')
    with pytest.raises(RunError, match="not a checkpoint state"):
        run.checkpoint_state(bad)


def test_periodic_tasks_run_at_the_next_multiple():
    assert [next_multiple(s, 100) for s in (0, 99, 100, 250)] == [100, 100, 200, 300]
