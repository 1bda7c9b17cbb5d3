"""MuJoCo models of the tower, built with ``mujoco.MjSpec`` as the tower grows, and the
simulation of one action.

The physical state of a game is the pose (position, quaternion) of each piece on the
table; between actions every piece is at rest. A simulation builds (or takes from a cache)
the model holding exactly the pieces on the table, in piece order, starts a fresh
``MjData`` from those poses (plus an optional initial velocity, for a bat) and steps until
every body has come to rest (MuJoCo's island sleeping) or a time limit. Starting every
simulation from poses alone, never from solver warm-starts, makes the result a function of
(pieces, poses, velocity): a clone or a replay reproduces it exactly on one machine.

Sleeping is what makes the game fast enough: a resting tower falls asleep after
``mjMINAWAKE`` (10) steps and costs nothing while a toy flies; a body touched by an awake one
wakes. A structure that would topple so slowly that it gains no measurable speed within
those 10 steps (20 ms) stays asleep until something touches it.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from contextlib import contextmanager
from functools import lru_cache

import mujoco
import numpy as np

from catzoo.games.ledges import geometry as G

log = logging.getLogger("catzoo.ledges.mujoco")


def _mujoco_warning(message: str) -> None:
    # MuJoCo's default handler appends warnings to MUJOCO_LOG.TXT in the working
    # directory: a library must not write into its user's folders.
    log.warning("MuJoCo: %s", message.strip())


mujoco.set_mju_user_warning(_mujoco_warning)

TIMESTEP = 0.002
CHUNK = 10  # steps between rest checks
SLEEP_TOLERANCE = 1e-3
# At rest also when, after REST_AFTER seconds, no body has moved faster than REST_SPEED
# (m/s) or turned faster than REST_SPIN (rad/s) for REST_CHUNKS checks in a row: solver
# jitter (a cat teetering on a rim) can keep a body just above the sleep tolerance.
REST_AFTER, REST_SPEED, REST_SPIN, REST_CHUNKS = 0.2, 0.002, 0.1, 5
# Stiff contacts (time constant 4 ms, critically damped; MuJoCo's default 20 ms lets a
# falling toy sink half a platform's thickness on impact).
SOLREF = (0.004, 1.0)

KIND_SIZES = {
    "rect": ("box", (G.RECT_HALF[0], G.RECT_HALF[1], G.PLAT_T / 2), G.PLAT_DENSITY, None),
    "round": ("cylinder", (G.ROUND_R, G.PLAT_T / 2, 0.0), G.PLAT_DENSITY, None),
    "short": ("box", (G.PILLAR_W / 2, G.PILLAR_W / 2, G.PILLAR_H[G.SHORT] / 2), G.PILLAR_DENSITY, None),
    "tall": ("box", (G.PILLAR_W / 2, G.PILLAR_W / 2, G.PILLAR_H[G.TALL] / 2), G.PILLAR_DENSITY, None),
    "cat": ("box", G.CAT_HALF, None, G.CAT_MASS),
    "toy": ("box", G.TOY_HALF, None, G.TOY_MASS),
}
LOOSE_KINDS = ("cat", "toy")
# A little joint damping on cats and toys: negligible on their flight (the decay rate of
# their speed is under 0.01/s) but it stops the endless spinning a small box can pick up
# from contact jitter when it bridges two surfaces (decay rate of spin about 10-30/s).
LOOSE_DAMPING = {"cat": 1e-5, "toy": 3e-6}
GEOM_TYPES = {"box": mujoco.mjtGeom.mjGEOM_BOX, "cylinder": mujoco.mjtGeom.mjGEOM_CYLINDER}
RGBA = {
    "rect": (0.85, 0.75, 0.55, 1), "round": (0.8, 0.65, 0.45, 1), "short": (0.55, 0.4, 0.25, 1),
    "tall": (0.45, 0.3, 0.2, 1), "cat": (0.2, 0.2, 0.2, 1), "toy": (0.9, 0.3, 0.3, 1),
}


def build_spec(kinds: tuple[str, ...]) -> mujoco.MjSpec:
    """The MJCF model, as an ``MjSpec``, of a table and one free body per piece kind."""
    spec = mujoco.MjSpec()
    spec.modelname = "ledges"
    opt = spec.option
    opt.timestep = TIMESTEP
    opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    opt.enableflags |= mujoco.mjtEnableBit.mjENBL_SLEEP
    opt.sleep_tolerance = SLEEP_TOLERANCE
    table = spec.worldbody.add_geom()
    table.name = "table"
    table.type = mujoco.mjtGeom.mjGEOM_PLANE
    table.size = [1.0, 1.0, 0.1]
    table.friction = list(G.FRICTION)
    table.solref = list(SOLREF)
    for i, kind in enumerate(kinds):
        shape, size, density, mass = KIND_SIZES[kind]
        body = spec.worldbody.add_body()
        body.name = f"b{i}_{kind}"
        body.pos = [0.0, 0.0, -1.0 - i]  # overwritten by every simulation's poses
        joint = body.add_freejoint()
        if kind in LOOSE_DAMPING:
            joint.damping = [LOOSE_DAMPING[kind], 0.0, 0.0]
        geom = body.add_geom()
        geom.type = GEOM_TYPES[shape]
        geom.size = list(size)
        geom.friction = list(G.FRICTION)
        geom.solref = list(SOLREF)
        geom.rgba = list(RGBA[kind])
        if mass is not None:
            geom.mass = mass
        else:
            geom.density = density
        if kind in LOOSE_KINDS:
            # Cats and toys are always in the model; one off the table is parked (no
            # contacts, gravity compensated) by ``simulate(active=...)``.
            body.gravcomp = 1.0
    return spec


class _ModelCache:
    """Compiled models (with one reusable ``MjData`` each) by tuple of piece kinds, one
    cache per thread.

    A simulation writes the model (the contact flags of parked pieces) and the data, and
    ``mj_step`` releases the GIL: two threads sharing one pair (the web server's bot
    threads, a threaded arena) corrupt it and kill the process. So each thread owns its
    models and data; ``compiles`` counts the compilations of every thread."""

    def __init__(self, size: int = 96):
        self.size = size
        self._local = threading.local()
        self._lock = threading.Lock()
        self.compiles = 0

    @property
    def entries(self) -> OrderedDict:
        """This thread's models."""
        entries = getattr(self._local, "entries", None)
        if entries is None:
            entries = self._local.entries = OrderedDict()
        return entries

    def get(self, kinds: tuple[str, ...]):
        entries = self.entries
        entry = entries.get(kinds)
        if entry is None:
            model = build_spec(kinds).compile()
            entry = (model, mujoco.MjData(model))
            with self._lock:
                self.compiles += 1
            entries[kinds] = entry
            if len(entries) > self.size:
                entries.popitem(last=False)
        else:
            entries.move_to_end(kinds)
        return entry


MODELS = _ModelCache()
# Poses and velocities are refused beyond these (m, m/s, rad/s) before MuJoCo sees them:
# the table is 2 m across and parked pieces wait a few metres away; a forged log's noise
# would otherwise send MuJoCo values it warns about ("Nan, Inf or huge value in QPOS").
POSE_LIMIT = 100.0
SPEED_LIMIT = 100.0

# Frames of the simulations run inside ``recording()``, for the tables that show a bat as
# it happens; None when nobody records (the rules never read them).
FRAME_RATE = 30.0
# The recorder is the thread's own: a table's move records in the server's loop thread
# while bots simulate in worker threads, whose simulations are not that move's (and a
# shared recorder let one thread's block end under another's simulation).
_RECORDING = threading.local()


@contextmanager
def recording():
    """Record every simulation this thread runs in this block: yields a list that
    receives, per simulation, ``{"kinds", "time", "frames"}``: the poses of every body
    (n x 7) at ``FRAME_RATE`` frames a second from the start, the last frame at rest.
    Recording reads the simulation between its steps and changes nothing in it."""
    outer = getattr(_RECORDING, "runs", None)
    _RECORDING.runs = runs = []
    try:
        yield runs
    finally:
        _RECORDING.runs = outer


def _step(model, data, k: int, frames: list | None, done: int) -> None:
    """``k`` steps from step ``done``; with ``frames``, a copy of the poses at each frame
    time crossed (the same steps as one ``mj_step(nstep=k)``, so the same result)."""
    if frames is None:
        mujoco.mj_step(model, data, nstep=k)
        return
    per_frame = 1.0 / (FRAME_RATE * TIMESTEP)
    while k > 0:
        next_frame = int(np.ceil((len(frames)) * per_frame - 1e-9))
        run = min(k, max(1, next_frame - done))
        mujoco.mj_step(model, data, nstep=run)
        done += run
        k -= run
        if done >= next_frame:
            frames.append(data.qpos.copy())


def simulate(
    kinds: tuple[str, ...],
    qpos: np.ndarray,
    qvel: np.ndarray | None = None,
    max_time: float = 2.0,
    until_rest: bool = True,
    tower: np.ndarray | None = None,
    fall_move: float = 0.01,
    fall_tilt: float = float(np.radians(10.0)),
    fall_grace: float = 0.3,
    loose: np.ndarray | None = None,
    active: np.ndarray | None = None,
) -> tuple[np.ndarray, float, bool]:
    """Simulate the pieces ``kinds`` from poses ``qpos`` (n x 7) and velocities ``qvel``
    (n x 6, default at rest) until every body rests, or ``max_time`` seconds (with
    ``until_rest=False``: exactly ``max_time``).

    Two shortcuts end a simulation early, once its outcome is known:

    * ``tower`` (rows of tower pieces): once one of them has moved more than ``fall_move``
      or tipped more than ``fall_tilt`` from its starting pose, the tower has fallen; the
      simulation goes on ``fall_grace`` seconds more (what is still standing then stays);
    * ``loose`` (rows of cats and toys): when the only bodies still moving are cats or toys
      down on the table (which go back to their owners), the simulation stops;
    * bodies barely moving (see ``REST_SPEED``) count as at rest even if not asleep.

    ``active`` (one bool per body, default all): an inactive cat or toy is parked where
    its pose says, touching nothing and floating (it is off the table).

    Returns the final poses, the simulated time, and whether the tower fell.
    """
    n = len(kinds)
    if n == 0:
        return np.zeros((0, 7)), 0.0, False
    start = np.asarray(qpos, dtype=np.float64).reshape(n, 7)
    if not np.isfinite(start).all() or np.abs(start).max() > POSE_LIMIT:
        raise ValueError(f"ledges physics: a pose is not finite or lies beyond {POSE_LIMIT:g} m")
    if qvel is not None:
        qvel = np.asarray(qvel, dtype=np.float64)
        if not np.isfinite(qvel).all() or np.abs(qvel).max() > SPEED_LIMIT:
            raise ValueError(f"ledges physics: a velocity is not finite or beyond {SPEED_LIMIT:g}")
    model, data = MODELS.get(kinds)
    loose_bodies, floors = _kinds_info(kinds)
    if loose_bodies.size:
        on = np.ones(n, dtype=bool) if active is None else np.asarray(active, dtype=bool)
        flag = on[loose_bodies].astype(np.int32)
        geoms = model.body_geomadr[1 + loose_bodies]
        model.geom_contype[geoms] = flag
        model.geom_conaffinity[geoms] = flag
        model.body_gravcomp[1 + loose_bodies] = 1.0 - flag
    mujoco.mj_resetData(model, data)
    data.qpos[:] = start.reshape(-1)
    if qvel is not None:
        data.qvel[:] = qvel.reshape(-1)
    steps = max(1, round(max_time / TIMESTEP))
    done = 0
    fell, fell_at = False, 0
    grace = round(fall_grace / TIMESTEP)
    rest_after, calm = round(REST_AFTER / TIMESTEP), 0
    if tower is not None and len(tower):
        ref_pos = start[tower, :3]
        ref_axis = _z_axes(start[tower, 3:])
        body_tree = model.body_treeid[1:]  # body 0 is the world
        tower_trees = body_tree[tower]
    else:
        tower = None
    if loose is not None and len(loose):
        loose_trees = model.body_treeid[1:][loose]
        loose_floor = floors[loose]
        qpos_view = data.qpos.reshape(n, 7)
    else:
        loose = None
    frames = None
    recorder = getattr(_RECORDING, "runs", None)
    if recorder is not None:
        frames = [start.reshape(-1).copy()]
    if not until_rest:
        _step(model, data, steps, frames, 0)
        done = steps
    else:
        # Views of the data's buffers (MuJoCo steps them in place) and the loop's constants,
        # taken once: the checks between chunks compute what they did, from the same values.
        qpos_all, vel, awake = data.qpos.reshape(n, 7), data.qvel.reshape(n, 6), data.tree_awake
        cos_tilt, speed2, spin2 = np.cos(fall_tilt), REST_SPEED ** 2, REST_SPIN ** 2
        if tower is not None:
            prefix = bool((tower == np.arange(len(tower))).all())  # the engine's: rows 0..k-1
        while done < steps:
            k = min(CHUNK, steps - done)
            _step(model, data, k, frames, done)
            done += k
            if data.ntree_awake == 0:
                break
            if done >= rest_after:
                slow = (vel[:, :3] ** 2).sum(1).max() < speed2
                if slow and (vel[:, 3:] ** 2).sum(1).max() < spin2:
                    calm += 1
                    if calm >= REST_CHUNKS:
                        break
                else:
                    calm = 0
            if fell:
                if done - fell_at >= grace:
                    break
                continue
            if tower is not None and awake[tower_trees].any():
                now = qpos_all[:len(tower)] if prefix else qpos_all[tower]
                step = now[:, :3] - ref_pos
                moved = np.sqrt(np.add.reduce(step * step, axis=1))  # np.linalg.norm's sum
                cos = (_z_axes(now[:, 3:]) * ref_axis).sum(1)
                if (moved > fall_move).any() or (cos < cos_tilt).any():
                    fell, fell_at = True, done
                    continue
            if loose is not None and data.ntree_awake <= len(loose):
                moving = awake[loose_trees].astype(bool)
                down = (qpos_view[loose[moving], 2] < loose_floor[moving]).all()
                if moving.sum() == data.ntree_awake and down:
                    break
    out = data.qpos.reshape(n, 7).copy()
    if recorder is not None and frames is not None:
        frames.append(out.reshape(-1).copy())
        recorder.append({"kinds": kinds, "time": done * TIMESTEP,
                         "frames": np.array(frames).reshape(-1, n, 7)})
    if not np.isfinite(out).all():  # a diverged simulation leaves everything where it was
        return start.copy(), done * TIMESTEP, False
    out[:, 3:] /= np.linalg.norm(out[:, 3:], axis=1, keepdims=True)
    return out, done * TIMESTEP, fell


@lru_cache(maxsize=1024)
def _kinds_info(kinds: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the cats and toys among ``kinds``, and each body's height above the
    table when it lies down there (half its height, plus 3 mm)."""
    loose = np.array([i for i, k in enumerate(kinds) if k in LOOSE_KINDS], dtype=np.intp)
    floors = np.array([KIND_SIZES[k][1][2] + 0.003 for k in kinds])
    loose.flags.writeable = floors.flags.writeable = False  # shared by every simulation
    return loose, floors


def _z_axes(quats: np.ndarray) -> np.ndarray:
    """The local z axis (third column of the rotation) of quaternions (k, 4)."""
    w, x, y, z = quats[:, 0], quats[:, 1], quats[:, 2], quats[:, 3]
    out = np.empty((len(quats), 3))
    out[:, 0] = 2 * (x * z + w * y)
    out[:, 1] = 2 * (y * z - w * x)
    out[:, 2] = 1 - 2 * (x * x + y * y)
    return out


# --- dexterity: the noise of hands and paw stick -------------------------------------------------
# Standard deviations at dexterity 1 (the option scales them all; 0 = perfectly steady).
PLACE_XY_SD = 0.002  # 2 mm on every placed pillar, platform, cat and toy
PLACE_YAW_SD = np.radians(3.0)  # 3 degrees of turn on every placed piece
BAT_DIRECTION_SD = np.radians(4.0)  # 4 degrees off the aimed direction
BAT_SPEED_SD = 0.08  # 8% of the aimed strength
BAT_DIRECTIONS = 8  # every 45 degrees, 0 = +x (east), counter-clockwise
BAT_SPEEDS = (0.35, 0.55, 0.8, 1.1)  # m/s given to the toy: tap, push, swipe, whack
STRENGTH_NAMES = ("tap", "push", "swipe", "whack")


# [D] A logged noise draw beyond this many standard deviations is refused: it has odds
# under 1e-22 of being drawn (and such a value would place a piece metres away).
NOISE_LIMIT = 10.0


def standard_normals(count: int):
    """A chance draw of ``count`` standard normal numbers (for ``GameState._draw_chance``)."""

    def draw(rng) -> tuple[float, ...]:
        return tuple(rng.gauss(0.0, 1.0) for _ in range(count))

    return draw
