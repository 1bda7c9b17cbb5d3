"""How closely an MLP clones a bot: held-out agreement by network and by kind of decision,
beside a random legal action's, from the same demonstrations.

The warm start (``catzoo.training.imitation``) is only as strong as its clone; this is how
``checkpoints/README.md`` found that CATsle Builders' clone plateaus near 66% whatever its
size (ties of the heuristic's take decisions included).

Run: ``python benchmarks/clone_agreement.py [--game catsle_builders] [--players 4]
[--games 1000] [--epochs 10] [--features none]``. Decisions are split by action range: CATsle Builders'
play (0-59), take (60-119) and column (120-124); other games print one row.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from catzoo.games.catsle_builders.state import COLUMN_BASE, TAKE_BASE

NETWORKS = (([256, 256], "tanh"), ([512, 512], "relu"), ([256, 256, 256], "relu"))
# Decision kinds by action range (the end of the last range: the game's action count).
PHASES = {"catsle_builders": (("play", 0, TAKE_BASE), ("take", TAKE_BASE, COLUMN_BASE),
                              ("column", COLUMN_BASE, None))}


def main(argv=None) -> int:
    import torch

    from catzoo.training import config as config_mod
    from catzoo.training import imitation
    from catzoo.training.ppo import ActorCritic

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="catsle_builders")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1000, help="teacher games to clone")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--features", default=None,
                        help="the network's input features (default: the config's; none: none)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    root = Path(__file__).resolve().parent.parent
    cfg = config_mod.load(root / "configs" / f"{args.game}.yaml",
                          [f"env.num_players={args.players}"] + (
                              [] if args.features is None else
                              [f"network.features={'' if args.features == 'none' else args.features}"]))
    t0 = time.process_time()
    demos = imitation.generate(cfg, args.games, seed=1)
    _, val = imitation.split(demos)
    print(f"{args.game}, {args.players} players: {len(demos)} decisions of "
          f"{cfg['imitation']['teacher']} ({time.process_time() - t0:.0f} CPU-s); random legal "
          f"action agrees {imitation.random_agreement(val):.1%} held out")
    phases = PHASES.get(args.game, (("all", 0, demos.masks.shape[1]),))
    for hidden, activation in NETWORKS:
        torch.manual_seed(0)
        net = ActorCritic(demos.obs.shape[1], demos.masks.shape[1], hidden, activation, "shared")
        t0 = time.process_time()
        out = imitation.pretrain(net, demos, dict(cfg["imitation"], epochs=args.epochs), seed=0,
                                 log=lambda *_: None)
        with torch.no_grad():
            hit = net.best(torch.as_tensor(val.obs), val.masks) == val.actions
        legal = val.masks.sum(1)
        by_phase = []
        for name, lo, hi in phases:
            sel = (val.actions >= lo) & (val.actions < (hi or val.masks.shape[1]))
            if sel.any():
                by_phase.append(f"{name} {hit[sel].mean():.1%} (random {np.mean(1 / legal[sel]):.1%},"
                                f" {sel.mean():.0%} of decisions)")
        curve = ", ".join(f"{e['val_agreement']:.1%}" for e in out["epochs"])
        print(f"{hidden} {activation}: by epoch {curve} ({time.process_time() - t0:.0f} CPU-s)")
        print("    " + "; ".join(by_phase))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
