"""The architecture as a table: which top-level package may import which.

Every ``import catzoo.X`` (at module level or inside a function) of every file of a
top-level package is read with ``ast`` and checked against ``ALLOWED``. The rules
engines import nothing of CatZoo's but themselves; research tools read the engines and
the bots, never the other way round.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.test_static import top_level_packages

ROOT = Path(__file__).resolve().parent.parent

# package -> the other top-level packages it may import
ALLOWED: dict[str, set[str]] = {
    "games": set(),  # rules apart from RL, bots, training, tools and research
    "envs": {"games"},
    "policies": {"games", "training"},  # the registry loads checkpoint specs with training's loader
    # arena: Wilson, balanced tables; integrations: the SB3 trainer plays on sb3.vec_env
    "training": {"games", "envs", "policies", "arena", "vector", "integrations"},
    # the oracle report reads analysis; the leaderboard finds the shipped policies in
    # training; exploit (an exploiter trained by training.ppo against the frozen policy)
    # probes that policy at the batched engine's tables before it trains
    "arena": {"games", "envs", "policies", "analysis", "training", "vector"},
    "analysis": {"games", "policies", "training"},  # the heuristic is the oracle's incumbent;
                                                   # the reference builder writes atomically
    "play": {"games", "envs", "policies"},
    # the batched engine steps the games' compiled cores; single_agent's opponents are
    # policies by spec, batched by the trainer's tables (training.tables)
    "vector": {"games", "policies", "training"},
    "web": {"games", "play", "policies", "training", "cli"},  # cli: one option parser
    "checkpoints": set(),  # data: the shipped policies
    "docs": set(),  # data: the rules pages
    "cli": {"games", "envs", "policies", "training", "arena", "play", "web", "analysis",
            "integrations"},
    # CatZoo inside other libraries (RLlib, SB3): the envs, bots, checkpoints and league,
    # the arena's Ray connection, and the batched engine (sb3.vec_env)
    "integrations": {"games", "envs", "policies", "training", "arena", "vector"},
}
# Third-party libraries the rules engines must not import (BRIEF: rules apart from RL).
ENGINE_FORBIDDEN = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib")


def imports_of(path: Path) -> set[str]:
    """Every absolute module name ``path`` imports."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            # ``from catzoo import games`` names the package in the alias
            if node.module == "catzoo":
                names.update(f"catzoo.{alias.name}" for alias in node.names)
    return names


def edges(package: str) -> dict[str, set[str]]:
    """The other top-level packages ``package`` imports, each with the files that do."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        for name in imports_of(path):
            parts = name.split(".")
            if parts[0] == "catzoo" and len(parts) > 1 and parts[1] != package:
                found.setdefault(parts[1], set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_top_level_package_has_a_row():
    assert sorted(ALLOWED) == sorted(top_level_packages()), (
        "setup.py's TOP_LEVEL and this table differ: give each package its allowed imports")


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_package_imports_only_what_the_table_allows(package):
    wrong = {other: files for other, files in edges(package).items()
             if other not in ALLOWED[package]}
    assert not wrong, (f"catzoo.{package} may import only {sorted(ALLOWED[package])}; "
                       f"it imports {wrong}")


def test_the_rules_engines_import_no_rl_library():
    wrong = {}
    for path in sorted((ROOT / "games").rglob("*.py")):
        bad = sorted(n for n in imports_of(path) if n.split(".")[0] in ENGINE_FORBIDDEN)
        if bad:
            wrong[str(path.relative_to(ROOT))] = bad
    assert not wrong, wrong


def test_the_check_sees_an_import_inside_a_function(tmp_path):
    """A lazy import counts as much as one at the top (the oracle's was one)."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from catzoo.policies.heuristics import x\n"
                      "import catzoo.training.eval\nfrom catzoo import arena\n")
    assert imports_of(module) >= {"catzoo.policies.heuristics", "catzoo.training.eval",
                                  "catzoo.arena"}
