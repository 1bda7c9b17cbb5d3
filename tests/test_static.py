"""The static tools see the code as it is: ruff and mypy report nothing on the tree, with
the configuration in pyproject.toml (mypy reads the package mapping in .typecheck/)."""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAPPING = ROOT / ".typecheck" / "catzoo"


def top_level_packages() -> list[str]:
    """setup.py's TOP_LEVEL, read without running setup.py."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "TOP_LEVEL" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError("setup.py defines no TOP_LEVEL list")


def run_tool(module: str, *args: str) -> subprocess.CompletedProcess:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (it comes with the dev extra: "
                    "pip install -e '.[dev]')")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True,
                          text=True, check=False, timeout=600)


def test_ruff_reports_nothing():
    done = run_tool("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_reports_nothing():
    done = run_tool("mypy")  # the files and settings are pyproject.toml's [tool.mypy]
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout, done.stdout


def test_the_mapping_mypy_reads_is_setup_pys():
    """One link per top-level package, to that folder: a package added to setup.py
    without its link would be invisible to mypy."""
    links = {p.name: p for p in MAPPING.iterdir()}
    assert sorted(links) == sorted(top_level_packages())
    for name, link in links.items():
        assert link.is_symlink(), f"{link} must be a symlink to ../../{name}"
        assert os.readlink(link) == f"../../{name}"
        assert link.resolve() == (ROOT / name).resolve()
