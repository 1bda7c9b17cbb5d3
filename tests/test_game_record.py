"""One record per game (``games/registry.py``): docs/adding_a_game.md lists the files a
game needs, built here from every record; the lists the rest of CatZoo keeps are derived
from the records; a game without a heuristic trains against random and the league."""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path

import pytest

from catzoo.games.registry import GAMES, GameInfo

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "adding_a_game.md"


def module_file(dotted: str) -> str:
    """``catzoo.games.lunar.state`` -> ``games/lunar/state.py`` (setup.py's mapping)."""
    parts = dotted.split(":")[0].split(".")
    assert parts[0] == "catzoo", dotted
    return "/".join(parts[1:]) + ".py"


def files_of(info: GameInfo) -> list[tuple[str, bool]]:
    """The files ``info`` needs, in the order docs/adding_a_game.md gives, each with
    whether the record names it (an optional one may be absent)."""
    engine = module_file(info.engine)
    folder = engine.rpartition("/")[0]
    options = module_file(info.engine_class().options_cls.__module__)
    rows = [
        (f"docs/rules/{info.name}.md", True),
        (options, True),
        (f"{folder}/layout.py", True),
        (engine, True),
        (f"{folder}/render.py", True),
        (f"{folder}/__init__.py", True),
        (f"tests/test_{info.name}_rules.py", True),
        (f"tests/test_{info.name}_properties.py", True),
        (module_file(info.env_module), True),
        ("games/registry.py", True),
        (module_file(info.heuristic) if info.heuristic else "policies/heuristics/<game>.py",
         info.heuristic is not None),
        (module_file(info.view) if info.view else "play/views/<game>.py", info.view is not None),
        (f"web/static/{info.renderer}" if info.renderer else "web/static/games/<game>.js",
         info.renderer is not None),
        (info.config or "configs/<game>.yaml", info.config is not None),
        (f"checkpoints/{info.name}/", (ROOT / "checkpoints" / info.name).is_dir()),
    ]
    return rows


def documented() -> list[str]:
    """The numbered list of docs/adding_a_game.md: each item's path."""
    return re.findall(r"^\d+\. `([^`]+)`", DOC.read_text(), re.MULTILINE)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_documented_files_are_the_ones_the_record_names(game):
    info = GAMES[game]
    rows = files_of(info)
    assert [path.replace(game, "<game>") for path, _ in rows] == documented()
    missing = [path for path, present in rows if present and not (ROOT / path).exists()]
    assert not missing, f"{game}: the record names files that do not exist: {missing}"


def test_a_config_is_required_and_the_optional_items_say_so():
    text = DOC.read_text()
    items = re.findall(r"^\d+\. `([^`]+)`(.*)", text, re.MULTILINE)
    optional = {path for path, rest in items if rest.strip().startswith("(optional)")}
    assert optional == {"policies/heuristics/<game>.py", "play/views/<game>.py",
                        "web/static/games/<game>.js", "checkpoints/<game>/"}


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
