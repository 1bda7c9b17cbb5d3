"""The Cats Knocking Things Off Ledges heuristic: build a tall centre and low landings
around it, then bat towards the largest drop onto a platform with the toy's icon.

It reads only its own observation (decoded through the game's layout) and the action
mask; it plans with the documented component sizes and a point-mass model of a bat
(sliding friction to the edge, a free fall, a shorter slide after landing), not with the
physics engine.

* build: never a tilted platform (pillars of two sizes under one rectangle). When the
  highest platform (level 2 or more) has no lower landing platform 7-16 cm from it, or is
  already at level 5, it builds a landing on the table about 11 cm from it, away from the
  other landings, long axis towards the tower (rectangular on two short pillars, else
  round on a short one); otherwise it builds up, in the middle of the highest platform
  (rectangular on two tall pillars lengthwise, else round on a tall one);
* cat: the legal platform with the best target, a lower platform within reach, valued by
  the drop in pillar lengths + 1 (the toy it will take matches the target's icon);
* toy: the toy and side of the cat from which the best of the four best targets can be
  reached with the smallest predicted miss (the toy whose icon is the target's);
* bat: the direction (of 8) and strength whose predicted resting point is nearest the
  target's centre, among the directions not blocked by a pillar, cat or toy standing on
  the platform; it never stops batting while a bat is left.
"""

from __future__ import annotations

import math

import numpy as np

from catzoo.games.ledges import geometry as G
from catzoo.games.ledges import physics as P
from catzoo.games.ledges.layout import (
    LEVEL_SCALE,
    OPTION_FEATURES,
    POS_SCALE,
    Z_SCALE,
    layout_for,
)
from catzoo.games.ledges.state import (
    BAT_BASE,
    CAT_BASE,
    NUM_BUILD,
    SIDES,
    STOP,
    TOY_BASE,
)
from catzoo.policies.base import legal_actions
from catzoo.policies.random_policy import SeededPolicy

MU_G = G.MU_G
LANDING_RANGE = (0.07, 0.16)
LANDING_DISTANCE = 0.11
TARGET_HEIGHT = 5.0
TILTED = -100.0  # a build's score when its platform would tilt (pillars of two sizes): it slides off


class LedgesHeuristic(SeededPolicy):
    name = "heuristic"
    # Builds of equal score are told apart by a small random draw (``rng``); without it
    # (``random_ties`` False) the first of them is taken, so the bot is a function of its
    # observation (the ``ledges_aimer`` input features need one).
    random_ties = True

    def __init__(self, num_players: int = 2, seed: int | None = None):
        if num_players not in (2, 3, 4):
            raise ValueError(f"ledges is a 2-4 player game, got num_players={num_players}")
        super().__init__(seed)
        self.num_players = num_players
        self.layout = layout_for(num_players)

    # --- reading the observation ---------------------------------------------------------------
    def _platforms(self, parts) -> list[dict]:
        rows = parts["platforms"].reshape(G.NUM_PLATFORMS, -1)
        out = []
        for card, r in enumerate(rows):
            if r[0] < 0.5:
                continue
            out.append({
                "card": card, "shape": G.platform_shape(card), "icon": G.platform_icon(card),
                "x": float(r[7]) * POS_SCALE, "y": float(r[8]) * POS_SCALE,
                "z": float(r[9]) * Z_SCALE, "level": float(r[10]) * LEVEL_SCALE,
                "yaw": math.atan2(float(r[12]), float(r[11])), "cat": r[15] > 0.5,
            })
        return out

    def act(self, observation, *, state=None, player=None) -> int:
        legal = legal_actions(observation)
        obs = observation["observation"]
        # The aiming features (env option aim_features) come last and are not read here:
        # the heuristic plays the same with or without them.
        sizes = (self.layout.obs_size, self.layout.obs_size + OPTION_FEATURES)
        if obs.shape[0] not in sizes:
            raise ValueError(
                f"ledges heuristic: observation of size {obs.shape[0]}, expected "
                f"{sizes[0]} (or {sizes[1]} with aim_features) for {self.num_players} players"
            )
        parts = self.layout.decode(obs)
        plats = self._platforms(parts)
        phase = int(np.argmax(parts["phase"]))
        if phase == 0 and legal[0] < NUM_BUILD:
            return self._build(legal[legal < NUM_BUILD], plats)
        if phase == 1:
            return self._cat(legal, plats)
        if phase == 2:
            return self._toy(legal, parts, plats)
        return self._bat(legal, parts, plats)

    # --- build ------------------------------------------------------------------------------------
    def _build(self, legal: np.ndarray, plats: list[dict]) -> int:
        scores = self.build_scores(legal, plats)
        if self.random_ties:
            scores = scores + self.rng.random(len(legal)) * 1e-3
        return int(legal[np.argmax(scores)])  # the first of equals

    def build_scores(self, legal: np.ndarray, plats: list[dict], mode: str | None = None) -> np.ndarray:
        """Each legal build's score (higher first) under the plan ``mode``, "up" or
        "landing" (None: the one the tower calls for, as the bot builds)."""
        by_card = {p["card"]: p for p in plats}
        top = max(plats, key=lambda p: (p["level"], -math.hypot(p["x"], p["y"])))
        landings = [p for p in plats if p["level"] <= top["level"] - 1
                    and _within(math.hypot(p["x"] - top["x"], p["y"] - top["y"]), LANDING_RANGE)]
        if mode is None:
            high = top["level"] >= TARGET_HEIGHT or (top["level"] >= 2 and not landings)
            mode = "landing" if high else "up"
        headings = [math.atan2(p["y"] - top["y"], p["x"] - top["x"]) for p in landings]
        out = np.empty(len(legal))
        for i, action in enumerate(legal):
            anchor, variant = divmod(int(action), G.NUM_VARIANTS)
            shape, sizes, theta = G.VARIANTS[variant]
            if len(set(sizes)) > 1:
                score = TILTED
            elif anchor < G.NUM_TABLE_ANCHORS:
                x, y = G.TABLE_ANCHORS[anchor]
                d = math.hypot(x - top["x"], y - top["y"])
                score = 1.0 - abs(d - LANDING_DISTANCE) * 20 + (1.0 if sizes[0] == G.SHORT else 0.0)
                if shape == G.RECT:
                    score += 1.0
                    # long axis towards the tower catches more
                    heading = math.atan2(top["y"] - y, top["x"] - x)
                    score += 0.5 * abs(math.cos(heading - math.radians(theta)))
                if mode == "landing" and LANDING_RANGE[0] <= d <= LANDING_RANGE[1] and sizes[0] == G.SHORT:
                    score += 50.0
                    here = math.atan2(y - top["y"], x - top["x"])
                    if headings:  # away from the landings already there
                        score += 3.0 * min(abs(math.remainder(here - h, 2 * math.pi)) for h in headings)
                if d < LANDING_RANGE[0]:
                    score -= 5.0
            else:
                card, k = divmod(anchor - G.NUM_TABLE_ANCHORS, G.ANCHORS_PER_PLATFORM)
                base = by_card.get(card)
                centre = k == (4 if G.platform_shape(card) == G.RECT else 0)
                score = -10.0
                if base is not None and centre:
                    score = 0.5 * base["level"] + (1.0 if sizes[0] == G.TALL else 0.0)
                    if base["level"] + G.PILLAR_UNITS[sizes[0]] > TARGET_HEIGHT + 1:
                        score -= 20.0  # high enough: taller only makes the bats wilder
                    if shape == G.RECT and G.platform_shape(card) == G.RECT and theta == 0.0:
                        score += 2.0  # two pillars lengthwise on a rectangle: the steadiest
                    if mode == "up" and base["card"] == top["card"]:
                        score += 100.0
            out[i] = score
        return out

    # --- targets ------------------------------------------------------------------------------------
    def _targets(self, src: dict, plats: list[dict]) -> list[tuple[float, dict]]:
        out = []
        for p in plats:
            if p["card"] == src["card"] or p["level"] > src["level"] - 0.5:
                continue
            d = math.hypot(p["x"] - src["x"], p["y"] - src["y"])
            if d < 0.06 or d > 0.22:
                continue
            value = math.floor(src["level"] - p["level"] + 0.5) + 1.0 - 3.0 * max(0.0, d - 0.14)
            out.append((value, p))
        out.sort(key=lambda t: -t[0])
        return out

    def _cat(self, legal: np.ndarray, plats: list[dict]) -> int:
        by_card = {p["card"]: p for p in plats}
        best, best_value = int(legal[0]), -math.inf
        for action in legal:
            src = by_card.get(int(action) - CAT_BASE)
            if src is None:
                continue
            targets = self._targets(src, plats)
            value = targets[0][0] if targets else src["level"] * 0.01
            if value > best_value:
                best, best_value = int(action), value
        return best

    def _my_cat_platform(self, parts, plats) -> dict | None:
        cat = parts["cat"][0]
        if cat[0] < 0.5 or not cat[4:].any():
            return None
        card = int(np.argmax(cat[4:]))
        return next((p for p in plats if p["card"] == card), None)

    def _obstacles(self, parts, plats, src: dict, skip_toy: int | None) -> list[tuple[float, float, float]]:
        """(x, y, radius) of what stands on ``src``: the pillars of the platforms built on
        it, and the cats and toys resting on it (the moving toy excepted)."""
        out = []
        for p in plats:
            if p["card"] == src["card"] or p["z"] <= src["z"] + 0.01:
                continue
            legs = [(0.0, 0.0)] if p["shape"] == G.ROUND else [(-G.LEG_OFFSET, 0.0), (G.LEG_OFFSET, 0.0)]
            gap = (p["z"] - G.PLAT_T / 2) - (src["z"] + G.PLAT_T / 2)
            if min(abs(gap - h) for h in G.PILLAR_H) > 0.01:
                continue  # its pillars do not stand on src
            c, s = math.cos(p["yaw"]), math.sin(p["yaw"])
            for ox, _ in legs:
                x, y = p["x"] + c * ox, p["y"] + s * ox
                if _inside(src, x, y):
                    out.append((x, y, G.PILLAR_RADIUS))
        for seat in range(self.num_players):
            rows = [(parts["cat"][seat], G.CAT_RADIUS)]
            rows += [(t, G.TOY_RADIUS) for i, t in enumerate(parts["toys"][seat].reshape(4, -1))
                     if not (seat == 0 and i == skip_toy)]
            for row, radius in rows:
                if row[0] > 0.5 and row[4:].any() and int(np.argmax(row[4:])) == src["card"]:
                    out.append((float(row[1]) * POS_SCALE, float(row[2]) * POS_SCALE, radius))
        return out

    def _plan(self, src: dict, toy: np.ndarray, toy_z: float, target: dict,
              obstacles) -> tuple[int, int, float]:
        """The best (direction, strength, predicted miss in metres) to send a toy at
        ``toy`` on ``src`` onto ``target``; blocked directions are avoided."""
        goal = np.array([target["x"], target["y"]])
        drop = max(0.005, toy_z - G.TOY_HALF[2] - (target["z"] + G.PLAT_T / 2))
        t_fall = math.sqrt(2 * drop / 9.81)
        best = (0, len(P.BAT_SPEEDS) - 1, math.inf)
        for direction in range(P.BAT_DIRECTIONS):
            angle = direction * math.pi / 4
            u = np.array([math.cos(angle), math.sin(angle)])
            edge = _distance_to_edge(src, toy, u)
            if _blocked(toy, u, edge, obstacles):
                continue
            for strength, v0 in enumerate(P.BAT_SPEEDS):
                v2 = v0 * v0 - 2 * MU_G * edge
                if v2 <= 0:
                    continue  # stops short: still on the platform
                ve = math.sqrt(v2)
                after = max(0.0, ve - MU_G * t_fall)
                reach = edge + ve * t_fall + after * after / (2 * MU_G)
                miss = float(np.linalg.norm(toy + u * reach - goal))
                if miss < best[2]:
                    best = (direction, strength, miss)
        return best

    def _toy(self, legal: np.ndarray, parts, plats) -> int:
        src = self._my_cat_platform(parts, plats)
        if src is None:
            return int(legal[0])
        targets = self._targets(src, plats)
        if not targets:
            return int(legal[0])
        cat = parts["cat"][0]
        cat_xy = np.array([float(cat[1]), float(cat[2])]) * POS_SCALE
        toy_z = src["z"] + G.PLAT_T / 2 + G.TOY_HALF[2]
        obstacles = self._obstacles(parts, plats, src, None)
        obstacles.append((cat_xy[0], cat_xy[1], G.CAT_RADIUS))
        c, s = math.cos(src["yaw"]), math.sin(src["yaw"])
        best, best_score = int(legal[0]), -math.inf
        for action in legal:
            toy, side = divmod(int(action) - TOY_BASE, 4)
            sx, sy = SIDES[side]
            xy = cat_xy + G.TOY_OFFSET * np.array([c * sx - s * sy, s * sx + c * sy])
            others = [o for o in obstacles if math.hypot(o[0] - xy[0], o[1] - xy[1]) > 0.012]
            for value, target in targets[:4]:
                bonus = 0.0 if toy == target["icon"] else -1.0
                _, _, miss = self._plan(src, xy, toy_z, target, others)
                score = value + bonus - 40.0 * miss
                if score > best_score:
                    best, best_score = int(action), score
        return best

    def _bat(self, legal: np.ndarray, parts, plats) -> int:
        bats = legal[(legal >= BAT_BASE) & (legal < STOP)]
        if bats.size == 0:
            return int(legal[0])
        turn = parts["turn"]
        toy_index = int(np.argmax(turn[1:5])) if turn[1:5].any() else 0
        toy = parts["toys"][0].reshape(4, -1)[toy_index]
        src = self._my_cat_platform(parts, plats)
        if src is None or toy[0] < 0.5:
            return int(bats[0])
        xy = np.array([float(toy[1]), float(toy[2])]) * POS_SCALE
        toy_z = float(toy[3]) * Z_SCALE
        targets = self._targets(src, plats)
        obstacles = self._obstacles(parts, plats, src, toy_index)
        best, best_score = int(bats[-1]), -math.inf
        for value, target in targets[:4]:
            bonus = 1.0 if target["icon"] == toy_index else 0.0
            direction, strength, miss = self._plan(src, xy, toy_z, target, obstacles)
            score = value - 1.0 + bonus - 40.0 * miss
            action = BAT_BASE + direction * len(P.BAT_SPEEDS) + strength
            if score > best_score and action in bats:
                best, best_score = action, score
        return int(best)


def _within(value: float, bounds: tuple[float, float]) -> bool:
    return bounds[0] <= value <= bounds[1]


def _inside(plat: dict, x: float, y: float) -> bool:
    c, s = math.cos(plat["yaw"]), math.sin(plat["yaw"])
    dx, dy = x - plat["x"], y - plat["y"]
    lx, ly = c * dx + s * dy, -s * dx + c * dy
    if plat["shape"] == G.ROUND:
        return math.hypot(lx, ly) <= G.ROUND_R
    return abs(lx) <= G.RECT_HALF[0] and abs(ly) <= G.RECT_HALF[1]


def _blocked(start: np.ndarray, u: np.ndarray, length: float, obstacles) -> bool:
    """Whether a toy sliding from ``start`` along ``u`` for ``length`` hits an obstacle."""
    for ox, oy, radius in obstacles:
        rel = np.array([ox, oy]) - start
        along = float(rel @ u)
        if along < 0 or along > length + radius:
            continue
        if abs(float(rel[0] * u[1] - rel[1] * u[0])) < radius + G.TOY_RADIUS:
            return True
    return False


def _distance_to_edge(plat: dict, point: np.ndarray, u: np.ndarray) -> float:
    """Distance from ``point`` along ``u`` to the rim of ``plat`` (plane geometry)."""
    c, s = math.cos(plat["yaw"]), math.sin(plat["yaw"])
    rel = point - np.array([plat["x"], plat["y"]])
    lx, ly = c * rel[0] + s * rel[1], -s * rel[0] + c * rel[1]
    ux, uy = c * u[0] + s * u[1], -s * u[0] + c * u[1]
    if plat["shape"] == G.ROUND:
        b = lx * ux + ly * uy
        cc = lx * lx + ly * ly - G.ROUND_R ** 2
        return max(0.0, -b + math.sqrt(max(b * b - cc, 0.0)))
    ts = []
    for pos, vel, half in ((lx, ux, G.RECT_HALF[0]), (ly, uy, G.RECT_HALF[1])):
        if abs(vel) > 1e-9:
            ts.append(((half if vel > 0 else -half) - pos) / vel)
    return max(0.0, min(ts)) if ts else 0.0
