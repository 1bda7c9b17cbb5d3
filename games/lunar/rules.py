"""Pure rule functions of Lunar: the trick winner and round scoring.

Teams are numbered 0 and 1: player ``p`` is on team ``p % 2`` (with 4 players partners
sit opposite, so 0 & 2 and 1 & 3; with 2 players each player is a team of one).
"""

from __future__ import annotations

from catzoo.games.lunar.options import NUM_SUITS


def trick_winner(trick, trump: int, lead_team: int, last_team: int) -> int:
    """The winning team of a complete trick [R].

    ``trick`` holds ``(player, card, ...)`` entries, two cards per team, one suit card
    (0-3) and one rank card (4-11). ``lead_team`` played the first suit card, ``last_team``
    the last card of the trick.

    * both teams' suits equal: the higher rank wins, a tie goes to the team that played last;
    * else a team whose suit is trump wins;
    * else the team that played the first suit card wins.
    """
    suit = [-1, -1]
    rank = [0, 0]
    for entry in trick:
        team, card = entry[0] % 2, entry[1]
        if card < NUM_SUITS:
            suit[team] = card
        else:
            rank[team] = card - NUM_SUITS + 1
    if suit[0] == suit[1]:
        if rank[0] == rank[1]:
            return last_team
        return 0 if rank[0] > rank[1] else 1
    if suit[0] == trump:
        return 0
    if suit[1] == trump:
        return 1
    return lead_team


def round_points(track_position: int, kept_stars: int, track_stars) -> int:
    """[R] The stars beside the team's trick-track position plus one per kept star."""
    return track_stars[track_position] + kept_stars
