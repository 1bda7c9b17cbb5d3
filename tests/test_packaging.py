"""A plain, non-editable ``pip install .`` works: the wheel holds the ``catzoo`` package
and imports from a fresh virtualenv, away from the source tree."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_virtualenv(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "-q", "-w", str(dist), str(ROOT)],
        check=True, cwd=tmp_path,
    )
    (wheel,) = dist.glob("catzoo-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "catzoo/envs/cat_in_the_box_v0.py" in names
    assert "catzoo/games/cat_in_the_box/state.py" in names
    assert "catzoo/cli/main.py" in names
    # The compiled cores are built into the wheel.
    assert any(n.startswith("catzoo/games/cat_in_the_box/core.") and n.endswith(".so")
               for n in names), names
    assert not any(n.startswith(("tests/", "catzoo/tests/")) for n in names)
    assert "catzoo/games/cat_tree/reference_deals.json" in names  # package data

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    # The fresh venv borrows the dependencies (numpy, gymnasium, pettingzoo) from the test
    # environment through a .pth line, not its site hooks: the editable catzoo stays out.
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True)
    probe = (
        "import catzoo.envs, pettingzoo, os;"
        "from catzoo.envs import cat_in_the_box_v0;"
        "e = pettingzoo.make('aec', 'catzoo/cat_in_the_box-v0', num_players=3); e.reset(seed=1);"
        "from catzoo.games.cat_tree.reference import load; assert len(load()) >= 60;"
        "print(os.path.dirname(cat_in_the_box_v0.__file__))"
    )
    out = subprocess.run([str(python), "-c", probe], check=True, capture_output=True, text=True,
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": ""}).stdout.strip()
    assert out.startswith(str(env_dir)), out
    cli = env_dir / "bin" / "catzoo"
    listing = subprocess.run([str(cli), "list"], check=True, capture_output=True, text=True).stdout
    assert "cat_in_the_box" in listing
