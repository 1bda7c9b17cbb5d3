"""Cats Knocking Things Off Ledges as one seat sees it: nothing is hidden, so the view is the
tower itself, drawn from above and from the front as 2-D outlines (centimetres) that the
page turns into SVG, plus the anchors a new piece may be built on."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text

from catzoo.games.ledges import geometry as G
from catzoo.games.ledges import physics as P
from catzoo.games.ledges.state import (
    BAT_BASE,
    CAT0,
    CAT_BASE,
    NUM_BUILD,
    PHASES,
    PILLAR0,
    STOP,
    TOWER,
    TOY0,
    TOY_BASE,
)
from catzoo.play.views import summary
from catzoo.play.views.generic import round_sheet, scores_table, tie_break

MOVED = 0.0005  # a piece that moved less than half a millimetre during a bat is not animated

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


# --- what happens during a move: the bat's flight, each turn's points ----------------------
@contextmanager
def watch(state, action: int, notes: dict):
    """Notes each turn's points, and for a bat the trajectory of everything it moved:
    the physics records its simulation (``physics.recording``), at 30 frames a second."""
    turns, player = state.turns_done, state.current_player
    if not BAT_BASE <= action < STOP:
        yield
    else:
        # The bodies of a simulation are the tower pieces on the table, then every cat
        # and toy of the players (those off the table parked): LedgesState._simulate.
        pieces = np.concatenate([TOWER[state.onboard[TOWER]], state._loose])
        active = state.onboard[pieces].copy()
        toy, start = state.active_toy, state.start_card
        with P.recording() as runs:
            yield
        if runs:
            notes["animation"] = _animation(pieces, active, runs[0], toy, start,
                                            state.plat_level[start], player, notes["move"])
    if state.turns_done > turns and state.last_turn:
        notes.setdefault("ledges_turns", []).append(dict(state.last_turn))
        if notes.get("animation", {}).get("event") == notes.get("move"):
            notes["animation"]["result"] = dict(state.last_turn)


def _animation(pieces, active, run: dict, toy: int, start: int, level: float, player: int,
               event: int) -> dict:
    """The bat as frames: each piece that moved, its outlines from above and from the
    front at every frame; the still pieces once."""
    frames = run["frames"]  # (frames, bodies, 7)
    movers, still = [], []
    for row, piece in enumerate(pieces):
        if not active[row]:
            continue
        track = frames[:, row, :]
        info = _piece_info(int(piece))
        moved = np.abs(track[:, :3] - track[0, :3]).max() > MOVED
        moved = moved or np.abs(track[:, 3:] - track[0, 3:]).max() > 1e-3
        shots = track if moved else track[:1]
        tops, sides = zip(*[_outlines(int(piece), pose) for pose in shots])
        entry = {**info, "batted": int(piece) == toy,
                 "top": [_rounded(t) for t in tops], "side": [_rounded(s) for s in sides]}
        (movers if moved else still).append(entry)
    return {"event": event, "player": player, "fps": P.FRAME_RATE, "frames": len(frames),
            "seconds": round(run["time"], 3), "movers": movers, "still": still,
            "from_level": level, "from_card": start}


def _piece_info(piece: int) -> dict:
    if piece < PILLAR0:
        return {"kind": "platform", "card": piece, "icon": G.ICONS[G.platform_icon(piece)]}
    if piece < CAT0:
        return {"kind": "pillar"}
    if piece < TOY0:
        return {"kind": "cat", "owner": piece - CAT0}
    return {"kind": "toy", "owner": (piece - TOY0) // 4, "icon": G.ICONS[(piece - TOY0) % 4]}


def _outlines(piece: int, pose) -> tuple[list, list]:
    if piece < PILLAR0:
        return _platform_outlines(pose, piece)
    if piece < CAT0:
        size = G.pillar_size(piece - PILLAR0)
        return _box_outlines(pose, (G.PILLAR_W / 2, G.PILLAR_W / 2, G.PILLAR_H[size] / 2))
    return _box_outlines(pose, G.CAT_HALF if piece < TOY0 else G.TOY_HALF)


def _rounded(outline: list) -> list:
    return [[round(x, 1), round(y, 1)] for x, y in outline]


def rounds(state, notes: dict) -> list[dict]:
    """Each round (one turn of every player): what each scored, and why."""
    n = state.num_players
    turns = notes.get("ledges_turns", [])
    out = []
    for r in range(0, len(turns), n):
        batch = turns[r : r + n]
        if len(batch) < n and not state.is_terminal():
            break
        rows = [([t["player"]], [t["points"], t["reason"]]) for t in batch]
        out.append(summary(f"Round {r // n + 1}: result", ["player", "points", "how"], rows,
                           round=r // n + 1))
    return out


def sheet(state, notes: dict) -> dict:
    n = state.num_players
    turns = notes.get("ledges_turns", [])
    per_round = []
    for r in range(0, len(turns), n):
        points = [0] * n
        for t in turns[r : r + n]:
            points[t["player"]] += t["points"]
        per_round.append(points)
    return round_sheet(per_round, [[p] for p in range(n)], state.scores())


def ending(state) -> dict:
    o = state.options
    scores = state.scores()
    reached = [p for p, s in enumerate(scores) if s >= o.winning_score]
    if state.final_left == 0 and reached:
        reason = (f"{' and '.join(f'P{p}' for p in reached)} reached {o.winning_score} points "
                  "and every other player had a final turn")
    else:
        reason = f"the limit of {o.max_rounds} round(s) was reached"
    return {"reason": reason,
            "tie_break": tie_break(state, [[p] for p in range(state.num_players)], "")}


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
