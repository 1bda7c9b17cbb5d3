"""A plain, non-editable ``pip install .`` works: the wheel holds the ``catzoo`` package
and imports from a fresh virtualenv, away from the source tree; the shipped policies and
the rules pages come with it, found by name from any directory."""

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
    assert any(n.startswith("catzoo/games/cat_in_the_box/round_core.") and n.endswith(".so")
               for n in names), names
    assert not any(n.startswith(("tests/", "catzoo/tests/")) for n in names)
    assert "catzoo/games/cat_tree/reference_deals.json" in names  # package data
    shipped = sorted(p.parent.name for p in (ROOT / "checkpoints").glob("*/policy.json"))
    assert shipped, "no checkpoint shipped under checkpoints/"
    for game in shipped:
        assert f"catzoo/checkpoints/{game}/policy.json" in names
        assert f"catzoo/checkpoints/{game}/policy.safetensors" in names
    assert "catzoo/docs/rules/lunar.md" in names

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

    # The shipped policies load by name from a directory that is not the repository.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = (
        "from catzoo.training import load_policy;"
        "from catzoo.training.checkpoint import resolve, shipped_games;"
        "p = load_policy('shipped:lunar', game='lunar', num_players=4, env_options={});"
        "print(p.name, p.meta['game'], resolve('shipped:lunar'), ' '.join(shipped_games()))"
    )
    out = subprocess.run([str(python), "-c", probe], check=True, capture_output=True, text=True,
                         cwd=elsewhere, env={**os.environ, "PYTHONPATH": ""}).stdout.split()
    assert out[:2] == ["shipped:lunar", "lunar"] and out[2].startswith(str(env_dir)), out
    assert out[3:] == shipped
    # ... and the commands find them there too: the oracle's default lineup holds it.
    report = subprocess.run([str(cli), "oracle", "--deals", "1"], check=True, cwd=elsewhere,
                            capture_output=True, text=True).stdout
    assert "shipped:cat_tree" in report, report
