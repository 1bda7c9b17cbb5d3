"""Every repository path the documentation names exists (a reader follows them), written
as it is in the repository: ``training/config.py``, not ``catzoo/training/config.py``; and
no file, document or source, cites a document or source file that does not exist."""

from __future__ import annotations

import glob
import io
import re
import subprocess
import tokenize
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


# --- citations of documents and source files, anywhere in the repository ---------------
# A file may cite another in prose: a Markdown link, or a path or name ending in .md, .py,
# .pyx or .pxi, in a document, a comment or a docstring (not in string literals, which are
# data: a test's made-up file names). Each cited file must exist: at that path from the
# repository's root or from the citing file, or as the end of a path in the repository
# ("cat_tree/core.pyx", "batch.pxi"). A path whose first folder is no folder of the
# repository names a file of another tree (PettingZoo's tutorials, the seed texts the
# rules pages cite) and is left alone.
CITED = re.compile(r"(?<![\w./<>{}*$-])((?:[\w.<>{}*-]+/)*[\w<>{}*-]*[\w>}*]\.(?:md|pyx|pxi|py))"
                   r"(?![\w/-])")
LINK = re.compile(r"\]\(([^)\s]+)\)")
SCANNED = {".py", ".pyx", ".pxi", ".md", ".toml", ".yaml", ".yml", ".cfg", ".txt", ".sh",
           ".js", ".html", ".css"}
SOURCE = {".py", ".pyx", ".pxi"}


def repository_files(root: Path = ROOT) -> list[str]:
    """The files git tracks and the new ones it does not ignore (a checkout), else every
    file below ``root`` outside hidden and build folders."""
    done = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                          cwd=root, capture_output=True, text=True, check=False)
    if done.returncode == 0 and done.stdout.strip():
        return sorted({f for f in done.stdout.splitlines() if (root / f).is_file()})
    skip = {"build", "dist", "runs", "node_modules"}
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()
                  and not any(part.startswith(".") or part in skip or part.endswith(".egg-info")
                              for part in p.relative_to(root).parts[:-1]))


def prose(path: Path) -> list[tuple[int, str]]:
    """(line, text) of what a file says in prose: all of a document; a source file's
    comments and docstrings (string statements)."""
    text = path.read_text(errors="replace")
    if path.suffix not in SOURCE:
        return list(enumerate(text.splitlines(), 1))
    out, previous = [], tokenize.NEWLINE
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT or (
                    token.type == tokenize.STRING and previous in STATEMENT_START):
                out += [(token.start[0] + i, line)
                        for i, line in enumerate(token.string.splitlines())]
            if token.type not in (tokenize.COMMENT, tokenize.NL):
                previous = token.type
    except (tokenize.TokenError, SyntaxError):  # Cython the tokenizer cannot follow
        return [(n, line[line.index("#"):]) for n, line in enumerate(text.splitlines(), 1)
                if "#" in line]
    return out


STATEMENT_START = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)


def citations(path: Path) -> list[tuple[int, str]]:
    """(line, cited path) of each file ``path`` cites."""
    found = [(n, m.group(1)) for n, line in prose(path) for m in CITED.finditer(line)]
    if path.suffix == ".md":
        found += [(n, m.group(1)) for n, line in enumerate(path.read_text().splitlines(), 1)
                  for m in LINK.finditer(line)]
    return sorted(set(found))  # a link's target is a path in its prose too


def cited_file_exists(citing: str, cited: str, files: list[str], root: Path = ROOT) -> bool:
    cited = cited.split("#")[0].rstrip(".,;:)")
    if not cited or re.match(r"[a-z][a-z+.-]*:", cited):  # an anchor, a URL
        return True
    cited = cited.removeprefix("catzoo/")  # setup.py maps catzoo/X onto X
    pattern = PLACEHOLDER.sub("*", cited)
    if glob.glob(str(root / pattern)) or glob.glob(str((root / citing).parent / pattern)):
        return True
    pattern = re.sub(r"^(\.\.?/)+", "", pattern)
    tail = re.compile(r"(?:^|.*/)" + re.escape(pattern).replace(r"\*", "[^/]*") + r"(?:/.*)?$")
    if any(tail.match(f) for f in files):
        return True
    first, _, rest = pattern.partition("/")
    folders = {part for f in files for part in f.split("/")[:-1]}
    return bool(rest) and first not in folders  # a path of another tree


def missing_citations(root: Path = ROOT) -> list[str]:
    files = repository_files(root)
    missing = []
    for name in files:
        path = root / name
        if path.suffix in SCANNED:
            missing += [f"{name}:{n}: {cited}" for n, cited in citations(path)
                        if not cited_file_exists(name, cited, files, root)]
    return missing


def test_no_file_cites_a_file_that_does_not_exist():
    missing = missing_citations()
    assert not missing, "files cited but not in the repository:\n" + "\n".join(missing)


def test_the_citation_check_finds_what_is_missing(tmp_path):
    (tmp_path / "games" / "lunar").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "games" / "batch.pxi").write_text("# the driver\n")
    (tmp_path / "docs" / "vector.md").write_text(
        "The contract: [batch](../games/batch.pxi), [gone](../games/gone.pxi), "
        "[web](https://example.org/x.md), `lunar/core.pyx`, NO_SUCH_CONTRACT.md, "
        "`games/<game>/core.pyx`, shared/seeds/lunar.md.\n")
    (tmp_path / "games" / "lunar" / "core.pyx").write_text(
        '"""The core (batch.pxi, docs/vector.md)."""\n'
        'cdef int x = 0  # the contract is in CONTRACT.md\n'
        'name = "made_up.py"  # a literal, not a citation\n')
    assert sorted(m.split(": ", 1)[1] for m in missing_citations(tmp_path)) == [
        "../games/gone.pxi", "CONTRACT.md", "NO_SUCH_CONTRACT.md"]
