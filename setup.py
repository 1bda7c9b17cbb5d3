"""Maps the top-level folders onto one namespaced package, ``catzoo``.

The repository keeps ``envs/``, ``games/``, ``policies/``... at its top level (the layout the
project asked for) while users import ``catzoo.envs`` and friends. pyproject.toml cannot
express a mapping that discovers sub-packages, so this file does only that; all metadata
stays in pyproject.toml.

It also builds the compiled rules cores (Cython, see each ``.pyx``): the card games' rules in
C, which the AEC envs and the batched engine (``catzoo.vector``, games/batch.pxi) share.
"""

import os

from Cython.Build import cythonize
from setuptools import Extension, find_namespace_packages, find_packages, setup

TOP_LEVEL = ["envs", "games", "policies", "cli", "training", "arena", "play", "web",
             "analysis", "checkpoints", "docs", "integrations", "vector"]

packages = []
package_dir = {}
for top in TOP_LEVEL:
    for found in find_packages(".", include=[top, f"{top}.*"]):
        packages.append(f"catzoo.{found}")
    package_dir[f"catzoo.{top}"] = top

# Data folders hold no __init__.py; listed as (namespace) packages of their own, their files
# are package data setuptools ships without warning that the folder is not a package.
def data_packages(pattern: str) -> list[str]:
    return [f"catzoo.{found}" for found in find_namespace_packages(
        ".", include=[pattern], exclude=["*.__pycache__"])]


# The web app's page, styles and scripts ship inside the package: no CDN, no download.
STATIC = data_packages("web.static*")
# The shipped policies, loaded by name from anywhere ("shipped:GAME"; checkpoints/GAME/<N>p/,
# one folder per player count, each a namespace package of its own, with best.json: which
# bot "best" plays at that count, catzoo.policies.best), and the rules pages, which the
# terminal and the browser tables show.
SHIPPED, DOCS = data_packages("checkpoints.*"), data_packages("docs.rules")
packages += STATIC + SHIPPED + DOCS
PACKAGE_DATA = {**{name: ["*.html", "*.css", "*.js", "*.svg"] for name in STATIC},
                **{name: ["policy.json", "policy.safetensors", "best.json"] for name in SHIPPED},
                "catzoo.checkpoints": ["README.md"],
                **{name: ["*.md"] for name in DOCS},
                # the Cat Tree reference deals' best-known plans (catzoo.analysis.cat_tree.reference)
                "catzoo.analysis.cat_tree": ["reference_deals.json"]}

# Compiled cores: (module, source). The .c files are generated at build time, not kept.
CORES = [
    ("catzoo.games.chance", "games/chance.pyx"),
    ("catzoo.games.cat_in_the_box.core", "games/cat_in_the_box/core.pyx"),
    ("catzoo.games.lunar.core", "games/lunar/core.pyx"),
    ("catzoo.games.catsle_builders.core", "games/catsle_builders/core.pyx"),
    ("catzoo.games.cat_tree.core", "games/cat_tree/core.pyx"),
    # not rules: the CATsle Builders heuristic's estimates, which search rollouts and the
    # batched trainer compute at every step (the module's docstring says why in C)
    ("catzoo.policies.heuristics.catsle_estimates", "policies/heuristics/catsle_estimates.pyx"),
]
# -O3: the cores' step loops are the batched engine's whole cost (setuptools' default is -O2
# from Python's build flags; a later flag wins). -fopenmp: batch.pxi's prange splits the
# slots over threads (GCC's libgomp; torch's wheel carries its own, and the two coexist:
# tests/test_vector.py runs both in one process). CATZOO_CORE_OPT sets another level: the
# packaging test builds at -O0, a sixth of -O3's compile time, as it checks what the wheel
# holds and not how fast the cores run.
OPT_LEVEL = os.environ.get("CATZOO_CORE_OPT", "-O3")
if OPT_LEVEL not in ("-O0", "-O1", "-O2", "-O3"):
    raise SystemExit(f"CATZOO_CORE_OPT={OPT_LEVEL!r}: expected -O0, -O1, -O2 or -O3")
COMPILE_ARGS = [OPT_LEVEL, "-fopenmp"]
LINK_ARGS = ["-fopenmp"]
ext_modules = cythonize(
    [Extension(name, [source], extra_compile_args=COMPILE_ARGS, extra_link_args=LINK_ARGS)
     for name, source in CORES],
    compiler_directives={"language_level": 3},
    quiet=True,
)

setup(packages=packages, package_dir=package_dir, package_data=PACKAGE_DATA,
      include_package_data=True, ext_modules=ext_modules)
