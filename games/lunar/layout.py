"""The observation layout of Lunar (documented in the env module's docstring).

Team features (track, kept stars, score) are seat blocks holding the team's value at each
member's seat, so partners show the same numbers and the viewer's team is always seat 0
(and seat 2 with 4 players).
"""

from __future__ import annotations

from functools import cache

from catzoo.games.layout import LEADER, ROUND_START, Block, Layout, flag, one_hot

CARDS = "(wolf, owl, lynx, bat, rank 1-8)"


def blocks_for(num_players: int) -> list[Block]:
    blocks = [
        Block("hand", 12, "private", f"your hand: count of each card {CARDS}, divided by 3"),
    ]
    if num_players == 4:
        blocks += [
            Block("passed", 12, "private",
                  "cards you passed to your partner (counts divided by 2; shown as you pick)"),
            Block("received", 12, "private",
                  "cards your partner passed you (counts divided by 2; once all have passed)"),
        ]
    else:
        blocks += [
            Block("sky", 12, "public", f"the sky: count of each card {CARDS}, divided by 3"),
            Block("deck", 2, "public",
                  "suit cards, then rank cards, left in the decks, divided by 9"),
        ]
    blocks += [
        one_hot("phase", ("pass", "trump", "play"), "phase"),
        Block("turned", 4, "seat", "trump tiles this seat turned face down (wolf, owl, lynx, bat)"),
        Block("trump", 4, "public", "the trump suit, one-hot (zeros until one tile is left)"),
        Block("trick_hand", 12, "seat",
              "card this seat played from its hand to the trick in progress, one-hot"),
    ]
    if num_players == 2:
        blocks.append(Block("trick_sky", 12, "seat",
                            "card this seat played from the sky to the trick in progress, one-hot"))
    blocks += [
        one_hot("lead_suit", 4, "lead suit of the trick in progress"),
        flag("lead_by", "the seat whose suit card set the lead suit"),
        LEADER,
        Block("played", 12, "public",
              f"cards played this round: count of each card {CARDS}, divided by 3"),
        Block("track", 1, "seat", "the seat's team position on the trick track, divided by 12"),
        Block("kept_stars", 1, "seat",
              "stars on the seat's team's kept cards, divided by 6 (clipped to 4)"),
        Block("score", 1, "seat", "the seat's team's score, divided by 30 (clipped to 4)"),
        Block("lead_tiles", 2, "seat", "the seat holds the black / the white lead tile"),
        ROUND_START,
    ]
    return blocks


@cache
def layout_for(num_players: int) -> Layout:
    return Layout(num_players, blocks_for(num_players))
