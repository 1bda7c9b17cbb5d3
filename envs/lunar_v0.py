"""
# Lunar

```python
from catzoo.envs import lunar_v0
env = lunar_v0.env(num_players=4, render_mode="ansi")
```

|                    |                                                        |
|--------------------|--------------------------------------------------------|
| Import             | `from catzoo.envs import lunar_v0`                     |
| Registered id      | `catzoo/lunar-v0` (`pettingzoo.make("aec", ...)`)      |
| Actions            | Discrete, masked                                       |
| Parallel API       | No (turn-based)                                        |
| Manual control     | `catzoo play lunar` (terminal), `catzoo serve` (browser) |
| Agents             | `agents = ["player_0", ..., "player_{n-1}"]`, n = 2 or 4 |
| Action shape       | `Discrete(40)`                                         |
| Observation shape  | `Dict(observation=Box(-4, 4, (N,), float32), action_mask=Box(0, 1, (40,), int8))` |
| N by player count  | 2: 121, 4: 155                                          |

Lunar (Allplay, 2024) is a trick-taking game whose cards are split in two: 24 suit cards
(wolf, owl, lynx, bat) and 24 rank cards (1-8). With 4 players, partners sit opposite and
each trick every team plays one suit card and one rank card, which combine into one card:
the first teammate to play chooses the type, the second must play the other. With 2
players, each player plays one card from the hand and one from the shared "sky" per trick.
A team aims for a good count of tricks on the trick track and for the cards that carry a
star. The full rules, with the source of each and the decisions on the unknowns, are in
`docs/rules/lunar.md`.

### Agents and turn order

Player `p` is on team `p % 2` (4 players: 0 & 2 against 1 & 3; 2 players: one each).
Every round, with 4 players: each player in turn from the round's start player picks the
4 cards (2 ranks, 2 suits) it passes to its partner, one card per action; the picks stay
hidden from every other player until all have picked, then each sees what it received.
Then from the start player clockwise players turn trump tiles face down until one is left
(2 players: start player, other, start player). Then 12 tricks, led by the start player and
then by the winning team's lead-tile holder. With 4 players each trick is 4 turns
clockwise; with 2 players 4 turns alternating, two per player (one card from the hand and
one from the sky, one rank and one suit, in either order). `agent_selection` follows the
rules; the action mask of every agent not on turn is all zeros.

### Actions

| action | meaning                                                                    |
|--------|----------------------------------------------------------------------------|
| 0-11   | pass-pick card `a` (0-3 wolf, owl, lynx, bat; 4-11 ranks 1-8) (4 players)   |
| 12-15  | turn the trump tile of suit `a - 12` face down                             |
| 16-27  | play card `a - 16` from your hand                                          |
| 28-39  | play card `a - 28` from the sky (2 players)                                |

The mask allows exactly what the rules allow: 2 ranks and 2 suits in the pass, face-up
tiles only, the type rule, follow-suit (judged within the area played from), and with 2
players the other area and other type for the second card of the trick.

### Observation

`observation` is the acting player's view, seats relative to the viewer (seat 0 is you,
seat 1 the next player clockwise; with 4 players seat 2 is your partner). Team features
(track, kept stars, score) are written at both members' seats. It holds what that player
may know and nothing more: other hands, other players' picks (until received) and the
deck order never appear. `catzoo.games.lunar.layout.layout_for(n).decode(obs)` splits a
vector into these named blocks.

4 players:

| index | size | block | meaning |
|---|---|---|---|
| 0-11 | 12 | hand | your hand: count of each card (wolf, owl, lynx, bat, rank 1-8), divided by 3 |
| 12-23 | 12 | passed | cards you passed to your partner (counts divided by 2; shown as you pick) |
| 24-35 | 12 | received | cards your partner passed you (counts divided by 2; once all have passed) |
| 36-38 | 3 | phase | phase one-hot: pass, trump, play |
| 39-54 | 4 x 4 (seat 0 = you) | turned | trump tiles this seat turned face down (wolf, owl, lynx, bat) |
| 55-58 | 4 | trump | the trump suit, one-hot (zeros until one tile is left) |
| 59-106 | 4 x 12 (seat 0 = you) | trick_hand | card this seat played from its hand to the trick in progress, one-hot |
| 107-110 | 4 | lead_suit | lead suit of the trick in progress, one-hot |
| 111-114 | 4 x 1 (seat 0 = you) | lead_by | 1 for the seat whose suit card set the lead suit |
| 115-118 | 4 x 1 (seat 0 = you) | leader | 1 for the leader of the trick in progress |
| 119-130 | 12 | played | cards played this round: count of each card (wolf, owl, lynx, bat, rank 1-8), divided by 3 |
| 131-134 | 4 x 1 (seat 0 = you) | track | the seat's team position on the trick track, divided by 12 |
| 135-138 | 4 x 1 (seat 0 = you) | kept_stars | stars on the seat's team's kept cards, divided by 6 (clipped to 4) |
| 139-142 | 4 x 1 (seat 0 = you) | score | the seat's team's score, divided by 30 (clipped to 4) |
| 143-150 | 4 x 2 (seat 0 = you) | lead_tiles | the seat holds the black / the white lead tile |
| 151-154 | 4 x 1 (seat 0 = you) | round_start | 1 for the round's start player |

2 players:

| index | size | block | meaning |
|---|---|---|---|
| 0-11 | 12 | hand | your hand: count of each card (wolf, owl, lynx, bat, rank 1-8), divided by 3 |
| 12-23 | 12 | sky | the sky: count of each card (wolf, owl, lynx, bat, rank 1-8), divided by 3 |
| 24-25 | 2 | deck | suit cards, then rank cards, left in the decks, divided by 9 |
| 26-28 | 3 | phase | phase one-hot: pass, trump, play |
| 29-36 | 2 x 4 (seat 0 = you) | turned | trump tiles this seat turned face down (wolf, owl, lynx, bat) |
| 37-40 | 4 | trump | the trump suit, one-hot (zeros until one tile is left) |
| 41-64 | 2 x 12 (seat 0 = you) | trick_hand | card this seat played from its hand to the trick in progress, one-hot |
| 65-88 | 2 x 12 (seat 0 = you) | trick_sky | card this seat played from the sky to the trick in progress, one-hot |
| 89-92 | 4 | lead_suit | lead suit of the trick in progress, one-hot |
| 93-94 | 2 x 1 (seat 0 = you) | lead_by | 1 for the seat whose suit card set the lead suit |
| 95-96 | 2 x 1 (seat 0 = you) | leader | 1 for the leader of the trick in progress |
| 97-108 | 12 | played | cards played this round: count of each card (wolf, owl, lynx, bat, rank 1-8), divided by 3 |
| 109-110 | 2 x 1 (seat 0 = you) | track | the seat's team position on the trick track, divided by 12 |
| 111-112 | 2 x 1 (seat 0 = you) | kept_stars | stars on the seat's team's kept cards, divided by 6 (clipped to 4) |
| 113-114 | 2 x 1 (seat 0 = you) | score | the seat's team's score, divided by 30 (clipped to 4) |
| 115-118 | 2 x 2 (seat 0 = you) | lead_tiles | the seat holds the black / the white lead tile |
| 119-120 | 2 x 1 (seat 0 = you) | round_start | 1 for the round's start player |

`state()` (in `state_space`) returns the global view (every hand included), for
centralised critics.

### Rewards

Partners always receive identical rewards.

* `reward="standing"` (default): 0 until the game ends; then +1 to each member of the
  team with more points, -1 to each member of the other team, 0 to all on a tie (only
  possible with `rounds="single"` or at the `max_rounds` cap).
* `reward="score"`: dense; each round's points for the player's team (track stars plus
  kept stars) as the round is scored.

### Arguments

```python
lunar_v0.env(num_players=4, rounds="full", target=30,
    track_stars=(0, 3, 3, 3, 0, 0, 0, 4, 4, 0, 0, 0, 0), star_ranks=(1, 8), star_suits=(),
    max_rounds=100, reward="standing", illegal_action="penalize", illegal_reward=-1.0,
    render_mode=None)
```

`num_players`: 2 (the sky game) or 4 (partnerships). `rounds`: "full" (until a team has
more than `target` points and the teams are not tied) or "single" (one round per episode,
for faster training). `target`: the score to pass (30). `track_stars`: stars beside
trick-track positions 0-12. `star_ranks` / `star_suits`: the cards that carry one star
(every copy of those ranks / suits). `max_rounds`: safety cap; a game still tied then ends
tied. `illegal_action`: "penalize" (default: PettingZoo's classic convention, the game
ends, the offender gets `illegal_reward`, a warning is logged) or "raise" (a clear error,
game untouched). `render_mode`: None, "ansi" or "human".

### Version history

* v0: first release.
"""

from catzoo.envs.adapter import env_api
from catzoo.games.lunar import LunarState

raw_env, env = env_api(__name__, LunarState)
