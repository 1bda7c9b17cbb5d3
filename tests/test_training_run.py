"""Short training runs: every game's config trains, checkpoints load and play; a run
killed with SIGKILL resumes to its step target; the command line reports bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from catzoo.cli.main import main
from catzoo.games.registry import GAMES
from catzoo.policies.match import play_match
from catzoo.training import config as config_mod
from catzoo.training import load_policy
from catzoo.training.trainer import train

ROOT = Path(__file__).resolve().parent.parent


def sb3_config(game: str) -> Path:
    """The stable-baselines3 path's config of a game (configs/sb3/, or the game's own)."""
    path = ROOT / "configs" / "sb3" / f"{game}.yaml"
    return path if path.exists() else ROOT / "configs" / f"{game}.yaml"


TINY = ["network.hidden=[16]", "vec_env.n_envs=2", "ppo.n_steps=64", "ppo.batch_size=64",
        "ppo.n_epochs=1", "league.snapshot_interval=200", "league.partner_refresh_interval=100",
        "checkpoint_interval=256", "eval.interval=100000", "eval.games=2"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_short_run_writes_a_checkpoint_that_loads_and_plays_legal_moves(game, tmp_path):
    overrides = [*TINY, "total_steps=400"]
    raw = config_mod.load(sb3_config(game))
    if raw["imitation"]["games"]:  # keep the warm-start, on a handful of games
        overrides += ["imitation.games=4", "imitation.epochs=1"]
    config = config_mod.load(sb3_config(game), overrides)
    path = train(config, tmp_path / "run", progress=False, log=lambda *_: None)
    meta = json.loads((path / "policy.json").read_text())
    assert meta["steps"] >= 400 and meta["game"] == game and meta["eval"]["heuristic"]["games"] == 2
    policy = load_policy(path, game=game, num_players=config["env"]["num_players"])
    n = config["env"]["num_players"]
    result = play_match(game, [policy] * n, seed=5, **config["env"]["options"])
    assert result.agent_steps > 0  # the env raises on an illegal action
    league = json.loads((tmp_path / "run" / "league" / "league.json").read_text())
    assert [s["step"] for s in league["snapshots"]][:2] == [0, 200]
    assert (league["partner"] is not None) == bool(config["teams"])
    assert (tmp_path / "run" / "logs" / "eval.csv").exists()
    assert list((tmp_path / "run" / "logs" / "session-0").glob("events.out.tfevents*"))


def test_sigkill_mid_run_then_resume_reaches_the_step_target(tmp_path):
    run = tmp_path / "run"
    cmd = [sys.executable, "-m", "catzoo.cli.main", "train",
           "--config", str(sb3_config("cat_in_the_box")), "--run-dir", str(run),
           "--no-progress", "--steps", "1500", "--set", "env.num_players=2",
           *[a for o in TINY for a in ("--set", o)]]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    pointer = run / "checkpoints" / "latest.json"
    deadline = time.time() + 120
    while not pointer.exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_at = json.loads(pointer.read_text())["step"]
    assert 0 < killed_at < 1500
    assert main(["train", "--resume", str(run), "--no-progress"]) == 0
    final = json.loads(pointer.read_text())["step"]
    assert final >= 1500
    assert load_policy(run / "policy").meta["steps"] == final
    sessions = json.loads((run / "seeds.json").read_text())["sessions"]
    assert [s["start_step"] for s in sessions] == [0, killed_at]
    assert not list((run / "checkpoints").glob(".tmp-*"))


@pytest.mark.parametrize(("argv", "message"), [
    (["train"], None),
    (["train", "--config", "nope.yaml"], "config file 'nope.yaml' does not exist"),
    (["train", "--config", str(ROOT / "configs/cat_in_the_box.yaml"), "--set", "ppo.lr=1"],
     "unknown config key 'ppo.lr'"),
    (["train", "--config", str(ROOT / "configs/cat_in_the_box.yaml"), "--set", "seed=abc"],
     "config key 'seed' must be of type int"),
    (["train", "--config", str(ROOT / "configs/cat_in_the_box.yaml"), "--set", "env.num_players=9"],
     "env.num_players=9: cat_in_the_box is played by 2, 3, 4, 5 players"),
    (["train", "--config", str(ROOT / "configs/cat_in_the_box.yaml"), "--set", "league.mix={bots: 1}"],
     "league.mix: unknown key(s) bots"),
    (["train", "--resume", "/nonexistent/run"], "is not a run directory (no config.yaml)"),
])
def test_command_line_errors_are_one_line_messages(argv, message, capsys):
    if message is None:
        with pytest.raises(SystemExit):
            main(argv)
        return
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_a_float_written_without_a_dot_is_read_as_the_number_it_is():
    # PyYAML reads 5e-5 as a string (YAML 1.1 wants 5.0e-5); a float key takes it as 5e-5
    config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml",
                             ["ppo.learning_rate=5e-5", "ppo.ent_coef=1E-3"])
    assert config["ppo"]["learning_rate"] == 5e-5 and config["ppo"]["ent_coef"] == 1e-3
    with pytest.raises(config_mod.ConfigError, match="'ppo.learning_rate' must be of type float"):
        config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml", ["ppo.learning_rate=5e"])
    with pytest.raises(config_mod.ConfigError, match="'seed' must be of type int"):
        config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml", ["seed=1e3"])


def test_resume_refuses_overrides_that_would_change_the_run(tmp_path):
    config = config_mod.load(sb3_config("cat_in_the_box"), ["env.num_players=2"])
    (tmp_path / "config.yaml").write_text(config_mod.dump(config))
    with pytest.raises(Exception, match="cannot change a run being resumed"):
        from catzoo.training.trainer import Run
        Run.open(tmp_path, ["ppo.learning_rate=0.1"])
    assert main(["train", "--config", str(ROOT / "configs/cat_in_the_box.yaml"),
                 "--run-dir", str(tmp_path)]) == 2


def test_evaluations_are_labelled_once_per_step_and_a_finished_run_resumes_to_nothing(
        tmp_path, capsys):
    """Evaluations run between rollouts, so each (step, opponent) is one row of a policy
    trained on exactly that many steps; resuming a finished run trains, evaluates and
    logs nothing more."""
    run = tmp_path / "run"
    argv = ["train", "--config", str(sb3_config("cat_in_the_box")), "--run-dir",
            str(run), "--no-progress", "--steps", "384",
            *[a for o in [*TINY, "env.num_players=2", "eval.interval=128"] for a in ("--set", o)]]
    assert main(argv) == 0
    rows = (run / "logs" / "eval.csv").read_text().splitlines()[1:]
    keys = [tuple(r.split(",")[:2]) for r in rows]
    assert len(keys) == len(set(keys)), rows  # no step labelled twice for one opponent
    steps = [int(k[0]) for k in keys]
    assert steps == sorted(steps) and steps[-1] == 384 and len(set(steps)) == 3
    assert all(s % 128 == 0 for s in steps)  # rollout boundaries (2 envs x 64 steps)
    capsys.readouterr()
    before = {p: p.read_bytes() for p in (run / "logs" / "eval.csv", run / "seeds.json",
                                          run / "policy" / "policy.json")}
    assert main(["train", "--resume", str(run), "--no-progress"]) == 0
    assert "already finished: step 384 of total_steps 384" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in before} == before
    assert not (run / "logs" / "session-1").exists()
