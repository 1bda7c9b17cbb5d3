"""Where a platform can be built: anchors in the world, the geometric legality of every
build action (vectorised over all of them at once) and the poses of a chosen build.

A build action is ``anchor * NUM_VARIANTS + variant``. It is legal when the supply holds its
pieces, its pillars stand wholly on the anchor's surface, and, in the tower as it stands:

* the new platform touches no other platform (3 mm clearance, sideways and vertically);
* the new platform passes through no pillar, cat or toy;
* no new pillar passes through a platform or another pillar (2 mm clearance).

A new pillar may overlap a cat or a toy: the piece is nudged aside as the pillar goes down
(the seed allows nudging), which may knock it over.
"""

from __future__ import annotations

import math

import numpy as np

from catzoo.games.ledges import geometry as G

TOUCH = 0.003  # platforms closer than this touch
PILLAR_CLEARANCE = 0.002
BUILD_TILT_LIMIT = math.radians(10.0)  # no building on a platform tilted more than this

# Unique footprints per anchor: 0 round platform, 1-4 rectangular at each orientation.
# Unique pillar footprints per anchor: 0 a round platform's pillar, 1 + 2t + j leg j of a
# rectangular platform at orientation t.
NUM_FP, NUM_LEG = 5, 9
V_FP = np.zeros(G.NUM_VARIANTS, dtype=np.intp)
V_LEGS = -np.ones((G.NUM_VARIANTS, 2), dtype=np.intp)
V_HEIGHTS = np.zeros((G.NUM_VARIANTS, 2))
V_ZLO = np.zeros(G.NUM_VARIANTS)
V_ZHI = np.zeros(G.NUM_VARIANTS)
V_SHAPE = np.zeros(G.NUM_VARIANTS, dtype=np.intp)
V_SHORT = np.zeros(G.NUM_VARIANTS, dtype=np.intp)
V_TALL = np.zeros(G.NUM_VARIANTS, dtype=np.intp)
for _v, (_shape, _sizes, _theta) in enumerate(G.VARIANTS):
    _t = G.ORIENTATIONS.index(_theta)
    _h = [G.PILLAR_H[s] for s in _sizes]
    V_SHAPE[_v] = _shape
    V_SHORT[_v] = _sizes.count(G.SHORT)
    V_TALL[_v] = _sizes.count(G.TALL)
    if _shape == G.ROUND:
        V_FP[_v], V_LEGS[_v, 0], V_HEIGHTS[_v, 0] = 0, 0, _h[0]
    else:
        V_FP[_v] = 1 + _t
        V_LEGS[_v] = (1 + 2 * _t, 2 + 2 * _t)
        V_HEIGHTS[_v] = _h
    V_ZLO[_v] = min(_h)
    V_ZHI[_v] = max(_h) + G.PLAT_T
FP_YAW = np.array([0.0] + [math.radians(t) for t in G.ORIENTATIONS])
FP_HX = np.array([G.ROUND_R] + [G.RECT_HALF[0]] * 4)
FP_HY = np.array([G.ROUND_R] + [G.RECT_HALF[1]] * 4)
FP_R = np.array([G.ROUND_R] + [0.0] * 4)
# Leg offsets in the anchor surface's frame and the yaw of each leg footprint.
LEG_LOCAL = np.zeros((NUM_LEG, 2))
LEG_YAW = np.zeros(NUM_LEG)
for _t, _theta in enumerate(G.ORIENTATIONS):
    _d = np.array([math.cos(math.radians(_theta)), math.sin(math.radians(_theta))]) * G.LEG_OFFSET
    LEG_LOCAL[1 + 2 * _t] = -_d
    LEG_LOCAL[2 + 2 * _t] = _d
    LEG_YAW[1 + 2 * _t] = LEG_YAW[2 + 2 * _t] = math.radians(_theta)

TABLE_FIT = np.ones((G.NUM_TABLE_ANCHORS, G.NUM_VARIANTS), dtype=bool)


def anchor_frames(state) -> dict:
    """Every anchor that exists now: global anchor id, world x, y, z of the surface, the
    surface's heading, its platform card (-1 the table) and which variants fit on it."""
    ids = [np.arange(G.NUM_TABLE_ANCHORS)]
    xy = [G.TABLE_ANCHORS]
    z = [np.zeros(G.NUM_TABLE_ANCHORS)]
    yaw = [np.zeros(G.NUM_TABLE_ANCHORS)]
    base = [-np.ones(G.NUM_TABLE_ANCHORS, dtype=np.intp)]
    fit = [TABLE_FIT]
    cards = [c for c in range(G.NUM_PLATFORMS) if state.onboard[c]]
    if cards:
        rot = G.rotations(state.pose[cards, 3:])
        tilts = G.tilt_of(rot)
        for c, r, tilt in zip(cards, rot, tilts):
            if tilt > BUILD_TILT_LIMIT:
                continue
            shape = G.platform_shape(c)
            local = np.column_stack([
                G.PLATFORM_ANCHORS[shape], np.full(G.ANCHORS_PER_PLATFORM, G.PLAT_T / 2)
            ])
            world = state.pose[c, :3] + local @ r.T
            ids.append(G.NUM_TABLE_ANCHORS + c * G.ANCHORS_PER_PLATFORM + np.arange(G.ANCHORS_PER_PLATFORM))
            xy.append(world[:, :2])
            z.append(world[:, 2])
            yaw.append(np.full(G.ANCHORS_PER_PLATFORM, float(G.yaw_of(r))))
            base.append(np.full(G.ANCHORS_PER_PLATFORM, c, dtype=np.intp))
            fit.append(G.STATIC_FIT[shape])
    return {
        "id": np.concatenate(ids), "xy": np.concatenate(xy), "z": np.concatenate(z),
        "yaw": np.concatenate(yaw), "base": np.concatenate(base), "fit": np.concatenate(fit),
    }


def anchor_frame(state, anchor: int) -> tuple[np.ndarray, float, float, int]:
    """(world x y, surface z, heading, base card or -1) of one anchor."""
    if anchor < G.NUM_TABLE_ANCHORS:
        return G.TABLE_ANCHORS[anchor].copy(), 0.0, 0.0, -1
    card, k = divmod(anchor - G.NUM_TABLE_ANCHORS, G.ANCHORS_PER_PLATFORM)
    rot = G.rotations(state.pose[card, 3:])[0]
    local = np.array([*G.PLATFORM_ANCHORS[G.platform_shape(card)][k], G.PLAT_T / 2])
    world = state.pose[card, :3] + rot @ local
    return world[:2], float(world[2]), float(G.yaw_of(rot)), card


def _existing(state):
    """Footprints and height ranges of the platforms, pillars and loose pieces on the table."""
    pose, on = state.pose, state.onboard
    plats = [c for c in range(G.NUM_PLATFORMS) if on[c]]
    pills = [16 + i for i in range(G.NUM_PILLARS) if on[16 + i]]
    loose = [i for i in range(40, 60) if on[i]]
    out = {}
    if plats:
        rot = G.rotations(pose[plats, 3:])
        tilt = G.tilt_of(rot)
        shapes = [G.platform_shape(c) for c in plats]
        hx = np.array([G.platform_footprint_params(s)[0] for s in shapes])
        hy = np.array([G.platform_footprint_params(s)[1] for s in shapes])
        r = np.array([G.platform_footprint_params(s)[2] for s in shapes])
        ext = G.PLAT_T / 2 * np.cos(tilt) + np.maximum(hx, hy) * np.sin(tilt)
        out["plat"] = (
            G.footprints(pose[plats, 0], pose[plats, 1], G.yaw_of(rot), hx, hy, r),
            pose[plats, 2] - ext, pose[plats, 2] + ext, np.array(plats),
        )
    if pills:
        rot = G.rotations(pose[pills, 3:])
        half_h = np.array([G.PILLAR_H[G.pillar_size(p - 16)] / 2 for p in pills])
        out["pill"] = (
            G.footprints(pose[pills, 0], pose[pills, 1], G.yaw_of(rot), G.PILLAR_W / 2, G.PILLAR_W / 2, 0.0),
            pose[pills, 2] - half_h, pose[pills, 2] + half_h,
        )
    if loose:
        rot = G.rotations(pose[loose, 3:])
        half = np.array([G.CAT_HALF if i < 44 else G.TOY_HALF for i in loose])
        out["loose"] = (
            G.footprints(pose[loose, 0], pose[loose, 1], G.yaw_of(rot), half[:, 0], half[:, 1], 0.0),
            pose[loose, 2] - half[:, 2], pose[loose, 2] + half[:, 2],
        )
    return out


def _concat(parts: list[dict]) -> dict:
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def legal_builds(state, available: np.ndarray) -> np.ndarray:
    """Bool vector over the build actions (``NUM_ANCHORS * NUM_VARIANTS``): legal now, given
    which variants the supply allows (``available``, one bool per variant)."""
    out = np.zeros(G.NUM_ANCHORS * G.NUM_VARIANTS, dtype=bool)
    if not available.any():
        return out
    frames = anchor_frames(state)
    ok = frames["fit"] & available[None, :]
    a_idx, v_idx = np.nonzero(ok)
    if a_idx.size == 0:
        return out
    n_anchor = len(frames["id"])
    ax, ay = frames["xy"][:, 0], frames["xy"][:, 1]
    az, ayaw, abase = frames["z"], frames["yaw"], frames["base"]

    # Unique platform footprints (anchor x 5) and pillar footprints (anchor x 9).
    fp = G.footprints(
        np.repeat(ax, NUM_FP), np.repeat(ay, NUM_FP), (ayaw[:, None] + FP_YAW[None, :]).ravel(),
        np.tile(FP_HX, n_anchor), np.tile(FP_HY, n_anchor), np.tile(FP_R, n_anchor),
    )
    c, s = np.cos(ayaw)[:, None], np.sin(ayaw)[:, None]
    lx = ax[:, None] + c * LEG_LOCAL[None, :, 0] - s * LEG_LOCAL[None, :, 1]
    ly = ay[:, None] + s * LEG_LOCAL[None, :, 0] + c * LEG_LOCAL[None, :, 1]
    legs = G.footprints(
        lx.ravel(), ly.ravel(), (ayaw[:, None] + LEG_YAW[None, :]).ravel(),
        G.PILLAR_W / 2, G.PILLAR_W / 2, 0.0,
    )
    existing = _existing(state)
    fp_row = a_idx * NUM_FP + V_FP[v_idx]
    z0 = az[a_idx]
    plo, phi = z0 + V_ZLO[v_idx], z0 + V_ZHI[v_idx]
    bad = np.zeros(a_idx.size, dtype=bool)
    # One overlap test of the new platforms against everything standing, one of the new
    # pillars against the platforms and pillars (margins per kind of obstacle).
    kinds = [k for k in ("plat", "pill", "loose") if k in existing]
    if kinds:
        obstacles = _concat([existing[k][0] for k in kinds])
        sizes = [len(existing[k][1]) for k in kinds]
        e_lo = np.concatenate([existing[k][1] for k in kinds])
        e_hi = np.concatenate([existing[k][2] for k in kinds])
        xy_margin = np.concatenate([np.full(sz, {"plat": TOUCH, "pill": 0.0, "loose": 0.0}[k])
                                    for k, sz in zip(kinds, sizes)])
        z_margin = np.concatenate([np.full(sz, {"plat": TOUCH, "pill": -0.0005, "loose": 0.0}[k])
                                   for k, sz in zip(kinds, sizes)])
        xy = G.footprint_overlap(fp, obstacles, xy_margin[None, :])
        zov = (plo[:, None] < e_hi[None, :] + z_margin) & (phi[:, None] > e_lo[None, :] - z_margin)
        bad |= (xy[fp_row] & zov).any(1)
        solid = [k for k in ("plat", "pill") if k in existing]
        if solid:
            count = sum(len(existing[k][1]) for k in solid)
            leg_margin = xy_margin[:count].copy()
            is_plat = np.zeros(count, dtype=bool)
            if "plat" in existing:
                n_plat = len(existing["plat"][1])
                leg_margin[:n_plat] = 0.0
                is_plat[:n_plat] = True
            leg_margin[~is_plat] = PILLAR_CLEARANCE
            leg_xy = G.footprint_overlap(legs, _concat([existing[k][0] for k in solid]), leg_margin[None, :])
            s_lo, s_hi = e_lo[:count], e_hi[:count]
            cards = np.full(count, -3)
            if "plat" in existing:
                cards[:n_plat] = existing["plat"][3]
            not_base = abase[a_idx][:, None] != cards[None, :]
            for j in range(2):
                has = V_LEGS[v_idx, j] >= 0
                rows = a_idx * NUM_LEG + np.maximum(V_LEGS[v_idx, j], 0)
                llo, lhi = z0 + 0.001, z0 + V_HEIGHTS[v_idx, j]
                z_hit = (llo[:, None] < s_hi[None, :]) & (lhi[:, None] > s_lo[None, :])
                hit = leg_xy[rows] & z_hit & not_base
                bad |= has & hit.any(1)

    good = ~bad
    out[frames["id"][a_idx[good]] * G.NUM_VARIANTS + v_idx[good]] = True
    return out


def placement(state, anchor: int, variant: int) -> dict:
    """Intended poses of a build: ``legs`` [(x, y, z_bottom, yaw, height)], the platform's
    ``pos`` and ``quat``, its designed ``tilt``, the ``base`` card (-1 the table)."""
    xy, z0, base_yaw, base = anchor_frame(state, anchor)
    shape, sizes, theta = G.VARIANTS[variant]
    yaw = base_yaw + math.radians(theta)
    c, s = math.cos(yaw), math.sin(yaw)
    legs = []
    offsets = (0.0,) if shape == G.ROUND else (-G.LEG_OFFSET, G.LEG_OFFSET)
    for ox, size in zip(offsets, sizes):
        legs.append((xy[0] + c * ox, xy[1] + s * ox, z0, yaw, G.PILLAR_H[size]))
    heights = [G.PILLAR_H[size] for size in sizes]
    if shape == G.ROUND or heights[0] == heights[-1]:
        pitch, zm = 0.0, heights[0]
    else:
        dh = heights[1] - heights[0]
        pitch = math.atan2(dh, 2 * G.LEG_OFFSET)
        # It rests on the higher pillar's inner edge and the lower pillar's outer edge.
        inner = G.LEG_OFFSET - G.PILLAR_W / 2
        zm = max(heights) - inner * abs(dh) / (2 * G.LEG_OFFSET)
    quat = G.quat_yaw_pitch(yaw, pitch)
    normal = G.rotations(quat)[0][:, 2]
    pos = np.array([xy[0], xy[1], z0 + zm]) + normal * G.PLAT_T / 2
    return {"legs": legs, "pos": pos, "quat": quat, "tilt": abs(pitch), "base": base,
            "shape": shape, "sizes": sizes, "yaw": yaw}
