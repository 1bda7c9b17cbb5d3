"use strict";
// Cats Knocking Things Off Ledges: the tower from above (x right, y up) and from the front
// (x right, z up), in centimetres. Build: choose a piece, then a highlighted anchor;
// place your cat: click a platform.
(function () {
  const CZ = window.CatZoo;
  const ICON = {yarn: "#e377c2", mouse: "#7f7f7f", fish: "#17becf", feather: "#bcbd22"};
  const SCALE = 9, HALF = 22;

  function poly(parent, pts, project, attrs) {
    const points = pts.map((p) => project(p).join(",")).join(" ");
    return CZ.el("polygon", Object.assign({points: points, stroke: "#333", "stroke-width": 0.8}, attrs), parent);
  }

  CZ.renderers.ledges = function (root, view) {
    const b = view.board;
    const s = b.supply;
    CZ.info(root, `Round ${b.round}/${b.max_rounds}, phase: ${b.phase}` + (b.phase === "bat" ? ` (bats used ${b.bats_used}/${b.max_bats})` : "")
      + `. First to ${b.winning_score} points starts the last round.` + (b.final_left ? ` Final round: ${b.final_left} turn(s) left.` : ""));
    CZ.info(root, `Supply: ${s.rectangular} rectangular and ${s.round} round platforms, ${s.short} short and ${s.tall} tall pillars. `
      + "Cats: " + b.cats.map((c, p) => `${c} (${CZ.who(view, p)})`).join(", "));
    const size = 2 * HALF * SCALE;
    const box = CZ.panel(root, "From above and from the front");
    const top = CZ.svg(box, size, size, "tower from above");
    const topXY = (p) => [((p[0] + HALF) * SCALE).toFixed(1), ((HALF - p[1]) * SCALE).toFixed(1)];
    CZ.el("rect", {x: 0, y: 0, width: size, height: size, fill: "#efe6d2"}, top);
    for (const p of b.platforms) {
      poly(top, p.top, topXY, {fill: ICON[p.icon], "fill-opacity": 0.55, "data-key": `platform:${p.card}`});
    }
    for (const x of b.loose) {
      poly(top, x.top, topXY, {fill: x.kind === "cat" ? CZ.PLAYER[x.owner] : ICON[x.icon],
                               stroke: CZ.PLAYER[x.owner], "stroke-width": 1.5});
    }
    for (const a of b.anchors) {
      const [cx, cy] = topXY(a.xy);
      CZ.el("circle", {cx: cx, cy: cy, r: 4, class: "anchor", "data-key": `anchor:${a.anchor}`}, top);
    }
    const high = Math.max(20, ...b.platforms.flatMap((p) => p.side.map((q) => q[1] + 5)));
    const side = CZ.svg(box, size, Math.round(high * SCALE), "tower from the front");
    const sideXZ = (p) => [((p[0] + HALF) * SCALE).toFixed(1), ((high - p[1]) * SCALE).toFixed(1)];
    for (const p of b.pillars) poly(side, p.side, sideXZ, {fill: "#8c564b"});
    for (const p of b.platforms) poly(side, p.side, sideXZ, {fill: ICON[p.icon]});
    for (const x of b.loose) {
      poly(side, x.side, sideXZ, {fill: x.kind === "cat" ? CZ.PLAYER[x.owner] : ICON[x.icon]});
    }
    CZ.el("line", {x1: 0, x2: size, y1: high * SCALE, y2: high * SCALE, stroke: "#3d2b1f", "stroke-width": 3}, side);
    if (b.last_turn) {
      CZ.info(root, `Last turn: ${CZ.who(view, b.last_turn.player)} scored ${b.last_turn.points}: ${b.last_turn.reason}`);
    }
  };
})();
