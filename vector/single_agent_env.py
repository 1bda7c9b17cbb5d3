"""One learner seat of N games as a Gymnasium vector env: ``catzoo.vector.single_agent``.

    from catzoo import vector
    envs = vector.single_agent("cat_in_the_box", num_envs=256, num_players=4,
                               opponents=("heuristic", "shipped"), seed=0)
    obs, infos = envs.reset()                    # obs float32 [N, D]
    obs, rewards, terminated, truncated, infos = envs.step(actions)   # actions int [N]
    infos["action_mask"]                         # int8 [N, A]; envs.action_masks(): bool

In every game the learner holds one seat, drawn per game (``seat``: always that one); the
other seats are played inside ``step()`` by one opponent drawn per game from
``opponents`` (``partner``: the learner's teammates in a team game), batched as the
batched trainer's tables are (training/tables.py: one call per opponent per move, with all
of its games). A step applies the learner's action in every game, then plays the other
seats until each game is at the learner's next decision or over: a sub-env's transitions
run from one learner decision to its next, its reward everything the learner received in
between (including what other seats' moves caused, and the final standing when the game
ends on someone else's move), as training/single_agent.py's AEC env gives it one game at a
time.

Games with a compiled core are stepped in C by the core's ``RolloutBatch``
(games/rollouts.pxi), which moves only the games named: a step moves each game a
different number of times (``BatchCore``, behind ``vector.make``, moves every slot at
every call). Any other game steps its Python states.

Seeds, as ``vector.make``'s: sub-env i's first game is dealt from
``slot_seeds(seed, num_envs)[i]``, each next one from ``next_seed`` of the last, so
``env.reset(seed=int(envs.game_seeds[i]))`` replays sub-env i's game; the seats and
opponents are drawn from ``numpy.random.default_rng(seed)``.

Autoreset follows Gymnasium 1.x (``metadata["autoreset_mode"]``). ``NEXT_STEP`` (the
default): the step that ends a game returns its terminal observation (the learner's
view of the end; its mask allows every action) with ``terminated``; the next step ignores
that sub-env's action, deals its next game and returns that game's first observation
with reward 0. ``SAME_STEP``: the ending step deals the next game at once, returns its
first observation, and puts the terminal one in ``infos["final_obs"]``.

``infos`` (Gymnasium's dict of arrays, each key ``k`` with its mask ``_k``):
``action_mask`` and ``seat`` every step; on the steps that end games, ``standing`` (the
learner's final standing, ``GameState.returns``), ``scores`` (every seat's final score)
and ``opponent`` (the spec that held the other seats). Episode statistics are
``gymnasium.wrappers.vector.RecordEpisodeStatistics``'s to add, as for any vector env: an
episode is one game, its length the learner's decisions, its return the sum of its
rewards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from catzoo.games.base import IllegalActionError, OptionsError
from catzoo.games.chance import next_seed, slot_seeds

OBS_BOUND = 4.0  # engines scale every feature into [-4, 4] (as envs.adapter)
LEARNER = 0  # the learner's code in ``owner`` (training.tables.LEARNER)


# --- the games: N of them, stepped by name ---------------------------------------------------
class CoreGames:
    """N games of a compiled core in its ``RolloutBatch``: ``obs``, ``mask`` and ``player``
    (-1 once over) of each game's player to act, written by ``deal`` and ``step``."""

    def __init__(self, state_cls, options, n: int, threads: int):
        from catzoo.games.compiled import core_config

        module = state_cls.core_module
        self.state_cls, self.n = state_cls, n
        self._config = core_config(module, options)
        self._new = module.Core.new
        self._batch = module.RolloutBatch(self._config, n, threads)
        self.obs, self.mask, self.player = self._batch.obs, self._batch.mask, self._batch.player

    def deal(self, slots: np.ndarray, seeds: np.ndarray) -> None:
        """New games in ``slots``, from ``seeds``; the other games go on."""
        batch, new, config = self._batch, self._new, self._config
        fresh = dict(zip(slots.tolist(), seeds.tolist()))
        # A RolloutBatch loads whole: the games going on are copied out and back.
        batch.load([new(config, fresh[i], []) if i in fresh else batch.slot_core(i)
                    for i in range(self.n)])

    def step(self, slots: np.ndarray, actions: np.ndarray) -> int:
        """Apply ``actions[j]`` in game ``slots[j]`` for every j, or in none: -1, or the
        first j whose action is out of range or illegal."""
        return self._batch.step(slots, actions)

    def scores(self) -> np.ndarray:
        return self._batch.scores(np.arange(self.n, dtype=np.int64))

    def state(self, i: int):
        """Game i as its ``GameState`` (a copy, without history)."""
        return self.state_cls._from_core(self._batch.slot_core(i))


class StateGames:
    """N games of a Python engine (``GameState``s), with ``CoreGames``' interface."""

    def __init__(self, state_cls, options, n: int, threads: int):
        del threads
        self.state_cls, self.options, self.n = state_cls, options, n
        probe = state_cls.new(options, seed=0)
        self._states = [probe] * n
        self.obs = np.zeros((n, probe.observation_size), np.float32)
        self.mask = np.zeros((n, probe.num_actions), np.int8)
        self.player = np.full(n, -1, np.int32)

    def _write(self, i: int) -> None:
        state = self._states[i]
        if state.is_terminal():
            self.player[i], self.mask[i], self.obs[i] = -1, 0, 0.0
            return
        p = self.player[i] = state.current_player
        self.mask[i] = state.legal_mask()
        self.obs[i] = state.observation(p)

    def deal(self, slots: np.ndarray, seeds: np.ndarray) -> None:
        for i, seed in zip(slots.tolist(), seeds.tolist()):
            self._states[i] = self.state_cls.new(self.options, seed=seed)
            self._write(i)

    def step(self, slots: np.ndarray, actions: np.ndarray) -> int:
        todo = list(zip(slots.tolist(), actions.tolist()))
        for j, (i, a) in enumerate(todo):
            if self.player[i] < 0 or not 0 <= a < self.mask.shape[1] or not self.mask[i, a]:
                return j
        for i, a in todo:
            self._states[i].apply_unchecked(a)
            self._write(i)
        return -1

    def scores(self) -> np.ndarray:
        return np.array([s.scores() for s in self._states], np.float64)

    def state(self, i: int):
        return self._states[i].clone()


# --- the vector env --------------------------------------------------------------------------
class SingleAgentVectorEnv(VectorEnv):
    """``catzoo.vector.single_agent``'s env (see the module docstring). Besides the
    Gymnasium API: ``action_masks()``, ``game_seeds`` (each sub-env's game in progress),
    ``seats`` (the learner's seat in each), ``set_opponents`` (the opponents of the games
    dealt from then on), ``game`` / ``options`` / ``num_players`` / ``state(i)``."""

    def __init__(self, game: str, num_envs: int, num_players: int | None = None,
                 opponents: Sequence[str] | Mapping[str, float] = ("heuristic",),
                 seed: int | None = 0, threads: int = 1, reward: str = "standing", *,
                 partner: str | None = None, seat: int | None = None,
                 sample_opponents: bool = False,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, **options):
        from catzoo.vector import checked_arguments, has_core, is_int

        a = checked_arguments(game, num_envs, num_players, seed, reward, threads, options)
        self.game, self.options, self.reward_mode = a.game, a.options, reward
        self.state_cls, self.threads = a.state_cls, a.threads
        self.num_envs = n = a.num_envs
        mode = AutoresetMode(autoreset_mode) if isinstance(autoreset_mode, str) else autoreset_mode
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise OptionsError(f"{self.game}: autoreset_mode={autoreset_mode!r}; use "
                               "NEXT_STEP or SAME_STEP")
        self.autoreset_mode = mode
        self.metadata = {"autoreset_mode": mode}
        self.render_mode = None
        games = CoreGames if has_core(a.game) else StateGames
        self._games = games(a.state_cls, a.options, n, a.threads)
        probe = a.state_cls.new(a.options, seed=0)
        self.num_players = p = probe.num_players
        self.num_actions, self.obs_size = probe.num_actions, probe.observation_size
        if seat is not None and (not is_int(seat) or not 0 <= seat < p):
            raise OptionsError(f"{self.game}: seat={seat!r} must be a seat 0..{p - 1} or None")
        self.fixed_seat = None if seat is None else int(seat)
        # each seat's teammates (GameState.teams), for ``partner``
        self._mates = [[m for team in probe.teams() if s in team for m in team if m != s]
                       for s in range(p)]
        self.single_observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, (self.obs_size,),
                                                   np.float32)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.sample_opponents = bool(sample_opponents)
        self._seed = a.seed
        self._rng = np.random.default_rng(a.seed)
        self._policies: dict[str, int] = {}  # spec -> opponent code
        self._opponents: dict = {}  # code -> training.tables opponent
        self._specs: dict[int, str] = {}  # code -> spec
        self.opponent_specs: list[str] = []
        self.set_opponents(opponents, partner)
        self.seats = np.zeros(n, np.int64)
        self.owner = np.zeros((n, p), np.int32)  # LEARNER or an opponent's code, per seat
        self._table = np.zeros(n, np.int32)  # the code of each game's opponent
        self.game_seeds = np.zeros(n, np.int64)
        self._scores = np.zeros(n)  # the learner's score when its last step returned
        self._ended = np.zeros(n, bool)  # games over at the last step (NEXT_STEP: to deal)
        self._every = np.arange(n, dtype=np.int64)
        self._all_legal = np.ones(self.num_actions, np.int8)
        self._started = False
        self._closed = False

    # --- opponents ----------------------------------------------------------------------------
    def set_opponents(self, opponents: Sequence[str] | Mapping[str, float],
                      partner: str | None = None) -> None:
        """The opponents new games draw from (each game one of them, with the weights of a
        mapping, else uniformly; a spec named twice weighs twice), and ``partner``, the
        learner's teammates in a team game (None: the drawn opponent). Games in progress
        keep theirs."""
        if isinstance(opponents, str):
            opponents = (opponents,)
        if isinstance(opponents, Mapping):
            specs, weights = list(opponents), [opponents[k] for k in opponents]
        else:
            specs, weights = list(opponents), [1.0] * len(opponents)
        if not specs or not all(isinstance(s, str) and s for s in specs):
            raise OptionsError(f"{self.game}: opponents={opponents!r} must name one or more "
                               "policy specs (random, heuristic, shipped, a checkpoint)")
        w = np.asarray(weights, dtype=float)
        if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise OptionsError(f"{self.game}: opponent weights {weights!r} must be "
                               "non-negative and not all zero")
        codes = [self._opponent(s) for s in specs]
        self._partner = None if partner is None else self._opponent(partner)
        self._draw_codes, self._draw_p = np.array(codes), w / w.sum()
        self.opponent_specs = specs

    def _opponent(self, spec: str) -> int:
        """The code of ``spec``'s opponent, built the first time it is named."""
        if spec in self._policies:
            return self._policies[spec]
        from catzoo.training.tables import policy_opponent

        try:
            opponent = policy_opponent(spec, self.game, self.num_players,
                                       int(self._rng.integers(2**31)),
                                       _options_dict(self.options), self.obs_size,
                                       sample=self.sample_opponents)
        except ValueError as err:
            raise OptionsError(f"{self.game}: opponent {spec!r}: {err}") from None
        code = max(self._opponents, default=LEARNER) + 1
        self._policies[spec], self._opponents[code], self._specs[code] = code, opponent, spec
        return code

    def _forget_unused(self) -> None:
        """Drop the opponents no game holds and no new game can draw."""
        used = set(self._draw_codes.tolist()) | set(self.owner.ravel().tolist())
        if self._partner is not None:
            used.add(self._partner)
        for code in [c for c in self._opponents if c not in used]:
            del self._policies[self._specs.pop(code)], self._opponents[code]

    # --- dealing and playing ------------------------------------------------------------------
    def _deal(self, slots: np.ndarray, seeds: np.ndarray) -> None:
        """New games in ``slots``: their seeds, the learner's seat, the opponent; then the
        other seats play up to the learner's first decision (a game that ends before it is
        dealt again: nothing in it to learn)."""
        rng, p = self._rng, self.num_players
        while slots.size:
            self.game_seeds[slots] = seeds
            k = slots.size
            seats = (np.full(k, self.fixed_seat) if self.fixed_seat is not None
                     else rng.integers(p, size=k))
            tables = self._draw_codes[rng.choice(self._draw_codes.size, size=k, p=self._draw_p)]
            self.seats[slots], self._table[slots] = seats, tables
            owner = np.repeat(tables[:, None], p, axis=1)
            owner[np.arange(k), seats] = LEARNER
            if self._partner is not None:
                for j, s in enumerate(seats.tolist()):
                    owner[j, self._mates[s]] = self._partner
            self.owner[slots] = owner
            self._games.deal(slots, seeds)
            self._play_others()
            over = self._games.player[slots] < 0
            slots = slots[over]
            seeds = np.array([next_seed(int(s)) for s in self.game_seeds[slots]], np.int64)
        self._forget_unused()

    def _play_others(self) -> None:
        """Let the other seats move until every game is at the learner's decision or over."""
        from catzoo.training.tables import act_by_code

        g = self._games
        while True:
            player = g.player
            waiting = np.flatnonzero((player >= 0) & (player != self.seats))
            if not waiting.size:
                return
            code = self.owner[waiting, player[waiting]]
            actions = np.empty(waiting.size, np.int64)
            act_by_code(code, self._opponents, g.obs[waiting], g.mask[waiting], actions,
                        self._torch_generator())
            bad = g.step(waiting, actions)
            if bad >= 0:
                spec = self._specs[int(code[bad])]
                raise IllegalActionError(f"{self.game}: opponent {spec!r} chose "
                                         f"{self._explain(int(waiting[bad]), int(actions[bad]))}")

    def _torch_generator(self):
        """The generator sampling opponents draw from (None when none samples)."""
        if not self.sample_opponents:
            return None
        if getattr(self, "_generator", None) is None:
            import torch

            self._generator = torch.Generator().manual_seed(int(self._rng.integers(2**62)))
        return self._generator

    def _explain(self, i: int, action: int) -> str:
        state = self._games.state(i)
        legal = ", ".join(f"{a} ({state.action_to_string(a)})" for a in state.legal_actions())
        if not 0 <= action < self.num_actions:
            return (f"action {action} in sub-env {i}: out of range 0..{self.num_actions - 1}; "
                    f"legal: {legal}")
        return (f"action {action} ({state.action_to_string(action)}) in sub-env {i}, not "
                f"legal for player {state.current_player}; legal: {legal}")

    def _learner_scores(self) -> np.ndarray:
        return self._games.scores()[self._every, self.seats]

    # --- the Gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int] | None = None, options: dict | None = None):
        """Deal every sub-env a new game. ``seed`` an int: the first seeds are
        ``slot_seeds(seed, N)`` and the seats and opponents are drawn anew from it; a
        sequence of N ints: sub-env i's game is ``seed[i]``'s; None: the constructor's seed
        the first time, later each sub-env's next seed (as if its game had ended)."""
        self._check_open()
        if options:
            raise OptionsError(f"{self.game}: reset takes no options, got {options!r}")
        n = self.num_envs
        if seed is None:
            seeds = (slot_seeds(self._seed, n) if not self._started
                     else [next_seed(int(s)) for s in self.game_seeds])
        elif isinstance(seed, Sequence) and not isinstance(seed, str):
            seeds = list(seed)
            if len(seeds) != n or not all(_is_seed(s) for s in seeds):
                raise OptionsError(f"{self.game}: reset(seed=...) needs one seed per sub-env "
                                   f"({n} non-negative ints below 2**63), got {seed!r}")
            self._rng = np.random.default_rng([int(s) for s in seeds])
        elif _is_seed(seed):
            self._seed = int(seed)
            self._rng = np.random.default_rng(self._seed)
            seeds = slot_seeds(self._seed, n)
        else:
            raise OptionsError(f"{self.game}: seed={seed!r} must be a non-negative int, one "
                               "per sub-env, or None")
        self.owner[:] = LEARNER  # no game in progress holds an opponent
        self._deal(self._every, np.array(seeds, np.int64))
        self._started = True
        self._ended[:] = False
        self._scores[:] = self._learner_scores()
        return np.array(self._games.obs), self._infos(np.zeros(n, bool))

    def step(self, actions):
        """The learner's action in every sub-env (ignored in one whose game ended at the last
        step, NEXT_STEP). A learner action out of range or illegal raises
        ``IllegalActionError`` naming the sub-env, the action and the legal ones, and no
        game is stepped."""
        self._check_open()
        if not self._started:
            raise RuntimeError(f"{self.game}: call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise IllegalActionError(f"{self.game}: actions must be {self.num_envs} integers, "
                                     f"one per sub-env; got {actions.dtype} {actions.shape}")
        g, n = self._games, self.num_envs
        pending = self._ended
        acting = self._every[~pending]
        chosen = actions[acting].astype(np.int64)
        bad = g.step(acting, chosen)
        if bad >= 0:
            raise IllegalActionError(f"{self.game}: learner {self._explain(int(acting[bad]), int(chosen[bad]))}")
        if pending.any():  # NEXT_STEP: the games that ended last step are dealt now
            self._deal_next(np.flatnonzero(pending))
        self._play_others()
        scores = self._learner_scores()
        ended = g.player < 0
        if self.reward_mode == "score":
            rewards = (scores - self._scores).astype(np.float32)
        else:
            rewards = np.zeros(n, np.float32)
        rewards[pending] = 0.0
        self._scores[:] = scores
        finals = self._finals(np.flatnonzero(ended))
        if self.reward_mode == "standing":
            rewards[ended] = finals["standing"]
        obs = np.array(g.obs)
        infos = self._infos(ended, finals)
        if self.autoreset_mode is AutoresetMode.NEXT_STEP:
            obs[ended] = finals["obs"]
            infos["action_mask"][ended] = 1
            self._ended = ended
        elif ended.any():
            slots = np.flatnonzero(ended)
            infos["final_obs"] = np.array([None] * n, dtype=object)
            infos["final_obs"][slots] = list(finals["obs"])
            infos["_final_obs"] = ended.copy()
            self._deal_next(slots)
            self._play_others()
            self._scores[slots] = self._learner_scores()[slots]
            obs[slots] = g.obs[slots]
            infos["action_mask"][slots] = g.mask[slots]
            infos["seat"][slots] = self.seats[slots]
        return obs, rewards, ended, np.zeros(n, bool), infos

    def _deal_next(self, slots: np.ndarray) -> None:
        self.owner[slots] = LEARNER
        self._deal(slots, np.array([next_seed(int(s)) for s in self.game_seeds[slots]], np.int64))
        self._scores[slots] = self._learner_scores()[slots]

    def _finals(self, slots: np.ndarray) -> dict:
        """The ended games' terminal observations (the learner's view), standing and
        scores."""
        k, seats = slots.size, self.seats[slots]
        out = {"obs": np.zeros((k, self.obs_size), np.float32), "standing": np.zeros(k),
               "scores": np.zeros((k, self.num_players))}
        for j, (i, s) in enumerate(zip(slots.tolist(), seats.tolist())):
            state = self._games.state(i)
            out["obs"][j] = state.observation(s)
            out["standing"][j] = state.returns()[s]
            out["scores"][j] = state.scores()
        return out

    def _infos(self, ended: np.ndarray, finals: dict | None = None) -> dict:
        n, every = self.num_envs, np.ones(self.num_envs, bool)
        infos: dict = {"action_mask": np.array(self._games.mask), "_action_mask": every,
                       "seat": self.seats.copy(), "_seat": every}
        if finals is not None and ended.any():
            standing = np.zeros(n)
            standing[ended] = finals["standing"]
            scores = np.zeros((n, self.num_players))
            scores[ended] = finals["scores"]
            opponent = np.array([None] * n, dtype=object)
            opponent[ended] = [self._specs[int(c)] for c in self._table[ended]]
            infos.update(standing=standing,
                         _standing=ended.copy(), scores=scores, _scores=ended.copy(),
                         opponent=opponent, _opponent=ended.copy())
        return infos

    def action_masks(self) -> np.ndarray:
        """bool [N, A]: each sub-env's legal actions now (MaskablePPO's and CleanRL's
        masks); a game that ended at the last step (NEXT_STEP) allows every action."""
        masks = self._games.mask.astype(bool)
        if self.autoreset_mode is AutoresetMode.NEXT_STEP:
            masks[self._ended] = True
        return masks

    def state(self, i: int):
        """Sub-env i's game as its ``GameState`` (a copy, for rendering and inspection)."""
        self._check_index(i)
        return self._games.state(i)

    def opponent(self, i: int) -> str:
        """The spec of the opponent holding the other seats of sub-env i's game."""
        self._check_index(i)
        return self._specs[int(self._table[i])]

    def _check_index(self, i: int) -> None:
        if not 0 <= i < self.num_envs:
            raise IndexError(f"{self.game}: sub-env {i} is out of range 0..{self.num_envs - 1}")

    def close_extras(self, **kwargs) -> None:
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"{self.game}: this env is closed")

    def __repr__(self) -> str:
        return (f"<SingleAgentVectorEnv {self.game} x{self.num_envs}, {self.num_players} "
                f"players, opponents {self.opponent_specs}, reward={self.reward_mode}>")


def _is_seed(value) -> bool:
    from catzoo.vector import is_int

    return is_int(value) and 0 <= value < 2**63


def _options_dict(options) -> dict:
    """The game options but the player count, as ``make_policy`` takes them."""
    import dataclasses

    return {k: v for k, v in dataclasses.asdict(options).items() if k != "num_players"}


def single_agent(game: str, num_envs: int, num_players: int | None = None,
                 opponents: Sequence[str] | Mapping[str, float] = ("heuristic",),
                 seed: int | None = 0, threads: int = 1, reward: str = "standing",
                 **options) -> SingleAgentVectorEnv:
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` games of ``game`` in which the
    learner holds one seat of every game and ``opponents`` (policy specs: bots,
    checkpoints, ``shipped``) the others (the module docstring of
    catzoo/vector/single_agent_env.py, and docs/vector.md). ``num_players``, ``seed``,
    ``threads``, ``reward`` and ``**options`` as ``vector.make`` takes them; keyword
    options of the env: ``partner`` (the learner's teammates' policy in a team game),
    ``seat`` (the learner's seat in every game), ``sample_opponents`` (checkpoints sample
    their moves instead of playing the most likely), ``autoreset_mode`` (NEXT_STEP or
    SAME_STEP)."""
    return SingleAgentVectorEnv(game, num_envs, num_players, opponents, seed, threads, reward,
                                **options)
