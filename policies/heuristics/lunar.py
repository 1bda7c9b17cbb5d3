"""A hand-written Lunar bot that reads only its own observation.

``LunarHeuristic(num_players, seed)`` plays both the 4-player partnership game and the
2-player sky game:

* **Pass** (4 players): gives the partner its lowest ranks and the suit cards of the suits
  it holds fewest of (keeping its strength and concentrating its suits).
* **Trump**: turns face down the face-up suit it holds fewest cards of, so that the last
  tile left tends to be a suit its team is long in.
* **Play**: for every legal card (with 2 players, every legal card together with the best
  second card it allows), it estimates the chance that its team wins the trick from what
  is known: cards in the trick, the trump, the lead suit, and for the cards still to come
  the unseen cards (ranks drawn from the unseen ranks; a suit follows the lead suit with a
  probability that grows with the unseen lead-suit cards). Each team's combined card is
  ranked as trump > lead suit > other suit, then by rank, ties to the team playing last,
  which is the rule. The chance is weighed by what winning is worth: how much the team
  wants one more trick given its trick-track position (reach 7-8 of 12, else at least 1;
  avoid passing 3 or 8), the same for the opponents, and the starred cards in the trick.
  It picks the best, ties broken by its seeded random generator.

Star values and the track table are those of the default options unless given.
"""

from __future__ import annotations

import numpy as np

from catzoo.games.lunar.core import (
    HAND_BASE,
    NUM_CARDS,
    NUM_SUITS,
    PICK_BASE,
    RANK_COPIES,
    SKY_BASE,
    SUIT_COPIES,
    TRICKS_PER_ROUND,
    TRUMP_BASE,
)
from catzoo.games.lunar.layout import layout_for
from catzoo.games.lunar.options import LunarOptions
from catzoo.policies.base import legal_actions
from catzoo.policies.random_policy import SeededPolicy

FULL = [SUIT_COPIES] * NUM_SUITS + [RANK_COPIES] * (NUM_CARDS - NUM_SUITS)


def _counts(vec, scale: float) -> list[int]:
    return [round(float(x) * scale) for x in vec]


class LunarHeuristic(SeededPolicy):
    name = "heuristic"

    def __init__(self, num_players: int = 4, seed: int | None = None,
                 options: LunarOptions | None = None):
        super().__init__(seed)
        self.num_players = num_players
        self.layout = layout_for(num_players)
        self.options = options or LunarOptions(num_players=num_players)
        self.stars = self.options.card_stars
        self.track_stars = self.options.track_stars

    # --- entry point ----------------------------------------------------------------------
    def act(self, observation, *, state=None, player=None) -> int:
        legal = legal_actions(observation)
        obs = self.layout.decode(np.asarray(observation["observation"]))
        hand = _counts(obs["hand"], 3)
        first = int(legal[0])
        if first < TRUMP_BASE:
            scores = [self._pick_value(hand, int(a)) for a in legal]
        elif first < HAND_BASE:
            scores = [-hand[int(a) - TRUMP_BASE] for a in legal]
        else:
            scores = self._play_values(obs, hand, legal)
        scores = np.asarray(scores, dtype=np.float64)
        scores += self.rng.random(len(scores)) * 1e-6
        return int(legal[int(np.argmax(scores))])

    @staticmethod
    def _pick_value(hand, action: int) -> float:
        c = action - PICK_BASE
        if c >= NUM_SUITS:
            return 10.0 - c  # the lowest rank first
        return -hand[c]  # the suit held fewest

    # --- play -------------------------------------------------------------------------------
    def _play_values(self, obs, hand, legal) -> list[float]:
        n = self.num_players
        trump = int(np.argmax(obs["trump"]))
        lead = int(np.argmax(obs["lead_suit"])) if obs["lead_suit"].any() else -1
        lead_by = int(np.argmax(obs["lead_by"][:, 0])) if lead >= 0 else -1
        leader = int(np.argmax(obs["leader"][:, 0]))
        sky = _counts(obs["sky"], 3) if n == 2 else [0] * NUM_CARDS
        trick = [[int(c) for c in np.flatnonzero(row)] for row in obs["trick_hand"]]
        if n == 2:
            for s, row in enumerate(obs["trick_sky"]):
                trick[s] += [int(c) for c in np.flatnonzero(row)]
        played = _counts(obs["played"], 3)
        unseen = [FULL[c] - played[c] - hand[c] - sky[c] for c in range(NUM_CARDS)]
        # Team 0 is the viewer's (seats 0 and 2), team 1 the opponents.
        known = [[None, None], [None, None]]  # per team: suit, rank
        for s in range(n):
            for c in trick[s]:
                known[s % 2][0 if c < NUM_SUITS else 1] = c
        track = [round(float(obs["track"][t, 0]) * 12) for t in (0, 1)]
        done = track[0] + track[1]
        desire = [self._desire(track[t], TRICKS_PER_ROUND - done) for t in (0, 1)]
        last_team = (leader + 1) % 2
        trick_stars = sum(self.stars[c] for s in range(n) for c in trick[s])
        ctx = (trump, unseen, last_team, desire, trick_stars)

        values = []
        for a in legal:
            a = int(a)
            c = a - HAND_BASE if a < SKY_BASE else a - SKY_BASE
            from_sky = a >= SKY_BASE
            if n == 2 and not trick[0]:
                # The first of two cards: value it with the best second card it allows.
                second_area = hand if from_sky else sky
                lead2 = lead if lead >= 0 or c >= NUM_SUITS else c
                options = [k for k in range(NUM_CARDS)
                           if second_area[k] and (k < NUM_SUITS) != (c < NUM_SUITS)]
                follow = [k for k in options if k == lead2]
                if lead2 >= 0 and follow:
                    options = [k for k in options if k >= NUM_SUITS or k == lead2]
                best = -1e9
                for k in options:
                    best = max(best, self._value([c, k], known, lead, lead_by, ctx))
                values.append(best)
            else:
                values.append(self._value([c], known, lead, lead_by, ctx))
        return values

    def _desire(self, position: int, remaining: int) -> float:
        """How much one more trick is worth to a team at ``position`` with ``remaining``
        tricks to play, from the track table: the change in the best still reachable
        band, softened."""
        ts = self.track_stars
        if_win = max(ts[position + 1:position + remaining + 1])
        if_lose = max(ts[position:position + remaining])
        # The best band still reachable either way, plus the band of the next position
        # itself (the trick count may stop there).
        return (if_win - if_lose) + 0.5 * (ts[position + 1] - ts[position])

    def _value(self, mine, known, lead, lead_by, ctx) -> float:
        trump, unseen, last_team, desire, trick_stars = ctx
        team = [list(known[0]), list(known[1])]
        lead_team = lead_by % 2 if lead >= 0 else -1
        for c in mine:
            team[0][0 if c < NUM_SUITS else 1] = c
            if c < NUM_SUITS and lead < 0:
                lead, lead_team = c, 0
        p = self._win_chance(team, lead, lead_team, trump, unseen, last_team)
        stars = trick_stars + sum(self.stars[c] for c in mine)
        return p * desire[0] - (1 - p) * desire[1] + (2 * p - 1) * stars

    @staticmethod
    def _cat_dist(suit, lead, lead_team, team_index, trump, unseen):
        """Distribution of a team's combined card class: 2 trump, 1 lead suit, 0 other."""
        if suit is not None:
            if suit == trump:
                return {2: 1.0}
            if lead < 0 or suit == lead or lead_team == team_index:
                return {1: 1.0}
            return {0: 1.0}
        suits = [max(unseen[s], 0) for s in range(NUM_SUITS)]
        total = sum(suits) or 1
        if lead < 0:
            pt = suits[trump] / total
            return {2: pt, 1: (1 - pt) * 0.5, 0: (1 - pt) * 0.5}
        f = suits[lead] / total
        follow = 1 - (1 - f) ** 3
        if lead == trump:
            return {2: follow, 0: 1 - follow}
        others = total - suits[lead] or 1
        pt = (1 - follow) * suits[trump] / others
        return {1: follow, 2: pt, 0: max(0.0, 1 - follow - pt)}

    def _win_chance(self, team, lead, lead_team, trump, unseen, last_team) -> float:
        ranks = [max(unseen[c], 0) for c in range(NUM_SUITS, NUM_CARDS)]
        total = sum(ranks) or 1
        unknown = [r / total for r in ranks]

        def rank_dist(card):
            if card is None:
                return unknown
            out = [0.0] * (NUM_CARDS - NUM_SUITS)
            out[card - NUM_SUITS] = 1.0
            return out

        rm, ro = rank_dist(team[0][1]), rank_dist(team[1][1])
        higher = equal = 0.0
        below = 0.0  # P(opponent rank < r) as r grows
        for r in range(NUM_CARDS - NUM_SUITS):
            higher += rm[r] * below
            equal += rm[r] * ro[r]
            below += ro[r]
        same = higher + (equal if last_team == 0 else 0.0)
        cm = self._cat_dist(team[0][0], lead, lead_team, 0, trump, unseen)
        co = self._cat_dist(team[1][0], lead, lead_team, 1, trump, unseen)
        p = 0.0
        for a, pa in cm.items():
            for b, pb in co.items():
                if a > b:
                    p += pa * pb
                elif a == b:
                    p += pa * pb * same
        return p
