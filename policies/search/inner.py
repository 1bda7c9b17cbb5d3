"""The policy a search bot plays or consults inside its search (PIMC's rollouts, ISMCTS's
prior), loaded for the table it finds itself at."""

from __future__ import annotations

import dataclasses

from catzoo.policies.base import Policy
from catzoo.policies.search.options import SearchOptionError


class InnerPolicy:
    """``spec`` loaded by ``make_policy`` at the first state seen, again only when the
    game, player count or options change (which game to load it for is known from the
    state only)."""

    def __init__(self, label: str, spec: str, seed: int | None):
        self.label, self.spec, self.seed = label, spec, seed  # label: "pimc: its rollout policy"
        self.policy: Policy | None = None
        self._key = None

    def reset(self, seed: int | None = None) -> None:
        if self.policy is not None:
            self.policy.reset(seed)

    def preload(self, game: str, num_players: int, env_options: dict | None = None) -> None:
        """Load it now for that table (a bot with a time budget should not spend its first
        move loading a network); the first state of that table then finds it loaded."""
        from catzoo.games.base import build_options
        from catzoo.games.registry import get_game

        info = get_game(game)
        options = build_options(info.engine_class().options_cls, info.name,
                                {**(env_options or {}), "num_players": num_players})
        self._load(info.name, num_players, options)

    def for_state(self, state) -> Policy:
        return self._load(state.game_name, state.num_players, state.options)

    def _load(self, game: str, num_players: int, game_options) -> Policy:
        options = {k: v for k, v in dataclasses.asdict(game_options).items() if k != "num_players"}
        key = (game, num_players, repr(options))
        if self.policy is None or key != self._key:
            from catzoo.policies.registry import UnknownPolicyError, make_policy

            try:
                self.policy = make_policy(self.spec, game, num_players,
                                          seed=self.seed, env_options=options)
            except UnknownPolicyError as err:
                raise SearchOptionError(f"{self.label}: {err}") from None
            self._key = key
        return self.policy
