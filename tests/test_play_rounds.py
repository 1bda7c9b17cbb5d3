"""What a player is shown as the game goes: a summary of every finished round (drawn
from the engine's own records, checked against its scoring), the score sheet, why the
game ended and the tie-break; the Ledges bat's recorded trajectory changes nothing."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from catzoo.games.cat_in_the_box.scoring import largest_group
from catzoo.games.registry import GAMES
from catzoo.play import Table
from catzoo.play.views.generic import tie_break

FULL = {"cat_in_the_box": (3, {}), "lunar": (4, {"target": 12}),
        "catsle_builders": (3, {"hand_size": 6}), "cat_tree": (2, {"turns": 3}),
        "ledges": (2, {"max_rounds": 2})}


def finished(game: str, seed: int = 2) -> Table:
    n, options = FULL[game]
    table = Table(game, ["heuristic"] * n, seed=seed, options=options)
    table.play_bots()
    assert table.over
    return table


@pytest.mark.parametrize("game", sorted(FULL))
def test_every_round_is_summarised_and_the_sheet_adds_up(game):
    table = finished(game)
    view = table.view(0)
    json.dumps(view)
    rounds, sheet, state = view["rounds"], view["sheet"], table.state
    assert rounds and [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
    assert sheet["head"][-1] == "total" and len(sheet["head"]) == len(rounds) + 1
    for row in sheet["rows"]:  # each side's rounds add up to its total, the game's score
        *per_round, total = (float(c) for c in row["cells"])
        assert sum(per_round) == total == state.scores()[row["who"][0]]
    assert view["result"]["reason"]
    if hasattr(state, "round_scores"):  # the card games: one summary per scored round
        assert len(rounds) == len(state.round_scores)
        for r, summary in enumerate(rounds):
            points = [int(row["cells"][-1 if game != "cat_in_the_box" else -2])
                      for row in summary["rows"]]
            assert points == list(state.round_scores[r])


def test_cat_in_the_box_rounds_say_the_bonus_its_group_and_the_paradox():
    for seed in range(6):
        table = finished("cat_in_the_box", seed)
        state = table.state
        for rec, summary in zip(state.round_records, table.view(0)["rounds"]):
            for p, row in enumerate(summary["rows"]):
                tricks, predicted, group, bonus, points, why = row["cells"]
                assert int(tricks) == rec["tricks"][p] and int(points) == rec["scores"][p]
                assert int(group) == largest_group(rec["tokens"][p], state.options.row_order)
                if p == rec["paradox_player"]:
                    assert int(points) == -int(tricks) and why.startswith("paradox")
                elif bonus != "0":  # the bonus is the largest group, for the prediction met
                    assert int(bonus) == int(group) == int(points) - int(tricks)
                    assert int(predicted) == int(tricks) and "prediction met" in why
                else:
                    assert int(points) == int(tricks) and f"took {tricks}" in why
            caused = [n for n in summary["notes"] if "caused a paradox" in n]
            assert len(caused) == (rec["paradox_player"] >= 0)


def test_lunar_rounds_show_the_track_its_stars_and_the_kept_stars():
    table = finished("lunar")
    state = table.state
    track_stars = state.options.track_stars
    for r, summary in enumerate(table.view(0)["rounds"]):
        positions = []
        for t, row in enumerate(summary["rows"]):
            assert row["who"] == [p for p in range(4) if p % 2 == t]
            position, stars, kept, points = (int(c) for c in row["cells"])
            assert stars == track_stars[position]
            assert points == stars + kept == state.round_scores[r][t]  # the engine's scoring
            positions.append(position)
        assert sum(positions) == 12  # every trick of the round moved one marker


def test_catsle_rounds_show_each_column_against_its_limit():
    table = finished("catsle_builders")
    state = table.state
    limits = list(state.options.limits)
    for r, summary in enumerate(table.view(0)["rounds"]):
        for p, row in enumerate(summary["rows"]):
            columns = row["cells"][:len(limits)]
            for k, text in enumerate(columns):
                count = len(state.round_boards[r][p][k])
                assert text.startswith(f"{count}/{limits[k]}")
                assert ("sideways" in text) == (count > limits[k])
            perfect = int(row["cells"][len(limits)])
            assert perfect == state.round_perfect[r][p]


def test_the_tie_break_is_told_when_it_decides_and_a_shared_win_when_it_does_not():
    def state(keys):
        return SimpleNamespace(standing_keys=lambda: keys, scores=lambda: [k[0] for k in keys],
                               winners=lambda: [i for i, k in enumerate(keys) if k == max(keys)])

    sides = [[0], [1], [2]]
    decided = tie_break(state([(9, 4), (9, 6), (3, 1)]), sides, "the final round's score")
    assert decided == ("P0 and P1 are tied on 9 points; the tie-break, the final round's score, "
                       "goes to P1 (P0 4, P1 6).")
    shared = tie_break(state([(9, 4), (9, 4), (3, 1)]), sides, "the final round's score")
    assert "a shared win" in shared and "P0 and P1" in shared
    assert tie_break(state([(9, 4), (8, 6), (3, 1)]), sides, "x") is None
    teams = tie_break(state([(5,), (5,), (5,), (5,)]), [[0, 2], [1, 3]], "")
    assert teams == "team P0+P2 and team P1+P3 are tied on 5 points: a shared win."


def test_the_end_of_a_game_says_why_it_ended():
    assert finished("cat_in_the_box").view(0)["result"]["reason"] == "all 3 rounds were played"
    lunar = finished("lunar").view(0)["result"]["reason"]
    assert lunar.startswith("team P") and lunar.endswith("passed 12 points")
    assert "2 round(s)" in finished("ledges").view(0)["result"]["reason"]


def test_the_last_trick_keeps_its_winner_until_the_next_trick_starts():
    table = Table("lunar", ["heuristic"] * 4, seed=3)
    seen = 0
    while not table.over and seen < 3:
        before = table.state.tricks_done
        table.apply(table.bot_action())
        board = table.view(0)["board"]
        if table.state.tricks_done != before and not table.over:
            seen += 1
            assert board["trick"] == [] and board["last_trick"]["winner"].startswith("team P")
            table.apply(table.bot_action())  # the next trick's first card
            board = table.view(0)["board"]
            assert len(board["trick"]) == 1


def test_recording_a_bat_changes_nothing_in_the_physics():
    pytest.importorskip("mujoco")
    table = Table("ledges", ["heuristic"] * 2, seed=5, options={"max_rounds": 2})
    table.play_bots()
    plain = GAMES["ledges"].engine_class().replay(table.state.action_log())  # not recorded
    assert np.array_equal(plain.pose, table.state.pose) and plain.scores() == table.state.scores()


def test_a_bat_sends_its_trajectory_at_30_frames_a_second():
    pytest.importorskip("mujoco")
    from catzoo.games.ledges.state import BAT_BASE, STOP

    table = Table("ledges", ["heuristic"] * 2, seed=4, options={"max_rounds": 3})
    bats = 0
    while not table.over:
        event = table.apply(table.bot_action())
        view = table.view(1)
        animation = view["animation"]
        if not BAT_BASE <= event.action < STOP:
            assert animation is None  # only the move that batted carries one
            continue
        bats += 1
        assert animation["event"] == event.number and animation["fps"] == 30
        assert animation["frames"] >= 2
        toy = [m for m in animation["movers"] if m["batted"]]
        assert len(toy) == 1 and toy[0]["kind"] == "toy"
        assert len(toy[0]["side"]) == len(toy[0]["top"]) == animation["frames"]
        assert toy[0]["side"][0] != toy[0]["side"][-1]  # it moved
        assert abs(animation["frames"] - 1 - animation["seconds"] * 30) <= 2
        if animation.get("result"):
            assert animation["result"] == view["board"]["last_turn"]
    assert bats > 0
