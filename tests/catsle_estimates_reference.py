"""The CATsle Builders heuristic's estimates written as whole-batch numpy formulas, the way
the bot computed them before they moved to C (``policies/heuristics/catsle_estimates.pyx``):
the reference tests/test_catsle_estimates.py holds the compiled kernel to. Nothing outside
the tests imports it."""

from __future__ import annotations

import numpy as np

from catzoo.games.catsle_builders.core import NUM_CARDS, NUM_SUITS
from catzoo.games.catsle_builders.layout import COLUMN_FEATURES
from catzoo.games.catsle_builders.options import VALUES
from catzoo.policies.heuristics.catsle_builders import (
    CARD_SUIT,
    COMB,
    KEY,
    PERFECT_STEP,
    SHED_STEP,
    Estimates,
)

CARD_VALUE = np.arange(NUM_CARDS) % VALUES
SHED = SHED_STEP * CARD_VALUE


def suit_values(board: np.ndarray) -> np.ndarray:
    """(B, 5) values of one more card of each suit for boards ``(B, 5 columns, 8)`` (the
    own board of the observation's ``board`` block)."""
    has = board[..., :NUM_SUITS] > 0  # (B, column, suit)
    counts = np.rint(board[..., 5] * 5)
    limits = np.rint(board[..., 7] * 5)
    empty = ~has.any(axis=2)
    free_limited = (empty & (limits > 0)).any(axis=1)  # (B,)
    held = has.any(axis=1)  # (B, suit): the suit has a column
    column = has.argmax(axis=1)  # (B, suit): its column (one per suit)
    at = (np.arange(column.shape[0])[:, None], column)
    cnt, lim = counts[at], limits[at]
    with_room = 1.0 + np.where(cnt + 1 == lim, PERFECT_STEP, 0.0)
    full = -(lim + 1.0 + PERFECT_STEP)
    own = np.where(cnt < lim, with_room, np.where((cnt == lim) & (lim > 0), full, -1.0))
    new = np.where(free_limited, 1.0, -1.0)[:, None]
    return np.where(held, own, new)


def estimates(view: dict, num_players: int, num_suits: int, takes,
              play_rows: np.ndarray | None = None) -> Estimates:
    """The bot's estimates for a batch of decoded observations (``Layout.decode``);
    ``play`` only for the rows of ``play_rows`` (None: every row), 0 in the others."""
    n = num_players
    values = suit_values(view["board"][:, 0].reshape(-1, 5, COLUMN_FEATURES))
    B = values.shape[0]
    unseen = (view["hand"] <= 0) & (view["seen"] <= 0)
    unseen[:, num_suits * VALUES:] = False
    total = unseen.sum(axis=1)
    card_values = values[:, CARD_SUIT]  # (B, 60)
    unknown = np.where(total > 0, (unseen * card_values).sum(axis=1) / np.maximum(total, 1),
                       0.0)
    # The trick so far: each later seat's card and its position in the play order.
    trick = view["trick_card"][:, 1:]  # (B, n-1, 17), seats after this player's
    played = trick.any(axis=2)
    later = n - played.sum(axis=1) - 1
    led_any = view["led"].any(axis=1)
    led = np.where(led_any, view["led"].argmax(axis=1), -1)
    lead = np.where(led_any[:, None], led[:, None], CARD_SUIT[None])  # (B, 60)
    beat = _beat_chance(unseen, total, lead, view["tricks_left"][:, 0])
    beat = np.where(later[:, None] > 0, beat, 0.0)
    play = np.zeros((B, NUM_CARDS))
    rows = np.arange(B) if play_rows is None else np.flatnonzero(play_rows)
    if rows.size:
        leader = view["leader"][rows, :, 0].argmax(axis=1)
        play[rows] = _expected(values[rows], unknown[rows], trick[rows], played[rows],
                               leader, lead[rows], beat[rows], later[rows], n, takes)
    return Estimates(values, beat, play, unknown)


def _expected(values, unknown, trick, played, leader, lead, beat, later, n, takes):
    """(B, 60) the expected value taken after playing each card, tie-break included."""
    B = values.shape[0]
    other = trick[..., :NUM_SUITS].argmax(axis=2) * VALUES + trick[..., NUM_SUITS:].argmax(axis=2)
    other_pos = (np.arange(1, n)[None] - leader[:, None]) % n
    position = played.sum(axis=1)
    # The strength of each candidate card and of the cards already played, against the
    # suit each candidate would lead.
    mine_key = KEY[np.arange(NUM_CARDS)[None], lead, position[:, None]]
    other_key = KEY[other[:, :, None], lead[:, None, :], other_pos[:, :, None]]
    o_suit = other // VALUES
    stronger = (played[:, :, None] & (other_key > mine_key[:, None, :])).sum(axis=1)
    # The pool of values the trick's ratings share: the own card, the cards played, the
    # mean unseen value for each card still to come; sorted, per own suit.
    others = np.where(played, values[np.arange(B)[:, None], o_suit], unknown[:, None])
    pool = np.concatenate([np.broadcast_to(values[:, :, None], (B, NUM_SUITS, 1)),
                           np.broadcast_to(others[:, None, :], (B, NUM_SUITS, n - 1))], axis=2)
    pool = -np.sort(-pool, axis=2)
    outcome = np.zeros((B, NUM_SUITS, n))  # value taken at each rating
    before = 0
    for rank, take in enumerate(takes):
        if take:
            optimistic = pessimistic = 0.0
            for i in range(take):
                optimistic = optimistic + pool[:, :, i]
                pessimistic = pessimistic + pool[:, :, before + i]
            outcome[:, :, rank] = 0.5 * (optimistic + pessimistic)
        before += take
    # Exactly ``extra`` of the k later players beat the card: a binomial term, each
    # taking the card down one rating. Terms past the most later players are all zero.
    rows, suit = np.arange(B)[:, None], CARD_SUIT[None]
    k = later[:, None]
    miss = 1.0 - beat
    expected = np.zeros((B, NUM_CARDS))
    for extra in range(int(later.max(initial=0)) + 1):
        prob = np.where(extra <= k, COMB[k, extra] * beat**extra
                        * miss ** np.maximum(k - extra, 0), 0.0)
        rank = np.minimum(stronger + extra, n - 1)
        term = prob * outcome[rows, suit, rank]
        expected = expected + np.where(prob < 1e-6, 0.0, term)
    return expected + SHED


def _beat_chance(unseen, total, lead, tricks_left) -> np.ndarray:
    """(B, 60) chance that one later player's card beats each card: a player holding the
    led suit must follow; otherwise any card of value at least the card's (played later,
    so an equal off-suit value wins too) beats an off-suit card."""
    B = unseen.shape[0]
    by_suit = unseen.reshape(B, NUM_SUITS, VALUES)
    suit_total = by_suit.sum(axis=2)  # (B, 5)
    # Unseen cards of each suit with a value above / at least each value.
    at_least_suit = np.cumsum(by_suit[:, :, ::-1], axis=2)[:, :, ::-1]
    above_suit = at_least_suit - by_suit
    at_least_all = at_least_suit.sum(axis=1)  # (B, 12)
    # Each chance for every suit that may be led and every value (B, 5, 12), read once
    # at the suit each card meets.
    safe_total = np.maximum(total, 1)[:, None]
    hand_size = np.maximum(1.0, tricks_left * 16.0)[:, None]
    has_led = (1.0 - (1.0 - suit_total / safe_total) ** hand_size)[:, :, None]
    led_cards = suit_total[:, :, None]
    p_led = has_led * np.where(led_cards > 0, above_suit / np.maximum(led_cards, 1), 0.0)
    off = total[:, None, None] - led_cards
    at_least = at_least_all[:, None, :] - at_least_suit
    p_off = has_led + (1.0 - has_led) * np.where(off > 0, at_least / np.maximum(off, 1), 0.0)
    at = (np.arange(B)[:, None] * NUM_SUITS + lead) * VALUES + CARD_VALUE  # flat (row, lead, value)
    p = np.where(CARD_SUIT[None] == lead, p_led.take(at), p_off.take(at))
    return np.where(total[:, None] > 0, p, 0.0)
