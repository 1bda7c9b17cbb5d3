"""Every repository path the documentation names exists (a reader follows them), written
as it is in the repository: ``training/config.py``, not ``catzoo/training/config.py``."""

from __future__ import annotations

import glob
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *ROOT.glob("docs/**/*.md"), *ROOT.glob("*/README.md")])
TOP = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")
             and p.name not in ("build", "dist", "runs") and not p.name.endswith(".egg-info"))
# A path: an optional catzoo/ then a top-level folder of the repository, then more.
FOLDERS = "|".join(map(re.escape, TOP))
PATH = re.compile(r"(?<![\w./-])((?:catzoo/)?(?:" + FOLDERS + r")/[\w.*<>{}/-]*)")
# Placeholders a doc writes in a path, matched by any name.
PLACEHOLDER = re.compile(r"<[^>]+>|\bGAME\b|\bDATE\b|\bN\b|\bstep_N\b|\{[^}]*\}")
# Paths the docs name inside a run directory (runs/...) rather than in the repository.
IN_A_RUN = {"docs/training.md": {"checkpoints/step_N/", "checkpoints/latest.json",
                                 "checkpoints/"}}


def named_paths(doc: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(doc.read_text().splitlines(), 1):
        for match in PATH.finditer(line):
            path = match.group(1).rstrip(".,;:)")
            if path != "games/s":  # a speed, games per second
                found.append((number, path))
    return found


def exists(path: str) -> bool:
    pattern = PLACEHOLDER.sub("*", path)
    return bool(glob.glob(str(ROOT / pattern)))


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.relative_to(ROOT)))
def test_every_path_a_doc_names_is_in_the_repository(doc):
    where = str(doc.relative_to(ROOT))
    missing = [f"{where}:{n}: {p}" for n, p in named_paths(doc)
               if p not in IN_A_RUN.get(where, set()) and not exists(p)]
    assert not missing, "paths named but not in the repository:\n" + "\n".join(missing)


def test_the_check_finds_a_missing_path(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("see `catzoo/training/config.py` and checkpoints/lunar/run3 and games/base.py\n")
    assert [p for _, p in named_paths(doc) if not exists(p)] == [
        "catzoo/training/config.py", "checkpoints/lunar/run3"]
