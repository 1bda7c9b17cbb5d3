"""What ``best:cat_tree``'s search (SPARTA, ``catzoo.policies.search.sparta``) does in a move's
budget, before and after its two speed-ups, in the same run:

* re-deals rebuilt without the log checks (``CompiledState._rebuilt``: the re-deal replays its
  rewritten log on a new core without ``new``'s chance checks and ``apply``'s action checks,
  the core's own guard kept) against the checked replay they replaced (``new`` + ``apply``);
* the network's first layer in blocks of rows, each over the columns its rows set
  (``Actor._first_layer``), against the whole input.

It prints re-deals per CPU-second of each, and the re-deals a move of SPARTA within
``--seconds`` of CPU on the same positions (decisions with a choice in games the shipped pair
plays on seeded deals), by how many legal moves the position has:

    python benchmarks/sparta_speed.py [--seconds 1] [--positions 30]

A third row compares a re-deal's copy of the game's generator through ``mt_state`` and in C
(``Core.copy_generator``), which came later: the re-deal rows' two columns both copy in C.

One thread for the numeric libraries and the thread's CPU clock, as the oracle and the arena
use. Both forms give the same re-deals (tests/test_cat_tree_properties.py) and the same
logits to float rounding (tests/test_actor.py). Nothing here asserts the figures.
"""

from __future__ import annotations

import argparse
import random
import time
from contextlib import contextmanager

import numpy as np
from threadpoolctl import threadpool_limits

from catzoo.games.cat_tree import CatTreeState
from catzoo.games.compiled import CompiledState
from catzoo.policies.registry import make_policy
from catzoo.policies.search import budget
from catzoo.training import actor

CLASSES = ((2, 2), (3, 20), (21, 99))  # legal moves: keeps and orders, small and large placements


@contextmanager
def before():
    """The checked replay and the whole-input first layer, as before the speed-ups."""
    rebuilt, share = CompiledState.__dict__["_rebuilt"], actor.SPARSE_SHARE

    def checked(cls, options, seed, chance, history):
        state = cls.new(options, seed=seed, chance=chance)
        for action in history:
            state.apply(action)
        return state

    CompiledState._rebuilt = classmethod(checked)
    actor.SPARSE_SHARE = -1.0
    try:
        yield
    finally:
        CompiledState._rebuilt, actor.SPARSE_SHARE = rebuilt, share


def positions(count: int, seed: int) -> list[tuple[CatTreeState, int]]:
    """Decisions with a choice, in games the shipped pair plays on seeded deals."""
    blueprint = make_policy("shipped", "cat_tree", 2)
    rng, out, game = random.Random(seed), [], 0
    while len(out) < count:
        state = CatTreeState.new(seed=seed + game)
        game += 1
        while not state.is_terminal() and len(out) < count:
            p = state.current_player
            seen = {"observation": state.observation(p), "action_mask": state.legal_mask()}
            if len(state.legal_actions()) > 1 and rng.random() < 0.15:
                out.append((state.clone(), p))
            state.apply(blueprint.act(seen))
    return out


def redeals_per_second(found, repeats: int) -> float:
    rng, start = random.Random(0), time.thread_time()
    for _ in range(repeats):
        for state, p in found:
            state.resample(p, rng)
    return repeats * len(found) / (time.thread_time() - start)


def generator_copies_per_second(found, repeats: int, in_c: bool) -> float:
    """A re-deal's copy of the game's generator: through ``mt_state`` (625 Python ints out
    and in, as before) or ``Core.copy_generator``."""
    state = found[0][0]
    other, start = state.clone(), time.thread_time()
    for _ in range(repeats):
        if in_c:
            other._core.copy_generator(state._core)
        else:
            other._core.mt_state = state._core.mt_state
    return repeats / (time.thread_time() - start)


def rows_per_second(found, repeats: int) -> float:
    """The shipped network's forward pass over a search's batch: every position's re-deals,
    each copied once per legal move, as the first step of SPARTA's rollouts sees them."""
    net = make_policy("shipped", "cat_tree", 2)
    rng, rows = random.Random(1), []
    for state, p in found[:8]:
        for _ in range(8):
            det = state.resample(p, rng)
            for a in det.legal_actions():
                sim = det.clone()
                sim.apply(a)
                if not sim.is_terminal():
                    rows.append(sim.observation(sim.current_player))
    x = np.array(rows, dtype=np.float32)
    start = time.thread_time()
    for _ in range(repeats):
        net.actor.logits(x)
    return repeats * len(x) / (time.thread_time() - start)


def search(found, seconds: float) -> dict[tuple[int, int], float]:
    """SPARTA's mean re-deals a move within ``seconds`` of CPU, by class of position."""
    bot = make_policy(f"sparta:seconds={seconds}", "cat_tree", 2, seed=0)
    done: dict[tuple[int, int], list[int]] = {c: [] for c in CLASSES}
    with budget.use_clock("cpu"):
        for state, p in found:
            bot.act({"observation": state.observation(p), "action_mask": state.legal_mask()},
                    state=state, player=p)
            n = len(state.legal_actions())
            for lo, hi in CLASSES:
                if lo <= n <= hi:
                    done[(lo, hi)].append(bot.last_determinizations)
    return {c: float(np.mean(v)) if v else float("nan") for c, v in done.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--positions", type=int, default=30)
    args = parser.parse_args()
    with threadpool_limits(1):
        found = positions(args.positions, 50_000_000)
        with before():
            old = (redeals_per_second(found, 20), rows_per_second(found, 20))
        new = (redeals_per_second(found, 20), rows_per_second(found, 20))
        print(f"Cat Tree, {len(found)} positions of the shipped pair's games")
        print(f"{'per CPU-second':<40} {'before':>10} {'after':>10} {'ratio':>6}")
        copies = [generator_copies_per_second(found, 20_000, c) for c in (False, True)]
        for name, b, a in (("re-deals (resample)", old[0], new[0]),
                           ("network rows (a rollout batch)", old[1], new[1]),
                           ("a re-deal's generator copies", *copies)):
            print(f"{name:<40} {b:>10,.0f} {a:>10,.0f} {a / b:>5.2f}x")
        with before():
            was = search(found, args.seconds)
        now = search(found, args.seconds)
        print(f"\nSPARTA at {args.seconds} CPU-s a move: mean re-deals a move")
        print(f"{'legal moves':<40} {'before':>10} {'after':>10} {'ratio':>6}")
        for lo, hi in CLASSES:
            b, a = was[(lo, hi)], now[(lo, hi)]
            print(f"{f'{lo}-{hi}':<40} {b:>10.1f} {a:>10.1f} {a / b:>5.2f}x")


if __name__ == "__main__":
    main()
