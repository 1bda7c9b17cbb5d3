"""Maps the top-level folders onto one namespaced package, ``catzoo``.

The repository keeps ``envs/``, ``games/``, ``policies/``... at its top level (the layout the
project asked for) while users import ``catzoo.envs`` and friends. pyproject.toml cannot
express a mapping that discovers sub-packages, so this file does only that; all metadata
stays in pyproject.toml.
"""

from setuptools import find_packages, setup

TOP_LEVEL = ["envs", "games", "policies", "cli", "training"]

packages = []
package_dir = {}
for top in TOP_LEVEL:
    for found in find_packages(".", include=[top, f"{top}.*"]):
        packages.append(f"catzoo.{found}")
    package_dir[f"catzoo.{top}"] = top

setup(packages=packages, package_dir=package_dir, include_package_data=True)
