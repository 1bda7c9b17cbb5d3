"""A plain, non-editable ``pip install .`` works: the wheel builds without a warning, holds
the ``catzoo`` package and imports from a fresh virtualenv, away from the source tree; the
shipped policies and the rules pages come with it, found by name from any directory."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# What the compilers say about the compiled cores' generated code is theirs, not the
# packaging's (Cython: "Non-trivial type declarators..."; gcc on the generated .c).
COMPILER_NOTE = re.compile(r"(warning: )?\S+\.(pyx|pxi|c):\d+:\d+: (warning: )?")


def source_copy(into: Path) -> Path:
    """The files of the source tree (tracked or not ignored), without what earlier builds
    left in it: setuptools builds in ``build/`` under the tree and ships whatever is there,
    so a module moved away since would still be in a wheel built in place."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, capture_output=True,
                            check=False) if shutil.which("git") else None
    if listed is None or listed.returncode:
        shutil.copytree(ROOT, into, symlinks=True, ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.so", "runs"))
        return into
    for name in filter(None, listed.stdout.decode().split("\0")):
        source, target = ROOT / name, into / name
        if not source.is_symlink() and not source.is_file():
            continue  # listed but deleted in the work tree
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    return into


def build_warnings(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines()
            if re.search(r"warning", line, re.IGNORECASE) and not COMPILER_NOTE.search(line)]


def test_the_warning_filter_keeps_setuptools_and_drops_compiler_notes():
    out = ("  /x/_apply_pyprojecttoml.py:82: SetuptoolsDeprecationWarning: `project.license` as "
           "a TOML table is deprecated\n"
           "  /x/build_py.py:215: _Warning: Package 'catzoo.web.static' is absent from the "
           "`packages` configuration.\n"
           "  warning: games/lunar/round_core.pyx:132:22: Non-trivial type declarators\n"
           "  games/lunar/round_core.c:29108:14: warning: assignment to 'int (*)[24]'\n"
           "running build_ext\n")
    assert len(build_warnings(out)) == 2


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_virtualenv(tmp_path):
    dist = tmp_path / "dist"
    # PYTHONDONTWRITEBYTECODE makes setuptools say that it skips byte-compiling. The cores
    # are compiled at -O0 (setup.py's CATZOO_CORE_OPT): what the wheel holds is the same.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["CATZOO_CORE_OPT"] = "-O0"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "-v", "-w", str(dist), str(source_copy(tmp_path / "src"))],
        check=True, cwd=tmp_path, capture_output=True, text=True, env=env,
    )
    # pip's own notes on its index configuration are not the build's
    output = "\n".join(line for line in (done.stdout + done.stderr).splitlines()
                        if not line.startswith("WARNING: Location "))
    assert build_warnings(output) == []
    (wheel,) = dist.glob("catzoo-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "catzoo/envs/cat_in_the_box_v0.py" in names
    assert "catzoo/games/cat_in_the_box/state.py" in names
    assert "catzoo/cli/main.py" in names
    # The compiled cores are built into the wheel.
    assert any(n.startswith("catzoo/games/cat_in_the_box/core.") and n.endswith(".so")
               for n in names), names
    assert not any(n.startswith(("tests/", "catzoo/tests/")) for n in names)
    assert "catzoo/analysis/cat_tree/reference_deals.json" in names  # package data
    assert "catzoo/web/static/index.html" in names and "catzoo/web/static/games/lunar.js" in names
    assert not any(n.startswith("catzoo/games/cat_tree/oracle") for n in names)  # moved away
    # one folder per game and player count: checkpoints/GAME/<N>p/
    folders = sorted(p.parent.relative_to(ROOT / "checkpoints").as_posix()
                     for p in (ROOT / "checkpoints").glob("*/*p/policy.json"))
    assert folders, "no checkpoint shipped under checkpoints/GAME/<N>p/"
    for folder in folders:
        assert f"catzoo/checkpoints/{folder}/policy.json" in names
        assert f"catzoo/checkpoints/{folder}/policy.safetensors" in names
    # best's own networks (best.json's network_dir) ship beside them
    for best in (ROOT / "checkpoints").glob("*/*p/best.json"):
        if "network_dir" in (record := json.loads(best.read_text())):
            where = best.parent.relative_to(ROOT / "checkpoints") / record["network_dir"]
            assert f"catzoo/checkpoints/{where.as_posix()}/policy.safetensors" in names
    shipped = sorted({folder.split("/")[0] for folder in folders})
    counts = " ".join(sorted(f"{g}:{n}" for g, n in (f.split("/") for f in folders)))
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
        "from catzoo.analysis.cat_tree.reference import load; assert len(load()) >= 60;"
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
        "from catzoo.training.checkpoint import resolve, shipped_counts, shipped_games;"
        "p = load_policy('shipped:lunar', game='lunar', num_players=4, env_options={});"
        "print(p.name, p.meta['game'], resolve('shipped:lunar', 4), ' '.join(shipped_games()));"
        "print(' '.join(sorted(f'{g}:{n}p' for g in shipped_games() for n in shipped_counts(g))))"
    )
    lines = subprocess.run([str(python), "-c", probe], check=True, capture_output=True,
                           text=True, cwd=elsewhere,
                           env={**os.environ, "PYTHONPATH": ""}).stdout.splitlines()
    out = lines[0].split()
    assert out[:2] == ["shipped:lunar", "lunar"] and out[2].startswith(str(env_dir)), out
    assert Path(out[2]).parts[-2:] == ("lunar", "4p"), out
    assert out[3:] == shipped
    assert lines[1] == counts  # every count of every game came with the wheel
    # ... and the commands find them there too: the oracle's default lineup holds it.
    report = subprocess.run([str(cli), "oracle", "--deals", "1"], check=True, cwd=elsewhere,
                            capture_output=True, text=True).stdout
    assert "shipped:cat_tree" in report, report
