"""
# Cat in the Box

```python
from catzoo.envs import cat_in_the_box_v0
env = cat_in_the_box_v0.env(num_players=4, render_mode="ansi")
```

|                    |                                                        |
|--------------------|--------------------------------------------------------|
| Import             | `from catzoo.envs import cat_in_the_box_v0`            |
| Registered id      | `catzoo/cat_in_the_box-v0` (`pettingzoo.make("aec", ...)`) |
| Actions            | Discrete, masked                                       |
| Parallel API       | No (turn-based)                                        |
| Manual control     | `catzoo play cat_in_the_box` (terminal), `catzoo serve` (browser) |
| Agents             | `agents = ["player_0", ..., "player_{n-1}"]`, n = 2-5  |
| Action shape       | `Discrete(50)`                                         |
| Observation shape  | `Dict(observation=Box(-4, 4, (N,), float32), action_mask=Box(0, 1, (50,), int8))` |
| N by player count  | 2: 199, 3: 261, 4: 323, 5: 385                          |

Cat in the Box (Bezier Games) is a trick-taking game in which the colour of a card is
not printed: the player declares it as the card is played, and each declaration takes a
space of the shared research board (colour x number). A player who cannot make any
declaration causes a paradox, which ends the round. Players predict how many tricks they
will win; an exact prediction earns a bonus, the size of their largest connected group of
tokens on the board. The full rules, with the source of each, are in
`docs/rules/cat_in_the_box.md`.

### Agents and turn order

Every round: each player sets a card aside (in turn from the round's start player; the
choice is hidden), then predicts (not with 2 players), then tricks are played, led by the
round's start player and then by each trick's winner. `agent_selection` follows the
rules; the action mask of every agent not on turn is all zeros.

### Actions

| action    | meaning                                                         |
|-----------|-----------------------------------------------------------------|
| 0-8       | set aside a card numbered 1-9 (action + 1)                      |
| 9-13      | predict 0-4 tricks (action - 9)                                 |
| 14-49     | play a card of number `(a - 14) % 9 + 1` declaring colour `(a - 14) // 9` (0 blue, 1 yellow, 2 green, 3 red) |

The mask allows exactly what the rules allow: own cards, empty research spaces, colours
whose X marker the player still holds, the leader's red restriction and its exceptions,
and the allowed predictions (`predictions` option; 3 players: 1, 3 or 4).

### Observation

`observation` is the acting player's view, seats relative to the viewer (seat 0 is you,
seat 1 the next player clockwise). It holds what that player may know and nothing more:
other players' hands and set-aside cards never appear. The layout at 4 players (for n
players, every "4 x" block has n rows; `catzoo.games.cat_in_the_box.layout.layout_for(n)
.decode(obs)` splits a vector into these named blocks):

| index | size | block | meaning |
|---|---|---|---|
| 0-8 | 9 | hand | your cards: count of each number 1-9, divided by 5 |
| 9-17 | 9 | aside | your set-aside card, one-hot over numbers 1-9 |
| 18-161 | 4 x 36 (seat 0 = you) | board | research-board tokens of each seat, index colour*9 + number-1 (colours blue, yellow, green, red) |
| 162-197 | 36 | blocked | spaces no one may take: numbers outside the deck, 2-player neutral tokens |
| 198-213 | 4 x 4 (seat 0 = you) | markers | X markers still held (1) per colour blue, yellow, green, red |
| 214-233 | 4 x 5 (seat 0 = you) | prediction | prediction, one-hot over 0-4 tricks (zeros before it is made) |
| 234-237 | 4 x 1 (seat 0 = you) | tricks | tricks won this round, divided by 8 |
| 238-289 | 4 x 13 (seat 0 = you) | trick_card | card played to the trick in progress: number one-hot (9) then colour one-hot (4) |
| 290-293 | 4 | led | the led colour of the trick in progress, one-hot |
| 294-297 | 4 x 1 (seat 0 = you) | score | total score, divided by 50 (clipped to [-4, 4]) |
| 298-302 | 5 | round | round number, one-hot |
| 303-305 | 3 | phase | phase one-hot: set aside, predict, play |
| 306-309 | 4 x 1 (seat 0 = you) | round_start | 1 for the round's start player |
| 310-313 | 4 x 1 (seat 0 = you) | leader | 1 for the leader of the trick in progress |
| 314-322 | 9 | played | cards of each number 1-9 played this round, divided by 5 |

`state()` (in `state_space`) returns the global view (every hand included), for
centralised critics.

### Rewards

* `reward="standing"` (default): 0 until the game ends; then each player receives the
  mean, over the other players, of +1 (finished ahead), 0 (tied) or -1 (behind), using
  the rulebook's tie-break (score in the final round). Zero-sum, in [-1, 1]; with two
  players it is win +1 / loss -1. It rewards every place gained, which suits learning a
  multi-player game better than a winner-only reward.
* `reward="score"`: dense; each round's score change (tricks, bonus, paradox penalty) as
  it is scored.

### Arguments

```python
cat_in_the_box_v0.env(num_players=4, predictions="1-4", row_order=("blue", "yellow",
    "green", "red"), rounds="full", reward="standing", illegal_action="penalize",
    illegal_reward=-1.0, render_mode=None)
```

`num_players`: 2-5. `predictions`: allowed predictions at 4-5 players, "1-3", "1-4"
(default) or "0-4". `row_order`: the research board's rows top to bottom (decides vertical
adjacency for the bonus). `rounds`: "full" (as many rounds as players) or "single" (one
round per episode, for faster training). `illegal_action`: "penalize" (default:
PettingZoo's classic convention, the game ends, the offender gets `illegal_reward`, a
warning is logged) or "raise" (a clear error, game untouched). `render_mode`: None, "ansi"
or "human".

### Version history

* v0: first release.
"""

from catzoo.envs.adapter import env_api
from catzoo.games.cat_in_the_box import CatInTheBoxState

raw_env, env = env_api(__name__, CatInTheBoxState)
