"""The shipped policies by name from anywhere (``shipped:GAME``), the commands' defaults,
and the one check that decides whether a checkpoint may sit at a table with given game
options: the arena, play, serve (the table), show and the oracle all refuse the same."""

from __future__ import annotations

import io
import sys
import warnings

import pytest

pytest.importorskip("safetensors")

from catzoo.cli.main import main
from catzoo.games.registry import GAMES
from catzoo.play.table import SeatError, Table
from catzoo.policies.registry import UnknownPolicyError, make_policy, short_name
from catzoo.training import checkpoint as C
from catzoo.training.checkpoint import CheckpointError, load_policy, read_meta, shipped_games

SHIPPED = shipped_games()


def test_every_game_ships_a_policy_loaded_by_name_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # not the repository: nothing relative to it
    assert SHIPPED == sorted(GAMES)
    for game in SHIPPED:
        meta = read_meta(f"shipped:{game}")
        policy = make_policy("shipped", game, meta["num_players"])
        assert policy.name == f"shipped:{game}" and policy.meta["game"] == game
        assert load_policy(f"shipped:{game}").meta == meta


def test_a_wrong_shipped_name_is_refused_with_the_nearest_one():
    with pytest.raises(CheckpointError, match=r"no shipped policy 'luna' \(did you mean 'lunar'"):
        load_policy("shipped:luna")
    with pytest.raises(UnknownPolicyError, match="is for game 'lunar', not 'cat_tree'"):
        make_policy("shipped:lunar", "cat_tree", 2)


def test_seats_get_short_names_and_keep_the_full_spec_for_the_legend():
    assert short_name("shipped:lunar") == "lunar policy"
    assert short_name("checkpoints/lunar") == "lunar policy"
    assert short_name("runs/lunar-20260101/policy") == "lunar-20260101 policy"
    assert short_name("ismcts:iterations=200") == "ismcts"
    table = Table("lunar", ["human", "shipped", "heuristic", "shipped:lunar"], seed=1)
    view = table.view(0)
    assert [s["name"] for s in view["seats"]] == ["human", "lunar policy", "heuristic",
                                                   "lunar policy"]
    assert [s["spec"] for s in view["seats"]][1:] == ["shipped", "heuristic", "shipped:lunar"]


def test_play_defaults_to_the_shipped_policy_when_it_fits_the_table(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "lunar", "--seed", "1", "--delay", "0"]) == 1  # input ends at once
    out = capsys.readouterr().out
    assert "P1 lunar policy (shipped:lunar)" in out
    assert main(["play", "lunar", "--players", "2", "--seed", "1", "--delay", "0"]) == 1
    out = capsys.readouterr().out
    assert "trained for 4 players, not 2" in out and "P1 heuristic" in out


# --- one place decides: a checkpoint under game options it was not trained for --------
MISFIT = "trained with env options that differ: rounds='full' (checkpoint) vs 'single'"


@pytest.mark.parametrize("argv", [
    ["arena", "cat_in_the_box", "--policy", "random", "--policy", "shipped",
     "-o", "rounds=single", "--games", "4", "--no-plot"],
    ["arena", "cat_in_the_box", "--policy", "random", "--policy", "checkpoints/cat_in_the_box",
     "-o", "rounds=single", "--games", "4", "--no-plot"],
    ["play", "cat_in_the_box", "--opponent", "shipped", "-o", "rounds=single"],
    ["show", "cat_in_the_box", "--policy", "shipped", "-o", "rounds=single"],
])
def test_every_command_refuses_a_checkpoint_under_other_options(argv, capsys, tmp_path):
    assert main([*argv, *(["--out", str(tmp_path)] if argv[0] == "arena" else [])]) == 2
    err = capsys.readouterr().err
    assert MISFIT in err and "Traceback" not in err


def test_the_table_and_the_web_refuse_it_too():
    with pytest.raises(SeatError, match=MISFIT.replace("(", r"\(").replace(")", r"\)")):
        Table("cat_in_the_box", ["human", "shipped", "shipped", "shipped"],
              options={"rounds": "single"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from catzoo.web import create_app

    with TestClient(create_app(bot_delay=0)) as client:
        games = {g["name"]: g for g in client.get("/api/catalogue").json()["games"]}
        assert {"name": "shipped:lunar", "players": 4} in games["lunar"]["checkpoints"]
        seats = ["human"] + ["checkpoint:shipped:cat_in_the_box"] * 3
        r = client.post("/api/games", json={"game": "cat_in_the_box", "seats": seats,
                                            "options": {"rounds": "single"}})
        assert r.status_code == 400 and MISFIT in r.json()["error"]
        r = client.post("/api/games", json={"game": "cat_in_the_box", "seats": seats})
        assert r.status_code == 201
        assert [s["name"] for s in r.json()["seats"]][1] == "cat_in_the_box policy"


def test_observation_options_may_differ_and_every_path_goes_through_check_fits(monkeypatch):
    # the ledges policy reads the aiming features, which it makes itself at a table
    # without them: only options that change the game are refused
    assert read_meta("shipped:ledges")["env_options"] == {"aim_features": True}
    make_policy("shipped:ledges", "ledges", 2, env_options={})
    from catzoo.arena import run_arena
    from catzoo.arena.oracle import oracle_report  # (test_cat_tree_reference: its refusal)

    calls = []
    real = C.check_fits
    monkeypatch.setattr(C, "check_fits",
                        lambda meta, *a, **k: calls.append((meta["game"], *a)) or real(meta, *a, **k))
    uses = {
        "make_policy": lambda: make_policy("shipped:lunar", "lunar", 4,
                                           env_options={"rounds": "full"}),
        "table": lambda: Table("lunar", ["human", "shipped", "shipped", "shipped"]),
        "show": lambda: main(["show", "cat_tree", "--policy", "shipped", "-o", "turns=8"]),
        "oracle": lambda: oracle_report(["shipped:cat_tree"], deals=1),
        "arena": lambda: run_arena("cat_tree", ["shipped", "random"], games=1,
                                   options={"turns": 8}),
    }
    for use, run in uses.items():
        before = len(calls)
        run()
        made = calls[before:]
        assert made, f"{use} loaded a checkpoint without check_fits"
        # every call is given the table's options: never None (which would skip the check)
        assert all(c[3] is not None for c in made), (use, made)
    assert ("cat_tree", "cat_tree", 2, {"turns": 8}) in [c[:4] for c in calls]
