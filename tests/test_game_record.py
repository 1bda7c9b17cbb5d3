"""One record per game (``games/registry.py``): docs/adding_a_game.md lists the files a
game needs, as the code needs them (the modules its engine loads, the build, the record's
fields); the lists the rest of CatZoo keeps are derived from the records; a game without
a heuristic trains against random and the league."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import json
import re
import subprocess
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import pytest

from catzoo.games.registry import GAMES, GameInfo

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "adding_a_game.md"
PLACEHOLDER = "<game>"
COMPILED_ONLY = "(compiled core)"

# Plays, observes, renders and replays one game of each engine (a replay reads the game's
# log checks), then prints the modules of each game's package that were loaded: a fresh
# interpreter, so that no other test's imports count.
ENGINE_RUN = """
import json, sys
from catzoo.games.registry import GAMES
loaded = {}
for name, info in GAMES.items():
    try:
        cls = info.engine_class()
    except ImportError:  # an engine whose extra is not installed (MuJoCo)
        continue
    state = cls.new(seed=0, num_players=info.default_players, **info.quick_options)
    state.apply(state.legal_actions()[0])
    state.observation(0)
    state.render()
    type(state).replay(state.action_log())
for name in GAMES:
    package = "catzoo.games." + name
    loaded[name] = {m: getattr(sys.modules[m], "__file__", None) for m in sys.modules
                    if m == package or m.startswith(package + ".")}
print(json.dumps(loaded))
"""


def module_file(dotted: str) -> str:
    """``catzoo.games.lunar.state`` -> ``games/lunar/state.py`` (setup.py's mapping)."""
    parts = dotted.split(":")[0].split(".")
    assert parts[0] == "catzoo", dotted
    return "/".join(parts[1:]) + ".py"


def relative(path) -> str:
    return Path(path).resolve().relative_to(ROOT).as_posix()


@cache
def cores() -> dict[str, str]:
    """setup.py's ``CORES`` (module -> source), read without running setup.py."""
    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "CORES" for t in node.targets):
            return dict(ast.literal_eval(node.value))
    raise AssertionError("setup.py defines no CORES list")


@cache
def engine_modules() -> dict[str, dict[str, str]]:
    done = subprocess.run([sys.executable, "-c", ENGINE_RUN], cwd=ROOT, capture_output=True,
                          text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def package_files(game: str) -> set[str]:
    """The files of ``game``'s package its engine loads; a compiled module as the source
    setup.py builds it from."""
    loaded = engine_modules()[game]
    if not loaded:
        pytest.skip(f"{game}'s engine cannot be imported here (an extra is missing)")
    return {cores()[m] if m in cores() else relative(f) for m, f in loaded.items()}


def record_files(info: GameInfo) -> set[str]:
    """The files the record's fields name: modules by dotted name, the renderer under
    web/static/, the config by its path in the repository."""
    files = set()
    for f in dataclasses.fields(info):
        value = getattr(info, f.name)
        for v in value.values() if isinstance(value, Mapping) else [value]:
            if not isinstance(v, str):
                continue
            if v.startswith("catzoo."):
                files.add(module_file(v))
            elif f.name == "renderer":
                files.add(f"web/static/{v}")
            elif re.fullmatch(r"[\w./-]+\.\w+", v) and "/" in v:
                files.add(v)
    return files


def files_of(info: GameInfo) -> set[str]:
    """What the code says ``info``'s game needs: its package's files, the record's, the
    registry holding the record, the rules page the tables read, the shipped checkpoints'
    folder (when it ships any) and its tests."""
    from catzoo.play.rules import rules_location

    files = package_files(info.name) | record_files(info)
    files |= {module_file(GameInfo.__module__), relative(rules_location(info.name))}
    files |= {relative(p) for p in ROOT.glob(f"tests/test_{info.name}_*.py")}
    try:
        from catzoo.training.checkpoint import shipped_root
    except ImportError:  # the training extra
        root = None
    else:
        root = shipped_root()
    if root is not None and (root / info.name).is_dir():
        files.add(relative(root / info.name) + "/")
    return files


def in_general(path: str, game: str) -> str:
    return path.replace(game, PLACEHOLDER)


def documented() -> dict[str, str]:
    """The numbered list of docs/adding_a_game.md: each item's path, with what follows it."""
    return dict(re.findall(r"^\d+\. `([^`]+)`(.*)", DOC.read_text(), re.MULTILINE))


def compiled(game: str) -> bool:
    return any(f in cores().values() for f in package_files(game))


def test_the_documented_files_are_the_ones_every_compiled_game_needs():
    games = [g for g in sorted(GAMES) if engine_modules()[g] and compiled(g)]
    assert games, "no game with a compiled core to read the list from"
    needed = set.intersection(*({in_general(p, g) for p in files_of(GAMES[g])} for g in games))
    assert set(documented()) == needed


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_documented_file_of_a_game_exists(game):
    info = GAMES[game]
    has = {in_general(p, game) for p in files_of(info)}
    for path, note in documented().items():
        if note.strip().startswith(COMPILED_ONLY) and not compiled(game):
            continue
        mine = path.replace(PLACEHOLDER, game)
        if path in has:
            assert (ROOT / mine).exists(), f"{game}: the code names {mine}, which does not exist"
        else:
            assert note.strip().startswith("(optional)"), f"{game} has no {mine}"


def test_the_check_notices_a_file_the_page_leaves_out(monkeypatch):
    items = {path: note for path, note in documented().items() if "log_check" not in path}
    monkeypatch.setattr(sys.modules[__name__], "documented", lambda: items)
    with pytest.raises(AssertionError):
        test_the_documented_files_are_the_ones_every_compiled_game_needs()


def test_a_config_is_required_and_the_optional_items_say_so():
    optional = {path for path, rest in documented().items()
                if rest.strip().startswith("(optional)")}
    assert optional == {"policies/heuristics/<game>.py", "play/views/<game>.py",
                        "web/static/games/<game>.js", "checkpoints/<game>/"}
    assert {path for path, rest in documented().items()
            if rest.strip().startswith(COMPILED_ONLY)} == {
        "games/<game>/core.pyx", "tests/test_<game>_core.py"}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_record_names_what_its_consumers_load(game):
    from catzoo.policies.base import Policy

    info = GAMES[game]
    env = info.load_env_module().raw_env()
    assert env.state_cls is info.engine_class()
    for name, spec in info.bots.items():
        module, cls = spec.split(":")
        assert issubclass(getattr(importlib.import_module(module), cls), Policy), name
    view = importlib.import_module(info.view)
    assert all(callable(getattr(view, f)) for f in ("board", "describe", "move", "rich"))
    assert f"CZ.renderers.{game} =" in (ROOT / "web" / "static" / info.renderer).read_text()
    assert re.search(rf"^game: {game}$", (ROOT / info.config).read_text(), re.MULTILINE)
    # the quick options are the game's own and make a game of any player count
    for n in info.players:
        info.engine_class().new(seed=0, num_players=n, **info.quick_options)


def test_the_derived_lists():
    from catzoo.play.views import for_game
    from catzoo.policies.registry import HEURISTICS, available_policies

    for game, info in GAMES.items():
        assert HEURISTICS[game] == dict(info.bots)
        assert [p for p in available_policies(game) if p in info.bots] == sorted(info.bots)
        assert for_game(game).__name__ == info.view


def test_the_page_loads_each_games_renderer_from_its_record():
    pytest.importorskip("fastapi")
    from catzoo.web.app import STATIC, index_page

    page = index_page()
    scripts = re.findall(r'<script src="/static/([^"]+)"></script>', page)
    assert scripts == ["draw.js", *(i.renderer for i in GAMES.values()), "app.js"]
    assert "/static/games/" not in (STATIC / "index.html").read_text()  # none written by hand


@pytest.fixture
def no_heuristic(monkeypatch):
    """Cat in the Box and Lunar as if they had no heuristic."""
    for game in ("cat_in_the_box", "lunar"):
        monkeypatch.setitem(GAMES, game, dataclasses.replace(GAMES[game], bots={}))


def test_a_game_without_a_heuristic_offers_no_heuristic(no_heuristic):
    from catzoo.policies.registry import UnknownPolicyError, available_policies, make_policy

    assert "heuristic" not in available_policies("cat_in_the_box")
    with pytest.raises(UnknownPolicyError, match="unknown policy 'heuristic'"):
        make_policy("heuristic", "cat_in_the_box", 3)


def test_a_game_without_a_heuristic_trains_against_random_and_the_league(no_heuristic,
                                                                         tmp_path):
    pytest.importorskip("yaml")
    from catzoo.policies.random_policy import RandomPolicy
    from catzoo.training import config as config_mod
    from catzoo.training.league import LeagueSeats

    for trainer, mix in (("sb3", {"league": 0.6, "heuristic": 0, "random": 0.1}),
                         ("ppo", {"league": 0.7, "heuristic": 0, "random": 0.1})):
        config = config_mod.resolve({"game": "lunar", "trainer": trainer})
        assert config["league"]["mix"] == mix
        assert config["eval"]["opponents"] == ["random"]
        with pytest.raises(config_mod.ConfigError, match="lunar has no heuristic bot"):
            config_mod.resolve({"game": "lunar", "trainer": trainer,
                                "league": {"mix": {"heuristic": 1.0}}})
    config = config_mod.resolve({"game": "lunar", "trainer": "sb3"})
    seats = LeagueSeats(tmp_path, "lunar", 4, {}, config["teams"], config["league"], seed=0)
    rng = __import__("numpy").random.default_rng(0)
    for _ in range(20):  # no snapshot yet: the league's draws are random too
        drawn = seats(0, 4, rng)
        assert drawn[0] == (None, None)
        assert all(isinstance(policy, RandomPolicy) for policy, _ in drawn[1:])


@pytest.mark.slow
def test_a_short_run_without_a_heuristic(no_heuristic, tmp_path):
    pytest.importorskip("sb3_contrib")
    import json

    from catzoo.training import config as config_mod
    from catzoo.training.trainer import train

    config = config_mod.resolve({"game": "cat_in_the_box", "trainer": "sb3"}, [
        "env.num_players=2", "env.options={rounds: single}", "network.hidden=[16]",
        "vec_env.n_envs=2", "ppo.n_steps=64", "ppo.batch_size=64", "ppo.n_epochs=1",
        "league.snapshot_interval=100", "checkpoint_interval=256", "eval.interval=100000",
        "eval.games=2", "total_steps=256"])
    path = train(config, tmp_path / "run", progress=False, log=lambda *_: None)
    meta = json.loads((path / "policy.json").read_text())
    assert meta["steps"] >= 256
    assert "random" in meta["eval"] and "heuristic" not in meta["eval"]


def test_a_batched_run_without_a_heuristic_plays_random_and_the_league(no_heuristic, tmp_path):
    pytest.importorskip("torch")
    import csv
    import json

    from catzoo.training import config as config_mod
    from catzoo.training.ppo import train

    config = config_mod.resolve({"game": "cat_in_the_box"}, [
        "env.num_players=3", "env.options={rounds: single}", "network.hidden=[16]",
        "vector.num_envs=16", "vector.threads=1",
        "torch_threads=1", "ppo.rollout_steps=8", "ppo.n_epochs=1", "ppo.num_minibatches=2",
        "league.self_play=0", "league.snapshot_interval=100", "checkpoint_interval=1000",
        "eval.games=3", "total_steps=800"])
    assert config["eval"]["opponents"] == ["random"]
    path = train(config, tmp_path / "run", progress=False, log=lambda *_: None)
    assert "heuristic" not in json.loads((path / "policy.json").read_text())["eval"]
    with open(tmp_path / "run" / "logs" / "train.csv", newline="") as f:
        log = list(csv.DictReader(f))
    assert not any(r["return_heuristic"] for r in log)  # no table held the heuristic
    assert any(r["return_random"] for r in log) or any(r["return_league"] for r in log)
