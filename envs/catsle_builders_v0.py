"""
# CATsle Builders

```python
from catzoo.envs import catsle_builders_v0
env = catsle_builders_v0.env(num_players=4, render_mode="ansi")
```

|                    |                                                        |
|--------------------|--------------------------------------------------------|
| Import             | `from catzoo.envs import catsle_builders_v0`           |
| Registered id      | `catzoo/catsle_builders-v0` (`pettingzoo.make("aec", ...)`) |
| Actions            | Discrete, masked                                       |
| Parallel API       | No (turn-based)                                        |
| Manual control     | `catzoo play catsle_builders` (terminal), `catzoo serve` (browser) |
| Agents             | `agents = ["player_0", ..., "player_{n-1}"]`, n = 3-5  |
| Action shape       | `Discrete(125)`                                        |
| Observation shape  | `Dict(observation=Box(-4, 4, (N,), float32), action_mask=Box(0, 1, (125,), int8))` |
| N by player count  | 3: 350, 4: 417, 5: 484                                 |

CATsle Builders (Fukuroudou, 2023) is a trick-taking game in which the cards of each
trick are shared out by rating: the strongest card's player takes one of them, the second
strongest takes two, and (a project decision, see the rules document) at 4-5 players the
third and fourth take one each; the weakest takes none. Every card taken goes into a
column of the taker's board: one suit per column, a card of a suit that already has a
column must go there. Each column has a limit; cards beyond it lie sideways and cost a
point each, and columns exactly at their limit earn a growing bonus. Three rounds. The
full rules, with the source of each and the reasons for every number the texts leave
out, are in `docs/rules/catsle_builders.md`.

### Agents and turn order

Each round the hands are dealt (13 / 13 / 11 cards at 3 / 4 / 5 players by default) and
the round's first player (random in round 1, then the next player each round) leads.
Each trick: every player plays a card in turn; then the takers, strongest first, each
choose their card(s) and, for a card whose suit has no column yet, its empty column. The
player who took two cards leads the next trick. `agent_selection` follows these
decisions, so the same agent may act several times in a row (take, then choose a
column, then take again). Choices with a single option are made by the env and never
asked: a card whose suit already has a column goes there, a card with a single empty
column goes there, and a taker who must take every card left in the trick takes them.
The action mask of every agent not on turn is all zeros.

### Actions

Cards are numbered `suit * 12 + value - 1`, suits Walls 0, Gables 1, Gates 2, Bridges 3,
Moats 4 (3 players play without the Moats).

| action    | meaning                                                         |
|-----------|-----------------------------------------------------------------|
| 0-59      | play card `a` from your hand (follow the led suit if you can)   |
| 60-119    | take card `a - 60` from the finished trick                      |
| 120-124   | put the card just taken into empty column `a - 120`: columns 0-3 have the limits of `column_limits` (default 2, 3, 4, 5), column 4 is the 0-limit column (4-5 players only) |

### Observation

`observation` is the acting player's view, seats relative to the viewer (seat 0 is you,
seat 1 the next player in turn order). It holds what that player may know and nothing
more: other players' hands and the undealt cards never appear. The layout at 4 players
(for n players, every "4 x" block has n rows;
`catzoo.games.catsle_builders.layout.layout_for(n).decode(obs)` splits a vector into
these named blocks):

| index | size | block | meaning |
|---|---|---|---|
| 0-59 | 60 | hand | your cards, one flag per card (suit * 12 + value - 1) |
| 60-219 | 4 x 40 (seat 0 = you) | board | each seat's board, 5 columns x 8: suit one-hot (W, G, T, B, M), cards / 5, room left (limit - cards, negative when over) / 5, limit / 5; zeros for a column that does not exist (the 0 column at 3 players) |
| 220-287 | 4 x 17 (seat 0 = you) | trick_card | card of the seat still in the trick in progress: suit one-hot (5), value one-hot (12); cleared once a player takes it |
| 288-307 | 4 x 5 (seat 0 = you) | trick_rank | rating of the seat's card in the trick so far, one-hot (0 = strongest) |
| 308-311 | 4 x 1 (seat 0 = you) | to_take | cards the seat still takes from the finished trick, / 2 |
| 312-316 | 5 | led | the led suit of the trick in progress, one-hot |
| 317-376 | 60 | seen | cards played this round, the trick in progress included |
| 377-380 | 4 x 1 (seat 0 = you) | score | total score, divided by 50 (clipped to [-4, 4]) |
| 381-384 | 4 x 1 (seat 0 = you) | last_perfect | perfect columns in the last scored round (the tie-break), / 4 |
| 385-387 | 3 | round | round number, one-hot |
| 388-390 | 3 | phase | phase one-hot: play, take a card, choose a column |
| 391-407 | 17 | pending | the card waiting for a column (phase 'column'): suit one-hot, value one-hot |
| 408-411 | 4 x 1 (seat 0 = you) | leader | 1 for the leader of the trick in progress |
| 412-415 | 4 x 1 (seat 0 = you) | round_start | 1 for the round's first player |
| 416-416 | 1 | tricks_left | tricks left in the round (this one included), / 16 |

`state()` (in `state_space`) returns the global view (every hand included), for
centralised critics.

### Rewards

* `reward="standing"` (default): 0 until the game ends; then each player receives the
  mean, over the other players, of +1 (finished ahead), 0 (tied) or -1 (behind), using
  the rulebook's tie-break (most perfect columns in the last round's scoring). Zero-sum,
  in [-1, 1]; it rewards every place gained, which suits a 3-5 player game better than a
  winner-only reward.
* `reward="score"`: dense, per round; each player's round score (never negative) as the
  round is scored.

### Arguments

```python
catsle_builders_v0.env(num_players=4, hand_size=None, take_counts=None,
    column_limits=(2, 3, 4, 5), perfect_bonus=(0, 1, 3, 6, 10), rounds="full",
    reward="standing", illegal_action="penalize", illegal_reward=-1.0, render_mode=None)
```

`num_players`: 3-5. `hand_size`: cards dealt to each player per round (None: 13 / 13 / 11
at 3 / 4 / 5 players). `take_counts`: cards taken per trick by rating, strongest first,
summing to `num_players` (None: (1, 2, 0) / (1, 2, 1, 0) / (1, 2, 1, 1, 0)); the first
rating taking the most cards leads next. `column_limits`: limits of the board's columns
(enough columns that every suit in play finds one). `perfect_bonus`: the round bonus for
0, 1, ... perfect columns. `rounds`: "full" (3 rounds) or "single" (one round per episode,
for faster training). `illegal_action`: "penalize" (default: PettingZoo's classic
convention, the game ends, the offender gets `illegal_reward`, a warning is logged) or
"raise" (a clear error, game untouched). `render_mode`: None, "ansi" or "human".

### Version history

* v0: first release.
"""

from catzoo.envs.adapter import env_api
from catzoo.games.catsle_builders import CatsleBuildersState

raw_env, env = env_api(__name__, CatsleBuildersState)
