"""Seeded small arenas: seat rotation, reproducibility, heuristic above random in every
game, failing policies reported with the games gathered so far, the command line."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from catzoo.arena import ArenaPolicyError, ArenaSetupError, run_arena
from catzoo.arena.schedule import game_structure, schedule
from catzoo.cli.main import main
from catzoo.games.registry import GAMES
from catzoo.policies.base import Policy, legal_actions
from tests.helpers import without_clocks

# Every game at its default player count, and the other shapes of the games with teams or
# many players (inferring ledges' sides at other counts plays slow physics games).
CASES = sorted({(g, info.default_players) for g, info in GAMES.items()}
               | {(g, n) for g, n in [("lunar", 2), ("cat_in_the_box", 5), ("catsle_builders", 3)]
                  if g in GAMES})


@pytest.mark.parametrize(("game", "n"), CASES)
@pytest.mark.parametrize("k", [2, 3])
def test_seat_rotation_covers_every_seat_equally(game, n, k):
    structure = game_structure(game, n)
    seatings = schedule(k, 5, n, structure, seed=3)
    per_seat = Counter((s.seats[seat], seat) for s in seatings for seat in range(n))
    counts = {per_seat[(p, seat)] for p in range(k) for seat in range(n)}
    assert len(counts) == 1 and counts != {0}, per_seat
    # Partners come from the same policy; every policy meets every other.
    if not structure.cooperative:
        for s in seatings:
            for team in structure.teams:
                assert len({s.seats[x] for x in team}) == 1
        met = {(a, b) for s in seatings for a in s.seats for b in s.seats if a != b}
        assert met == {(a, b) for a in range(k) for b in range(k) if a != b}
    # A round's rotations share their deal; rounds differ.
    rounds = {}
    for s in seatings:
        rounds.setdefault(s.round, set()).add(s.seed)
    assert all(len(v) == 1 for v in rounds.values())
    assert len({next(iter(v)) for v in rounds.values()}) == len(rounds)


def test_mixed_teams_lets_partners_differ():
    structure = game_structure("lunar", 4)
    assert structure.teams == ((0, 2), (1, 3))
    seatings = schedule(2, 1, 4, structure, seed=0, mixed_teams=True)
    assert any(s.seats[0] != s.seats[2] for s in seatings)


def test_same_seed_same_results_with_any_number_of_workers():
    args = {"games": 6, "num_players": 3, "seed": 11, "options": {"rounds": "single"}}
    a = run_arena("cat_in_the_box", ["random", "heuristic", "ismcts:iterations=8"], **args)
    b = run_arena("cat_in_the_box", ["random", "heuristic", "ismcts:iterations=8"], workers=2,
                  **args)
    assert without_clocks(a.records) == without_clocks(b.records)
    assert [r["game"] for r in b.records] == list(range(len(b.records)))
    key = ("policy", "rating", "rating_low", "win_rate", "mean_score", "mean_rank")
    assert [[r[k] for k in key] for r in a.summary()] == [[r[k] for k in key] for r in b.summary()]
    c = run_arena("cat_in_the_box", ["random", "heuristic", "ismcts:iterations=8"],
                  **{**args, "seed": 12})
    assert without_clocks(c.records) != without_clocks(a.records)


@pytest.mark.parametrize("game", [g for g, info in GAMES.items() if info.heuristic])
def test_heuristic_ranks_above_random(game):
    result = run_arena(game, ["random", "heuristic"], games=6, seed=2)
    rows = {r["policy"]: r for r in result.summary()}
    assert rows["heuristic"]["rating"] > rows["random"]["rating"]
    assert rows["heuristic"]["mean_rank"] < rows["random"]["mean_rank"]
    share, _ = result.head_to_head()
    assert share[1, 0] > 0.6


class Bomb(Policy):
    """Plays randomly, then fails on its ``after``-th move (counted per seat instance)."""

    def __init__(self, after: int, illegal: bool, name: str):
        self.after, self.illegal, self.name = after, illegal, name
        self.moves = 0
        self.rng = np.random.default_rng(0)

    def act(self, observation, *, state=None, player=None) -> int:
        self.moves += 1
        legal = legal_actions(observation)
        if self.moves >= self.after:
            if self.illegal:
                return int(np.flatnonzero(observation["action_mask"] == 0)[0])
            raise ZeroDivisionError("the bomb went off")
        return int(legal[self.rng.integers(legal.size)])


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("illegal", [False, True])
def test_failing_policy_is_named_with_the_game_state_and_results_are_kept(illegal, workers):
    bomb = Bomb(after=40, illegal=illegal, name="bomb")
    with pytest.raises(ArenaPolicyError) as info:
        run_arena("cat_in_the_box", ["random", bomb], games=40, num_players=2, seed=1,
                  workers=workers)
    err = info.value
    text = str(err)
    assert "policy 'bomb' at seat" in text and "cat_in_the_box arena game" in text
    assert "game state:" in text and "research board" in text.lower()
    if illegal:
        assert "returned the illegal action" in text and "legal actions:" in text
    else:
        assert "raised ZeroDivisionError: the bomb went off" in text
    partial = err.partial
    assert 0 < len(partial.records) < partial.scheduled
    assert err.report["log"]["actions"] and err.report["game"] == len(partial.records) or workers > 1
    assert "STOPPED" in partial.table()
    rows = {r["policy"]: r for r in partial.summary()}
    assert rows["bomb"]["games"] == len(partial.records)


def test_bad_setup_is_named():
    with pytest.raises(ArenaSetupError, match="at least two policies"):
        run_arena("cat_in_the_box", ["random"], games=2)
    with pytest.raises(ArenaSetupError, match="not 7"):
        run_arena("cat_in_the_box", ["random", "heuristic"], num_players=7)


def test_cli_arena_writes_json_csv_png_and_prints_the_table(tmp_path, capsys):
    out = tmp_path / "res"
    assert main(["arena", "cat_tree", "--policy", "random", "--policy", "heuristic", "--games",
                 "4", "--seed", "3", "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "rating [95% CI]" in printed and "head-to-head" in printed
    data = json.loads((out / "arena_cat_tree.json").read_text())
    assert data["policies"] == ["random", "heuristic"] and data["cooperative"]
    assert len(data["games"]) == data["games_played"] == 4
    assert (out / "arena_cat_tree.csv").read_text().startswith("policy,games,rating")
    assert (out / "arena_cat_tree.png").stat().st_size > 1000


@pytest.mark.parametrize(("argv", "message"), [
    (["arena"], "name a game"),
    (["arena", "cat_in_the_box", "--policy", "random", "--policy", "genius"], "unknown policy 'genius'"),
    (["arena", "cat_in_the_box", "--policy", "ismcts:depth=3", "--policy", "random"],
     "unknown option(s) 'depth' for ismcts"),
    (["arena", "cat_in_the_box", "--policy", "random", "--policy", "no/such/ckpt"],
     "no such file or directory"),
    (["arena", "--all", "cat_in_the_box"], "--all takes no game"),
])
def test_cli_arena_errors_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_leaderboard_finds_the_shipped_checkpoints():
    from catzoo.arena.leaderboard import default_policies, shipped_checkpoints

    found, skipped = shipped_checkpoints("cat_in_the_box", root="checkpoints")
    assert found == ["checkpoints/cat_in_the_box/4p"] and skipped == []
    assert shipped_checkpoints("no_such_game", root="checkpoints") == ([], [])
    assert default_policies("cat_in_the_box")[:2] == ["random", "heuristic"]


def test_leaderboard_seats_a_game_at_its_checkpoints_player_count(tmp_path):
    import shutil

    from catzoo.arena.leaderboard import shipped_checkpoints, table_size

    # CatZoo ships every count: the table is the game's default count
    assert table_size("catsle_builders") == GAMES["catsle_builders"].default_players
    assert shipped_checkpoints("catsle_builders", root="checkpoints",
                               num_players=3)[0] == ["checkpoints/catsle_builders/3p"]
    # a folder holding only a 3-player policy: the 3-player table, and 4 players skip it
    root = tmp_path / "ckpts"
    shutil.copytree("checkpoints/catsle_builders/3p", root / "catsle_builders" / "3p")
    assert table_size("catsle_builders", root=str(root)) == 3
    found, skipped = shipped_checkpoints("catsle_builders", root=str(root), num_players=4)
    assert found == [] and "3" in skipped[0] and "4" in skipped[0]
    assert table_size("catsle_builders", root=str(tmp_path)) == 4  # none shipped: the default


def test_mean_rank_intervals_stay_within_the_ranks_possible():
    # random against heuristic at 2 players: the heuristic nearly always first, so a
    # normal interval around its mean rank would reach below rank 1
    result = run_arena("cat_in_the_box", ["random", "heuristic"], games=12, num_players=2,
                       seed=0, options={"rounds": "single"})
    for row in result.summary():
        assert 1.0 <= row["mean_rank_low"] <= row["mean_rank"] <= row["mean_rank_high"] <= 2.0
    best = result.summary()[0]
    assert best["policy"] == "heuristic" and best["mean_rank_low"] == 1.0


def test_the_plot_labels_policies_shortly_in_rating_order_with_a_legend(tmp_path):
    from catzoo.arena.report import plot_layout

    policies = ["random", "ismcts:iterations=4", "heuristic", "checkpoints/cat_in_the_box/4p",
                "ismcts:iterations=8"]
    result = run_arena("cat_in_the_box", policies, games=8, num_players=4, seed=1,
                       options={"rounds": "full"})
    order, labels, legend = plot_layout(result)
    assert [result.names[i] for i in order] == [r["policy"] for r in result.summary()]
    by_spec = dict(zip([result.names[i] for i in order], labels))
    assert by_spec["checkpoints/cat_in_the_box/4p"] == "cat_in_the_box policy"
    assert by_spec["random"] == "random" and by_spec["heuristic"] == "heuristic"
    assert sorted(by_spec[s] for s in policies if s.startswith("ismcts")) == ["ismcts 1",
                                                                             "ismcts 2"]
    assert "cat_in_the_box policy: checkpoints/cat_in_the_box/4p" in legend
    assert len(legend) == 3  # the labels that are not their spec
    assert "png" in result.save(tmp_path, stem="plot")


def test_the_arena_says_how_long_it_will_take_after_its_first_games(capsys, tmp_path):
    told = []
    run_arena("cat_in_the_box", ["random", "heuristic"], games=20, num_players=2, seed=0,
              options={"rounds": "single"}, estimate=told.append)
    assert len(told) == 1 and told[0].startswith("arena: ") and "more at the pace so far" in told[0]
    assert main(["arena", "cat_in_the_box", "--policy", "random", "--policy", "heuristic",
                 "--games", "20", "--players", "2", "-o", "rounds=single", "--no-plot",
                 "--out", str(tmp_path)]) == 0
    assert "more at the pace so far" in capsys.readouterr().err


def test_the_leaderboard_says_what_it_found_and_where_it_writes(tmp_path, monkeypatch, capsys):
    """Run from any directory it finds the shipped policies (package data) and names the
    files it writes; the games here are few and short, the leaderboard's own long."""
    import catzoo.arena.leaderboard as board
    from catzoo.training.checkpoint import shipped_root

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(board, "GAMES", {"cat_tree": GAMES["cat_tree"]})
    real = board.run_arena
    played = []

    def short(game, policies, **kw):
        played.append(policies)
        return real(game, ["random", *policies[-1:]], games=2, num_players=kw["num_players"],
                    options={"turns": 8})

    monkeypatch.setattr(board, "run_arena", short)
    assert main(["arena", "--all", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"checkpoints: {shipped_root()} (the policies shipped with CatZoo)" in out
    assert f"writing {tmp_path / 'docs' / 'leaderboard.md'}" in out
    assert played == [["random", "heuristic", "ismcts:iterations=50", "shipped:cat_tree",
                       "best:seconds=0.1"]]
    page = (tmp_path / "docs" / "leaderboard.md").read_text()
    assert "best:seconds=0.1" in page and (tmp_path / "docs" / "leaderboard" / "cat_tree.json").exists()
