"""The shipped policies by name from anywhere (``shipped:GAME``), the commands' defaults,
and the one check that decides whether a checkpoint may sit at a table with given game
options: the arena, play, serve (the table), show and the oracle all refuse the same."""

from __future__ import annotations

import io
import re
import shutil
import sys
import warnings

import pytest

pytest.importorskip("safetensors")

from catzoo.cli.main import main
from catzoo.games.registry import GAMES
from catzoo.play.table import SeatError, Table
from catzoo.policies.registry import UnknownPolicyError, has_shipped, make_policy, short_name
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


def test_every_shipped_count_loads_for_its_tables():
    for game in SHIPPED:
        counts = C.shipped_counts(game)
        assert counts and set(counts) <= set(GAMES[game].players), (game, counts)
        for n in counts:
            assert C.resolve(f"shipped:{game}", n).parts[-2:] == (game, f"{n}p")
            assert make_policy("shipped", game, n).meta["num_players"] == n
            assert has_shipped(game, n)
        assert not any(has_shipped(game, n) for n in set(GAMES[game].players) - set(counts))


def test_a_wrong_shipped_name_is_refused_with_the_nearest_one():
    with pytest.raises(CheckpointError, match=r"no shipped policy 'luna' \(did you mean 'lunar'"):
        load_policy("shipped:luna")
    with pytest.raises(UnknownPolicyError, match="is for game 'lunar', not 'cat_tree'"):
        make_policy("shipped:lunar", "cat_tree", 2)


def test_seats_get_short_names_and_keep_the_full_spec_for_the_legend():
    assert short_name("shipped:lunar") == "lunar policy"
    assert short_name("shipped:lunar:4p") == "lunar policy"
    assert short_name("checkpoints/lunar") == "lunar policy"
    assert short_name("checkpoints/lunar/4p") == "lunar policy"  # named for its game
    assert short_name("runs/lunar-20260101/policy") == "lunar-20260101 policy"
    assert short_name("ismcts:iterations=200") == "ismcts"
    table = Table("lunar", ["human", "shipped", "heuristic", "shipped:lunar"], seed=1)
    view = table.view(0)
    assert [s["name"] for s in view["seats"]] == ["human", "lunar policy", "heuristic",
                                                   "lunar policy"]
    assert [s["spec"] for s in view["seats"]][1:] == ["shipped", "heuristic", "shipped:lunar"]


def test_play_seats_best_by_default_and_the_shipped_policy_when_asked(monkeypatch, capsys):
    def seats(*argv):
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        assert main(["play", "lunar", "--seed", "1", "--delay", "0", *argv]) == 1  # input ends
        return capsys.readouterr().out

    # best by default, its search over the shipped network (pimc's rollouts) where that fits
    assert "P1 best (best:seconds=1 = pimc:" in seats()
    assert "P1 best (best:seconds=1 = pimc:" in seats("--players", "2")
    assert "P1 best (best:seconds=2 = pimc:" in seats("--bot-seconds", "2")
    # the shipped policy when asked for, the one of the table's count: every count ships
    assert "P1 lunar policy (shipped)" in seats("--opponent", "shipped")
    assert "P1 lunar policy (shipped)" in seats("--opponent", "shipped", "--players", "2")
    # a table the network does not fit (options it was not trained with): best searches
    # without it
    out = seats("-o", "rounds=single")
    assert "P1 best (best:seconds=1 = ismcts:" in out and "pimc" not in out
    # where best cannot sit at all (installed without its best.json files): the heuristic,
    # saying why
    from catzoo.policies import best

    monkeypatch.setattr(best, "shipped_root", lambda: None)
    out = seats()
    assert "best cannot sit here" in out and "checkpoints package" in out
    assert "P1 heuristic" in out


# --- one place decides: a checkpoint under game options it was not trained for --------
MISFIT = "trained with env options that differ: rounds='full' (checkpoint) vs 'single'"


@pytest.mark.parametrize("argv", [
    ["arena", "cat_in_the_box", "--policy", "random", "--policy", "shipped",
     "-o", "rounds=single", "--games", "4", "--no-plot"],
    ["arena", "cat_in_the_box", "--policy", "random", "--policy", "checkpoints/cat_in_the_box/4p",
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


# --- one policy per player count: a package shipping Cat in the Box at chosen counts ---------
@pytest.fixture
def ship(tmp_path, monkeypatch):
    """``ship(2, 3)``: the installed package ships Cat in the Box policies for 2 and 3
    players (small untrained ones), and nothing else, in place of the real ones."""
    from tests.test_training_checkpoint import make_checkpoint

    root = tmp_path / "shipped"
    root.mkdir()
    monkeypatch.setattr(C, "shipped_root", lambda: root)

    def at(*counts):
        for n in counts:
            make_checkpoint(root / "cat_in_the_box" / f"{n}p", num_players=n)
        return root

    return at


def test_a_shipped_policy_is_the_one_for_the_tables_player_count(ship):
    root = ship(2, 3)
    assert C.shipped_games() == ["cat_in_the_box"] and C.shipped_counts("cat_in_the_box") == [2, 3]
    assert C.shipped_counts("lunar") == [] and not has_shipped("lunar")
    for n in (2, 3):
        assert C.resolve("shipped:cat_in_the_box", n) == root / "cat_in_the_box" / f"{n}p"
        assert read_meta("shipped:cat_in_the_box", n)["num_players"] == n
        assert load_policy("shipped:cat_in_the_box", num_players=n).meta["num_players"] == n
        policy = make_policy("shipped", "cat_in_the_box", n)
        assert policy.meta["num_players"] == n and policy.name == "shipped:cat_in_the_box"
        assert has_shipped("cat_in_the_box", n)
    table = Table("cat_in_the_box", ["human", "shipped", "shipped:cat_in_the_box"], seed=1)
    assert [s["name"] for s in table.view(0)["seats"]][1:] == ["cat_in_the_box policy"] * 2
    # A spec may name the count; whether that fits the table is check_fits's to say.
    assert C.resolve("shipped:cat_in_the_box:3p", 2) == root / "cat_in_the_box" / "3p"
    assert load_policy("shipped:cat_in_the_box:3").meta["num_players"] == 3
    with pytest.raises(CheckpointError, match="trained for 3 players, not 2"):
        load_policy("shipped:cat_in_the_box:3p", num_players=2)
    with pytest.raises(CheckpointError, match="a player count such as shipped:cat_in_the_box:4p, "
                                              "not 'five'"):
        C.resolve("shipped:cat_in_the_box:five")


def test_without_a_count_shipped_is_the_default_count_else_the_lowest(ship):
    from catzoo.arena.leaderboard import shipped_checkpoints, table_size

    ship(3, 5)  # not 4, Cat in the Box's default count
    assert GAMES["cat_in_the_box"].default_players == 4
    assert read_meta("shipped:cat_in_the_box")["num_players"] == 3
    assert load_policy("shipped:cat_in_the_box").meta["num_players"] == 3
    assert table_size("cat_in_the_box") == 3  # the leaderboard seats the policy it loads
    assert shipped_checkpoints("cat_in_the_box") == (["shipped:cat_in_the_box"], [])
    ship(4)
    assert C.resolve("shipped:cat_in_the_box").name == "4p"
    assert read_meta("shipped:cat_in_the_box")["num_players"] == 4
    assert table_size("cat_in_the_box") == 4


def test_a_count_not_shipped_is_refused_naming_the_counts_that_are(ship, monkeypatch, capsys):
    ship(2, 3)
    message = (r"CatZoo ships no cat_in_the_box policy for 5 players: its cat_in_the_box "
               r"policies were trained for 2 or 3 players, not 5 \(shipped:cat_in_the_box:2p, "
               r"shipped:cat_in_the_box:3p\)")
    with pytest.raises(CheckpointError, match=message):
        C.resolve("shipped:cat_in_the_box", 5)
    with pytest.raises(CheckpointError, match=message):
        load_policy("shipped:cat_in_the_box", game="cat_in_the_box", num_players=5)
    with pytest.raises(CheckpointError, match=message):
        read_meta("shipped:cat_in_the_box:5p")
    with pytest.raises(UnknownPolicyError, match=message):
        make_policy("shipped", "cat_in_the_box", 5)
    assert not has_shipped("cat_in_the_box", 5) and has_shipped("cat_in_the_box")
    # another game's policy is refused for its game, whatever the count
    with pytest.raises(CheckpointError, match="is for game 'cat_in_the_box', not 'lunar'"):
        load_policy("shipped:cat_in_the_box", game="lunar", num_players=4)
    # the terminal table refuses it when asked for, saying why; by default best sits there,
    # searching without a network
    table = ["play", "cat_in_the_box", "--players", "5", "--seed", "1", "--delay", "0"]
    assert main([*table, "--opponent", "shipped"]) == 2
    assert re.search(message, capsys.readouterr().err)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(table) == 1  # the input ends at once
    assert "P1 best (best:seconds=1 = ismcts:" in capsys.readouterr().out


def test_a_policy_json_that_disagrees_with_its_folder_is_refused(ship, caplog):
    from catzoo.web.catalogue import Catalogue

    root = ship(2)
    shutil.copytree(root / "cat_in_the_box" / "2p", root / "cat_in_the_box" / "3p")
    assert C.shipped_counts("cat_in_the_box") == [2, 3]
    with pytest.raises(CheckpointError, match="records cat_in_the_box at 2 players, but it is "
                                              "shipped in cat_in_the_box/3p/"):
        load_policy("shipped:cat_in_the_box", num_players=3)
    # the web menu skips it, saying so, and offers the sound one
    box = next(g for g in Catalogue().to_json() if g["name"] == "cat_in_the_box")
    assert box["checkpoints"] == [{"name": "shipped:cat_in_the_box", "players": 2}]
    assert "skipping shipped:cat_in_the_box:3p" in caplog.text


def test_the_web_menu_offers_the_shipped_policy_of_the_chosen_player_count(ship):
    from catzoo.web.catalogue import Catalogue

    ship(2, 3)
    catalogue = Catalogue()
    menu = {g["name"]: g["checkpoints"] for g in catalogue.to_json()}
    assert menu.pop("cat_in_the_box") == [{"name": "shipped:cat_in_the_box", "players": 2},
                                          {"name": "shipped:cat_in_the_box", "players": 3}]
    assert all(offered == [] for offered in menu.values())
    for n in (2, 3):
        spec = catalogue.resolve("cat_in_the_box", n, "checkpoint:shipped:cat_in_the_box")
        assert spec == f"shipped:cat_in_the_box:{n}p"
        assert make_policy(spec, "cat_in_the_box", n).meta["num_players"] == n
    with pytest.raises(ValueError, match="'shipped:cat_in_the_box' plays 2- or 3-player games, "
                                         "not 4"):
        catalogue.resolve("cat_in_the_box", 4, "checkpoint:shipped:cat_in_the_box")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    from catzoo.web import create_app

    with TestClient(create_app(bot_delay=0)) as client:
        games = {g["name"]: g for g in client.get("/api/catalogue").json()["games"]}
        assert [c["players"] for c in games["cat_in_the_box"]["checkpoints"]] == [2, 3]
        for n in (2, 3):
            seats = ["human"] + ["checkpoint:shipped:cat_in_the_box"] * (n - 1)
            r = client.post("/api/games", json={"game": "cat_in_the_box", "seats": seats})
            assert r.status_code == 201, r.json()
            assert [s["name"] for s in r.json()["seats"]][1:] == ["cat_in_the_box policy"] * (n - 1)
        seats = ["human"] + ["checkpoint:shipped:cat_in_the_box"] * 3
        r = client.post("/api/games", json={"game": "cat_in_the_box", "seats": seats})
        assert r.status_code == 400 and "plays 2- or 3-player games, not 4" in r.json()["error"]
