"""Wraps each seated policy so that a failure names the policy and the game state.

A policy that raises, or returns an action the mask forbids, stops its game with a
``PolicyFailure`` carrying a plain-dict report (picklable from a worker process): the
policy, its seat, the arena game and its seed, the step, what went wrong, the board as
text and the engine's action log, which replays the game up to the failure.
"""

from __future__ import annotations

import time
import traceback

import numpy as np

from catzoo.policies.base import Policy


class PolicyFailure(Exception):
    def __init__(self, report: dict):
        super().__init__(report["problem"])
        self.report = report


class GuardedPolicy(Policy):
    def __init__(self, inner: Policy, name: str, seat: int):
        self.inner = inner
        self.name = name
        self.seat = seat
        self.seconds = 0.0
        self.moves = 0

    def reset(self, seed: int | None = None) -> None:
        try:
            self.inner.reset(seed)
        except Exception as err:
            raise PolicyFailure(self._report(None, f"raised {type(err).__name__} in reset(): "
                                             f"{err}", traceback.format_exc())) from err

    def act(self, observation, *, state=None, player=None) -> int:
        start = time.perf_counter()
        try:
            action = self.inner.act(observation, state=state, player=player)
        except Exception as err:
            raise PolicyFailure(self._report(state, f"raised {type(err).__name__}: {err}",
                                             traceback.format_exc())) from err
        self.seconds += time.perf_counter() - start
        self.moves += 1
        mask = observation["action_mask"]
        if (isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer))
                or not 0 <= action < len(mask) or not mask[action]):
            legal = np.flatnonzero(mask).tolist()
            shown = ", ".join(f"{a} ({_describe(state, a)})" for a in legal[:20])
            more = f" and {len(legal) - 20} more" if len(legal) > 20 else ""
            raise PolicyFailure(self._report(
                state, f"returned the illegal action {action!r}; legal actions: {shown}{more}"))
        return int(action)

    def _report(self, state, problem: str, trace: str | None = None) -> dict:
        report = {"policy": self.name, "seat": self.seat, "problem": problem,
                  "traceback": trace, "board": None, "log": None, "step": None}
        if state is not None:
            report["step"] = len(state.history)
            report["log"] = state.action_log()
            try:
                report["board"] = state.render()
            except Exception as err:  # noqa: BLE001 - a failing render must not hide the error
                report["board"] = f"(the board could not be rendered: {err})"
        return report


def _describe(state, action: int) -> str:
    try:
        return state.action_to_string(action)
    except Exception:  # noqa: BLE001
        return "?"
