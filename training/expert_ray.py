"""Expert iteration's labels on Ray workers (``expert.ray``: an address, or "local").

Labelling is the costly, embarrassingly parallel part of an iteration: the positions are
cut into ``expert.batch``-sized tasks, the tasks a local run labels one after the other, and
each task is ``label_positions`` on plain data (the network's weights, put in Ray's object
store once per iteration, and its positions as seeds and move prefixes). A task's labels
do not depend on where it runs, so a run labels the same on one machine or many. The
connection is made at the first iteration and kept for the session.
"""

from __future__ import annotations

import numpy as np

from catzoo.training.expert import label_positions

TASK_RETRIES = 3


def _task(job: dict, weights: dict) -> dict:
    return label_positions({**job, "weights": weights})


class RayLabeller:
    """Ray, connected once (the caller's, or one made here and shut down by ``close``)."""

    def __init__(self, address: str):
        from catzoo.arena.ray_backend import connection

        self._context = connection(None if address == "local" else address, None)
        self.ray, _ = self._context.__enter__()
        self.task = self.ray.remote(num_cpus=1, max_retries=TASK_RETRIES)(_task)

    def label(self, jobs: list[dict]) -> list[dict]:
        """Each job's labels, in order; every job holds the same weights (shipped once)."""
        weights = self.ray.put(jobs[0]["weights"])
        refs = [self.task.remote({**job, "weights": None}, weights) for job in jobs]
        return self.ray.get(refs)

    def close(self) -> None:
        self._context.__exit__(None, None, None)


def label_on_ray(expert, actor, positions: list, seeds: list[int]) -> dict:
    """``ExpertIteration.label`` on Ray: one task per ``expert.batch`` positions."""
    if expert._ray is None:
        expert._ray = RayLabeller(expert.ex["ray"])
    size = expert.ex["batch"]
    jobs = [expert.job(actor, positions[i:i + size], seeds[i:i + size])
            for i in range(0, len(positions), size)]
    parts = expert._ray.label(jobs)
    return {key: np.concatenate([p[key] for p in parts]) for key in ("values", "own", "logits")}
