"""Per-option aiming features of Cats Knocking Things Off Ledges (the observation's
``options`` block), computed by the rules engine from the poses at rest, without physics.

A point-mass model of a bat (the one the heuristic bot plans with, documented in
``policies/heuristics/ledges.py``): the toy slides with sliding friction ``mu g`` to the
rim of its platform, falls freely, and lands on the highest lower platform whose surface
holds the landing point (else the table), then slides ``after^2 / (2 mu g)`` with
``after = max(0, v - mu g t_fall)``; it scores there if it comes to rest on that
platform. The model is evaluated over a 3 x 3 Gauss-Hermite grid of the bat's dexterity
noise (direction and speed), so each feature is an expectation under the model:

* bat phase, per bat action (direction x strength): expected points of the bat (0 when
  its path is blocked); its regret; the chance the toy stays on its platform; whether a
  pillar, cat or toy on the platform blocks the toy's path (1) or not (0);
* place-toy phase, per toy x side: expected points of the best bat from there (the toy's
  icon counts for the +1), and its regret;
* place-cat phase, per platform card: expected points of the best toy, side and bat from
  the cat's spot on that card (0 for the cards the cat may not go to), and its regret.

An option's regret is its expected points minus the best legal option's (0 for the best,
negative for the others); points are divided by 5 (a bat scores at most 6 points: a
drop of 5 pillar lengths and the icon).

Nothing is simulated (the bat constants come from ``physics``); numpy only, no RL library.
"""

from __future__ import annotations

import math

import numpy as np

from catzoo.games.ledges import geometry as G
from catzoo.games.ledges import physics as P

MU_G = G.MU_G
POINTS_SCALE = 5.0
NUM_BATS = P.BAT_DIRECTIONS * len(P.BAT_SPEEDS)
BAT_FEATURES = 4  # expected points / 5, regret, chance of staying, blocked
# 3-point Gauss-Hermite rule of a standard normal: nodes -sqrt(3), 0, sqrt(3).
GH_NODES = np.array([-math.sqrt(3.0), 0.0, math.sqrt(3.0)])
GH_WEIGHTS = np.array([1.0, 4.0, 1.0]) / 6.0
LAND_MARGIN = 0.002  # the landing point must lie this far inside a platform's rim
SLIDE_KEEP = 1.0  # share of the horizontal speed kept on landing


class Platforms:
    """The platforms on the table as the model reads them (one row per card on the table,
    in card order), shared by the scenes of every source platform of one state."""

    def __init__(self, state):
        cards = [c for c in range(G.NUM_PLATFORMS) if state.onboard[c]]
        self.list = cards
        self.rots = G.rotations(state.pose[cards, 3:]) if cards else np.zeros((0, 3, 3))
        self.cards = np.array(cards, dtype=np.int64)
        self.xy = state.pose[cards, :2].copy() if cards else np.zeros((0, 2))
        self.top = state.pose[cards, 2] + G.PLAT_T / 2 if cards else np.zeros(0)
        self.yaw = np.array([math.atan2(r[1, 0], r[0, 0]) for r in self.rots])
        self.round = np.array([G.platform_shape(c) == G.ROUND for c in cards], dtype=bool)
        self.level = np.array([state.plat_level[c] for c in cards])
        self.icon = np.array([G.platform_icon(c) for c in cards], dtype=np.int64)


class Scene:
    """The platforms and obstacles the model needs, read from a ``LedgesState``, for a toy
    on platform ``src`` (``platforms``: the state's ``Platforms``, when already read)."""

    def __init__(self, state, src: int, skip_pieces=(), platforms: Platforms | None = None):
        from catzoo.games.ledges.state import CAT0, LOOSE, PILLAR0

        plats = Platforms(state) if platforms is None else platforms
        self.cards, self.xy, self.top, self.yaw = plats.cards, plats.xy, plats.top, plats.yaw
        self.round, self.level, self.icon = plats.round, plats.level, plats.icon
        i = plats.list.index(src)
        self.src = i
        self.src_rot = plats.rots[i]
        self.src_xy = self.xy[i]
        self.src_yaw = float(self.yaw[i])
        self.src_round = bool(self.round[i])
        self.src_top = float(self.top[i])
        self.src_level = float(self.level[i])
        obstacles = []
        for other in state.build_order:
            if state.plat_base[other] == src:
                for pid in state.plat_pillars[other]:
                    x, y = state.pose[PILLAR0 + pid, :2]
                    obstacles.append((x, y, G.PILLAR_RADIUS))
        for piece in LOOSE[state.onboard[LOOSE]]:
            if int(piece) in skip_pieces or int(state.support[piece]) != src:
                continue
            radius = G.CAT_RADIUS if piece < CAT0 + 4 else G.TOY_RADIUS
            obstacles.append((state.pose[piece, 0], state.pose[piece, 1], radius))
        self.obstacles = np.array(obstacles, dtype=np.float64).reshape(-1, 3)

    def extra_obstacle(self, x: float, y: float, radius: float) -> np.ndarray:
        return np.vstack([self.obstacles, [(x, y, radius)]])


def _edge_distance(scene: Scene, start: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Distance from each start (M, 2) along each direction (D, 2) to the source rim: (M, D)."""
    c, s = math.cos(scene.src_yaw), math.sin(scene.src_yaw)
    rel = start - scene.src_xy
    lx = (c * rel[:, 0] + s * rel[:, 1])[:, None]
    ly = (-s * rel[:, 0] + c * rel[:, 1])[:, None]
    ux = (c * u[:, 0] + s * u[:, 1])[None, :]
    uy = (-s * u[:, 0] + c * u[:, 1])[None, :]
    if scene.src_round:
        b = lx * ux + ly * uy
        cc = lx * lx + ly * ly - G.ROUND_R ** 2
        return np.maximum(0.0, -b + np.sqrt(np.maximum(b * b - cc, 0.0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        tx = np.where(np.abs(ux) > 1e-9, (np.where(ux > 0, G.RECT_HALF[0], -G.RECT_HALF[0]) - lx) / ux, np.inf)
        ty = np.where(np.abs(uy) > 1e-9, (np.where(uy > 0, G.RECT_HALF[1], -G.RECT_HALF[1]) - ly) / uy, np.inf)
    return np.maximum(0.0, np.minimum(tx, ty))


def _blocked(start: np.ndarray, u: np.ndarray, length: np.ndarray, obstacles: np.ndarray,
             valid: np.ndarray | None = None) -> np.ndarray:
    """Whether a toy sliding from each start (M, 2) along each u (D, 2) for ``length``
    (M, D) meets an obstacle (K, 3: x, y, radius; ``valid`` (M, K): which obstacles count
    for each start, all by default): (M, D) bool."""
    if obstacles.size == 0:
        return np.zeros(length.shape, dtype=bool)
    rel = obstacles[None, :, :2] - start[:, None, :]  # M, K, 2
    along = np.einsum("mkj,dj->mdk", rel, u)
    across = np.abs(rel[:, None, :, 0] * u[None, :, None, 1] - rel[:, None, :, 1] * u[None, :, None, 0])
    r = obstacles[None, None, :, 2]
    hit = (along >= 0) & (along <= length[:, :, None] + r) & (across < r + G.TOY_RADIUS)
    if valid is not None:
        hit &= valid[:, None, :]
    return hit.any(axis=2)


def bat_outcomes(scene: Scene, start: np.ndarray, toy_bottom: float, icons: np.ndarray,
                 obstacles: np.ndarray, dexterity: float = 1.0, valid: np.ndarray | None = None,
                 rows: np.ndarray | None = None):
    """For each start (M, 2) and icon (M,), per bat (direction, strength): expected points
    (M, 8, 4), chance of staying on the source (M, 8, 4) and blocked (M, 8) under the model.
    ``valid`` (M, K): which obstacles stand in the way of each start (all by default).

    With ``rows`` (M,), ``start`` and ``valid`` hold each distinct start once and row i
    is start ``rows[i]`` with icon ``icons[i]``: the toys of one spot share their slide
    and fall, and differ only in the icon that earns the bonus."""
    if rows is None:
        rows = np.arange(start.shape[0])
    land = _landings(scene, start, toy_bottom, obstacles, dexterity, valid)
    m = rows.shape[0]
    nd, ns = P.BAT_DIRECTIONS, len(P.BAT_SPEEDS)
    stays = land["stays"][rows]
    if land["lvl"] is None:
        points = np.zeros(stays.shape)
    else:
        bonus = (land["icon"][rows] == icons[:, None, None]).astype(float)
        points = np.where(land["scores"][rows], land["lvl"][rows] + bonus, 0.0)
    w = (GH_WEIGHTS[:, None] * GH_WEIGHTS[None, :])  # direction noise x speed noise
    pts = points.reshape(m, nd, 3, ns, 3)
    st = stays.reshape(m, nd, 3, ns, 3).astype(float)
    exp_points = np.einsum("mdanb,ab->mdn", pts, w)
    p_stay = np.einsum("mdanb,ab->mdn", st, w)
    blocked = land["blocked"][rows]
    exp_points = np.where(blocked[:, :, None], 0.0, exp_points)
    return exp_points, p_stay, blocked


def _landings(scene: Scene, start: np.ndarray, toy_bottom: float, obstacles: np.ndarray,
              dexterity: float, valid: np.ndarray | None) -> dict:
    """Where a toy from each start (S, 2) comes to rest under the model, for every noise
    node of every bat (S, 24 direction nodes, 12 speed nodes): ``stays`` on the source,
    ``scores`` (comes to rest on a lower platform), the drop ``lvl`` in whole pillar
    lengths (at least 0) and the ``icon`` of the platform landed on (both None when no
    platform is lower); ``blocked`` (S, 8) per direction."""
    m = start.shape[0]
    nd = P.BAT_DIRECTIONS
    dir_sd = float(P.BAT_DIRECTION_SD) * dexterity
    spd_sd = P.BAT_SPEED_SD * dexterity
    angles = (np.arange(nd)[:, None] * math.pi / 4 + dir_sd * GH_NODES[None, :]).reshape(-1)  # 8*3
    u = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    speeds = (np.asarray(P.BAT_SPEEDS)[:, None] * np.maximum(0.0, 1.0 + spd_sd * GH_NODES[None, :])).reshape(-1)
    edge = _edge_distance(scene, start, u)  # M, 24
    nominal = u.reshape(nd, 3, 2)[:, 1]
    blocked = _blocked(start, nominal, edge.reshape(m, nd, 3)[:, :, 1], obstacles, valid)  # M, 8
    v2 = speeds[None, None, :] ** 2 - 2 * MU_G * edge[:, :, None]  # M, 24, 12
    stays = v2 <= 0
    ve = np.sqrt(np.maximum(v2, 0.0))
    out = {"stays": stays, "blocked": blocked, "scores": None, "lvl": None, "icon": None}
    # Candidate landings: every platform lower than the source.
    lower = (scene.top < scene.src_top - 0.01) & (np.arange(len(scene.top)) != scene.src)
    if lower.any():
        idx = np.flatnonzero(lower)
        drop = np.maximum(0.005, toy_bottom - scene.top[idx])  # P
        t_fall = np.sqrt(2 * drop / 9.81)
        reach = edge[:, :, None, None] + ve[..., None] * t_fall  # M, 24, 12, P
        ux = u[None, :, None, None, 0]
        uy = u[None, :, None, None, 1]
        lx = start[:, 0, None, None, None] + ux * reach
        ly = start[:, 1, None, None, None] + uy * reach
        sub = _SubScene(scene, idx)
        on = _inside_each(sub, lx, ly, LAND_MARGIN)  # M, 24, 12, P
        # The highest platform hit first.
        height = np.where(on, scene.top[idx], -np.inf)
        first = np.argmax(height, axis=-1)  # M, 24, 12
        hit = np.isfinite(np.take_along_axis(height, first[..., None], -1)[..., 0])
        tf = t_fall[first]
        after = np.maximum(0.0, SLIDE_KEEP * ve - MU_G * tf)
        slide = after * after / (2 * MU_G)
        rx = np.take_along_axis(lx, first[..., None], -1)[..., 0] + u[None, :, None, 0] * slide
        ry = np.take_along_axis(ly, first[..., None], -1)[..., 0] + u[None, :, None, 1] * slide
        rest = _inside_one(sub, first, rx, ry)
        lvl = np.floor(scene.src_level - scene.level[idx][first] + 0.5)
        out.update(scores=hit & rest & ~stays, lvl=np.maximum(lvl, 0.0), icon=scene.icon[idx][first])
    return out


class _SubScene:
    def __init__(self, scene: Scene, idx: np.ndarray):
        self.xy = scene.xy[idx]
        self.yaw = scene.yaw[idx]
        self.round = scene.round[idx]


def _inside(xy: np.ndarray, yaw: np.ndarray, round_: np.ndarray, x: np.ndarray,
            y: np.ndarray, margin: float = 0.0) -> np.ndarray:
    """Whether each point (x, y) lies on its platform (centre ``xy``, heading ``yaw``,
    round or rectangular), at least ``margin`` inside the rim; numpy broadcasting pairs
    points with platforms."""
    c, s = np.cos(yaw), np.sin(yaw)
    dx, dy = x - xy[..., 0], y - xy[..., 1]
    lx, ly = c * dx + s * dy, -s * dx + c * dy
    rect = (np.abs(lx) <= G.RECT_HALF[0] - margin) & (np.abs(ly) <= G.RECT_HALF[1] - margin)
    rnd = np.hypot(lx, ly) <= G.ROUND_R - margin
    return np.where(round_, rnd, rect)


def _inside_each(sub: _SubScene, x: np.ndarray, y: np.ndarray, margin: float) -> np.ndarray:
    """Each point against every platform of ``sub`` (the last axis)."""
    return _inside(sub.xy, sub.yaw, sub.round, x, y, margin)


def _inside_one(sub: _SubScene, which: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each point against its own platform ``which`` of ``sub``."""
    return _inside(sub.xy[which], sub.yaw[which], sub.round[which], x, y)


def toy_spots(state, card: int, spot, rot: np.ndarray | None = None) -> np.ndarray:
    """World (x, y) of a toy beside a cat at ``spot`` (card frame) on each side (4, 2), and
    of the cat (``rot``: the card's rotation, when already known)."""
    from catzoo.games.ledges.state import SIDES

    if rot is None:
        rot = G.rotations(state.pose[card, 3:])[0]
    local = np.array([(spot[0] + sx * G.TOY_OFFSET, spot[1] + sy * G.TOY_OFFSET) for sx, sy in SIDES])
    cat = state.pose[card, :2] + rot[:2, :2] @ np.asarray(spot, dtype=float)
    return state.pose[card, :2] + local @ rot[:2, :2].T, cat


def bat_features(state) -> np.ndarray:
    """(32, 4): per bat action, expected points / 5, regret (expected points minus the
    best bat's, / 5), chance of staying, blocked."""
    piece = state.active_toy
    scene = Scene(state, state.start_card, skip_pieces=(piece,))
    start = state.pose[piece, :2][None, :]
    bottom = float(state.pose[piece, 2]) - G.TOY_HALF[2]
    from catzoo.games.ledges.state import TOY0

    icon = np.array([(piece - TOY0) % 4])
    e, stay, blocked = bat_outcomes(scene, start, bottom, icon, scene.obstacles, state.options.dexterity)
    out = np.zeros((NUM_BATS, BAT_FEATURES))
    out[:, 0] = e[0].reshape(-1) / POINTS_SCALE
    out[:, 1] = out[:, 0] - out[:, 0].max()
    out[:, 2] = stay[0].reshape(-1)
    out[:, 3] = np.repeat(blocked[0], len(P.BAT_SPEEDS)).astype(float)
    return out


def _best_from(state, card: int, spot, sides_ok, platforms: Platforms | None = None) -> np.ndarray:
    """(4 toys, 4 sides): the best expected points over the bats from each toy side."""
    p = state.current_player
    from catzoo.games.ledges.state import CAT0

    scene = Scene(state, card, skip_pieces=(CAT0 + p,), platforms=platforms)
    spots, cat_xy = toy_spots(state, card, spot, scene.src_rot)
    obstacles = scene.extra_obstacle(cat_xy[0], cat_xy[1], G.CAT_RADIUS)
    bottom = scene.src_top
    rows = np.repeat(np.arange(4), 4)  # side-major: (side, toy)
    icons = np.tile(np.arange(4), 4)
    # The cat beside the toy is not in the toy's way unless in front of it: drop obstacles
    # the start overlaps (as the heuristic does).
    keep = np.hypot(obstacles[None, :, 0] - spots[:, 0, None],
                    obstacles[None, :, 1] - spots[:, 1, None]) > 0.012  # side, obstacle
    e, _, _ = bat_outcomes(scene, spots, bottom, icons, obstacles, state.options.dexterity,
                           valid=keep, rows=rows)
    best = e.reshape(4, 4, -1).max(axis=2).T  # toy, side
    return np.where(np.asarray(sides_ok, dtype=bool)[None, :], best, 0.0)


def toy_features(state) -> np.ndarray:
    """(16, 2): per place-toy action (toy x side), the best bat's expected points / 5 and
    its regret (minus the best legal action's)."""
    from catzoo.games.ledges.state import TOY_BASE

    mask = state.legal_mask()
    sides_ok = [bool(mask[TOY_BASE:TOY_BASE + 16].reshape(4, 4)[:, k].any()) for k in range(4)]
    best = _best_from(state, state.cat_card, state.cat_spot, sides_ok)
    legal = mask[TOY_BASE:TOY_BASE + 16].astype(bool)
    value = np.where(legal, best.reshape(-1), 0.0) / POINTS_SCALE
    return _with_regret(value, legal)


def _with_regret(value: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """(len, 2): value and its regret (value minus the best legal value)."""
    top = value[legal].max() if legal.any() else 0.0
    return np.stack([value, value - top], axis=1)


def cat_features(state) -> np.ndarray:
    """(16, 2): per platform card, the best toy, side and bat's expected points / 5 from
    the cat's spot there (0 where the cat may not go) and its regret (minus the best legal
    card's)."""
    from catzoo.games.ledges.state import CAT_BASE

    mask = state.legal_mask()
    legal = mask[CAT_BASE:CAT_BASE + G.NUM_PLATFORMS].astype(bool)
    out = np.zeros(G.NUM_PLATFORMS)
    platforms = Platforms(state)
    for card in np.flatnonzero(mask[CAT_BASE:CAT_BASE + G.NUM_PLATFORMS]):
        found = state._cat_spot(int(card))
        if found is None:
            continue
        spot, sides = found
        best = _best_from(state, int(card), spot, [bool(sides >> k & 1) for k in range(4)],
                          platforms)
        out[card] = best.max() / POINTS_SCALE
    return _with_regret(out, legal)
