"""Rendering of a Ledges state: text (``render_text``) and a top and a side view as an RGB
image (``render_rgb``, matplotlib's Agg backend, no display needed)."""

from __future__ import annotations

import math

import numpy as np

from catzoo.games.ledges import geometry as G

WIDTH, HEIGHT = 800, 400
PLAYER_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd")
ICON_COLOURS = ("#e377c2", "#7f7f7f", "#17becf", "#bcbd22")


def _tilt_deg(quat) -> float:
    return float(np.degrees(G.tilt_of(G.rotations(quat)[0])))


def render_text(state) -> str:
    from catzoo.games.ledges.state import BAT, CAT0, PHASES, TERMINAL, TOY0

    n = state.num_players
    lines = []
    rnd = state.turns_done // n + 1
    if state.current_player == TERMINAL:
        winners = ", ".join(f"P{p}" for p in state.winners())
        lines.append(f"Game over after {state.turns_done} turns; winner(s): {winners}")
    else:
        lines.append(
            f"Round {rnd}/{state.options.max_rounds}  P{state.current_player} "
            f"({G.CAT_NAMES[state.current_player]}) to act: {PHASES[state.phase]}"
            + (f"  (bats used {state.bats_used}/{state.options.max_bats})" if state.phase == BAT else "")
        )
    scores = "  ".join(f"P{p} {s}" for p, s in enumerate(state.total_scores))
    final = f"  final round: {state.final_left} turn(s) left" if state.final_left > 0 else ""
    lines.append(f"scores: {scores}{final}")
    rect, rnd_left, short, tall = state.supply()
    lines.append(f"supply: {rect} rectangular, {rnd_left} round platforms; "
                 f"{short} short, {tall} tall pillars")
    loose_on: dict[int, list[str]] = {}
    for q in range(n):
        if state.onboard[CAT0 + q] and state.support[CAT0 + q] >= 0:
            loose_on.setdefault(int(state.support[CAT0 + q]), []).append(f"cat P{q}")
        for t in range(4):
            piece = TOY0 + 4 * q + t
            if state.onboard[piece] and state.support[piece] >= 0:
                loose_on.setdefault(int(state.support[piece]), []).append(f"P{q} {G.ICONS[t]}")
    lines.append("platforms (card, shape, icon, level, centre cm, tilt, resting on, pillars):")
    for card in state.build_order:
        x, y, z = state.pose[card, :3] * 100
        base = state.plat_base[card]
        on = "table" if base < 0 else f"#{base}"
        legs = "+".join(G.PILLAR_NAMES[G.pillar_size(p)] for p in state.plat_pillars[card])
        extra = ", ".join(loose_on.get(card, []))
        lines.append(
            f"  #{card:<2} {G.SHAPE_NAMES[G.platform_shape(card)]:<11} {G.ICONS[G.platform_icon(card)]:<7} "
            f"level {state.plat_level[card]:g}  ({x:+5.1f}, {y:+5.1f}, {z:4.1f})  "
            f"tilt {_tilt_deg(state.pose[card, 3:]):3.0f}  on {on:<5} {legs:<11}"
            + (f"  [{extra}]" if extra else "")
        )
    if state.last_turn:
        t = state.last_turn
        lines.append(f"last turn: P{t['player']} scored {t['points']}: {t['reason']}")
    return "\n".join(lines)


def _platform_patch(ax, state, card, view: str, colour, alpha):
    from matplotlib.patches import Circle, Polygon

    pose = state.pose[card]
    rot = G.rotations(pose[3:])[0]
    shape = G.platform_shape(card)
    if view == "top":
        if shape == G.ROUND:
            ax.add_patch(Circle(pose[:2] * 100, G.ROUND_R * 100, fc=colour, ec="k", alpha=alpha, lw=0.8))
            return
        hx, hy = G.RECT_HALF
        corners = np.array([(hx, hy, 0), (hx, -hy, 0), (-hx, -hy, 0), (-hx, hy, 0)]) @ rot.T + pose[:3]
        ax.add_patch(Polygon(corners[:, :2] * 100, closed=True, fc=colour, ec="k", alpha=alpha, lw=0.8))
        return
    # side view (x, z): the outline of the slab seen from the front
    if shape == G.ROUND:
        ts = np.linspace(0, 2 * math.pi, 24, endpoint=False)
        pts = [(G.ROUND_R * math.cos(t), G.ROUND_R * math.sin(t), sz)
               for t in ts for sz in (-G.PLAT_T / 2, G.PLAT_T / 2)]
    else:
        hx, hy = G.RECT_HALF
        pts = [(sx * hx, sy * hy, sz * G.PLAT_T / 2) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    world = np.array(pts) @ rot.T + pose[:3]
    _hull_patch(ax, world[:, [0, 2]] * 100, colour, alpha)


def _box_side(ax, pose, half, colour, alpha=1.0):
    rot = G.rotations(pose[3:])[0]
    pts = np.array([(sx * half[0], sy * half[1], sz * half[2])
                    for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) @ rot.T + pose[:3]
    _hull_patch(ax, pts[:, [0, 2]] * 100, colour, alpha)


def _box_top(ax, pose, half, colour, alpha=1.0):
    from matplotlib.patches import Polygon

    rot = G.rotations(pose[3:])[0]
    corners = np.array([(half[0], half[1], 0), (half[0], -half[1], 0), (-half[0], -half[1], 0),
                        (-half[0], half[1], 0)]) @ rot.T + pose[:3]
    ax.add_patch(Polygon(corners[:, :2] * 100, closed=True, fc=colour, ec="k", alpha=alpha, lw=0.5))


def _hull_patch(ax, pts, colour, alpha):
    from matplotlib.patches import Polygon

    hull = G.convex_hull(pts)
    ax.add_patch(Polygon(hull, closed=True, fc=colour, ec="k", alpha=alpha, lw=0.6))


def render_rgb(state, width: int = WIDTH, height: int = HEIGHT) -> np.ndarray:
    """A top view (left) and a side view from the front (right), as uint8 (h, w, 3)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from catzoo.games.ledges.state import CAT0, PILLAR0, TOY0

    dpi = 100
    fig = Figure(figsize=(width / dpi, height / dpi), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    # fixed axes (no tight_layout: it costs more than the drawing)
    top = fig.add_axes((0.05, 0.08, 0.42, 0.8))
    side = fig.add_axes((0.55, 0.08, 0.42, 0.8))
    order = sorted(state.build_order, key=lambda c: state.pose[c, 2])
    for card in order:
        colour = ICON_COLOURS[G.platform_icon(card)]
        _platform_patch(top, state, card, "top", colour, 0.55)
    for i in range(G.NUM_PILLARS):
        piece = PILLAR0 + i
        if state.onboard[piece]:
            half = (G.PILLAR_W / 2, G.PILLAR_W / 2, G.PILLAR_H[G.pillar_size(i)] / 2)
            _box_side(side, state.pose[piece], half, "#8c564b")
    for card in order:
        _platform_patch(side, state, card, "side", ICON_COLOURS[G.platform_icon(card)], 0.9)
    for q in range(state.num_players):
        colour = PLAYER_COLOURS[q]
        cat = CAT0 + q
        if state.onboard[cat]:
            _box_top(top, state.pose[cat], G.CAT_HALF, colour)
            _box_side(side, state.pose[cat], G.CAT_HALF, colour)
        for t in range(4):
            toy = TOY0 + 4 * q + t
            if state.onboard[toy]:
                _box_top(top, state.pose[toy], G.TOY_HALF, ICON_COLOURS[t])
                _box_side(side, state.pose[toy], G.TOY_HALF, ICON_COLOURS[t])
                top.plot(*(state.pose[toy, :2] * 100), marker=".", color=colour, ms=4)
    top.set_xlim(-20, 20)
    top.set_ylim(-20, 20)
    top.set_yticks((-20, -10, 0, 10, 20))
    top.set_aspect("equal")
    top.set_title("top view (cm)", fontsize=8)
    side.set_xlim(-20, 20)
    side.set_ylim(0, max(20.0, float(state.pose[state.onboard, 2].max(initial=0)) * 100 + 5))
    side.set_aspect("equal")
    side.axhline(0, color="k", lw=1)
    side.set_title("side view from the front (cm)", fontsize=8)
    for ax in (top, side):
        ax.set_xticks((-20, -10, 0, 10, 20))
        ax.tick_params(labelsize=6)
    side.set_yticks(range(0, int(side.get_ylim()[1]) + 1, 10))
    scores = "  ".join(f"P{p}: {s}" for p, s in enumerate(state.total_scores))
    fig.text(0.5, 0.95, f"Cats Knocking Things Off Ledges   {scores}", fontsize=9, ha="center")
    canvas.draw()
    image = np.asarray(canvas.buffer_rgba())[:, :, :3].copy()
    return image
