"""Observation layouts shared by the engines: one master vector, one gather per view.

An engine keeps a single float32 "master" vector holding every feature of the game, each
player's private ones included, and updates it in place as actions are applied. A
player's observation is one fancy-index gather of that vector through an index array
computed once: public blocks, then per-seat blocks rotated so the viewer is always seat 0,
then the viewer's own private blocks. This keeps ``observe`` at a single numpy call
(the env's hot path) and makes the documented layout and the decoder one piece of code.

Block kinds:
* ``"public"``: one block everyone sees as is;
* ``"seat"``: one public block per player, ordered by seat relative to the viewer;
* ``"private"``: one block per player, only the viewer's own appears in its observation.

The blocks several games hold (a phase or round one-hot, the seat that leads) are built by
``one_hot`` and ``flag`` (``LEADER``, ``ROUND_START``), so that they read alike in every
env's documented layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

KINDS = ("public", "seat", "private")


@dataclass(frozen=True)
class Block:
    name: str
    size: int
    kind: str
    doc: str


def one_hot(name: str, values: int | Sequence[str], what: str, kind: str = "public") -> Block:
    """``what``, one-hot over ``values``: a count, or the values' names, which the
    description lists in order."""
    if isinstance(values, int):
        return Block(name, values, kind, f"{what}, one-hot")
    return Block(name, len(values), kind, f"{what} one-hot: {', '.join(values)}")


def flag(name: str, who: str) -> Block:
    """A seat block that is 1 at one seat: ``who``."""
    return Block(name, 1, "seat", f"1 for {who}")


LEADER = flag("leader", "the leader of the trick in progress")
ROUND_START = flag("round_start", "the round's start player")


class Layout:
    def __init__(self, num_players: int, blocks: list[Block]):
        self.num_players = n = num_players
        self.blocks = blocks
        self._start: dict[str, int] = {}
        # Plain ints per block name, for the engines' hot paths: ``base[name] +
        # player * size[name] + i`` is a feature's index in the master vector.
        self.base: dict[str, int] = self._start
        self.size: dict[str, int] = {b.name: b.size for b in blocks}
        pos = 0
        for b in blocks:
            if b.kind not in KINDS:
                raise ValueError(f"block {b.name}: unknown kind {b.kind!r}")
            self._start[b.name] = pos
            pos += b.size if b.kind == "public" else b.size * n
        self.master_size = pos
        # The same starts as attributes (``at.hand``): engines read them on every step,
        # and an attribute costs less than a dict lookup.
        self.at = SimpleNamespace(**self._start)
        self._spans: dict[tuple[str, int | None], slice] = {}
        self.view_index = [self._view_index(p) for p in range(n)]
        self.obs_size = int(self.view_index[0].shape[0])

    def _view_index(self, viewer: int) -> np.ndarray:
        n = self.num_players
        parts = []
        for b in self.blocks:
            start = self._start[b.name]
            if b.kind == "public":
                parts.append(np.arange(start, start + b.size))
            elif b.kind == "seat":
                for rel in range(n):
                    seat = (viewer + rel) % n
                    parts.append(np.arange(start + seat * b.size, start + (seat + 1) * b.size))
            else:
                parts.append(np.arange(start + viewer * b.size, start + (viewer + 1) * b.size))
        return np.concatenate(parts).astype(np.intp)

    # --- writing the master vector -----------------------------------------------------
    def start(self, name: str, player: int = 0) -> int:
        b = self._block(name)
        return self._start[name] + (0 if b.kind == "public" else player * b.size)

    def span(self, name: str, player: int | None = None) -> slice:
        """The master slice of a block; for seat/private blocks, of one player's part,
        or of all players' parts when ``player`` is None."""
        key = (name, player)
        if key not in self._spans:
            self._spans[key] = self._span(name, player)
        return self._spans[key]

    def _span(self, name: str, player: int | None) -> slice:
        b = self._block(name)
        s = self._start[name]
        if b.kind == "public":
            return slice(s, s + b.size)
        if player is None:
            return slice(s, s + b.size * self.num_players)
        return slice(s + player * b.size, s + (player + 1) * b.size)

    def _block(self, name: str) -> Block:
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(name)

    # --- reading an observation ----------------------------------------------------------
    def decode(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Split one player's observation (or a batch of them, ``(..., size)``) into named
        arrays.

        Seat blocks come back as ``(..., num_players, size)`` with row 0 the viewer, row 1
        the next player clockwise, and so on; other blocks as ``(..., size)``.
        """
        out = {}
        pos = 0
        n = self.num_players
        lead = obs.shape[:-1]
        for b in self.blocks:
            if b.kind == "seat":
                out[b.name] = obs[..., pos : pos + b.size * n].reshape(*lead, n, b.size)
                pos += b.size * n
            else:
                out[b.name] = obs[..., pos : pos + b.size]
                pos += b.size
        return out

    def describe(self) -> str:
        """A table of the observation layout, for env docstrings and docs."""
        n = self.num_players
        rows = ["| index | size | block | meaning |", "|---|---|---|---|"]
        pos = 0
        for b in self.blocks:
            size = b.size * n if b.kind == "seat" else b.size
            shape = f"{n} x {b.size} (seat 0 = you)" if b.kind == "seat" else str(b.size)
            rows.append(f"| {pos}-{pos + size - 1} | {shape} | {b.name} | {b.doc} |")
            pos += size
        return "\n".join(rows)
