"""The Cat Tree reference deals (best-known plans, shipped) and ``catzoo oracle``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from catzoo.analysis.cat_tree.bound import upper_bound
from catzoo.analysis.cat_tree.oracle import deals, play_policies, solve
from catzoo.analysis.cat_tree.reference import PATH, ReferenceError, load
from catzoo.arena.oracle import OracleReport, oracle_report
from catzoo.cli.main import main
from catzoo.games.cat_tree import CatTreeOptions
from catzoo.policies.heuristics.cat_tree import CatTreeHeuristic
from catzoo.policies.registry import UnknownPolicyError

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = load()


def test_the_shipped_deals_are_the_seeded_deals_with_their_plans_and_bounds():
    assert len(SHIPPED) >= 60
    assert [d.seed for d in SHIPPED] == list(range(len(SHIPPED)))
    decks = deals(len(SHIPPED))
    for d in SHIPPED:  # load() replayed every plan to its score
        assert d.deck == decks[d.seed]
        assert d.score <= d.bound <= upper_bound(d.deck)


def test_a_shipped_bound_is_todays_best_bound():
    # best_bound takes half a minute a deal: one deal here, where the two bounds differ
    # (rebuild the file with --bounds-only if the bounds move)
    pytest.importorskip("ortools")
    from catzoo.analysis.cat_tree.grid_bound import best_bound

    deal = SHIPPED[11]
    assert deal.bound == best_bound(deal.deck) < upper_bound(deal.deck)


@pytest.mark.parametrize("i", [0, 1, 2])
def test_the_best_known_plan_is_never_below_the_oracle_search_or_the_heuristic(i):
    deal = SHIPPED[i]
    searched = solve(deal.deck, bound=False)
    assert deal.score >= searched.score >= searched.heuristic_score


def _tampered(tmp_path, change):
    data = json.loads(PATH.read_text())
    change(data)
    path = tmp_path / "reference.json"
    path.write_text(json.dumps(data))
    return path


def _set(key, value):
    def change(data):
        data["deals"][3][key] = value
    return change


@pytest.mark.parametrize(("change", "message"), [
    (_set("score", 10_000), "reference deal 3: its plan scores"),
    (_set("bound", 1), "reference deal 3: bound 1 below its score"),
    (_set("deck", "P" * 32), "reference deal 3: the deck 'PPPP"),
    (_set("actions", [0, 0, 0]), "reference deal 3: its plan is illegal"),
    (_set("actions", [0]), "reference deal 3: its plan stops before the game ends"),
    (lambda data: data.update(format=7), "format 7, expected 1"),
    (lambda data: data["deals"][0].pop("actions"), "not a reference file (KeyError"),
    (_set("score", "many"), "not a reference file (ValueError"),
])
def test_a_tampered_reference_file_is_refused_naming_what_is_wrong(tmp_path, change, message):
    with pytest.raises(ReferenceError, match=None) as err:
        load(_tampered(tmp_path, change))
    assert message in str(err.value)


def test_a_file_that_is_not_json_is_refused(tmp_path):
    path = tmp_path / "reference.json"
    path.write_text("{not json")
    with pytest.raises(ReferenceError, match="not a reference file"):
        load(path)


def test_the_report_plays_each_policy_as_both_partners_on_the_reference_deals():
    report = oracle_report(["heuristic", "random"], deals=4)
    assert report.reference == [d.score for d in SHIPPED[:4]]
    bot = CatTreeHeuristic(num_players=2)
    expected = [play_policies(d.deck, [bot, bot], CatTreeOptions()).total for d in SHIPPED[:4]]
    assert report.scores["heuristic"] == expected
    for name, scores in report.scores.items():
        assert all(s <= b for s, b in zip(scores, report.bounds)), name
    mean, half = report.percent("heuristic")
    ratios = [100 * h / r for h, r in zip(expected, report.reference)]
    assert mean == pytest.approx(sum(ratios) / 4) and 0 < half < 100
    table = report.table()
    assert "4 reference deals" in table and "% of best" in table and "heuristic" in table


def test_the_report_counts_the_deals_proven_optimal():
    report = OracleReport("reference deals", [181, 170], [181, 175], {"heuristic": [120, 110]})
    assert "2 reference deals" in report.table()
    assert "1 proven optimal" in report.table()  # the first: its best known is its bound


def test_search_bots_get_the_state_to_resample_from():
    report = oracle_report(["ismcts:iterations=4"], deals=1)
    assert 0 < report.scores["ismcts:iterations=4"][0] <= report.bounds[0]


def test_fresh_deals_are_measured_against_the_oracle_search():
    report = oracle_report(["heuristic"], deals=2, fresh=True, seed=500)
    assert report.reference == [solve(d).score for d in deals(2, seed=500)]
    assert all(h <= o for h, o in zip(report.scores["heuristic"], report.reference))


def test_a_checkpoint_trained_on_other_options_is_refused(tmp_path):
    trained = tmp_path / "turns4"
    shutil.copytree(ROOT / "checkpoints" / "cat_tree" / "2p", trained)
    meta = json.loads((trained / "policy.json").read_text())
    meta["env_options"] = {"turns": 4}
    (trained / "policy.json").write_text(json.dumps(meta))
    with pytest.raises(UnknownPolicyError, match=r"trained with env options that differ: turns=4"):
        oracle_report([str(trained)], deals=1)


def test_the_oracle_command_prints_the_table(capsys):
    assert main(["oracle", "--policy", "heuristic", "--deals", "2"]) == 0
    out = capsys.readouterr().out
    assert "Cat Tree: 2 reference deals" in out and "heuristic" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["oracle", "--fresh"], "--fresh needs --deals N"),
    (["oracle", "--seed", "3"], "--seed and --workers apply to --fresh deals only"),
    (["oracle", "--deals", "0"], "--deals 0: the reference set has"),
    (["oracle", "--policy", "genius", "--deals", "1"], "unknown policy 'genius'"),
    (["oracle", "--policy", "./no/such/checkpoint", "--deals", "1"], "no such file"),
])
def test_oracle_command_errors_are_one_line_messages(argv, message, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err and "Traceback" not in captured.err
