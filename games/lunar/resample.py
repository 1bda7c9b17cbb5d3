"""Determinization of a Lunar state: re-deal what one player cannot see.

What stays fixed is all the viewer knows: its own deal, hand and picks, every card
played (and from which area), the sky, the cards it received from its partner (which the
partner then held), the number of rank and suit cards in every hand once the passes are
exchanged (before, no pick shows), and the suits each player proved absent from its hand
by not following. The hidden rest (the other hands, the other players' picks that the
viewer did not receive, the order in which each other player made its picks, the order
of the 2-player decks) is re-dealt at random among the consistent deals, from pools in
card order, so that a re-deal is a function of what the viewer saw and of the generator
alone (tests/test_redeal_information.py). The recorded deal and the hidden pick actions
are rewritten so that the action log of the copy replays it exactly.
"""

from __future__ import annotations

import random

from catzoo.games.lunar.core import (
    DEAL_PER_TYPE,
    NUM_CARDS,
    NUM_SUITS,
    PASS,
    PASS_PER_TYPE,
    PICK_BASE,
    card_type,
)


def _cards(counts) -> list[int]:
    return [c for c in range(NUM_CARDS) for _ in range(counts[c])]


def _counts(cards) -> list[int]:
    out = [0] * NUM_CARDS
    for c in cards:
        out[c] += 1
    return out


def _by_type(cards, t: int) -> list[int]:
    return [c for c in cards if card_type(c) == t]


def _minus(a, b) -> list[int]:
    return [x - y for x, y in zip(a, b)]


def _plus(a, b) -> list[int]:
    return [x + y for x, y in zip(a, b)]


def resample(state, player: int, rng: random.Random, attempts: int = 1000):
    c = state._copy(rng.getrandbits(64))  # later deals unforeseeable: random.Random(that)
    if state.is_terminal():
        return c
    if state.num_players == 4 and state.phase == PASS:
        _resample_before_exchange(state, c, player, rng)
    elif not _resample_hands(state, c, player, rng, attempts):
        return c  # no consistent re-deal found: the true deal is always consistent
    c._legal = c._compute_legal()
    return c


def _pass(cards, rng: random.Random) -> list[int]:
    """A pass drawn from ``cards``: 2 ranks and 2 suits, in a random order of picks (any
    order is legal, and the viewer saw none of it)."""
    picks = []
    for t in (0, 1):
        mine = _by_type(cards, t)
        rng.shuffle(mine)
        picks += mine[:PASS_PER_TYPE]
    rng.shuffle(picks)
    return picks


def _rewrite_picks(state, c, q: int, picks: list[int]) -> None:
    """Record the first of ``picks`` as the pass picks q has made so far."""
    made = state._pick_at[q]
    for index, card in zip(made, picks):
        c.history[index] = PICK_BASE + card
    c._core.set_passed(q, _counts(picks[:len(made)]))  # the features too


def _set_order(c, deals: list[list[int]], tail_by_type=None) -> None:
    """Rewrite this round's recorded shuffle from each player's deal (and, with 2
    players, the sky and deck cards in their order)."""
    order = []
    for t in (0, 1):
        seq = []
        for deal in deals:
            seq += sorted(_by_type(deal, t))
        if tail_by_type is not None:
            seq += tail_by_type[t]
        order.append(tuple(seq))
    c._core.set_order(order)
    c.chance[-1] = tuple(order)


def _resample_before_exchange(state, c, v: int, rng: random.Random) -> None:
    n = state.num_players
    deals = [_plus(state.hands[q], state.passed[q]) for q in range(n)]
    others = [q for q in range(n) if q != v]
    # Sorted, so that the re-deal depends on what the viewer has not seen and not on who
    # holds it: the same re-deal of games it cannot tell apart.
    hidden = sorted(card for q in others for card in _cards(deals[q]))
    pool = [_by_type(hidden, t) for t in (0, 1)]
    for t in (0, 1):
        rng.shuffle(pool[t])
    new_deals = [None] * n
    new_deals[v] = _cards(deals[v])
    for i, q in enumerate(others):
        cards = []
        for t in (0, 1):
            cards += pool[t][i * DEAL_PER_TYPE:(i + 1) * DEAL_PER_TYPE]
        new_deals[q] = cards
        # Which types q has passed so far is hidden too: drawn, not read off its picks.
        _rewrite_picks(state, c, q, _pass(cards, rng))
        c._core.set_hand(q, _minus(_counts(cards), c.passed[q]))
    _set_order(c, new_deals)


def _deal_hidden(state, v: int, rng: random.Random, attempts: int):
    """New hands for the other players (and the hidden deck cards with 2 players)."""
    n = state.num_players
    others = [q for q in range(n) if q != v]
    hidden = [card for q in others for card in _cards(state.hands[q])]
    if n == 2:
        for t in (0, 1):
            hidden += list(state._order[t][state._deck_pos[t]:])
    # Cards the viewer passed that its partner has not played yet are still in its hand.
    known = {q: [0] * NUM_CARDS for q in others}
    if n == 4:
        w = (v + 2) % 4
        known[w] = [max(0, x - y) for x, y in zip(state.passed[v], state.played_from_hand[w])]
    free = _counts(hidden)
    for q in others:
        free = _minus(free, known[q])
    free_by_type = [_by_type(_cards(free), t) for t in (0, 1)]
    need = {q: [sum(state.hands[q][k] - known[q][k] for k in range(NUM_CARDS)
                    if card_type(k) == t) for t in (0, 1)] for q in others}
    for _ in range(attempts):
        hands, rest = {}, []
        for t in (0, 1):
            rng.shuffle(free_by_type[t])
        for t in (0, 1):
            pos = 0
            for q in others:
                hands.setdefault(q, list(_cards(known[q])))
                hands[q] += free_by_type[t][pos:pos + need[q][t]]
                pos += need[q][t]
            rest.append(free_by_type[t][pos:])
        if all(
            not any(state.voids[q] >> k & 1 for k in hands[q] if k < NUM_SUITS)
            for q in others
        ):
            return hands, rest
    return None


def _resample_hands(state, c, v: int, rng: random.Random, attempts: int) -> bool:
    dealt = _deal_hidden(state, v, rng, attempts)
    if dealt is None:
        return False
    hands, rest = dealt
    n = state.num_players
    for q, cards in hands.items():
        c._core.set_hand(q, _counts(cards))
    held = [_plus(c.hands[q], state.played_from_hand[q]) for q in range(n)]
    if n == 2:
        deals = [_cards(h) for h in held]
        tail = []
        for t in (0, 1):
            shown = list(state._order[t][n * DEAL_PER_TYPE:state._deck_pos[t]])
            rng.shuffle(rest[t])
            tail.append(shown + rest[t])
        _set_order(c, deals, tail)
        return True
    deals = [None] * 4
    deals[v] = _cards(_minus(_plus(held[v], state.passed[v]), state.received[v]))
    w = (v + 2) % 4
    deals[w] = _cards(_minus(_plus(held[w], state.passed[w]), state.passed[v]))
    # The opponents' passes were never seen by the viewer: each gave the other a random
    # 2 ranks + 2 suits of what the receiver held after the exchange.
    o1, o3 = (v + 1) % 4, (v + 3) % 4
    gifts = {giver: _pass(_cards(held[taker]), rng) for giver, taker in ((o1, o3), (o3, o1))}
    for giver, taker in ((o1, o3), (o3, o1)):
        _rewrite_picks(state, c, giver, gifts[giver])
        c._core.set_received(taker, _counts(gifts[giver]))  # the features too
    # The partner's gift the viewer holds, in an order of picks it never saw.
    gift = _cards(state.received[v])
    rng.shuffle(gift)
    _rewrite_picks(state, c, w, gift)
    for giver in (o1, o3):
        deals[giver] = _cards(_minus(_plus(held[giver], c.passed[giver]), c.received[giver]))
    _set_order(c, deals)
    return True
