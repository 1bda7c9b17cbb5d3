"""The numeric libraries' thread pools of a process that plays bots, sized on purpose.

numpy's BLAS (OpenBLAS) and OpenMP start a thread per core in every process, and torch
keeps its own pool as large. A search bot's work is many small forward passes and C
rollouts: on a machine whose cores are shared (two arena workers, a web server beside a
training run) those pools oversubscribe the cores and spin, costing several times the CPU
for the same moves (issue 41 measured 1.03 CPU-s a move against 0.11 with one thread).
So every process that plays bots (arena workers, the web server, ``catzoo play``, the
trainer's evaluations) holds its pools at one thread while it plays, with threadpoolctl.

``CATZOO_THREADS=N`` (an integer, at least 1) overrides the size everywhere.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

ENV = "CATZOO_THREADS"
DEFAULT = 1  # one thread per worker: the workers share the cores
LOADED_LATER = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pool_size(default: int = DEFAULT) -> int:
    """``CATZOO_THREADS`` when set, else ``default``."""
    text = os.environ.get(ENV, "").strip()
    if not text:
        return default
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"{ENV}={text!r} must be a whole number of threads, at least 1")
    return n


@contextlib.contextmanager
def limited(threads: int | None = None) -> Iterator[int]:
    """BLAS, OpenMP and (if loaded) torch at ``threads`` (default ``pool_size()``) inside
    the block, restored after it; yields the size."""
    from threadpoolctl import threadpool_limits

    n = pool_size() if threads is None else threads
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    with threadpool_limits(limits=n):
        if torch is not None:
            torch.set_num_threads(n)
        try:
            yield n
        finally:
            if torch is not None and before is not None:
                torch.set_num_threads(before)


def limit_process(threads: int | None = None) -> int:
    """Size this process's pools for good (a worker process, a server): what ``limited``
    does, never restored. Returns the size."""
    from threadpoolctl import threadpool_limits

    n = pool_size() if threads is None else threads
    threadpool_limits(limits=n)
    for name in LOADED_LATER:  # the libraries this process has not loaded yet read these
        os.environ[name] = str(n)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(n)
    return n
