"""Components, anchors and plane geometry of Cats Knocking Things Off Ledges.

Every size is in metres, every mass in kilograms; the choices (the seed gives none) are
documented with their reasons in docs/rules/ledges.md. The table is the plane z = 0.

Building uses a discrete set of *anchors*: 49 on the table (a 7 x 7 grid, 4 cm apart,
centred on the starting platform) and 9 on each platform (in the platform's own frame, so
they move and turn with it). A build *variant* says which platform and pillars go there and
how they are turned; the pillars stand on the anchor's surface, the platform is centred
above the anchor.
"""

from __future__ import annotations

import math

import numpy as np

# --- components ---------------------------------------------------------------------------
SHORT, TALL = 0, 1
PILLAR_NAMES = ("short", "tall")
PILLAR_W = 0.020  # square section, 2 cm
PILLAR_H = (0.040, 0.085)  # a tall pillar plus a platform is exactly two short storeys
PILLAR_UNITS = (1, 2)  # pillar lengths: short 1, tall 2 (the seed's scoring unit)
PILLAR_DENSITY = 600.0  # wood

RECT, ROUND = 0, 1
SHAPE_NAMES = ("rectangular", "round")
PLAT_T = 0.005  # platform card mounted on board, 5 mm
RECT_HALF = (0.050, 0.035)  # 10 x 7 cm
ROUND_R = 0.040  # 8 cm across
PLAT_DENSITY = 700.0
LEG_OFFSET = 0.025  # a rectangular platform's pillars stand 2.5 cm either side of its centre

STOREY = PILLAR_H[SHORT] + PLAT_T  # 4.5 cm: one pillar length of height

CAT_HALF = (0.011, 0.008, 0.015)  # 2.2 x 1.6 x 3 cm
CAT_MASS = 0.008
TOY_HALF = (0.007, 0.007, 0.005)  # 1.4 x 1.4 x 1 cm
TOY_MASS = 0.003
CAT_RADIUS = math.hypot(CAT_HALF[0], CAT_HALF[1])
TOY_RADIUS = math.hypot(TOY_HALF[0], TOY_HALF[1])
PILLAR_RADIUS = PILLAR_W / math.sqrt(2)
TOY_OFFSET = 0.024  # a placed toy sits this far from its cat's centre
# Where a cat may be set on a platform (its frame), tried in order: the first spot clear of
# the pillars standing on the platform, and with room for a toy on at least one side.
CAT_SPOTS = (
    ((0.0, 0.0), (0.03, 0.0), (-0.03, 0.0), (0.0, 0.018), (0.0, -0.018),
     (0.03, 0.018), (-0.03, 0.018), (0.03, -0.018), (-0.03, -0.018)),
    ((0.0, 0.0),) + tuple((round(0.016 * math.cos(k * math.pi / 4), 6),
                           round(0.016 * math.sin(k * math.pi / 4), 6)) for k in range(8)),
)
SPOT_CLEARANCE = 0.003  # between a placed cat or toy and a pillar standing on its platform

FRICTION = (0.45, 0.005, 0.0001)  # sliding, torsional, rolling: card and wood
# A sliding piece's deceleration (mu g), for the point-mass model of a bat that the
# heuristic plans with and the aiming features evaluate.
MU_G = FRICTION[0] * 9.81

# --- pieces and icons -----------------------------------------------------------------------
NUM_PLATFORMS = 16  # cards 0-7 rectangular, 8-15 round
NUM_PILLARS = 24  # 0-11 short, 12-23 tall
ICONS = ("yarn", "mouse", "fish", "feather")
NUM_ICONS = 4
TOYS_PER_CAT = 4
CAT_NAMES = ("Ruben", "Ivy", "Cheese", "Flapjack")


def platform_shape(card: int) -> int:
    return RECT if card < 8 else ROUND


def platform_icon(card: int) -> int:
    return card % NUM_ICONS


def pillar_size(pillar: int) -> int:
    return SHORT if pillar < 12 else TALL


# --- anchors --------------------------------------------------------------------------------
TABLE_GRID = 7
TABLE_STEP = 0.04
TABLE_ANCHORS = np.array(
    [((c - 3) * TABLE_STEP, (r - 3) * TABLE_STEP) for r in range(TABLE_GRID) for c in range(TABLE_GRID)]
)
NUM_TABLE_ANCHORS = len(TABLE_ANCHORS)
RECT_ANCHORS = np.array([((i - 1) * 0.03, (j - 1) * 0.02) for i in range(3) for j in range(3)])
ROUND_RING = 0.022
ROUND_ANCHORS = np.array(
    [(0.0, 0.0)]
    + [(ROUND_RING * math.cos(k * math.pi / 4), ROUND_RING * math.sin(k * math.pi / 4)) for k in range(8)]
)
ANCHORS_PER_PLATFORM = 9
PLATFORM_ANCHORS = (RECT_ANCHORS, ROUND_ANCHORS)
NUM_ANCHORS = NUM_TABLE_ANCHORS + NUM_PLATFORMS * ANCHORS_PER_PLATFORM  # 193

# --- build variants -------------------------------------------------------------------------
ORIENTATIONS = (0.0, 45.0, 90.0, 135.0)
RECT_SIZES = ((SHORT, SHORT), (SHORT, TALL), (TALL, SHORT), (TALL, TALL))
# (shape, pillar sizes, orientation in degrees relative to the anchor's surface)
VARIANTS: tuple[tuple[int, tuple[int, ...], float], ...] = (
    (ROUND, (SHORT,), 0.0),
    (ROUND, (TALL,), 0.0),
    *((RECT, sizes, theta) for sizes in RECT_SIZES for theta in ORIENTATIONS),
)
NUM_VARIANTS = len(VARIANTS)  # 18


def variant_legs(variant: int) -> np.ndarray:
    """Leg centres relative to the anchor, in the anchor surface's frame: (n_legs, 2)."""
    shape, _, theta = VARIANTS[variant]
    if shape == ROUND:
        return np.zeros((1, 2))
    t = math.radians(theta)
    d = np.array([math.cos(t), math.sin(t)]) * LEG_OFFSET
    return np.stack([-d, d])


def variant_needs(variant: int) -> tuple[int, int, int]:
    """(shape, short pillars, tall pillars) a variant takes from the supply."""
    shape, sizes, _ = VARIANTS[variant]
    return shape, sizes.count(SHORT), sizes.count(TALL)


SURFACE_MARGIN = 0.001  # a pillar must stand wholly on its surface, 1 mm from the rim


def _square_corners(cx: float, cy: float, yaw: float, half: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    pts = []
    for sx, sy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        pts.append((cx + c * sx * half - s * sy * half, cy + s * sx * half + c * sy * half))
    return np.array(pts)


def legs_fit(shape: int, anchor: tuple[float, float], variant: int) -> bool:
    """Whether every pillar of ``variant`` at ``anchor`` stands wholly on a platform of
    ``shape`` (in the platform's frame)."""
    theta = math.radians(VARIANTS[variant][2])
    for leg in variant_legs(variant):
        corners = _square_corners(anchor[0] + leg[0], anchor[1] + leg[1], theta, PILLAR_W / 2)
        if shape == RECT:
            if (np.abs(corners[:, 0]) > RECT_HALF[0] - SURFACE_MARGIN).any():
                return False
            if (np.abs(corners[:, 1]) > RECT_HALF[1] - SURFACE_MARGIN).any():
                return False
        elif (np.hypot(corners[:, 0], corners[:, 1]) > ROUND_R - SURFACE_MARGIN).any():
            return False
    return True


# STATIC_FIT[shape][anchor, variant]: the variant's pillars fit on that platform anchor.
STATIC_FIT = tuple(
    np.array([[legs_fit(shape, tuple(a), v) for v in range(NUM_VARIANTS)] for a in anchors])
    for shape, anchors in ((RECT, RECT_ANCHORS), (ROUND, ROUND_ANCHORS))
)


# --- rotations (quaternions are MuJoCo's w, x, y, z) -------------------------------------------
def quat_yaw(yaw: float) -> np.ndarray:
    return np.array([math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)])


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    ])


def quat_yaw_pitch(yaw: float, pitch: float) -> np.ndarray:
    """Turn by ``yaw`` about z after raising the local +x axis by ``pitch``."""
    q_pitch = np.array([math.cos(-pitch / 2), 0.0, math.sin(-pitch / 2), 0.0])
    return quat_mul(quat_yaw(yaw), q_pitch)


def rotations(quats: np.ndarray) -> np.ndarray:
    """Rotation matrices (n, 3, 3) of quaternions (n, 4)."""
    q = np.asarray(quats, dtype=np.float64).reshape(-1, 4)
    if len(q) == 1:
        one = _rotation_of_one(*q[0].tolist())
        if one is not None:
            return one
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    r = np.empty((len(q), 3, 3))
    r[:, 0, 0] = 1 - 2 * (y * y + z * z)
    r[:, 0, 1] = 2 * (x * y - w * z)
    r[:, 0, 2] = 2 * (x * z + w * y)
    r[:, 1, 0] = 2 * (x * y + w * z)
    r[:, 1, 1] = 1 - 2 * (x * x + z * z)
    r[:, 1, 2] = 2 * (y * z - w * x)
    r[:, 2, 0] = 2 * (x * z - w * y)
    r[:, 2, 1] = 2 * (y * z + w * x)
    r[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return r


def _rotation_of_one(w: float, x: float, y: float, z: float) -> np.ndarray | None:
    """``rotations`` of one quaternion, in Python floats: the same operations in the same
    order as the array code (the norm's sum of squares left to right, as numpy reduces four
    numbers), so the same bits, at a tenth of the numpy calls' cost (the engine asks for
    one platform's rotation thousands of times a game). None for a quaternion of norm 0 or
    not finite, which the array code answers (with numpy's nan and inf)."""
    norm = math.sqrt(w * w + x * x + y * y + z * z)
    if not 0.0 < norm < math.inf:
        return None
    w, x, y, z = w / norm, x / norm, y / norm, z / norm
    return np.array([[
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]])


def yaw_of(rot: np.ndarray) -> np.ndarray:
    """Heading of the local x axis, from rotation matrices (..., 3, 3)."""
    return np.arctan2(rot[..., 1, 0], rot[..., 0, 0])


def tilt_of(rot: np.ndarray) -> np.ndarray:
    """Angle in radians between the local z axis and the vertical."""
    return np.arccos(np.clip(rot[..., 2, 2], -1.0, 1.0))


# --- plane overlap tests (vectorised; footprints are boxes or discs) ----------------------------
# Slack (m) on the bounding-circle test that picks the pairs worth the exact test: far above
# the rounding of a distance of a few decimetres, far below any clearance of the game.
NEAR_SLACK = 1e-6


def footprint_overlap(a: dict, b: dict, margin) -> np.ndarray:
    """Pairwise overlap (len(a) x len(b) bool) of two sets of plane footprints, each given as
    arrays ``x, y, yaw, hx, hy, r`` (``r > 0`` marks a disc of radius ``r``), grown by
    ``margin`` (a number, or one per footprint of ``b`` as a (1, len(b)) array; negative
    margins shrink).

    Only the pairs whose bounding circles come within reach (their radii, ``sqrt(2)``
    times a positive margin and ``NEAR_SLACK``) get the exact test: every other pair is
    apart whatever the turn of either footprint (a box grown by ``m`` on each side lies
    within its circumradius plus ``sqrt(2) m``), so the result is the exact test's on
    every pair, at the cost of the few pairs that are close."""
    n_a, n_b = len(a["x"]), len(b["x"])
    out = np.zeros((n_a, n_b), dtype=bool)
    if n_a == 0 or n_b == 0:
        return out
    m = np.broadcast_to(np.asarray(margin, dtype=np.float64), (1, n_b))
    dx = b["x"][None, :] - a["x"][:, None]
    dy = b["y"][None, :] - a["y"][:, None]
    a_disc, b_disc = a["r"] > 0, b["r"] > 0
    reach_a = np.where(a_disc, a["r"], np.hypot(a["hx"], a["hy"]))
    reach_b = np.where(b_disc, b["r"], np.hypot(b["hx"], b["hy"]))
    reach = reach_a[:, None] + (reach_b + math.sqrt(2.0) * np.maximum(m[0], 0.0) + NEAR_SLACK)[None, :]
    i, j = np.nonzero(dx * dx + dy * dy <= reach * reach)
    if i.size == 0:
        return out
    pdx, pdy, pm = dx[i, j], dy[i, j], m[0, j]
    pa, pb = a_disc[i], b_disc[j]
    hit = np.zeros(i.size, dtype=bool)
    box = ~pa & ~pb
    if box.any():
        k = np.flatnonzero(box)
        hit[k] = _box_box(_pair(a, i[k]), _pair(b, j[k]), pdx[k], pdy[k], pm[k])
    k = np.flatnonzero(pa & ~pb)  # a disc of a, a box of b: the disc's offset from the box
    if k.size:
        hit[k] = _disc_box(a["r"][i[k]], _pair(b, j[k]), -pdx[k], -pdy[k], pm[k])
    k = np.flatnonzero(~pa & pb)
    if k.size:
        hit[k] = _disc_box(b["r"][j[k]], _pair(a, i[k]), pdx[k], pdy[k], pm[k])
    k = np.flatnonzero(pa & pb)
    if k.size:
        hit[k] = np.hypot(pdx[k], pdy[k]) < a["r"][i[k]] + b["r"][j[k]] + pm[k]
    out[i, j] = hit
    return out


def _pair(fp: dict, rows: np.ndarray) -> dict:
    """The footprints ``rows`` of ``fp``, with the cosine and sine of their turn (taken on
    the whole array, then picked, so each is the value the whole array's test uses)."""
    return {"c": np.cos(fp["yaw"])[rows], "s": np.sin(fp["yaw"])[rows],
            "hx": fp["hx"][rows], "hy": fp["hy"][rows]}


def _box_box(a, b, dx, dy, margin):
    """Separating-axis test of box pairs (one pair per element), the boxes' own axes."""
    ca, sa, cb, sb = a["c"], a["s"], b["c"], b["s"]
    ahx, ahy, bhx, bhy = a["hx"], a["hy"], b["hx"], b["hy"]
    separated = np.zeros(dx.shape, dtype=bool)
    for nx, ny in ((ca, sa), (-sa, ca), (cb, sb), (-sb, cb)):
        ext_a = ahx * np.abs(nx * ca + ny * sa) + ahy * np.abs(-nx * sa + ny * ca)
        ext_b = bhx * np.abs(nx * cb + ny * sb) + bhy * np.abs(-nx * sb + ny * cb)
        separated |= np.abs(dx * nx + dy * ny) >= ext_a + ext_b + margin
    return ~separated


def _disc_box(r, box, dx, dy, margin):
    """Discs of radius ``r`` at offset (dx, dy) from box centres, one pair per element."""
    c, s, hx, hy = box["c"], box["s"], box["hx"], box["hy"]
    lx = dx * c + dy * s
    ly = -dx * s + dy * c
    qx = np.clip(lx, -hx, hx)
    qy = np.clip(ly, -hy, hy)
    return np.hypot(lx - qx, ly - qy) < r + margin


def footprints(x, y, yaw, hx, hy, r) -> dict:
    n = len(np.atleast_1d(x))

    def arr(v):
        return np.broadcast_to(np.asarray(v, dtype=np.float64), (n,)).copy()

    return {"x": arr(x), "y": arr(y), "yaw": arr(yaw), "hx": arr(hx), "hy": arr(hy), "r": arr(r)}


def platform_footprint_params(shape: int) -> tuple[float, float, float]:
    """(hx, hy, r) of a platform shape's footprint."""
    if shape == RECT:
        return RECT_HALF[0], RECT_HALF[1], 0.0
    return ROUND_R, ROUND_R, ROUND_R


def inside_platform(shape: int, local_x: np.ndarray, local_y: np.ndarray, tol: float = 0.0):
    """Whether points in a platform's frame lie on its surface (grown by ``tol``)."""
    if shape == RECT:
        return (np.abs(local_x) <= RECT_HALF[0] + tol) & (np.abs(local_y) <= RECT_HALF[1] + tol)
    return np.hypot(local_x, local_y) <= ROUND_R + tol


def convex_hull(points: np.ndarray, decimals: int = 6) -> np.ndarray:
    """The convex hull of 2-D points, counter-clockwise (Andrew's monotone chain).

    Written here rather than taken from scipy.spatial: the outlines drawn have at most a
    few dozen points, and scipy would be a large dependency for these fifteen lines.
    """
    pts = sorted(set(map(tuple, np.round(points, decimals))))
    if len(pts) <= 2:
        return np.array(pts)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])
