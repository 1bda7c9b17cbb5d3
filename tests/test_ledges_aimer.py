"""The ledges aimer bot (policies/heuristics/ledges_aimer.py): on the rulebook-style tower
with a landing it places the cat, the toy and the bat that score the drop; it plays the
same game whether the aiming features come from the observation or from the engine state.
"""

from __future__ import annotations

import pytest

pytest.importorskip("mujoco")

from catzoo.games.ledges.state import BAT, CAT, TOY, TOY0, bat_action
from catzoo.policies.heuristics.ledges_aimer import LedgesAimer
from catzoo.policies.match import play_match
from catzoo.policies.registry import available_policies, make_policy
from tests.test_ledges_physics import FISH, WEST, tower_with_landing


def decide(bot, state, with_state=True):
    p = state.current_player
    obs = {"observation": state.observation(p), "action_mask": state.legal_mask()}
    return bot.act(obs, state=state if with_state else None, player=p)


@pytest.mark.parametrize("aim", [False, True])
def test_aimer_scores_the_drop_onto_the_landing(aim):
    """#1 (level 3) on #0, #2 (fish, level 1) 12 cm west: the cat goes to #1, the fish toy
    is placed, and the bat goes west and scores 2 pillar lengths + 1 for the icon."""
    s = tower_with_landing(aim_features=aim)
    bot = LedgesAimer(2, seed=0)
    assert s.phase == CAT
    s.apply(decide(bot, s))
    assert s.cat_card == 1 and s.phase == TOY
    s.apply(decide(bot, s))
    assert s.phase == BAT and (s.active_toy - TOY0) % 4 == FISH
    action = decide(bot, s)
    assert action in [bat_action(WEST, k) for k in range(4)]
    s.apply(action)
    assert s.last_turn["points"] == 3


def test_aimer_needs_features_or_state():
    s = tower_with_landing()
    with pytest.raises(ValueError, match="aim_features"):
        decide(LedgesAimer(2), s, with_state=False)


def test_aimer_plays_the_same_from_observation_or_state():
    def log(aim):
        bots = [make_policy("aimer", "ledges", 2, seed=1), make_policy("heuristic", "ledges", 2, seed=2)]
        r = play_match("ledges", bots, seed=4, max_rounds=2, aim_features=aim)
        return r.log["actions"], r.scores

    plain, aimed = log(False), log(True)
    assert len(plain[0]) > 10 and plain == aimed


def test_aimer_is_registered_for_ledges_only():
    assert "aimer" in available_policies("ledges")
    assert "aimer" not in available_policies("lunar")
    assert isinstance(make_policy("aimer", "ledges", 3, seed=0), LedgesAimer)
