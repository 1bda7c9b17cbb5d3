"""Is the working tree's env faster than a git revision's? Both, in one process.

The floor ratio of ``env_speed.py`` moves by several points between runs of the same code
(the machine's state drifts over minutes), more than most single changes gain or lose.
This script answers the narrower question of a change: it extracts the Python files of
revision REV (``git archive``) into a temporary directory as the package ``catzoo_rev``,
with its compiled rules cores (``.pyx``: the working tree's build where the source is
the same, else compiled there with Cython, a few tens of seconds each), then plays the current env and the revision's in alternating chunks of a few tens of
milliseconds (``env_speed.compare``), so both see the same drift. It prints, per env and
player count, the current env's agent-steps/s over the revision's: the median of the
trials, with their range (about +-3% on a quiet 2-core machine).

Run: ``python benchmarks/env_ab.py REV [--games NAME ...] [--seconds S] [--trials N]``,
for example ``python benchmarks/env_ab.py HEAD~1 --games lunar``.
"""

from __future__ import annotations

import argparse
import importlib
import io
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))
from env_speed import cases, trials

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "catzoo_rev"
# Module paths in imports and in strings (the game registry names modules): rewritten so
# that the revision imports itself, never the working tree.
_MODULE = re.compile(r"\bcatzoo(?=\.[a-z_])|(?<=from )catzoo(?= import)|(?<=import )catzoo\b")


def extract(rev: str, into: Path) -> None:
    """The revision's Python files as the package ``catzoo_rev`` under ``into``."""
    try:
        archive = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT,
                                 capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as err:
        detail = getattr(err, "stderr", b"") or b""
        raise SystemExit(f"env_ab: cannot read revision {rev!r} of {ROOT} with git: "
                         f"{detail.decode().strip() or err}") from None
    target = into / PACKAGE
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        sources = (".py", ".pyx", ".pxi")
        members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(sources)]
        tar.extractall(target, members=members, filter="data")
    for path in (p for p in target.rglob("*") if p.suffix in sources):
        path.write_text(_MODULE.sub(PACKAGE, path.read_text()))
    # the working tree's builds serve where every Cython source is the same
    same_includes = all(_same(pxi, into) for pxi in target.rglob("*.pxi"))
    for pyx in target.rglob("*.pyx"):
        build_core(pyx, into, same_includes and _same(pyx, into))


def _same(path: Path, into: Path) -> bool:
    mine = ROOT / path.relative_to(into / PACKAGE)
    return mine.is_file() and _MODULE.sub(PACKAGE, mine.read_text()) == path.read_text()


def build_core(pyx: Path, into: Path, same: bool) -> None:
    """The extension of one extracted ``.pyx``, beside it: a copy of the working tree's
    build when ``same`` (its sources are the working tree's), else compiled."""
    relative = pyx.relative_to(into / PACKAGE)
    mine = ROOT / relative
    built = sorted(mine.parent.glob(f"{mine.stem}.*.so")) if same else []
    if built:  # an extension's init function is named for its last component only
        shutil.copy(built[0], pyx.parent / built[0].name)
        return
    name = ".".join((PACKAGE, *relative.with_suffix("").parts))
    script = ("from Cython.Build import cythonize\n"
              "from setuptools import Extension, setup\n"
              f"setup(ext_modules=cythonize([Extension({name!r}, [{str(pyx)!r}])], quiet=True),"
              " script_args=['build_ext', '--inplace', '-q'])\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=into, capture_output=True,
                          text=True, check=False)
    if done.returncode:
        raise SystemExit(f"env_ab: cannot compile {relative} of the revision:\n"
                         f"{done.stderr.strip()[-2000:]}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the git revision to compare with (HEAD, a hash, ...)")
    parser.add_argument("--games", nargs="*", help="only these games")
    parser.add_argument("--seconds", type=float, default=1.5,
                        help="CPU seconds of each env per trial")
    parser.add_argument("--trials", type=int, default=7, help="trials per env")
    parser.add_argument("--chunk", type=float, default=0.02,
                        help="seconds of each interleaved chunk of play")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        extract(args.rev, Path(tmp))
        sys.path.insert(0, tmp)
        try:
            print(f"{'env':<24} {'now/' + args.rev:>14} {'trials range':>14} "
                  f"{'now steps/s':>12} {'rev steps/s':>12}")
            for label, make in cases(args.games):
                now = make()
                module = type(now.unwrapped).__module__.replace("catzoo.", f"{PACKAGE}.", 1)
                try:
                    old_module = importlib.import_module(module)
                except ImportError:
                    print(f"{label:<24} {'not in ' + args.rev:>14}")
                    continue
                old = old_module.env(num_players=len(now.unwrapped.possible_agents))
                runs, ratios = trials(now, old, args.seconds, args.chunk, args.trials)
                print(f"{label:<24} {median(ratios):>14.3f} "
                      f"{f'{ratios[0]:.3f}-{ratios[-1]:.3f}':>14} "
                      f"{median([a.steps_per_second for a, _ in runs]):>12,.0f} "
                      f"{median([b.steps_per_second for _, b in runs]):>12,.0f}")
        finally:
            sys.path.remove(tmp)
            for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
                del sys.modules[name]


if __name__ == "__main__":
    main()
