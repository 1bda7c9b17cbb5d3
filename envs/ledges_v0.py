"""
# Cats Knocking Things Off Ledges

```python
from catzoo.envs import ledges_v0
env = ledges_v0.env(num_players=2, render_mode="rgb_array")
```

|                    |                                                        |
|--------------------|--------------------------------------------------------|
| Import             | `from catzoo.envs import ledges_v0`                    |
| Registered id      | `catzoo/ledges-v0` (`pettingzoo.make("aec", ...)`)     |
| Actions            | Discrete, masked                                       |
| Parallel API       | No (turn-based)                                        |
| Manual control     | `catzoo play ledges` (terminal), `catzoo serve` (browser) |
| Agents             | `agents = ["player_0", ..., "player_{n-1}"]`, n = 2-4  |
| Action shape       | `Discrete(3539)`                                       |
| Observation shape  | `Dict(observation=Box(-4, 4, (N,), float32), action_mask=Box(0, 1, (3539,), int8))` |
| N by player count  | 2: 492, 3: 594, 4: 696 (+192 with `aim_features=True`)  |
| Physics            | MuJoCo rigid bodies (needs `mujoco`; `matplotlib` for rgb_array) |

A dexterity game on a real physics engine. Players take turns building a tower of
platform cards on pillars, putting their cat on a platform and batting one of their toys
off its edge: the toy scores the height it fell, in pillar lengths, +1 when it lands on a
platform showing its icon, 0 on the table. Knock the tower over and the turn scores 0.
Every build, placement and bat is simulated with MuJoCo (pillars, platforms, cats and toys
are rigid bodies), with noise scaled by the `dexterity` option. The full rules, component
sizes and physics choices, with the source of each, are in `docs/rules/ledges.md`.

### Agents and turn order

Seat 0 starts; play passes to the next seat. A turn is up to 6 decisions by the same agent:
build, place the cat, place the toy, then one to three bats (or "stop batting" after the
first). Steps the player cannot take are skipped (the build when the supply is out or no
placement is legal; the whole turn, scoring 0, when no platform is free for the cat). Once
a player has 10 points or more, every other player has one final turn. The action mask of
every agent not on turn is all zeros.

### Actions

| action    | meaning                                                         |
|-----------|-----------------------------------------------------------------|
| 0-3473    | build: `anchor * 18 + variant`. Anchors 0-48: the table, a 7 x 7 grid 4 cm apart (anchor `row * 7 + column`, (3, 3) the centre); `49 + 9 * card + k`: anchor k of platform `card` in its own frame (rectangular: 3 x 3 grid 3 cm x 2 cm apart; round: centre, then 8 points 2.2 cm out every 45 degrees). Variants 0-1: round platform on a short / tall pillar; 2-17: rectangular platform on pillars SS, ST, TS, TT (`(v - 2) // 4`) turned 0, 45, 90, 135 degrees (`(v - 2) % 4`) relative to the anchor's surface |
| 3474-3489 | place your cat on platform card `a - 3474`                      |
| 3490-3505 | move your toy `(a - 3490) // 4` (icon yarn, mouse, fish, feather) next to the cat, on side `(a - 3490) % 4` (+x, +y, -x, -y of the platform) |
| 3506-3537 | bat: direction `(a - 3506) // 4` (x 45 degrees counter-clockwise from +x), strength `(a - 3506) % 4` (tap 0.35, push 0.55, swipe 0.8, whack 1.1 m/s) |
| 3538      | stop batting (after at least one bat, toy still on its platform; scores 0) |

The mask allows only legal builds: pieces left in the supply, pillars wholly on the
anchor's surface, the new platform touching no other platform and passing through no
pillar, cat or toy, new pillars passing through no platform or pillar. Cats go only on a
platform without a cat, never back to the one they are leaving, with room for the cat
and its toy. Toy sides with no room (off the rim, against a pillar) are masked.

### Observation

`observation` is the acting player's view, seats relative to the viewer (seat 0 is you).
There is no hidden information. With the option `aim_features=True` (off by default) a
last block, `options`, holds per-option aiming features for the player to act (computed
by the rules engine from the poses at rest with a point-mass model of a bat,
`catzoo.games.ledges.features`; no physics, under 10 ms a decision): for each bat, toy
placement and cat placement, the points the model expects it to score under the
dexterity noise, so that a policy need not learn aiming from raw coordinates (the `aimer`
bot plays by them; the shipped checkpoint, `checkpoints/ledges/2p`, was trained with them and,
at a table without them, makes them from the engine state: `LedgesState.observation_as`,
as for any option in `LedgesState.observation_options`). The layout
at 4 players (for n players, every "4 x"
block has n rows; `catzoo.games.ledges.layout.layout_for(n).decode(obs)` splits a vector
into these named blocks); positions are divided by 0.15 m, heights by 0.25 m, levels by 5:

| index | size | block | meaning |
|---|---|---|---|
| 0-255 | 256 | platforms | 16 platform cards (0-7 rectangular, 8-15 round) x 16 features: on the table, rectangular, round, icon one-hot (yarn, mouse, fish, feather), centre x, y, z, top level in pillar lengths, cos and sin of its heading, its normal's x and y (tilt), a cat on it |
| 256-335 | 4 x 20 (seat 0 = you) | cat | the seat's cat: on a platform, x, y, z, platform one-hot over the 16 cards |
| 336-655 | 4 x 80 (seat 0 = you) | toys | the seat's 4 toys (icons yarn, mouse, fish, feather) x (on a platform, x, y, z, platform one-hot over the 16 cards) |
| 656-659 | 4 | supply | supply left: rectangular platforms / 8, round / 8, short pillars / 12, tall / 12 |
| 660-663 | 4 x 1 (seat 0 = you) | score | score, divided by 10 |
| 664-667 | 4 | phase | turn phase one-hot: build, place cat, place toy, bat |
| 668-691 | 24 | turn | bats used this turn / max bats; the toy in play, one-hot over the 4 icons; the platform the cat left this turn, one-hot over 16 cards; final round started; final turns left / 3; round / max rounds |
| 692-695 | 4 x 1 (seat 0 = you) | to_act | 1 for the player to act |
| 696-887 | 192 | options | only with `aim_features=True`: aiming features for the player to act, from a point-mass model of a bat under the dexterity noise (games/ledges/features.py), 0 outside their phase: 32 bat actions x (expected points / 5, regret, chance the toy stays on its platform, path blocked) in the bat phase; 16 place-toy actions x (the best bat's expected points / 5, regret) in the place-toy phase; 16 platform cards x (the best toy, side and bat's expected points / 5, regret) in the place-cat phase; an option's regret is its expected points minus the best legal option's, / 5 (0 for the best, negative otherwise) |

`state()` (in `state_space`) returns the same features from seat 0's point of view.

### Rewards

* `reward="standing"` (default): 0 until the game ends; then each player receives the
  mean, over the other players, of +1 (more points), 0 (tied: the rules share the
  victory) or -1 (fewer points). Zero-sum, in [-1, 1]; with two players win +1 / loss -1.
* `reward="score"`: dense; the points of each turn as they are scored.

### Rendering

`render_mode="ansi"` returns the tower as text (platforms with their level, icon, tilt,
support and the cats and toys on them; scores; supply); `"human"` prints it;
`"rgb_array"` returns an 800 x 400 RGB image (uint8) with a top view and a side view,
drawn with matplotlib (no display or OpenGL needed).

### Arguments

```python
ledges_v0.env(num_players=2, dexterity=1.0, winning_score=10, max_bats=3, max_rounds=20,
    reward="standing", illegal_action="penalize", illegal_reward=-1.0, render_mode=None)
```

`num_players`: 2-4. `dexterity`: scale of the noise on every placement (2 mm, 3 degrees)
and bat (4 degrees, 8% of the strength); 0 makes the game deterministic given the cards
drawn. `winning_score`: the score that starts the final round (10). `max_bats`: bats per
turn (3). `max_rounds`: the game ends after this many rounds in any case (20).
`illegal_action`: "penalize" (default: PettingZoo's classic convention, the game ends, the
offender gets `illegal_reward`, a warning is logged) or "raise" (a clear error, game
untouched). `render_mode`: None, "ansi", "human" or "rgb_array".

Results are deterministic for a given seed on one machine (MuJoCo is deterministic; a
different CPU or MuJoCo build may round differently).

### Version history

* v0: first release. Later, the option `aim_features` (off by default, so the default
  observation is unchanged) appends the `options` block of aiming features.
"""

from catzoo.envs.adapter import RENDER_MODES, env_api
from catzoo.games.ledges import LedgesState

raw_env, env = env_api(__name__, LedgesState, render_modes=(*RENDER_MODES, "rgb_array"),
                       render_fps=2)
