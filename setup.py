"""Maps the top-level folders onto one namespaced package, ``catzoo``.

The repository keeps ``envs/``, ``games/``, ``policies/``... at its top level (the layout the
project asked for) while users import ``catzoo.envs`` and friends. pyproject.toml cannot
express a mapping that discovers sub-packages, so this file does only that; all metadata
stays in pyproject.toml.

It also builds the compiled rules cores (Cython, see each ``.pyx``): the card games' rules in
C, which the AEC envs and the batched engine (``catzoo.vector``, games/batch.pxi) share.
"""

from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

TOP_LEVEL = ["envs", "games", "policies", "cli", "training", "arena", "play", "web", "vector"]

packages = []
package_dir = {}
for top in TOP_LEVEL:
    for found in find_packages(".", include=[top, f"{top}.*"]):
        packages.append(f"catzoo.{found}")
    package_dir[f"catzoo.{top}"] = top

# The web app's page, styles and scripts ship inside the package: no CDN, no download.
PACKAGE_DATA = {"catzoo.web": ["static/*.html", "static/*.css", "static/*.js", "static/*.svg",
                               "static/games/*.js"],
                # the Cat Tree reference deals' best-known plans (catzoo.games.cat_tree.reference)
                "catzoo.games.cat_tree": ["reference_deals.json"]}

# Compiled cores: (module, source). The .c files are generated at build time, not kept.
CORES = [
    ("catzoo.games.chance", "games/chance.pyx"),
    ("catzoo.games.cat_in_the_box.core", "games/cat_in_the_box/core.pyx"),
    ("catzoo.games.lunar.round_core", "games/lunar/round_core.pyx"),
    ("catzoo.games.cat_tree.core", "games/cat_tree/core.pyx"),
]
# -O3: the cores' step loops are the batched engine's whole cost (setuptools' default is -O2
# from Python's build flags; a later flag wins). -fopenmp: batch.pxi's prange splits the
# slots over threads (GCC's libgomp; torch's wheel carries its own, and the two coexist:
# tests/test_vector.py runs both in one process).
COMPILE_ARGS = ["-O3", "-fopenmp"]
LINK_ARGS = ["-fopenmp"]
ext_modules = cythonize(
    [Extension(name, [source], extra_compile_args=COMPILE_ARGS, extra_link_args=LINK_ARGS)
     for name, source in CORES],
    compiler_directives={"language_level": 3},
    quiet=True,
)

setup(packages=packages, package_dir=package_dir, package_data=PACKAGE_DATA,
      include_package_data=True, ext_modules=ext_modules)
