"""examples/: the CleanRL-style masked PPO on catzoo.vector.single_agent learns.

A few thousand learner decisions of Cat in the Box (2 players, one round) against the
random bot; the greedy policy before and after plays the same 512 deals and seats (arena
seeds no training uses). Both margins are three standard errors or more: a policy no
better than random, or no better than it started, passes either with odds under 1 in 700.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "cleanrl_ppo_masked.py"


def load_example():
    spec = importlib.util.spec_from_file_location("cleanrl_ppo_masked", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def standard_error(x: np.ndarray) -> float:
    return float(x.std(ddof=1) / np.sqrt(x.size))


def test_masked_ppo_on_single_agent_improves_against_random():
    example = load_example()
    args = example.parse(["--total-steps", "8192", "--options", "rounds=single", "--seed", "1",
                          "--eval-games", "512", "--quiet"])
    result = example.train(args)
    before, after = result["before"], result["after"]
    assert result["decisions"] >= 7000  # the reset steps are no decisions
    assert before.size == after.size == 512 and not np.isnan(after).any()
    gain = after - before  # the same deals and seats
    # random against random stands at 0 on average (two seats, zero-sum)
    assert after.mean() > 3 * standard_error(after), (after.mean(), standard_error(after))
    assert gain.mean() > 3 * standard_error(gain), (gain.mean(), standard_error(gain))
