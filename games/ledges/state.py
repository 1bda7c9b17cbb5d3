"""Cats Knocking Things Off Ledges: the rules engine, on a MuJoCo physics engine.

Sources are tagged as in docs/rules/ledges.md: [S] seed rulebook text, [D] a documented
project decision (the seed leaves it open).

A turn [S]: (1) build one platform, (2) place your cat on a platform without a cat (not the
one it is leaving) and move one of your toys there, (3) bat the toy off the edge, several
bats allowed, (4) score its fall in pillar lengths, +1 on a platform with its icon.

Actions (one flat space of ``NUM_ACTIONS`` = 3539):

* ``0-3473`` build: ``anchor * 18 + variant`` (``geometry.VARIANTS``: round platform on a
  short or tall pillar, or rectangular platform on two pillars of sizes SS, ST, TS, TT turned
  0, 45, 90 or 135 degrees); anchors 0-48 on the table, ``49 + 9 * card + k`` on a platform;
* ``3474-3489`` place your cat on platform card ``a - 3474``;
* ``3490-3505`` move toy ``(a - 3490) // 4`` (its icon) to your cat's platform, on side
  ``(a - 3490) % 4`` of the cat (0 +x, 1 +y, 2 -x, 3 -y in the platform's frame);
* ``3506-3537`` bat: direction ``(a - 3506) // 4`` (x 45 degrees from east, counter-
  clockwise), strength ``(a - 3506) % 4`` (tap, push, swipe, whack);
* ``3538`` stop batting (only after a bat, with the toy still on its platform).

Physics: every build, toy placement and bat is simulated (``physics.simulate``) from the
poses of the pieces at rest; chance is the platform card drawn for each build and the
dexterity noise of each placement and bat, all drawn from ``self.rng`` and recorded in
``self.chance`` so a log replays exactly.
"""

from __future__ import annotations

import copy
import math
import random

import numpy as np

from catzoo.games.base import TERMINAL, GameState
from catzoo.games.ledges import build as B
from catzoo.games.ledges import features as F
from catzoo.games.ledges import geometry as G
from catzoo.games.ledges import physics as P
from catzoo.games.ledges.layout import (
    BAT_OPTIONS,
    LEVEL_SCALE,
    OPTION_FEATURES,
    POS_SCALE,
    SCORE_SCALE,
    TOY_OPTIONS,
    Z_SCALE,
    layout_for,
)
from catzoo.games.ledges.options import LedgesOptions

BUILD, CAT, TOY, BAT = 0, 1, 2, 3
PHASES = ("build", "place cat", "place toy", "bat")

NUM_BUILD = G.NUM_ANCHORS * G.NUM_VARIANTS
CAT_BASE = NUM_BUILD
TOY_BASE = CAT_BASE + G.NUM_PLATFORMS
BAT_BASE = TOY_BASE + G.TOYS_PER_CAT * 4
NUM_BATS = P.BAT_DIRECTIONS * len(P.BAT_SPEEDS)
STOP = BAT_BASE + NUM_BATS
NUM_ACTIONS = STOP + 1
SIDES = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))
SIDE_NAMES = ("+x", "+y", "-x", "-y")
DIRECTION_NAMES = ("E", "NE", "N", "NW", "W", "SW", "S", "SE")

# Pieces: one row of ``pose`` each.
PLATFORM0, PILLAR0, CAT0, TOY0 = 0, 16, 40, 44
NUM_PIECES = 60
KINDS = tuple(
    ["rect"] * 8 + ["round"] * 8 + ["short"] * 12 + ["tall"] * 12 + ["cat"] * 4 + ["toy"] * 16
)
TOWER = np.arange(PILLAR0 + G.NUM_PILLARS)
LOOSE = np.arange(CAT0, NUM_PIECES)
LOOSE_HALF = np.array([G.CAT_HALF] * 4 + [G.TOY_HALF] * 16)
# Where cats and toys off the table wait in the model: far away, touching nothing.
PARKED = np.array([(2.0 + 0.1 * i, 2.0, 1.0, 1.0, 0.0, 0.0, 0.0) for i in range(20)])

# [D] what counts as fallen or knocked over, between two rests.
FALL_MOVE = 0.01  # a tower piece moved more than 1 cm ...
FALL_TILT = math.radians(10.0)  # ... or tipped more than 10 degrees
KNOCK_MOVE = 0.015  # a cat or toy pushed more than 1.5 cm sideways ...
KNOCK_DROP = 0.01  # ... or dropped more than 1 cm ...
KNOCK_TILT = math.radians(30.0)  # ... or tipped more than 30 degrees
# Simulated-time limits (each simulation stops earlier once everything rests).
BUILD_TIME, PLACE_TIME, BAT_TIME, CLEANUP_TIME = 2.0, 1.5, 3.0, 1.0
# Standard normals drawn per action: a build (x, y, turn of each of 2 legs and of the
# platform), a cat or toy placement (x, y, turn), a bat (direction, strength).
BUILD_NOISE, PLACE_NOISE, BAT_NOISE = 9, 3, 2
NOISE_LENGTHS = (BUILD_NOISE, PLACE_NOISE, BAT_NOISE)


def _spot_tables() -> tuple[dict, dict]:
    """Per platform shape: footprints of the cat at each spot, of the toy at each spot and
    side, and whether that toy lies wholly on the surface."""
    out = []
    for shape in (G.RECT, G.ROUND):
        spots = np.array(G.CAT_SPOTS[shape])
        toys = (spots[:, None, :] + np.array(SIDES)[None, :, :] * G.TOY_OFFSET).reshape(-1, 2)
        corners = toys[:, None, :] + np.array([(1, 1), (1, -1), (-1, 1), (-1, -1)]) * G.TOY_HALF[0]
        fits = G.inside_platform(shape, corners[..., 0], corners[..., 1], -0.001).all(1)
        out.append({
            "cats": G.footprints(spots[:, 0], spots[:, 1], 0.0, G.CAT_HALF[0], G.CAT_HALF[1], 0.0),
            "toys": G.footprints(toys[:, 0], toys[:, 1], 0.0, G.TOY_HALF[0], G.TOY_HALF[1], 0.0),
            "fits": fits.reshape(len(spots), 4),
        })
    return out[0], out[1]


SPOT_TABLES = _spot_tables()


def build_action(anchor: int, variant: int) -> int:
    return anchor * G.NUM_VARIANTS + variant


def table_anchor(x_index: int, y_index: int) -> int:
    """The table anchor in column ``x_index`` and row ``y_index`` (0-6; 3, 3 is the centre)."""
    return y_index * G.TABLE_GRID + x_index


def platform_anchor(card: int, k: int) -> int:
    return G.NUM_TABLE_ANCHORS + card * G.ANCHORS_PER_PLATFORM + k


def bat_action(direction: int, strength: int) -> int:
    return BAT_BASE + direction * len(P.BAT_SPEEDS) + strength


def toy_action(toy: int, side: int) -> int:
    return TOY_BASE + toy * 4 + side


def cat_action(card: int) -> int:
    return CAT_BASE + card


class LedgesState(GameState):
    game_name = "ledges"
    env_version = 0
    options_cls = LedgesOptions
    num_actions = NUM_ACTIONS
    observation_options = frozenset({"aim_features"})

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        o = self.options
        self.num_players = n = o.num_players
        self._use_layout(layout_for(n, o.aim_features))
        self._loose = np.concatenate([np.arange(CAT0, CAT0 + n), np.arange(TOY0, TOY0 + 4 * n)])
        self.pose = np.zeros((NUM_PIECES, 7))
        self.pose[:, 3] = 1.0
        self.onboard = np.zeros(NUM_PIECES, dtype=bool)
        self.plat_base = [-2] * G.NUM_PLATFORMS  # -1 the table, a card, -2 in the supply
        self.plat_pillars: list[tuple[int, ...]] = [()] * G.NUM_PLATFORMS
        self.plat_level = [0.0] * G.NUM_PLATFORMS
        self.plat_tilt = [0.0] * G.NUM_PLATFORMS  # designed tilt (rectangular on S+T)
        self.build_order: list[int] = []
        self.support = -np.ones(NUM_PIECES, dtype=np.int64)  # cats and toys: card under it
        self.total_scores = [0] * n
        self.turns_done = 0
        self.final_left = -1
        self.sim_time = 0.0
        self.collapses = 0
        self.log: list[str] = []
        self.last_turn: dict | None = None
        self._reset_turn()
        self.current_player = 0  # [D] seat 0 is the player most recently woken by a cat
        self._new_tower()  # [S] setup step 1
        self._begin_turn()

    def _reset_turn(self) -> None:
        self.phase = BUILD
        self.bats_used = 0
        self.active_toy = -1
        self.cat_card = -1
        self.cat_left = -1
        self.cat_spot = (0.0, 0.0)
        self.start_card = -1
        self._cat_spots: dict | None = None  # the cat phase's spots, found as it begins

    # --- supply ----------------------------------------------------------------------------
    def supply(self) -> tuple[int, int, int, int]:
        """Rectangular platforms, round platforms, short pillars, tall pillars left."""
        on = self.onboard
        return (
            8 - int(on[0:8].sum()), 8 - int(on[8:16].sum()),
            12 - int(on[16:28].sum()), 12 - int(on[28:40].sum()),
        )

    def _available_variants(self) -> np.ndarray:
        rect, rnd, short, tall = self.supply()
        shape_ok = np.where(B.V_SHAPE == G.RECT, rect > 0, rnd > 0)
        return shape_ok & (B.V_SHORT <= short) & (B.V_TALL <= tall)

    def _free_pillar(self, size: int) -> int:
        start = 0 if size == G.SHORT else 12
        for i in range(start, start + 12):
            if not self.onboard[PILLAR0 + i]:
                return i
        raise RuntimeError("no pillar of that size in the supply")

    def _draw_card(self, shape: int) -> int:
        cards = [c for c in range(G.NUM_PLATFORMS) if G.platform_shape(c) == shape and not self.onboard[c]]

        def check(card) -> str | None:  # a platform card not already on the table
            if (isinstance(card, bool) or not isinstance(card, int)
                    or not 0 <= card < G.NUM_PLATFORMS or self.onboard[card]):
                return f"card {card!r} is not a platform card left in the supply"
            return None

        def check_logged(card) -> str | None:  # and one the stack could give
            if card not in cards:
                return (f"card {card!r} is not a {G.SHAPE_NAMES[shape]} platform card left "
                        f"in the supply (those are {', '.join(map(str, cards))})")
            return None

        # [D] the builder takes the top card of the shuffled stack of the chosen shape.
        return int(self._draw_chance(lambda rng: rng.choice(cards), check, check_logged))

    def _noise(self, count: int) -> tuple[float, ...]:
        if self.options.dexterity == 0:
            return (0.0,) * count

        def check(noise) -> str | None:  # finite and bounded, before the simulator sees it
            if (not isinstance(noise, tuple) or len(noise) != count
                    or not all(isinstance(z, (int, float)) and not isinstance(z, bool)
                               and abs(z) <= P.NOISE_LIMIT for z in noise)):
                return (f"{noise!r:.80} is not the dexterity noise of this action: "
                        f"{count} numbers within +-{P.NOISE_LIMIT:g}")
            return None

        return tuple(self._draw_chance(P.standard_normals(count), check))

    # --- the tower ----------------------------------------------------------------------------
    def _new_tower(self) -> None:
        """[S] A random rectangular platform on 2 short pillars in the centre."""
        card = self._draw_card(G.RECT)
        legs = []
        for ox in (-G.LEG_OFFSET, G.LEG_OFFSET):
            pid = self._free_pillar(G.SHORT)
            legs.append(pid)
            self._put(PILLAR0 + pid, (ox, 0.0, G.PILLAR_H[G.SHORT] / 2), G.quat_yaw(0.0))
        self._put(card, (0.0, 0.0, G.PILLAR_H[G.SHORT] + G.PLAT_T / 2), G.quat_yaw(0.0))
        self._add_platform(card, -1, tuple(legs), 0.0)
        self._simulate(CLEANUP_TIME)

    def _put(self, piece: int, pos, quat) -> None:
        self.pose[piece, :3] = pos
        self.pose[piece, 3:] = quat
        self.onboard[piece] = True

    def _add_platform(self, card: int, base: int, pillars: tuple[int, ...], tilt: float) -> None:
        self.plat_base[card] = base
        self.plat_pillars[card] = pillars
        self.plat_tilt[card] = tilt
        units = [G.PILLAR_UNITS[G.pillar_size(p)] for p in pillars]
        self.plat_level[card] = (0.0 if base < 0 else self.plat_level[base]) + sum(units) / len(units)
        self.build_order.append(card)

    def _remove_platform(self, card: int) -> None:
        self.onboard[card] = False
        for pid in self.plat_pillars[card]:
            self.onboard[PILLAR0 + pid] = False
        self.plat_base[card] = -2
        self.plat_pillars[card] = ()
        self.plat_level[card] = 0.0
        self.plat_tilt[card] = 0.0
        self.build_order.remove(card)

    # --- physics ---------------------------------------------------------------------------------
    def _simulate(self, max_time: float, velocity: tuple[int, np.ndarray] | None = None) -> np.ndarray:
        """Simulate until rest (or until a fall is clear); returns the poses before.
        ``velocity``: (piece, 6-vector) given to one piece at the start (a bat)."""
        tower = TOWER[self.onboard[TOWER]]
        idx = np.concatenate([tower, self._loose])  # the players' cats and toys are all in it
        kinds = tuple(KINDS[i] for i in idx)
        active = self.onboard[idx]
        qpos = self.pose[idx].copy()
        parked = ~active[len(tower):]
        qpos[len(tower):][parked] = PARKED[self._loose[parked] - CAT0]
        qvel = None
        if velocity is not None:
            qvel = np.zeros((len(idx), 6))
            qvel[int(np.searchsorted(idx, velocity[0]))] = velocity[1]
        before = self.pose.copy()
        n_tower = len(tower)
        loose_rows = np.flatnonzero(active[n_tower:]) + n_tower
        out, t, _ = P.simulate(
            kinds, qpos, qvel, max_time,
            tower=np.arange(n_tower), fall_move=FALL_MOVE, fall_tilt=FALL_TILT,
            loose=loose_rows, active=active,
        )
        self.pose[idx[active]] = out[active]
        self.sim_time += t
        return before

    def _tower_fell(self, before: np.ndarray) -> bool:
        on = self.onboard[TOWER]
        if not on.any():
            return False
        idx = TOWER[on]
        moved = np.linalg.norm(self.pose[idx, :3] - before[idx, :3], axis=1)
        z_now = G.rotations(self.pose[idx, 3:])[:, :, 2]
        z_was = G.rotations(before[idx, 3:])[:, :, 2]
        turned = np.arccos(np.clip((z_now * z_was).sum(1), -1.0, 1.0))
        return bool((moved > FALL_MOVE).any() or (turned > FALL_TILT).any())

    def _knocked(self, before: np.ndarray) -> bool:
        """Whether a cat or toy that rested on a platform was pushed, dropped or tipped."""
        on = self.onboard[LOOSE] & (self.support[LOOSE] >= 0)
        idx = LOOSE[on]
        if idx.size == 0:
            return False
        d = self.pose[idx, :3] - before[idx, :3]
        z_now = G.rotations(self.pose[idx, 3:])[:, :, 2]
        z_was = G.rotations(before[idx, 3:])[:, :, 2]
        tipped = (z_now * z_was).sum(1) < math.cos(KNOCK_TILT)
        return bool((np.hypot(d[:, 0], d[:, 1]) > KNOCK_MOVE).any() or (d[:, 2] < -KNOCK_DROP).any()
                    or tipped.any())

    def supports(self, pieces) -> np.ndarray:
        """The platform card each cat or toy rests on (-1: the table or nothing)."""
        pieces = np.asarray(pieces, dtype=np.intp)
        out = -np.ones(len(pieces), dtype=np.int64)
        cards = np.array([c for c in range(G.NUM_PLATFORMS) if self.onboard[c]], dtype=np.intp)
        if cards.size == 0 or pieces.size == 0:
            return out
        rp = G.rotations(self.pose[pieces, 3:])
        half = LOOSE_HALF[pieces - CAT0]
        drop = (np.abs(rp[:, 2, :]) * half).sum(1)
        bottom = self.pose[pieces, :3].copy()
        bottom[:, 2] -= drop
        rc = G.rotations(self.pose[cards, 3:])
        rel = bottom[:, None, :] - self.pose[cards, :3][None, :, :]
        local = np.einsum("kji,nkj->nki", rc, rel)
        gap = local[:, :, 2] - G.PLAT_T / 2
        rect = cards < 8
        inside = np.where(
            rect[None, :],
            (np.abs(local[:, :, 0]) <= G.RECT_HALF[0] + 0.002)
            & (np.abs(local[:, :, 1]) <= G.RECT_HALF[1] + 0.002),
            np.hypot(local[:, :, 0], local[:, :, 1]) <= G.ROUND_R + 0.002,
        )
        on = inside & (gap > -0.004) & (gap < 0.05)
        gap = np.where(on, gap, np.inf)
        best = np.argmin(gap, axis=1)
        found = np.isfinite(gap[np.arange(len(pieces)), best])
        out[found] = cards[best[found]]
        return out

    def _update_loose(self) -> None:
        """Find what each cat and toy rests on; those on the table go back to their owner."""
        idx = LOOSE[self.onboard[LOOSE]]
        self.support[LOOSE] = -1
        if idx.size:
            sup = self.supports(idx)
            self.support[idx] = sup
            # [D] a cat or toy on the table is picked up and given back to its owner.
            self.onboard[idx[sup < 0]] = False

    def _collapse(self) -> None:
        """[S] After a fall: platforms not wholly supported by their pillars and pillars
        without a platform go back to the supply; a fully fallen tower is set up again."""
        self.collapses += 1
        for _ in range(3):
            kept = self._standing_platforms()
            for card in list(self.build_order):
                if card not in kept:
                    self._remove_platform(card)
            self._update_loose()
            if not self.build_order:
                self._new_tower()
                self._update_loose()
                return
            before = self._simulate(CLEANUP_TIME)
            if not self._tower_fell(before):
                break
        self._update_loose()

    def _standing_platforms(self) -> set[int]:
        """Platforms (in build order) still upright on their own upright pillars, each
        standing on the table or on a platform that is itself kept."""
        kept: set[int] = set()
        for card in self.build_order:
            rot = G.rotations(self.pose[card, 3:])[0]
            if abs(float(G.tilt_of(rot)) - self.plat_tilt[card]) > FALL_TILT:
                continue
            base = self.plat_base[card]
            if base >= 0 and base not in kept:
                continue
            ok = True
            for pid in self.plat_pillars[card]:
                piece = PILLAR0 + pid
                prot = G.rotations(self.pose[piece, 3:])[0]
                if float(G.tilt_of(prot)) > FALL_TILT:
                    ok = False
                    break
                half = G.PILLAR_H[G.pillar_size(pid)] / 2
                axis = prot[:, 2]
                bottom = self.pose[piece, :3] - axis * half
                top = self.pose[piece, :3] + axis * half
                if base < 0:
                    if bottom[2] > 0.006:
                        ok = False
                        break
                elif not _on_surface(self.pose[base], base, bottom, 0.006):
                    ok = False
                    break
                tol = 0.012 if self.plat_tilt[card] > 0 else 0.006
                if not _under_surface(self.pose[card], card, top, tol):
                    ok = False
                    break
            if ok:
                kept.add(card)
        return kept

    # --- turns --------------------------------------------------------------------------------
    def _begin_turn(self) -> None:
        """Start the current player's turn at the first step they can take; skip turns in
        which they can do nothing at all (a loop, not recursion)."""
        while True:
            self._reset_turn()
            build_bits = self._build_bits()
            if build_bits:
                self.phase = BUILD
                self._legal = build_bits
                self._write_obs()
                return
            # [S] not enough pieces to build (or, [D], no legal place): skip the build.
            if self._enter_cat_phase():
                return
            if self._finish_turn(0, "no platform free for the cat"):
                return

    def _enter_cat_phase(self) -> bool:
        """Go to the cat step; False if the cat has nowhere to go (the turn ends)."""
        p = self.current_player
        cat = CAT0 + p
        self.cat_left = int(self.support[cat]) if self.onboard[cat] else -1
        bits = self._cat_bits()
        if not bits:
            return False
        self.phase = CAT
        self._legal = bits
        self._write_obs()
        return True

    def _finish_turn(self, points: int, reason: str) -> bool:
        """Score the turn and pass to the next player; True if the game ended."""
        p, n = self.current_player, self.num_players
        self.total_scores[p] += points
        self.last_turn = {"player": p, "points": points, "reason": reason}
        self.log.append(f"P{p}: {points} point(s), {reason}")
        self.turns_done += 1
        over = False
        if self.final_left >= 0:
            self.final_left -= 1
            over = self.final_left == 0
        elif self.total_scores[p] >= self.options.winning_score:
            # [S] at 10 or more, every other player gets one final turn.
            self.final_left = n - 1
        if self.turns_done >= self.options.max_rounds * n:
            over = True  # [D] the safety bound on game length
        self._reset_turn()
        if over:
            self.current_player = TERMINAL
            self._legal = 0
            self._write_obs()
            return True
        self.current_player = (p + 1) % n  # [S] play passes to the left
        return False

    def _end_turn(self, points: int, reason: str) -> None:
        if not self._finish_turn(points, reason):
            self._begin_turn()

    # --- legal actions ------------------------------------------------------------------------------
    def _build_bits(self) -> int:
        ok = B.legal_builds(self, self._available_variants())
        if not ok.any():
            return 0
        return _bits(np.flatnonzero(ok))

    def _cat_bits(self) -> int:
        taken = {int(self.support[CAT0 + q]) for q in range(self.num_players) if self.onboard[CAT0 + q]}
        bits = 0
        spots = {}
        for card in self.build_order:
            # [S] a platform without a cat, not the one the cat is leaving; [D] with room
            # for the cat and a toy beside it.
            if card not in taken and card != self.cat_left:
                found = self._find_cat_spot(card)
                if found is not None:
                    spots[card] = found
                    bits |= 1 << (CAT_BASE + card)
        self._cat_spots = spots  # nothing moves until the cat is placed
        return bits

    def _cat_spot(self, card: int):
        """[D] Where the cat goes on ``card`` (its frame) and the bit set of the toy sides
        with room: the first of ``CAT_SPOTS`` clear of the pillars standing on the card with
        at least one side clear; None if there is none. In the cat phase, the spots found
        as it began."""
        if self.phase == CAT and self._cat_spots is not None and card in self._cat_spots:
            return self._cat_spots[card]
        return self._find_cat_spot(card)

    def _find_cat_spot(self, card: int):
        shape = G.platform_shape(card)
        rot = G.rotations(self.pose[card, 3:])[0]
        yaw = float(G.yaw_of(rot))
        legs = []
        pieces = [PILLAR0 + pid for other in self.build_order if self.plat_base[other] == card
                  for pid in self.plat_pillars[other]]
        if pieces:
            local = (self.pose[pieces, :3] - self.pose[card, :3]) @ rot
            yaws = G.yaw_of(G.rotations(self.pose[pieces, 3:])) - yaw
            legs = list(zip(local[:, 0], local[:, 1], yaws))
        table = SPOT_TABLES[shape]
        fits = table["fits"].copy()  # spot x side: the toy is on the surface
        cat_ok = np.ones(len(fits), dtype=bool)
        if legs:
            arr = np.array(legs)
            legs_fp = G.footprints(arr[:, 0], arr[:, 1], arr[:, 2], G.PILLAR_W / 2, G.PILLAR_W / 2, 0.0)
            cat_ok = ~G.footprint_overlap(table["cats"], legs_fp, G.SPOT_CLEARANCE).any(1)
            toy_hit = G.footprint_overlap(table["toys"], legs_fp, G.SPOT_CLEARANCE).any(1)
            fits &= ~toy_hit.reshape(fits.shape)
        for k, spot in enumerate(G.CAT_SPOTS[shape]):
            if cat_ok[k] and fits[k].any():
                return spot, int(sum(1 << j for j in range(4) if fits[k, j]))
        return None

    def _bat_bits(self) -> int:
        bits = ((1 << NUM_BATS) - 1) << BAT_BASE
        if self.bats_used > 0:
            bits |= 1 << STOP  # [D] stopping is allowed once the toy has been batted
        return bits

    # --- applying actions -------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        if self.phase == BUILD:
            self._do_build(*divmod(action, G.NUM_VARIANTS))
        elif self.phase == CAT:
            self._do_cat(action - CAT_BASE)
        elif self.phase == TOY:
            self._do_toy(*divmod(action - TOY_BASE, 4))
        elif action == STOP:
            self._end_turn(0, "stopped batting")
        else:
            self._do_bat(*divmod(action - BAT_BASE, len(P.BAT_SPEEDS)))

    def _do_build(self, anchor: int, variant: int) -> None:
        d = self.options.dexterity
        plan = B.placement(self, anchor, variant)
        card = self._draw_card(plan["shape"])
        noise = self._noise(BUILD_NOISE)
        xy_sd, yaw_sd = P.PLACE_XY_SD * d, P.PLACE_YAW_SD * d
        pillars = []
        for j, (x, y, z0, yaw, h) in enumerate(plan["legs"]):
            pid = self._free_pillar(G.SHORT if h == G.PILLAR_H[G.SHORT] else G.TALL)
            pillars.append(pid)
            x += xy_sd * noise[3 * j]
            y += xy_sd * noise[3 * j + 1]
            self._nudge((x, y), G.PILLAR_RADIUS, z0 - 0.005, z0 + h, exclude=())
            self._put(PILLAR0 + pid, (x, y, z0 + h / 2), G.quat_yaw(yaw + yaw_sd * noise[3 * j + 2]))
        pos = plan["pos"].copy()
        pos[:2] += xy_sd * np.array(noise[6:8])
        quat = G.quat_mul(G.quat_yaw(yaw_sd * noise[8]), plan["quat"])
        self._put(card, pos, quat)
        self._add_platform(card, plan["base"], tuple(pillars), plan["tilt"])
        before = self._simulate(BUILD_TIME)
        fell = self._tower_fell(before)
        knocked = self._knocked(before)  # measured after the nudges, which are allowed
        self.log.append(
            f"P{self.current_player} built {G.SHAPE_NAMES[plan['shape']]} card {card} "
            f"({G.ICONS[G.platform_icon(card)]})"
        )
        if fell:
            self._collapse()
            self._end_turn(0, "the tower fell while building")
            return
        self._update_loose()
        if knocked:
            # [S] knocking anything over while building ends the turn with 0.
            self._end_turn(0, "knocked something over while building")
            return
        if not self._enter_cat_phase():
            self._end_turn(0, "no platform free for the cat")

    def _nudge(self, xy, radius: float, z_lo: float, z_hi: float, exclude) -> None:
        """[S] Gently nudge cats and toys aside from a piece going down at ``xy``."""
        for piece in LOOSE[self.onboard[LOOSE]]:
            if piece in exclude:
                continue
            half = LOOSE_HALF[piece - CAT0]
            pz = self.pose[piece, 2]
            if pz + half[2] < z_lo or pz - half[2] > z_hi:
                continue
            r = math.hypot(half[0], half[1])
            dx, dy = self.pose[piece, 0] - xy[0], self.pose[piece, 1] - xy[1]
            dist = math.hypot(dx, dy)
            need = radius + r + 0.001
            if dist >= need:
                continue
            if dist < 1e-9:
                dx, dy, dist = 1.0, 0.0, 1.0
            self.pose[piece, 0] = xy[0] + dx / dist * need
            self.pose[piece, 1] = xy[1] + dy / dist * need

    def _surface_pose(self, card: int, local_xy, height: float, yaw_noise: float, xy_noise) -> tuple:
        """Pose of a piece of half-height ``height`` set on platform ``card`` at ``local_xy``."""
        rot = G.rotations(self.pose[card, 3:])[0]
        point = self.pose[card, :3] + rot @ np.array([local_xy[0], local_xy[1], G.PLAT_T / 2 + height])
        point[:2] += xy_noise
        quat = G.quat_mul(G.quat_yaw(yaw_noise), self.pose[card, 3:])
        return point, quat

    def _do_cat(self, card: int) -> None:
        p = self.current_player
        cat = CAT0 + p
        d = self.options.dexterity
        spot, sides = self._cat_spot(card)
        noise = self._noise(PLACE_NOISE)
        self.onboard[cat] = False
        pos, quat = self._surface_pose(
            card, spot, G.CAT_HALF[2], P.PLACE_YAW_SD * d * noise[2],
            P.PLACE_XY_SD * d * np.array(noise[:2]),
        )
        self._nudge(pos[:2], G.CAT_RADIUS, pos[2] - G.CAT_HALF[2], pos[2] + G.CAT_HALF[2], exclude=(cat,))
        self._put(cat, pos, quat)
        self.support[cat] = card
        self.cat_card = card
        self.cat_spot = spot
        self.phase = TOY
        self._cat_spots = None
        bits = 0
        for toy in range(G.TOYS_PER_CAT):
            for k in range(4):
                if sides >> k & 1:
                    bits |= 1 << toy_action(toy, k)
        self._legal = bits
        self._write_obs()

    def _do_toy(self, toy: int, side: int) -> None:
        p = self.current_player
        piece = TOY0 + 4 * p + toy
        card = self.cat_card
        d = self.options.dexterity
        noise = self._noise(PLACE_NOISE)
        self.onboard[piece] = False
        sx, sy = SIDES[side]
        spot = self.cat_spot
        pos, quat = self._surface_pose(
            card, (spot[0] + sx * G.TOY_OFFSET, spot[1] + sy * G.TOY_OFFSET), G.TOY_HALF[2],
            P.PLACE_YAW_SD * d * noise[2], P.PLACE_XY_SD * d * np.array(noise[:2]),
        )
        self._nudge(pos[:2], G.TOY_RADIUS, pos[2] - G.TOY_HALF[2], pos[2] + G.TOY_HALF[2],
                    exclude=(piece, CAT0 + p))
        self._put(piece, pos, quat)
        self.active_toy = piece
        before = self._simulate(PLACE_TIME)
        if self._tower_fell(before):
            self._collapse()
            self._end_turn(0, "the tower fell under the cat and toy")
            return
        self._update_loose()
        if not self.onboard[piece] or self.support[piece] != card:
            self._end_turn(0, "the toy slid off as it was placed")
            return
        self.start_card = card
        self.phase = BAT
        self._legal = self._bat_bits()
        self._write_obs()

    def _do_bat(self, direction: int, strength: int) -> None:
        d = self.options.dexterity
        noise = self._noise(BAT_NOISE)
        angle = direction * math.pi / 4 + P.BAT_DIRECTION_SD * d * noise[0]
        speed = max(0.0, P.BAT_SPEEDS[strength] * (1.0 + P.BAT_SPEED_SD * d * noise[1]))
        vel = np.array([speed * math.cos(angle), speed * math.sin(angle), 0.0, 0.0, 0.0, 0.0])
        self.bats_used += 1
        piece, start = self.active_toy, self.start_card
        before = self._simulate(BAT_TIME, velocity=(piece, vel))
        if self._tower_fell(before):
            # [S] if any part of the tower falls during your turn, you score 0.
            self._collapse()
            self._end_turn(0, "the tower fell")
            return
        self._update_loose()
        if not self.onboard[piece]:
            self._end_turn(0, "the toy landed on the table")  # [S] 0 on the table surface
            return
        card = int(self.support[piece])
        if card != start:
            drop = self.plat_level[start] - self.plat_level[card]
            points = max(0, math.floor(drop + 0.5))
            icon = (piece - TOY0) % 4
            bonus = int(G.platform_icon(card) == icon)  # [S] +1 on a matching icon
            self._end_turn(
                points + bonus,
                f"the toy fell {drop:g} pillar length(s) onto platform {card}"
                + (" with its icon" if bonus else ""),
            )
            return
        if self.bats_used >= self.options.max_bats:
            self._end_turn(0, "the toy stayed on its platform")
            return
        self._legal = self._bat_bits()
        self._write_obs()

    # --- results -------------------------------------------------------------------------------
    def scores(self) -> list[float]:
        return list(self.total_scores)

    # --- observations ----------------------------------------------------------------------------
    def _write_obs(self) -> None:
        L, m, n = self.layout, self.master, self.num_players
        m[:] = 0.0
        cards = [c for c in range(G.NUM_PLATFORMS) if self.onboard[c]]
        rots = dict(zip(cards, G.rotations(self.pose[cards, 3:]))) if cards else {}
        cats_on = {int(self.support[CAT0 + q]) for q in range(n) if self.onboard[CAT0 + q]}
        width = 16
        for c in range(G.NUM_PLATFORMS):
            b = L.base["platforms"] + c * width
            m[b + 1 + G.platform_shape(c)] = 1.0
            m[b + 3 + G.platform_icon(c)] = 1.0
            if c not in rots:
                continue
            r = rots[c]
            yaw = math.atan2(r[1, 0], r[0, 0])
            m[b] = 1.0
            m[b + 7] = self.pose[c, 0] / POS_SCALE
            m[b + 8] = self.pose[c, 1] / POS_SCALE
            m[b + 9] = self.pose[c, 2] / Z_SCALE
            m[b + 10] = self.plat_level[c] / LEVEL_SCALE
            m[b + 11] = math.cos(yaw)
            m[b + 12] = math.sin(yaw)
            m[b + 13] = r[0, 2]
            m[b + 14] = r[1, 2]
            m[b + 15] = float(c in cats_on)
        for q in range(n):
            self._write_piece(L.base["cat"] + q * 20, CAT0 + q)
            for t in range(4):
                self._write_piece(L.base["toys"] + q * 80 + t * 20, TOY0 + 4 * q + t)
            m[L.base["score"] + q] = self.total_scores[q] / SCORE_SCALE
        s = self.supply()
        m[L.base["supply"]: L.base["supply"] + 4] = (s[0] / 8, s[1] / 8, s[2] / 12, s[3] / 12)
        b = L.base["turn"]
        if self.current_player != TERMINAL:
            m[L.base["phase"] + self.phase] = 1.0
            m[L.base["to_act"] + self.current_player] = 1.0
            m[b] = self.bats_used / self.options.max_bats
            if self.active_toy >= 0:
                m[b + 1 + (self.active_toy - TOY0) % 4] = 1.0
            if self.cat_left >= 0:
                m[b + 5 + self.cat_left] = 1.0
            if self.options.aim_features:
                self._write_options()
        m[b + 21] = float(self.final_left >= 0)
        m[b + 22] = max(self.final_left, 0) / 3.0
        m[b + 23] = (self.turns_done // n) / self.options.max_rounds
        np.clip(m, -4.0, 4.0, out=m)

    def _write_options(self) -> None:
        o = self.layout.base["options"]
        self.master[o: o + OPTION_FEATURES] = self.options_block()

    def options_block(self) -> np.ndarray:
        """The ``options`` block: the point-mass model's aiming features of the phase."""
        block = np.zeros(OPTION_FEATURES)
        if self.current_player == TERMINAL:
            return block
        if self.phase == BAT and self.active_toy >= 0 and self.onboard[self.active_toy]:
            block[:BAT_OPTIONS] = F.bat_features(self).reshape(-1)
        elif self.phase == TOY and self.cat_card >= 0:
            block[BAT_OPTIONS: BAT_OPTIONS + TOY_OPTIONS] = F.toy_features(self).reshape(-1)
        elif self.phase == CAT:
            block[BAT_OPTIONS + TOY_OPTIONS:] = F.cat_features(self).reshape(-1)
        return np.clip(block, -4.0, 4.0)

    def observation_as(self, player: int, options) -> np.ndarray:
        """The aiming features are public and computed from the poses at rest, so an
        observation with or without them can be made from any state."""
        self._check_observation_options(options)
        if options.aim_features == self.options.aim_features:
            return self.observation(player)  # already encoded: nothing to recompute
        base = self.observation(player)[: layout_for(self.num_players).obs_size]
        if not options.aim_features:
            return base
        return np.concatenate([base, self.options_block().astype(np.float32)])

    def _write_piece(self, start: int, piece: int) -> None:
        if not self.onboard[piece]:
            return
        m = self.master
        m[start] = 1.0
        m[start + 1] = self.pose[piece, 0] / POS_SCALE
        m[start + 2] = self.pose[piece, 1] / POS_SCALE
        m[start + 3] = self.pose[piece, 2] / Z_SCALE
        card = int(self.support[piece])
        if card >= 0:
            m[start + 4 + card] = 1.0

    def observation(self, player: int) -> np.ndarray:
        return self.master[self.layout.view_index[player]]

    def state_vector(self) -> np.ndarray:
        return self.master.copy()

    # --- copies ----------------------------------------------------------------------------------
    def clone(self) -> LedgesState:
        c = copy.copy(self)
        for name in ("master", "pose", "onboard", "support"):
            setattr(c, name, getattr(self, name).copy())
        for name in ("plat_base", "plat_pillars", "plat_level", "plat_tilt", "build_order",
                     "chance", "history", "log", "_pinned_chance"):
            setattr(c, name, list(getattr(self, name)))
        c.total_scores = list(self.total_scores)
        c.last_turn = dict(self.last_turn) if self.last_turn else None
        c.rng = self._rng_copy()
        return c

    def resample(self, player: int, rng: random.Random) -> LedgesState:
        """Nothing is hidden: a clone whose future chance (cards drawn, dexterity noise) comes
        from a fresh generator seeded from ``rng``; its log still replays exactly, through the
        recorded chance outcomes."""
        c = self.clone()
        c.rng = random.Random(rng.getrandbits(64))
        c._pinned_chance = list(self.chance)
        return c

    # --- text -------------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if action < NUM_BUILD:
            anchor, variant = divmod(action, G.NUM_VARIANTS)
            shape, sizes, theta = G.VARIANTS[variant]
            legs = "+".join(G.PILLAR_NAMES[s] for s in sizes)
            if anchor < G.NUM_TABLE_ANCHORS:
                x, y = G.TABLE_ANCHORS[anchor] * 100
                where = f"the table at ({x:+.0f}, {y:+.0f}) cm"
            else:
                card, k = divmod(anchor - G.NUM_TABLE_ANCHORS, G.ANCHORS_PER_PLATFORM)
                where = f"platform {card} anchor {k}"
            turn = f" turned {theta:g} deg" if shape == G.RECT else ""
            return f"build {G.SHAPE_NAMES[shape]} on {legs} on {where}{turn}"
        if action < TOY_BASE:
            return f"place cat on platform {action - CAT_BASE}"
        if action < BAT_BASE:
            toy, side = divmod(action - TOY_BASE, 4)
            return f"move toy {G.ICONS[toy]} beside the cat ({SIDE_NAMES[side]})"
        if action < STOP:
            direction, strength = divmod(action - BAT_BASE, len(P.BAT_SPEEDS))
            return f"bat {DIRECTION_NAMES[direction]} ({P.STRENGTH_NAMES[strength]})"
        return "stop batting"

    def render(self) -> str:
        from catzoo.games.ledges.render import render_text

        return render_text(self)

    def render_rgb(self) -> np.ndarray:
        from catzoo.games.ledges.render import render_rgb

        return render_rgb(self)


def _bits(indices: np.ndarray) -> int:
    flags = np.zeros(NUM_ACTIONS, dtype=bool)
    flags[indices] = True
    return int.from_bytes(np.packbits(flags, bitorder="little").tobytes(), "little")


def _on_surface(plat_pose: np.ndarray, card: int, point: np.ndarray, tol: float) -> bool:
    """Whether ``point`` lies on the top surface of platform ``card`` (within ``tol``)."""
    rot = G.rotations(plat_pose[3:])[0]
    local = rot.T @ (point - plat_pose[:3])
    if abs(local[2] - G.PLAT_T / 2) > tol:
        return False
    return bool(G.inside_platform(G.platform_shape(card), local[0], local[1], 0.002))


def _under_surface(plat_pose: np.ndarray, card: int, point: np.ndarray, tol: float) -> bool:
    """Whether ``point`` (a pillar's top) touches the underside of platform ``card``."""
    rot = G.rotations(plat_pose[3:])[0]
    local = rot.T @ (point - plat_pose[:3])
    if abs(local[2] + G.PLAT_T / 2) > tol:
        return False
    return bool(G.inside_platform(G.platform_shape(card), local[0], local[1], 0.002))
