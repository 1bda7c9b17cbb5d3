"""Cats Knocking Things Off Ledges as one seat sees it: nothing is hidden, so the view is the
tower itself, drawn from above and from the front as 2-D outlines (centimetres) that the
page turns into SVG, plus the anchors a new piece may be built on."""

from __future__ import annotations

import numpy as np
from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text

from catzoo.games.ledges import geometry as G
from catzoo.games.ledges.state import (
    BAT_BASE,
    CAT0,
    CAT_BASE,
    NUM_BUILD,
    PHASES,
    PILLAR0,
    STOP,
    TOY0,
    TOY_BASE,
)
from catzoo.play.views.generic import scores_table

SQUARE = np.array([(1, 1), (1, -1), (-1, -1), (-1, 1)], dtype=float)


def _r(values) -> list:
    return [round(float(v), 2) for v in values]


def _box_outlines(pose, half) -> tuple[list, list]:
    """Top outline (x, y) and front outline (x, z) of a box, in cm."""
    rot = G.rotations(pose[3:])[0]
    corners = np.array([(sx * half[0], sy * half[1], sz * half[2])
                        for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) @ rot.T + pose[:3]
    return _hull(corners[:, [0, 1]] * 100), _hull(corners[:, [0, 2]] * 100)


def _platform_outlines(pose, card: int) -> tuple[list, list]:
    if G.platform_shape(card) == G.RECT:
        hx, hy = G.RECT_HALF
        return _box_outlines(pose, (hx, hy, G.PLAT_T / 2))
    rot = G.rotations(pose[3:])[0]
    ts = np.linspace(0, 2 * np.pi, 20, endpoint=False)
    rim = np.array([(G.ROUND_R * np.cos(t), G.ROUND_R * np.sin(t), sz * G.PLAT_T / 2)
                    for t in ts for sz in (-1, 1)]) @ rot.T + pose[:3]
    return _hull(rim[:, [0, 1]] * 100), _hull(rim[:, [0, 2]] * 100)


def _hull(points: np.ndarray) -> list:
    return [[float(x), float(y)] for x, y in G.convex_hull(points, decimals=2)]


def _anchors(state) -> list[dict]:
    out = [{"anchor": a, "xy": _r(G.TABLE_ANCHORS[a] * 100), "z": 0.0}
           for a in range(G.NUM_TABLE_ANCHORS)]
    for card in state.build_order:
        pose = state.pose[card]
        rot = G.rotations(pose[3:])[0]
        local = G.PLATFORM_ANCHORS[G.platform_shape(card)]
        for k, (x, y) in enumerate(local):
            world = rot @ np.array([x, y, G.PLAT_T / 2]) + pose[:3]
            a = G.NUM_TABLE_ANCHORS + card * G.ANCHORS_PER_PLATFORM + k
            out.append({"anchor": a, "xy": _r(world[:2] * 100), "z": round(float(world[2] * 100), 2)})
    return out


def board(state, seat: int) -> dict:
    n, o = state.num_players, state.options
    over = state.is_terminal()
    platforms = []
    for card in sorted(state.build_order, key=lambda c: state.pose[c, 2]):
        top, side = _platform_outlines(state.pose[card], card)
        base = state.plat_base[card]
        platforms.append({"card": card, "shape": G.SHAPE_NAMES[G.platform_shape(card)],
                          "icon": G.ICONS[G.platform_icon(card)], "level": state.plat_level[card],
                          "on": "table" if base < 0 else base, "top": top, "side": side})
    pillars = []
    for i in range(G.NUM_PILLARS):
        if state.onboard[PILLAR0 + i]:
            half = (G.PILLAR_W / 2, G.PILLAR_W / 2, G.PILLAR_H[G.pillar_size(i)] / 2)
            top, side = _box_outlines(state.pose[PILLAR0 + i], half)
            pillars.append({"size": G.PILLAR_NAMES[G.pillar_size(i)], "top": top, "side": side})
    loose = []
    for q in range(n):
        pieces = [(CAT0 + q, "cat", None, G.CAT_HALF)]
        pieces += [(TOY0 + 4 * q + t, "toy", G.ICONS[t], G.TOY_HALF) for t in range(4)]
        for piece, kind, icon, half in pieces:
            if state.onboard[piece]:
                top, side = _box_outlines(state.pose[piece], half)
                support = int(state.support[piece])
                loose.append({"kind": kind, "owner": q, "icon": icon, "top": top, "side": side,
                              "on": support if support >= 0 else None})
    rect, rnd, short, tall = state.supply()
    return {
        "round": min(state.turns_done // n + 1, o.max_rounds),
        "max_rounds": o.max_rounds,
        "phase": "over" if over else PHASES[state.phase],
        "cats": list(G.CAT_NAMES[:n]),
        "icons": list(G.ICONS),
        "bats_used": state.bats_used,
        "max_bats": o.max_bats,
        "winning_score": o.winning_score,
        "final_left": state.final_left if state.final_left > 0 else None,
        "supply": {"rectangular": rect, "round": rnd, "short": short, "tall": tall},
        "platforms": platforms,
        "pillars": pillars,
        "loose": loose,
        "anchors": _anchors(state),
        "last_turn": dict(state.last_turn) if state.last_turn else None,
    }


def describe(state, actor: int, action: int, viewer: int) -> str:
    return state.action_to_string(action)  # the tower is in plain sight


def _variant_name(variant: int) -> str:
    shape, sizes, theta = G.VARIANTS[variant]
    legs = "+".join(G.PILLAR_NAMES[s] for s in sizes)
    turn = f" {theta:g} deg" if shape == G.RECT else ""
    return f"{G.SHAPE_NAMES[shape]} on {legs}{turn}"


def move(state, action: int) -> dict:
    if action < NUM_BUILD:
        anchor, variant = divmod(action, G.NUM_VARIANTS)
        return {"key": f"anchor:{anchor}", "group": f"build {_variant_name(variant)}"}
    if action < TOY_BASE:
        return {"key": f"platform:{action - CAT_BASE}"}
    if action < BAT_BASE:
        return {"group": f"toy {G.ICONS[(action - TOY_BASE) // 4]}"}
    if action < STOP:
        return {"group": "bat"}
    return {"group": "bat"}


def rich(view: dict):
    b = view["board"]
    head = f"{view['title']}: round {b['round']}/{b['max_rounds']}, phase {b['phase']}"
    if b["phase"] == "bat":
        head += f" (bats used {b['bats_used']}/{b['max_bats']})"
    parts = [Text(head, style="bold")]
    s = b["supply"]
    parts.append(Text(f"supply: {s['rectangular']} rectangular and {s['round']} round platforms, "
                      f"{s['short']} short and {s['tall']} tall pillars"))
    t = RichTable(title="tower (centre in cm, seen from above)", title_justify="left",
                  show_edge=False)
    for column in ("card", "shape", "icon", "level", "on", "centre", "holds"):
        t.add_column(column)
    for p in b["platforms"]:
        xs = [pt[0] for pt in p["top"]]
        ys = [pt[1] for pt in p["top"]]
        centre = f"({(min(xs) + max(xs)) / 2:+.1f}, {(min(ys) + max(ys)) / 2:+.1f})"
        holds = ", ".join(f"P{x['owner']} {x['icon'] or 'cat'}" for x in b["loose"]
                          if x["on"] == p["card"])
        t.add_row(str(p["card"]), p["shape"], p["icon"], f"{p['level']:g}", str(p["on"]),
                  centre, holds)
    parts.append(t)
    parts.append(scores_table(view, {"cat": b["cats"]}))
    if b["last_turn"]:
        lt = b["last_turn"]
        parts.append(Text(f"last turn: P{lt['player']} scored {lt['points']}: {lt['reason']}"))
    return Group(*parts)
