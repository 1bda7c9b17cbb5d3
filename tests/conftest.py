"""Fixtures shared by test modules: one local Ray instance for every test that needs one;
the long tests scheduled first."""

from __future__ import annotations

import os
import uuid

import pytest

RAY_CPUS = 2


@pytest.fixture(scope="session")
def ray_cluster():
    """A local Ray instance of 2 CPUs, started once per test process (the Ray tests share
    an xdist group, so once per run) and shut down at the end. Its start-up costs seconds."""
    ray = pytest.importorskip(
        "ray", reason="Ray is not installed (pip install 'catzoo[ray]' or 'catzoo[rllib]')")
    if ray.is_initialized():
        yield ray
        return
    # The instance's processes inherit this from us: a test can tell its own workers from
    # those of another Ray running on the machine.
    os.environ["CATZOO_TEST_RAY"] = uuid.uuid4().hex
    from catzoo.arena.ray_backend import init_local

    init_local(ray, num_cpus=RAY_CPUS, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()
        os.environ.pop("CATZOO_TEST_RAY", None)


def pytest_collection_modifyitems(config, items):
    """Tests marked ``slow`` (tens of seconds to minutes each) run first, the rest in their
    order: pytest-xdist hands out work in collection order, and a long test drawn last
    keeps one worker busy while the other has finished (the longest-first rule)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
