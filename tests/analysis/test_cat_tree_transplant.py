"""Building a known final grid on another deal (the reference deals' transplants)."""

from __future__ import annotations

from catzoo.analysis.cat_tree.oracle import deals, replay_plan
from catzoo.analysis.cat_tree.reference import load
from catzoo.analysis.cat_tree.transplant import (
    SAME,
    SPARE_LIMIT,
    build,
    final_grid,
    transplant,
    variants,
)
from catzoo.games.cat_tree import CatTreeOptions
from catzoo.games.cat_tree.options import BOX, PIPE

SHIPPED = load()


def _alike(grid):
    return {cell: SAME.get(kind, kind) for cell, kind in grid.items()}


def test_the_181_tree_of_deal_27_is_built_on_deal_10_where_the_bound_is_181():
    tree = final_grid(SHIPPED[27].deck, SHIPPED[27].actions)
    deck = SHIPPED[10].deck
    assert len(tree) == 16
    plan = build(deck, tree)
    assert plan is not None
    state = replay_plan(deck, plan, CatTreeOptions())
    # the same tree (a box for a nest or a hammock for a catwalk at most), so the same
    # score: deal 10's bound, which proves it optimal
    assert _alike(final_grid(deck, plan)) == _alike(tree)
    assert state.total == 181 == SHIPPED[10].bound


def test_a_tree_the_deck_cannot_give_is_not_built():
    options = CatTreeOptions(turns=3)  # six cards kept: five pipes are more than the deck's 4
    tree = {cell: PIPE for cell in range(5)} | {8: BOX}
    assert build(deals(1, seed=3, options=options)[0], tree, options) is None


def test_transplant_keeps_the_best_tree_that_builds_and_skips_the_others():
    deck = SHIPPED[10].deck
    tree = final_grid(SHIPPED[27].deck, SHIPPED[27].actions)
    impossible = {cell: PIPE for cell in range(5)}
    score, plan, index = transplant(deck, [(200, impossible), (181, tree)], above=170)
    assert (score, index) == (181, 1) and plan is not None
    # nothing beats what is already known: no plan
    assert transplant(deck, [(181, tree)], above=181) == (181, None, None)


def test_variants_are_the_mirror_images_and_the_shifts_that_fit():
    options = CatTreeOptions(width=4)
    grid = {0: BOX, 1: PIPE}  # columns 0 and 1 of the bottom row
    found = variants(grid, options)
    assert {0: BOX, 1: PIPE} in found and {2: BOX, 3: PIPE} in found
    assert {0: PIPE, 1: BOX} in found and {2: PIPE, 3: BOX} in found  # mirrored
    assert len(found) == 6 and all(max(v) < 4 for v in found)


def test_a_tree_less_one_cell_with_a_spare_card_builds_where_the_whole_tree_does_not():
    # deal 9 cannot keep all of deal 8's 181 tree; less the cell at row 2, column 2 (its
    # support column's toy), with the card kept instead placed off the tree, it builds
    # and still scores 181, deal 9's bound
    tree = final_grid(SHIPPED[8].deck, SHIPPED[8].actions)
    deck = SHIPPED[9].deck
    assert transplant(deck, [(181, tree)], above=176) == (176, None, None)
    less = {cell: kind for cell, kind in tree.items() if cell != 18}
    plans = [build(deck, v, limit=SPARE_LIMIT, spare=1) for v in variants(less)]
    scores = [replay_plan(deck, p, CatTreeOptions()).total for p in plans if p is not None]
    assert max(scores) == 181 == SHIPPED[9].bound
