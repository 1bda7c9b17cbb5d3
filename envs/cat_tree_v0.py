"""
# Cat Tree? We can handle this!

```python
from catzoo.envs import cat_tree_v0
env = cat_tree_v0.env(render_mode="ansi")
```

|                    |                                                        |
|--------------------|--------------------------------------------------------|
| Import             | `from catzoo.envs import cat_tree_v0`                  |
| Registered id      | `catzoo/cat_tree-v0` (`pettingzoo.make("aec", ...)`)   |
| Actions            | Discrete, masked                                       |
| Parallel API       | No (turn-based)                                        |
| Manual control     | `catzoo play cat_tree` (terminal), `catzoo serve` (browser) |
| Agents             | `agents = ["player_0", "player_1"]` (partners)         |
| Action shape       | `Discrete(5 + width * height)`: `Discrete(69)` on the default 8 x 8 grid |
| Observation shape  | `Dict(observation=Box(-4, 4, (N,), float32), action_mask=Box(0, 1, (A,), int8))` |
| N by grid          | 11 * cells + 59: 8 x 8 (default): 763; 6 x 6: 455       |

Cat Tree? We can handle this! (a Ludum Dare 56 jam card game) is cooperative: two
partners build one cat tree on a grid and share one score. Each turn both are dealt two
cards and secretly keep one; the kept cards are revealed; the turn's leader decides who
places first; each places their card on the grid under its structure's placement rule
(or dismisses it, only when it fits nowhere). After 8 turns the tree is scored: points per
structure, doubled at height 5 or more, nothing for parts 3 or more cells away from the
ground-connected structure. The rules, with diagrams and the source of each, are in
`docs/rules/cat_tree.md`. An oracle (`catzoo.analysis.cat_tree.oracle`) computes, for a
deal, the best score it can reach knowing every card and an upper bound, so that a
policy can be reported as a percentage of the best achievable score on the same deals
(`docs/cat_tree_oracle.md`).

### Agents and turn order

Every turn: player 0 keeps a card, then player 1 (neither sees the other's pick); after
the reveal the leader (player 0 on turns 1, 3, 5, 7; player 1 on the others) chooses the
placing order (option `placing_order="choose"`; with `"alternate"` the leader simply
places first); then the first placer and the other place their cards. `agent_selection`
follows this; the action mask of the agent not on turn is all zeros.

### Actions

| action        | meaning                                                         |
|---------------|-----------------------------------------------------------------|
| 0, 1          | keep your lower / higher card (cards ordered pipe, scratcher, hammock, catwalk, box, toy, shelf, nest) |
| 2, 3          | leader only: I place first / my partner places first            |
| 4 .. 4+C-1    | place your kept card at cell `a - 4 = row * width + column` (row 0 on the floor) |
| 4+C           | dismiss your kept card: legal only when no cell is legal for it |

C = width x height. The mask is derived from the placement rules: pipe, scratcher and toy
on a flat surface (the floor or the top of a scratcher, box, shelf or nest); hammock and
catwalk between a box, shelf or nest on the left and one on the right; box and nest either
way; shelf on any cell off the bottom row.

### Observation

`observation` is the acting player's view, seats relative to the viewer (seat 0 is you,
seat 1 your partner). Before the reveal nothing of the partner's hand or pick appears;
after it, only the partner's kept card. The layout on the default 8 x 8 grid
(`catzoo.games.cat_tree.layout.layout_for(width * height).decode(obs)` splits a vector
into these named blocks; a plane is row-major, row 0 the bottom row):

| index | size | block | meaning |
|---|---|---|---|
| 0-511 | 512 | grid | one plane per structure (pipe, scratcher, hammock, catwalk, box, toy, shelf, nest), 1 where a card of it stands |
| 512-575 | 64 | counted | 1 where the piece is part of the tree (scores) |
| 576-591 | 16 | hand | your two cards of this turn, each one-hot over the 8 structures (lower type first) |
| 592-593 | 2 | picked | which of your two cards you kept (one-hot) |
| 594-609 | 2 x 8 (seat 0 = you) | kept | the revealed kept card, one-hot (zeros before the reveal and once placed) |
| 610-737 | 2 x 64 (seat 0 = you) | kept_legal | the cells where that revealed card could be placed now |
| 738-745 | 8 | unseen | cards of each structure you have not seen (deck, partner's hand and discards), divided by 4 |
| 746-746 | 1 | deck | cards left in the deck, divided by 32 |
| 747-754 | 8 | turn | turn number, one-hot |
| 755-757 | 3 | phase | phase one-hot: keep, order, place |
| 758-759 | 2 x 1 (seat 0 = you) | leader | 1 for this turn's leader (who decides the placing order) |
| 760-761 | 2 x 1 (seat 0 = you) | first | 1 for the player who places first this turn, once decided |
| 762-762 | 1 | score | shared score so far, divided by 100 |

Every feature is in [0, 4] (the score feature is clipped at 4, a score of 400, above the
game's maximum). `state()` (in `state_space`) returns the global view (both hands and
picks).

### Rewards

Both partners always receive the same reward.

* `reward="standing"` (default): 0 until the game ends; then each partner receives the
  final shared score divided by 100 (`CatTreeState.returns()`; typical scores are 40-200,
  so rewards are about 0.4-2).
* `reward="score"`: dense; after every placement both partners receive the change of the
  shared score in game points, unscaled (it can be negative: a toy placed next to
  another one merges their groups). The rewards of a game add up to the final score.

### Arguments

```python
cat_tree_v0.env(num_players=2, width=8, height=8, bottom_height=1, altitude=5,
    placing_order="choose", pipe_sides="hangers", detach_distance=3, toy_distance=3,
    turns=8, reward="standing", illegal_action="penalize", illegal_reward=-1.0,
    render_mode=None)
```

`num_players`: 2 only. `width`, `height`: the grid (3-12 x 2-12). `bottom_height`: the
height of a card on the floor, 1 (the bonus starts on the 5th row) or 0 (the 6th).
`altitude`: the height from which points double (5). `placing_order`: "choose" (the leader
decides) or "alternate" (the leader places first). `pipe_sides`: what counts as an
attached side of a pipe, "hangers" (a box, shelf or nest) or "any" piece.
`detach_distance`: parts this far or farther from the ground-connected structure score
nothing (3). `toy_distance`: toys closer than this are grouped (3). `turns`: 1-8 (8).
`illegal_action`: "penalize" (default: PettingZoo's classic convention, the game ends, the
offender gets `illegal_reward`, a warning is logged) or "raise" (a clear error, game
untouched). `render_mode`: None, "ansi" or "human".

### Version history

* v0: first release. Since then the engine is faster (both observations kept ready,
  incremental scoring and legal cells; then the whole game compiled in one core, shared
  with the batched engine `catzoo.vector`) with the same deals, observations, masks,
  rewards and rules, so v0 games, logs and checkpoints are unchanged.
"""

from catzoo.envs.adapter import env_api
from catzoo.games.cat_tree import CatTreeState

raw_env, env = env_api(__name__, CatTreeState)
