"""``catzoo train``: self-play training from a YAML config, or resuming a run.

    catzoo train --config configs/cat_in_the_box.yaml --set ppo.learning_rate=1e-4
    catzoo train --resume runs/cat_in_the_box-20250101-120000
    catzoo train --config configs/rllib/cat_in_the_box.yaml   # PPO through RLlib (docs/rllib.md)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from catzoo.cli.main import UsageError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "train", help="train a policy by masked PPO self-play against a league",
        description="Train a policy for a CatZoo game (needs the 'train' extra: "
                    "pip install catzoo[train]). The config's `trainer` picks the batched "
                    "self-play trainer (ppo, the default) or stable-baselines3's MaskablePPO "
                    "(sb3); see docs/training.md.")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help="YAML config, e.g. configs/cat_in_the_box.yaml")
    source.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its last checkpoint")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config value, e.g. --set ppo.learning_rate=1e-4 (repeatable)")
    p.add_argument("--steps", type=int, help="shortcut for --set total_steps=N")
    p.add_argument("--seed", type=int, help="shortcut for --set seed=N (new runs only)")
    p.add_argument("--run-dir", help="run directory (default runs/GAME-YYYYmmdd-HHMMSS)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--trust-run-dir", action="store_true",
                   help="with --resume: allow a checkpoint in SB3's pickled .zip format (runs "
                        "written by older CatZoo); loading it runs any code it holds, so "
                        "only for run directories you made yourself")
    p.set_defaults(func=cmd_train)


def cmd_train(args) -> int:
    if args.config and _trainer_of(args.config) == "rllib":
        return cmd_train_rllib(args)
    try:
        from catzoo.training import config as config_mod
        from catzoo.training import ppo, trainer
    except ImportError as err:
        raise UsageError(f"training needs the 'train' extra (pip install 'catzoo[train]'): {err}") from None
    modules = {"ppo": ppo, "sb3": trainer}

    overrides = list(args.overrides)
    if args.steps is not None:
        if args.steps <= 0:
            raise UsageError(f"--steps must be positive, got {args.steps}")
        overrides.append(f"total_steps={args.steps}")
    if args.trust_run_dir and not args.resume:
        raise UsageError("--trust-run-dir only applies to --resume")
    run_dir = args.resume
    try:
        if args.resume:
            if args.seed is not None or args.run_dir:
                raise UsageError("--seed and --run-dir cannot be used with --resume")
            modules[run_trainer(args.resume)].resume(args.resume, overrides,
                                                     progress=not args.no_progress,
                                                     trust_run_dir=args.trust_run_dir)
            return 0
        if args.seed is not None:
            overrides.append(f"seed={args.seed}")
        config = config_mod.load(args.config, overrides)
        run_dir = args.run_dir or str(Path("runs") / f"{config['game']}-{time.strftime('%Y%m%d-%H%M%S')}")
        print(f"run directory: {run_dir}")
        modules[config["trainer"]].train(config, run_dir, progress=not args.no_progress)
    except (config_mod.ConfigError, trainer.RunError, ppo.RunError) as err:
        raise UsageError(str(err)) from None
    except OSError as err:
        # A full disk (or a lost mount) mid-run: one line, and how to go on. What was being
        # written is discarded whole; the last complete checkpoint is intact.
        what = f" writing {err.filename}" if err.filename else ""
        print(f"catzoo: training stopped: {err.strerror or err}{what}; free the space and "
              f"continue with: catzoo train --resume {run_dir}", file=sys.stderr)
        return 1
    return 0


def run_trainer(run_dir: str) -> str:
    """The trainer of a run directory (runs made before the batched trainer are SB3's)."""
    from catzoo.training.config import stored_config

    trainer = stored_config(run_dir, UsageError)["trainer"]
    if trainer not in ("ppo", "sb3"):
        raise UsageError(f"{run_dir!r}: its config.yaml names trainer={trainer!r}; "
                         "expected ppo or sb3")
    return trainer


def _trainer_of(path: str) -> str | None:
    """The ``trainer`` key of a config (``rllib``), read without Ray; None when absent or
    unreadable (the CatZoo trainer's loader then reports what is wrong)."""
    try:
        import yaml

        raw = yaml.safe_load(Path(path).read_text())
    except Exception:  # noqa: BLE001 - any unreadable file is the other loader's to report
        return None
    return raw.get("trainer") if isinstance(raw, dict) else None


def cmd_train_rllib(args) -> int:
    """A config with ``trainer: rllib``: PPO through RLlib with CatZoo's league."""
    try:
        from catzoo.integrations.rllib import config as config_mod
        from catzoo.integrations.rllib import trainer
    except ImportError as err:
        raise UsageError(f"RLlib training needs the 'rllib' extra (pip install 'catzoo[rllib]'): "
                         f"{err}") from None
    from catzoo.training.config import ConfigError

    overrides = list(args.overrides)
    if args.steps is not None:
        if args.steps <= 0:
            raise UsageError(f"--steps must be positive, got {args.steps}")
        overrides.append(f"total_steps={args.steps}")
    if args.seed is not None:
        overrides.append(f"seed={args.seed}")
    try:
        config = config_mod.load(args.config, overrides)
        run_dir = args.run_dir or str(
            Path("runs") / f"{config['game']}-rllib-{time.strftime('%Y%m%d-%H%M%S')}")
        print(f"run directory: {run_dir}")
        trainer.train(config, run_dir, progress=not args.no_progress)
    except (ConfigError, trainer.RunError) as err:
        raise UsageError(str(err)) from None
    return 0
