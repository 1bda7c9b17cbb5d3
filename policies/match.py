"""Play one game between policies through the AEC env: the loop every tool shares."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from catzoo.games.registry import get_game
from catzoo.policies.base import Policy


@dataclass
class MatchResult:
    scores: list[float]  # each seat's game points
    returns: list[float]  # each seat's final reward (the env's "standing" reward)
    winners: list[int]
    agent_steps: int
    log: dict  # the engine's JSON action log: replays the game exactly


def play_match(
    game: str,
    policies: Sequence[Policy],
    seed: int,
    on_step: Callable[[object, int, int], None] | None = None,
    **options,
) -> MatchResult:
    """Seat ``policies[i]`` at seat i and play one seeded game to the end.

    ``on_step(state, player, action)`` is called before each action is applied (for
    printing a game turn by turn).
    """
    info = get_game(game)
    # a bot's illegal move is a bug to see, not a lost game
    env = info.load_env_module().env(num_players=len(policies),
                                     **{"illegal_action": "raise", **options})
    env.reset(seed=seed)
    for i, policy in enumerate(policies):
        policy.reset(seed=None if seed is None else seed * 1000 + i)
    raw = env.unwrapped
    totals = {a: 0.0 for a in raw.possible_agents}
    steps = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        player = raw.agent_name_mapping[agent]
        action = policies[player].act(obs, state=raw.game, player=player)
        if on_step is not None:
            on_step(raw.game, player, action)
        env.step(action)
        steps += 1
    game_state = raw.game
    return MatchResult(
        scores=game_state.scores(),
        returns=[totals[a] for a in raw.possible_agents],
        winners=game_state.winners(),
        agent_steps=steps,
        log=game_state.action_log(),
    )
