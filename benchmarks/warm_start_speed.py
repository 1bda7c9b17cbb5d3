"""The warm start's demonstrations: decisions per CPU-second of the batched generator
(``catzoo.vector`` and the teacher's ``act_batch``) beside the AEC loop's, on the same
config in the same run.

Run: ``python benchmarks/warm_start_speed.py [--config configs/catsle_builders.yaml]
[--players 4] [--games 200]``. The figures include the input features the config's
network reads (both paths compute them the same way).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from catzoo.training import config as config_mod
from catzoo.training import imitation

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "catsle_builders.yaml"))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args(argv)
    config = config_mod.load(Path(args.config), [f"env.num_players={args.players}"])
    rates = {}
    for name, batched in (("batched (catzoo.vector)", True), ("AEC loop", False)):
        start = time.process_time()
        demos = imitation.generate(config, args.games, seed=1, batched=batched)
        cpu = time.process_time() - start
        rates[name] = len(demos) / cpu
        print(f"{name:24s} {args.games} games, {len(demos):8,d} decisions, {cpu:6.1f} CPU-s, "
              f"{rates[name]:8,.0f} decisions/CPU-s")
    print(f"batched / AEC: {rates['batched (catzoo.vector)'] / rates['AEC loop']:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
