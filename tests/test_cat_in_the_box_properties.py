"""Property tests over random legal Cat in the Box games at every player count."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.games.cat_in_the_box import CatInTheBoxState
from catzoo.games.cat_in_the_box.options import COLOURS, TWO_PLAYER_BONUS_MAX_TRICKS
from tests.helpers import assert_replays, random_playout

PLAYERS = st.sampled_from([2, 3, 4, 5])
SEEDS = st.integers(0, 2**32 - 1)


def cards_held(s: CatInTheBoxState) -> int:
    """Every card of the deal: in hand, set aside, on the board (one token per card
    played this round) or left over (2 players)."""
    in_hand = sum(map(sum, s.counts))
    aside = sum(1 for k in s.aside if k >= 0)
    played = sum(t.bit_count() for t in s.tokens)
    return in_hand + aside + played + len(s.leftover)


def largest_group_bfs(spaces: set[tuple[int, int]], row_order) -> int:
    """An independent bonus count: breadth-first search on (row, number) cells."""
    cells = {(row_order.index(COLOURS[c]), k) for c, k in spaces}
    best, seen = 0, set()
    for start in cells:
        if start in seen:
            continue
        seen.add(start)
        queue, size = [start], 0
        while queue:
            r, k = queue.pop()
            size += 1
            for nb in ((r + 1, k), (r - 1, k), (r, k + 1), (r, k - 1)):
                if nb in cells and nb not in seen:
                    seen.add(nb)
                    queue.append(nb)
        best = max(best, size)
    return best


def expected_round_scores(record, n, row_order) -> list[int]:
    out = []
    for p in range(n):
        tricks = record["tricks"][p]
        if p == record["paradox_player"]:
            out.append(-tricks)
            continue
        exact = (tricks <= TWO_PLAYER_BONUS_MAX_TRICKS if n == 2
                 else tricks == record["predictions"][p])
        spaces = {divmod(i, 9) for i in range(36) if record["tokens"][p] >> i & 1}
        out.append(tricks + (largest_group_bfs(spaces, list(row_order)) if exact else 0))
    return out


@settings(max_examples=40, deadline=None)
@given(n=PLAYERS, seed=SEEDS, order=st.permutations(COLOURS))
def test_random_games_keep_every_invariant(n, seed, order):
    s = CatInTheBoxState.new(num_players=n, seed=seed, row_order=tuple(order))
    rng = random.Random(seed)
    deck = n * s.options.hand_size + len(s.leftover)
    while not s.is_terminal():
        assert cards_held(s) == deck
        s.apply(rng.choice(s.legal_actions()))
    assert len(s.round_records) == n
    for record, scores in zip(s.round_records, s.round_scores):
        # Each finished trick was won by exactly one player; a paradox ends a round early
        # and its trick in progress is won by nobody.
        assert sum(record["tricks"]) == record["tricks_played"]
        if record["paradox_player"] < 0:
            assert record["tricks_played"] == s.options.tricks_per_round
        else:
            assert record["tricks_played"] < s.options.tricks_per_round
        assert scores == expected_round_scores(record, n, order)
    assert s.scores() == [sum(r[p] for r in s.round_scores) for p in range(n)]
    assert_replays(s)


def hidden_cards(s: CatInTheBoxState, viewer: int) -> list[int]:
    """The cards ``viewer`` cannot see: other hands, their set-aside cards, unrevealed
    leftovers."""
    out = [k for q, h in enumerate(s.counts) if q != viewer for k in range(9) for _ in range(h[k])]
    out += [k for q, k in enumerate(s.aside) if k >= 0 and q != viewer]
    out += list(s.leftover[3:] if s.num_players == 2 else s.leftover)
    return sorted(out)


@settings(max_examples=25, deadline=None)
@given(n=PLAYERS, seed=SEEDS, cut=st.floats(0.0, 1.0))
def test_resample_keeps_what_the_player_knows(n, seed, cut):
    s = CatInTheBoxState.new(num_players=n, seed=seed)
    actions = random_playout(s.clone(), random.Random(seed))
    for a in actions[: int(cut * (len(actions) - 1))]:
        s.apply(a)
    rng = random.Random(seed + 1)
    for viewer in range(n):  # the player to act and every other seat
        r = s.resample(viewer, rng)
        np.testing.assert_array_equal(r.observation(viewer), s.observation(viewer))
        if viewer == s.current_player:
            np.testing.assert_array_equal(r.legal_mask(), s.legal_mask())
        assert [sum(h) for h in r.counts] == [sum(h) for h in s.counts]
        assert hidden_cards(r, viewer) == hidden_cards(s, viewer)
        assert_replays(r)  # the rewritten deal replays to the re-sampled position
        random_playout(r, random.Random(seed + 2))  # and plays on legally


def test_resample_changes_hidden_cards():
    s = CatInTheBoxState.new(num_players=4, seed=11)
    for _ in range(4):
        s.apply(s.legal_actions()[0])
    rng = random.Random(0)
    others = {tuple(map(tuple, s.resample(0, rng).counts[1:])) for _ in range(20)}
    assert len(others) > 1
    assert all(s.resample(0, rng).counts[0] == s.counts[0] for _ in range(5))


def test_resample_respects_an_exceptional_red_lead():
    # Find a game in which someone led red before red was broken, then check every
    # re-deal keeps that player's hand free of cards declarable in another colour.
    for seed in range(400):
        s = CatInTheBoxState.new(num_players=3, seed=seed)
        rng = random.Random(seed)
        while not s.is_terminal() and not s.red_lead_exceptions:
            s.apply(rng.choice(s.legal_actions()))
        if s.red_lead_exceptions and not s.is_terminal():
            break
    else:
        raise AssertionError("no exceptional red lead found in 400 games")
    leader, declarable = s.red_lead_exceptions[0]
    viewer = (leader + 1) % 3
    for i in range(20):
        r = s.resample(viewer, random.Random(i))
        held = {k for k in range(9) if r.counts[leader][k]}
        assert not held & {k for k in range(9) if declarable >> k & 1}


@settings(max_examples=300, deadline=None)
@given(bits=st.integers(0, 2**36 - 1), order=st.permutations(COLOURS))
def test_bonus_group_matches_a_breadth_first_search_on_any_board(bits, order):
    from catzoo.games.cat_in_the_box.scoring import largest_group

    spaces = {divmod(i, 9) for i in range(36) if bits >> i & 1}
    assert largest_group(bits, tuple(order)) == largest_group_bfs(spaces, list(order))
