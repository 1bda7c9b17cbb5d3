"""The Cat Tree oracle: achievable plans, never below the heuristic, an upper bound above
every game, and exact on deals small enough to enumerate."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.analysis.cat_tree.bound import ALT, PAIRS, _model, upper_bound
from catzoo.analysis.cat_tree.oracle import (
    SETTINGS,
    deals,
    percent_of_oracle,
    play_policies,
    solve,
    solve_all,
)
from catzoo.games.cat_tree import CatTreeOptions, CatTreeState
from catzoo.games.cat_tree.options import (
    BOX,
    LETTERS,
    NEST,
    PIPE,
    PIPE_SIDE_POINTS,
    SHELF,
)
from catzoo.games.cat_tree.state import KEEP_BASE, ME_FIRST, PARTNER_FIRST
from catzoo.policies.heuristics.cat_tree import CatTreeHeuristic
from catzoo.policies.random_policy import RandomPolicy
from tests.test_cat_tree_rules import cell_action, game

DEALS = deals(4, seed=500)


@pytest.fixture(scope="module")
def solved():
    return [solve(deck) for deck in DEALS]


def test_oracle_plan_replays_to_its_score(solved):
    for deck, result in zip(DEALS, solved):
        state = CatTreeState.new(chance=[deck])
        for action in result.actions:
            state.apply(action)
        assert state.is_terminal() and state.total == result.score


def test_oracle_never_below_the_heuristic(solved):
    bot = CatTreeHeuristic()
    for deck, result in zip(DEALS, solved):
        heuristic = play_policies(deck, [bot, bot], CatTreeOptions()).total
        assert result.heuristic_score == heuristic
        assert result.score >= heuristic
    # the search itself, not only the incumbent, finds better trees on these deals
    assert sum(r.score for r in solved) > sum(r.heuristic_score for r in solved)


def test_upper_bound_is_above_the_oracle_and_random_games(solved):
    for seed, (deck, result) in enumerate(zip(DEALS, solved)):
        assert result.upper_bound >= result.score
        for s in range(3):
            game = play_policies(deck, [RandomPolicy(s), RandomPolicy(s + 10)],
                                 CatTreeOptions())
            assert game.total <= result.upper_bound


def brute_force_one_turn(deck, options: CatTreeOptions) -> int:
    """The best score of a one-turn game, by trying every action sequence."""
    best = -1
    start = CatTreeState.new(options, chance=[deck])
    for k0, k1 in itertools.product((0, 1), repeat=2):
        for order in (ME_FIRST, PARTNER_FIRST):
            state = start.clone()
            state.apply(KEEP_BASE + k0)
            state.apply(KEEP_BASE + k1)
            if options.placing_order == "choose":
                state.apply(order)
            for a1 in state.legal_actions():
                mid = state.clone()
                mid.apply(a1)
                for a2 in mid.legal_actions():
                    end = mid.clone()
                    end.apply(a2)
                    best = max(best, end.total)
    return best


@pytest.mark.parametrize("seed", range(10))  # the heuristic misses on seeds 0 and 9
def test_oracle_is_exact_on_one_turn_deals(seed):
    # a 4 x 4 grid whose second row is already at altitude: shelves there score double
    options = CatTreeOptions(width=4, height=4, altitude=2, turns=1, detach_distance=2)
    deck = deals(1, seed=seed, options=options)[0]
    best = brute_force_one_turn(deck, options)
    result = solve(deck, options, width=16)
    assert result.score == best
    assert upper_bound(deck, options) >= best


def test_upper_bound_on_a_hand_checked_deal():
    # one turn: box + box kept, on an 8 x 8 grid nothing can reach altitude: 5 + 5
    options = CatTreeOptions(turns=1)
    deck = (4, 4, 4, 4) + tuple(k for k in range(8) if k != 4 for _ in range(4))
    assert upper_bound(deck, options) == 10
    assert solve(deck, options).score == 10


def test_percent_of_oracle():
    assert percent_of_oracle([50, 100], [100, 100]) == 75.0
    assert percent_of_oracle([0], [0]) == 100.0


def test_heuristic_beats_random_on_fixed_deals():
    bot = CatTreeHeuristic()
    decks = deals(20, seed=900)
    heuristic = [play_policies(d, [bot, bot], CatTreeOptions()).total for d in decks]
    random_ = [play_policies(d, [RandomPolicy(i), RandomPolicy(i + 100)],
                             CatTreeOptions()).total for i, d in enumerate(decks)]
    assert sum(heuristic) > 1.5 * sum(random_)
    assert sum(h > r for h, r in zip(heuristic, random_)) >= 18


def test_heuristic_through_the_registry_plays_the_env():
    from catzoo.envs import cat_tree_v0
    from catzoo.policies import make_policy

    env = cat_tree_v0.env()
    env.reset(seed=11)
    bots = {a: make_policy("heuristic", "cat_tree", num_players=2) for a in env.agents}
    for agent in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        env.step(None if terminated or truncated else bots[agent].act(obs))
    assert env.unwrapped.game.total >= 50


def any_options(largest: int):
    """Options with any rules on grids up to ``largest`` wide and high."""
    return st.builds(CatTreeOptions, width=st.integers(3, largest),
                     height=st.integers(2, largest), bottom_height=st.sampled_from([0, 1]),
                     altitude=st.integers(1, 7), detach_distance=st.integers(1, 6),
                     pipe_sides=st.sampled_from(["hangers", "any"]), turns=st.integers(1, 8))


def bots_scores(deck, options: CatTreeOptions, seed: int) -> list[int]:
    """The heuristic's game and four random games on ``deck``."""
    bot = CatTreeHeuristic(options=options)
    scores = [play_policies(deck, [bot, bot], options).total]
    return scores + [play_policies(deck, [RandomPolicy(seed + s), RandomPolicy(seed + s + 7)],
                                   options).total for s in range(4)]


@settings(max_examples=15, deadline=None)
@given(options=any_options(8), seed=st.integers(0, 2**31))
def test_upper_bound_holds_for_any_options(options, seed):
    deck = deals(1, seed=seed, options=options)[0]
    bound = upper_bound(deck, options)
    assert max(bots_scores(deck, options, seed)) <= bound
    assert solve(deck, options, beam=1, bound=False, settings=SETTINGS[:1]).score <= bound


# --- the bound against exact optima and many games ---------------------------------------

def brute_force(deck, options: CatTreeOptions) -> int:
    """The best score of a game by trying every keep, order and placement (grids
    deduplicated after each turn)."""
    from catzoo.games.cat_tree.placement import (
        RULE_OF_TYPE,
        cells_of,
        legal_classes,
        rules_for,
    )
    from catzoo.games.cat_tree.scoring import score
    from catzoo.games.cat_tree.state import deal_of

    rules = rules_for(options)

    def placed(boards, kind):
        cells = legal_classes(boards, rules)[RULE_OF_TYPE[kind]]
        if not cells:  # dismissed
            yield boards
        for cell in cells_of(cells):
            after = list(boards)
            after[kind] |= 1 << cell
            yield tuple(after)

    layer = {tuple([0] * 8)}
    for turn in range(options.turns):
        mine, partner = deal_of(deck, turn, 0), deal_of(deck, turn, 1)
        choose = options.placing_order == "choose"  # else the leader, turn % 2, is first

        def orders(x, y, turn=turn, choose=choose):
            return ((x, y), (y, x)) if choose else ((x, y),) if turn % 2 == 0 else ((y, x),)

        layer = {end for boards in layer for x in set(mine) for y in set(partner)
                 for first, second in orders(x, y)
                 for mid in placed(boards, first) for end in placed(mid, second)}
    return max(score(boards, rules) for boards in layer)


def small_options(seed: int) -> CatTreeOptions:
    import random

    rng = random.Random(seed)
    return CatTreeOptions(width=rng.choice([3, 3, 4]), height=rng.choice([2, 3, 3, 4]),
                          bottom_height=rng.choice([0, 1]), altitude=rng.randint(1, 4),
                          detach_distance=rng.randint(1, 3), toy_distance=rng.randint(1, 3),
                          pipe_sides=rng.choice(["hangers", "any"]),
                          turns=rng.choice([1, 2, 2]))


@pytest.mark.parametrize("seed", range(40))
def test_upper_bound_above_the_exact_optimum_of_small_games(seed):
    # every game of these small deals is tried: the bound must be at least the best one,
    # and the oracle (achievable) at most that
    options = small_options(seed)
    deck = deals(1, seed=1000 + seed, options=options)[0]
    best = brute_force(deck, options)
    assert upper_bound(deck, options) >= best
    assert solve(deck, options, bound=False).score <= best


def test_upper_bound_is_often_exact_on_small_games():
    # not a validity check: the relaxation is tight on a good share of small games
    exact = 0
    for seed in range(40):
        options = small_options(seed)
        deck = deals(1, seed=1000 + seed, options=options)[0]
        exact += upper_bound(deck, options) == brute_force(deck, options)
    assert exact >= 10


def test_upper_bound_above_oracle_heuristic_and_random_on_many_deals():
    # the raw bound (solve reports max(bound, its own score), which would hide a fault)
    bot = CatTreeHeuristic()
    for deck in deals(24, seed=700):
        bound = upper_bound(deck)
        result = solve(deck, bound=False, settings=SETTINGS[:2])
        assert bound >= result.score >= result.heuristic_score
        assert bound >= play_policies(deck, [bot, bot], CatTreeOptions()).total
        for s in range(2):
            game = play_policies(deck, [RandomPolicy(s), RandomPolicy(s + 50)], CatTreeOptions())
            assert game.total <= bound


def test_search_facts_of_a_child_grid_are_those_computed_afresh():
    # the search derives each child grid's facts from its parent's; they must be what a
    # grid computed from scratch has
    import random

    from catzoo.analysis.cat_tree.oracle import _Node, _Search

    rng = random.Random(4)
    for options in (CatTreeOptions(), CatTreeOptions(width=5, height=6, altitude=3,
                                                     detach_distance=2, pipe_sides="any")):
        deck = deals(1, seed=9, options=options)[0]
        for column in (0, 2):
            search = _Search(deck, options, 4, 2, column, SETTINGS[0][1])
            for _ in range(20):
                state = CatTreeState.new(options, chance=[deck])
                boards = tuple(state.boards)
                node = _Node.of(boards, search)
                while not state.is_terminal():
                    action = rng.choice(state.legal_actions())
                    kind = state.kept[state.current_player] if state.phase == 2 else None
                    state.apply(action)
                    if kind is None or action == state.dismiss:
                        continue
                    after = tuple(state.boards)
                    node = node.child(after, kind, action - 4, search)
                    fresh = _Node.of(after, search)
                    for name in _Node.__slots__:
                        if name == "parts":
                            assert sorted(getattr(node, name)) == sorted(fresh.parts)
                        elif name == "real":
                            assert node.counted == fresh.counted
                            assert node.real_points == fresh.real_points
                        else:
                            assert getattr(node, name) == getattr(fresh, name), name
                    boards = after


def test_bound_allows_two_two_sided_pipes_in_one_column():
    # The tightest case of the stack argument (fact 5 of bound.py): only two stacks not
    # ended by a two-sided pipe (the columns of boxes and nests), and between them two
    # two-sided pipes in one column, one on the floor's scratcher, one on a shelf above
    # the first. Rows 1-3 are at altitude. Each player keeps the first card of a hand.
    #   3 | N P N
    #   2 | N L N
    #   1 | B P B
    #   0 | B S B
    turns = [  # (player 0's hand, (row, column) of its kept card), (player 1's ...)
        (("BT", (0, 0)), ("SH", (0, 1))),
        (("BT", (1, 0)), ("BT", (0, 2))),
        (("PT", (1, 1)), ("BH", (1, 2))),
        (("NH", (2, 0)), ("NH", (2, 2))),
        (("LC", (2, 1)), ("NC", (3, 0))),
        (("PC", (3, 1)), ("NC", (3, 2))),
    ]
    state = game(*[(p0[0], p1[0]) for p0, p1 in turns], width=3, height=4, altitude=2,
                 turns=len(turns))
    for hands in turns:
        for hand, _ in hands:  # a hand is offered lower type first
            keep, other = (LETTERS.index(c) for c in hand)
            state.apply(KEEP_BASE + int(keep > other))
        state.apply(ME_FIRST)
        first = state.current_player
        for p in (first, 1 - first):
            state.apply(cell_action(state, *hands[p][1]))
    assert state.is_terminal()
    pipes = state.boards[PIPE]
    holders = state.boards[BOX] | state.boards[SHELF] | state.boards[NEST]
    assert (pipes & holders << 1).bit_count() == (pipes & holders >> 1).bit_count() == 2
    assert upper_bound(state.chance[0], state.options) >= state.total
    # the end of the programme at this grid's counts: 4 tops (the floor's 3 carriers and
    # the shelf) of which the pipes used 2, 7 hangers at altitude (3 free gaps), 2 pipes
    model = _model(state.options)
    sides = model._pipe_sides(np.array(3 * model.fills + 1), np.array(2), np.array(2))
    assert sides == 2 * 2 * 2 * PIPE_SIDE_POINTS


def test_bound_counts_low_pipe_sides_from_the_low_hangers():
    # Below altitude a hanger has two neighbours: one box gives two pipes a side each
    # (P B P), two hangers give one pipe both sides (B P B), and a hanging piece between
    # two hangers leaves them one side each. Hangers minus hanging pieces, pipes: sides.
    model = _model(CatTreeOptions())
    unlimited = np.array(model.shape[PAIRS] - 1)
    cases = {(0, 2): 0, (1, 1): 1, (1, 2): 2, (1, 4): 2, (2, 1): 2, (2, 2): 3, (2, 4): 4}
    for (hangers, pipes), sides in cases.items():
        got = model._low_pipe_sides(np.array(hangers), np.array(pipes), unlimited, np.array(0))
        assert got == sides * PIPE_SIDE_POINTS, (hangers, pipes)
    # and a game that ends with P B P on the floor (sides 1 + 1) stays under the bound
    state = game(("PT", "BT"), ("PT", "TH"), turns=2)
    for keeps, cells in (((0, 0), ((0, 0), (0, 1))), ((0, 1), ((0, 2), (0, 6)))):
        for keep in keeps:  # of a hand offered lower type first
            state.apply(KEEP_BASE + keep)
        state.apply(ME_FIRST)
        first = state.current_player
        for p in (first, 1 - first):
            state.apply(cell_action(state, *cells[p]))
    assert state.total == 2 * (5 + PIPE_SIDE_POINTS) + 5 + 5
    assert upper_bound(state.chance[0], state.options) >= state.total


def test_bound_needs_two_stacks_for_a_gap_at_altitude():
    # 3 x 3, altitude from row 1. A nest on the floor carries a nest at altitude, which
    # carries a box: three hangers, two of them at altitude, but all in one column, so no
    # cell lies between two hangers of a row and the turn-2 catwalk cannot hang there.
    # Counting hangers alone, the bound hung it (41); a gap needs two stacks, and the
    # bound is now the exact best game.
    options = CatTreeOptions(width=3, height=3, altitude=2, turns=2)
    deck = game(("NC", "TN"), ("BB", "CL"), width=3, height=3, altitude=2, turns=2).chance[0]
    assert upper_bound(deck, options) == brute_force(deck, options) == 35


def test_bound_never_takes_a_hung_piece_for_a_side_of_a_gap():
    # 3 x 3, altitude from row 1. A box or nest hung between two hangers fills a gap but
    # is never one of a gap's two hangers: the cell beside it would be the gap, holding a
    # hammock or pipe (no hanger) or a piece hung there, placed both before and after it.
    # Counting a hung box as a side, the bound was 67; it is now the exact best game:
    # N S on the floor, L P B at altitude (a pipe with two sides), B on the box.
    options = CatTreeOptions(width=3, height=3, altitude=2, turns=3)
    deck = game(("TS", "NT"), ("NB", "LL"), ("BN", "HP"), width=3, height=3, altitude=2,
                turns=3).chance[0]
    assert upper_bound(deck, options) == brute_force(deck, options) == 62


def test_bound_counts_low_sides_from_the_neighbouring_pairs_of_the_low_rows():
    # A low row of k pieces has k - 1 neighbouring pairs: a pipe's side takes one, a
    # hanging piece two; a card at altitude needs 3 low rows. So 4 low cards with 2 pipes
    # and 2 hangers (P N on the floor, B on the nest, P on the box: the support column)
    # give one side, not the 3 of two hangers alone; in one row (no altitude), B P B P: 3.
    model = _model(CatTreeOptions())
    sides = model._low_pipe_sides(np.array(2), np.array(2), np.array(4), np.array(1))
    assert sides == 1 * PIPE_SIDE_POINTS
    sides = model._low_pipe_sides(np.array(2), np.array(2), np.array(4), np.array(0))
    assert sides == 3 * PIPE_SIDE_POINTS
    # and 3 low cards with a hammock among them cover no 3 rows: nothing counts at altitude
    assert model.end[model.start + model.strides[ALT] + 1 * model.strides[PAIRS]] < 0
    assert model.end[model.start + model.strides[ALT] + 3 * model.strides[PAIRS]] == 0


def test_solve_all_in_two_processes_gives_the_results_of_one():
    options = CatTreeOptions(turns=3)
    decks = deals(6, seed=77, options=options)
    one = list(solve_all(decks, options, beam=2))
    assert list(solve_all(decks, options, workers=2, beam=2)) == one
    assert [r.score for r in one] == [solve(d, options, beam=2).score for d in decks]


def test_oracle_benchmark_prints_its_figures(capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "cat_tree_oracle.py"
    spec = importlib.util.spec_from_file_location("cat_tree_oracle_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.main(["--deals", "4", "--workers", "2", "--beam", "1", "--refine", "8,1,1"])
    out = capsys.readouterr().out
    assert "deals: 4" in out and "in 2 processes" in out and "% of bound" in out
