"""The batched games behind ``catzoo.vector.make``: one class of API, two engines.

* ``CompiledBatch`` steps a game's compiled core (``catzoo.games.<game>.core``): N games in
  C, in one call, the GIL released, ``threads`` OpenMP threads (games/batch.pxi).
* ``PythonBatch`` steps the game's Python engine (its ``GameState``) in a loop, for games
  without a core (Cats Knocking Things Off Ledges, whose cost is its physics).

Both deal, reward, reset and refuse bad actions alike (docs/vector.md), and write into
arrays allocated once: what ``reset`` and ``step`` return are views of them, overwritten
by the next call (as PufferLib's buffers); copy what you keep.
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces

from catzoo.games.base import IllegalActionError
from catzoo.games.chance import next_seed, slot_seeds

OBS_BOUND = 4.0  # engines scale every feature into [-4, 4] (as envs.adapter)
REWARDS = ("standing", "score")


def _readonly(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


class VectorGame:
    """N games of one CatZoo game stepped together (build one with ``vector.make``).

    Attributes: ``game`` (its name), ``options`` (the game's options object),
    ``num_envs`` (N), ``num_players`` (P), ``num_actions`` (A), ``obs_size`` (D),
    ``observation_shape`` ((D,)), ``reward`` ("standing" or "score"), ``threads``,
    ``seed`` (of the slots' first games), ``compiled`` (whether a C core steps it),
    ``single_observation_space`` (Box(-4, 4, (D,), float32)), ``single_action_space``
    (Discrete(A)), ``observation_space``/``action_space`` (the batched ones),
    ``state_cls`` (the game's ``GameState`` class, whose ``new(options, seed=...)`` or the
    AEC env's ``reset(seed=...)`` replays any slot's game from its seed).
    """

    compiled: bool
    # the engine's buffers, as read-only views (set by each engine)
    _obs: np.ndarray
    _mask: np.ndarray
    _player: np.ndarray
    _rewards: np.ndarray
    _done: np.ndarray
    _final_scores: np.ndarray
    _final_returns: np.ndarray
    _seeds: np.ndarray

    def __init__(self, game: str, state_cls, options, num_envs: int, reward: str,
                 threads: int, seed: int):
        self.game = game
        self.state_cls = state_cls
        self.options = options
        self.num_envs = num_envs
        self.reward = reward
        self.threads = threads
        self.seed = seed
        self._probe = state_cls.new(options, seed=0)
        self.num_players = self._probe.num_players
        self.num_actions = self._probe.num_actions
        self.obs_size = self._probe.observation_size
        self.observation_shape = (self.obs_size,)
        self.single_observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, self.observation_shape,
                                                   np.float32)
        self.single_action_space: spaces.Discrete = spaces.Discrete(self.num_actions)
        self.observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, (num_envs, self.obs_size),
                                            np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, self.num_actions))
        self._started = False
        self._closed = False

    # --- the API ---------------------------------------------------------------------
    def observe(self, slot: int, player: int) -> np.ndarray:
        """``player``'s observation in ``slot``'s game (a new array)."""
        raise NotImplementedError

    def reset(self, seed: int | None = None, seeds=None):
        """Deal every slot a new game; returns ``(obs, mask, player)``.

        With ``seeds`` (one non-negative int per slot), slot i plays the game that
        ``env.reset(seed=seeds[i])`` plays. With ``seed``, the slots' first seeds are
        ``slot_seeds(seed, num_envs)`` (and ``self.seed`` becomes ``seed``). With neither,
        the first reset uses ``slot_seeds(self.seed, num_envs)`` and a later one deals
        every slot its next seed (``next_seed`` of its current one), as if its game ended.
        """
        self._check_open()
        if seed is not None and seeds is not None:
            raise ValueError(f"{self.game}: reset takes seed or seeds, not both")
        if seeds is not None:
            chosen = self._checked_seeds(seeds)
        elif seed is not None:
            self.seed = _checked_seed(self.game, seed)
            chosen = np.array(slot_seeds(self.seed, self.num_envs), dtype=np.int64)
        elif not self._started:
            chosen = np.array(slot_seeds(self.seed, self.num_envs), dtype=np.int64)
        else:
            chosen = np.array([next_seed(int(s)) for s in self.seeds], dtype=np.int64)
        self._reset(chosen)
        self._started = True
        return self._obs, self._mask, self._player

    def step(self, actions):
        """Apply ``actions[i]`` in slot i for every slot, or in none: an action array of
        the wrong shape or dtype, or any action out of range or illegal in its slot,
        raises ``IllegalActionError`` naming the slot, the action and that slot's legal
        actions, and no slot is stepped. Returns ``(obs, mask, player, rewards, done)``;
        a slot whose game ended (``done``) has been dealt its next game, whose first
        observation ``obs`` holds, and ``final_scores``/``final_returns`` hold the ended
        game's scores and standing until the next step."""
        self._check_open()
        if not self._started:
            raise RuntimeError(f"{self.game}: call reset() before step()")
        actions = self._checked_actions(actions)
        bad = self._step(actions)
        if bad >= 0:
            raise IllegalActionError(self._explain(bad, int(actions[bad])))
        return self._obs, self._mask, self._player, self._rewards, self._done

    @property
    def final_scores(self) -> np.ndarray:
        """float32 [N, P]: the scores of the games that ended on the last step (rows of
        the other slots are 0)."""
        return self._final_scores

    @property
    def final_returns(self) -> np.ndarray:
        """float32 [N, P]: the standing (``GameState.returns``) of the games that ended on
        the last step (rows of the other slots are 0), whatever the reward mode."""
        return self._final_returns

    @property
    def seeds(self) -> np.ndarray:
        """int64 [N]: the seed of each slot's game in progress (``env.reset(seed=...)``
        replays it)."""
        return self._seeds

    def legal_actions(self, slot: int) -> list[int]:
        """The legal actions in ``slot``'s game."""
        self._check_slot(slot)
        return self._legal_actions(slot)

    def slot_state(self, slot: int):
        """A copy of ``slot``'s game as its ``GameState``, for rendering and inspection
        (a compiled core's copy has no action log: replay a slot from its seed)."""
        self._check_slot(slot)
        return self._slot_state(slot)

    def close(self) -> None:
        """Release the games; the object cannot step again."""
        self._closed = True
        self._release()

    def __len__(self) -> int:
        return self.num_envs

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        engine = f"compiled core, {self.threads} thread(s)" if self.compiled else "Python engine"
        return (f"<VectorGame {self.game} x{self.num_envs}, {self.num_players} players, "
                f"reward={self.reward}, {engine}>")

    # --- checks ----------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"{self.game}: this VectorGame is closed")

    def _check_slot(self, slot: int) -> None:
        if not 0 <= slot < self.num_envs:
            raise IndexError(f"{self.game}: slot {slot} is out of range 0..{self.num_envs - 1}")

    def _checked_seeds(self, seeds) -> np.ndarray:
        array = np.asarray(seeds)
        if array.shape != (self.num_envs,):
            raise ValueError(f"{self.game}: reset(seeds=...) needs one seed per slot, "
                             f"{self.num_envs}, got shape {array.shape}")
        if array.dtype == object or array.dtype.kind not in "iu":
            bad = next((i for i, s in enumerate(seeds)
                        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer))),
                       None)
            if bad is not None:
                raise ValueError(f"{self.game}: slot {bad}: seed {seeds[bad]!r} is not an int")
        for i, s in enumerate(array.tolist()):
            if not 0 <= s < 2**63:
                raise ValueError(f"{self.game}: slot {i}: seed {s} is not in 0..2**63 - 1")
        return np.ascontiguousarray(array, dtype=np.int64)

    def _checked_actions(self, actions) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise IllegalActionError(f"{self.game}: actions must have shape ({self.num_envs},), "
                                     f"one per slot; got shape {array.shape}")
        if array.dtype.kind not in "iu":
            raise IllegalActionError(f"{self.game}: actions must be integers, got dtype "
                                     f"{array.dtype}")
        if array.dtype == np.int64 and array.flags.c_contiguous:
            return array
        if array.dtype == np.uint64 and array.size and array.max() >= 2**63:
            i = int(np.argmax(array >= 2**63))
            raise IllegalActionError(self._explain(i, int(array[i])))
        return np.ascontiguousarray(array, dtype=np.int64)

    def _explain(self, slot: int, action: int) -> str:
        state = self._slot_state(slot)
        legal = self._legal_actions(slot)
        names = ", ".join(f"{a} ({state.action_to_string(a)})" for a in legal)
        if not 0 <= action < self.num_actions:
            what = f"action {action} is out of range 0..{self.num_actions - 1}"
        else:
            what = (f"action {action} ({state.action_to_string(action)}) is not legal for "
                    f"player {state.current_player}")
        return (f"{self.game}: slot {slot}: {what}; legal actions: {names or 'none'} "
                "(no slot was stepped)")

    # --- what each engine implements -----------------------------------------------------
    def _reset(self, seeds: np.ndarray) -> None:
        raise NotImplementedError

    def _step(self, actions: np.ndarray) -> int:
        raise NotImplementedError

    def _legal_actions(self, slot: int) -> list[int]:
        raise NotImplementedError

    def _slot_state(self, slot: int):
        raise NotImplementedError

    def _release(self) -> None:
        pass


def _checked_seed(game: str, seed) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"{game}: seed={seed!r} must be a non-negative int")
    return int(seed)


class CompiledBatch(VectorGame):
    """The slots are Games of the compiled core, stepped by its ``BatchCore``."""

    compiled = True

    def __init__(self, game, state_cls, options, num_envs, reward, threads, seed):
        super().__init__(game, state_cls, options, num_envs, reward, threads, seed)
        from catzoo.games.compiled import core_config

        module = state_cls.core_module
        modes = {"standing": int(module.RewardMode.REWARD_STANDING),
                 "score": int(module.RewardMode.REWARD_SCORE)}
        self._core = core = module.BatchCore(core_config(module, options), num_envs,
                                             modes[reward], threads)
        self._obs, self._mask, self._player = (_readonly(core.obs), _readonly(core.mask),
                                               _readonly(core.player))
        self._rewards, self._done = _readonly(core.rewards), _readonly(core.done)
        self._final_scores = _readonly(core.final_scores)
        self._final_returns = _readonly(core.final_returns)
        self._seeds = _readonly(core.seeds)

    def _reset(self, seeds):
        self._core.reset(seeds)

    def _step(self, actions):
        return self._core.step(actions)

    def _legal_actions(self, slot):
        return self._core.legal_actions(slot)

    def _slot_state(self, slot):
        return self.state_cls._from_core(self._core.slot_core(slot))

    def observe(self, slot: int, player: int) -> np.ndarray:
        """``player``'s observation in ``slot``'s game (a new array; the step's ``obs``
        holds the player to act's)."""
        self._check_slot(slot)
        return self._core.observe(slot, player)

    def games_bytes(self) -> bytes:
        """Every slot's whole game as bytes (tests: nothing changed)."""
        return self._core.games_bytes()

    def _release(self):
        self._core = None


class PythonBatch(VectorGame):
    """The slots are ``GameState``s of the game's Python engine, stepped in a loop."""

    compiled = False

    def __init__(self, game, state_cls, options, num_envs, reward, threads, seed):
        super().__init__(game, state_cls, options, num_envs, reward, threads, seed)
        n, p = num_envs, self.num_players
        self._states: list = [None] * n
        self._last_scores = np.zeros((n, p), np.float64)
        buffers = {"obs": np.zeros((n, self.obs_size), np.float32),
                   "mask": np.zeros((n, self.num_actions), np.int8),
                   "player": np.zeros(n, np.int32), "rewards": np.zeros((n, p), np.float32),
                   "done": np.zeros(n, np.bool_), "final_scores": np.zeros((n, p), np.float32),
                   "final_returns": np.zeros((n, p), np.float32),
                   "seeds": np.zeros(n, np.int64)}
        self._buf = buffers
        for name, array in buffers.items():
            setattr(self, f"_{name}", _readonly(array))

    def _new_game(self, i: int, seed: int) -> None:
        b = self._buf
        b["seeds"][i] = seed
        state = self._states[i] = self.state_cls.new(self.options, seed=seed)
        self._last_scores[i] = state.scores()

    def _write(self, i: int) -> None:
        state, b = self._states[i], self._buf
        p = state.current_player
        b["player"][i] = p
        b["mask"][i] = state.legal_mask()
        b["obs"][i] = state.observation(p)

    def _reset(self, seeds):
        b = self._buf
        for i, seed in enumerate(seeds.tolist()):
            self._new_game(i, seed)
            self._write(i)
        for name in ("rewards", "done", "final_scores", "final_returns"):
            b[name][:] = 0

    def _step(self, actions):
        states, b = self._states, self._buf
        todo = actions.tolist()
        for i, a in enumerate(todo):
            if not 0 <= a < self.num_actions or not states[i].is_legal(a):
                return i
        score = self.reward == "score"
        for i, a in enumerate(todo):
            state = states[i]
            state.apply_unchecked(a)
            if score:
                scores = state.scores()
                b["rewards"][i] = np.asarray(scores, np.float64) - self._last_scores[i]
                self._last_scores[i] = scores
            else:
                b["rewards"][i] = 0.0
            if state.is_terminal():
                returns = state.returns()
                if not score:
                    b["rewards"][i] = returns
                b["final_scores"][i] = state.scores()
                b["final_returns"][i] = returns
                b["done"][i] = True
                self._new_game(i, next_seed(int(b["seeds"][i])))
            else:
                b["final_scores"][i] = 0.0
                b["final_returns"][i] = 0.0
                b["done"][i] = False
            self._write(i)
        return -1

    def _legal_actions(self, slot):
        return self._states[slot].legal_actions()

    def _slot_state(self, slot):
        return self._states[slot].clone()

    def observe(self, slot: int, player: int) -> np.ndarray:
        """``player``'s observation in ``slot``'s game (a new array)."""
        self._check_slot(slot)
        if not 0 <= player < self.num_players:
            raise ValueError(f"{self.game}: player {player} is out of range "
                             f"0..{self.num_players - 1}")
        return np.array(self._states[slot].observation(player), np.float32)

    def _release(self):
        self._states = []


def random_seed() -> int:
    """A seed for a batch made with ``seed=None``."""
    return random.SystemRandom().getrandbits(63)
