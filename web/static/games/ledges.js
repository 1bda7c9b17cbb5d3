"use strict";
// Cats Knocking Things Off Ledges: the tower from above (x right, y up) and from the front
// (x right, z up), in centimetres. Build: choose a piece, then a highlighted anchor;
// place your cat: click a platform. A bat is shown as it happened: the server sends the
// simulation's frames (30 a second) and both views play them, then show the drop and score.
(function () {
  const CZ = window.CatZoo;
  const ICON = {yarn: "#e377c2", mouse: "#7f7f7f", fish: "#17becf", feather: "#bcbd22"};
  const SCALE = 9, HALF = 22;
  const SPEED = 0.5; // the bat plays at half speed, to be followed
  const size = 2 * HALF * SCALE;
  const anim = {played: null, data: null, start: 0, loop: false};

  function poly(parent, pts, project, attrs) {
    const points = pts.map((p) => project(p).join(",")).join(" ");
    return CZ.el("polygon", Object.assign({points: points, stroke: "#333", "stroke-width": 0.8}, attrs), parent);
  }

  const topXY = (p) => [((p[0] + HALF) * SCALE).toFixed(1), ((HALF - p[1]) * SCALE).toFixed(1)];
  const sideOf = (high) => (p) => [((p[0] + HALF) * SCALE).toFixed(1), ((high - p[1]) * SCALE).toFixed(1)];

  function fillOf(piece) {
    if (piece.kind === "pillar") return "#8c564b";
    if (piece.kind === "cat") return CZ.PLAYER[piece.owner];
    return ICON[piece.icon];
  }

  // One frame of the bat: the still pieces where they were, the moving ones at frame k.
  function drawFrame(svgNode, a, k, view) {
    const g = CZ.el("g", {class: "anim"}, svgNode);
    const project = view === "top" ? topXY : sideOf(Number(svgNode.dataset.high));
    // as the still drawing: from above the platforms then the cats and toys (the pillars
    // are under them), from the front the pillars, platforms, then cats and toys
    const rank = {pillar: 0, platform: 1, cat: 2, toy: 2};
    const pieces = [...a.still, ...a.movers].filter((m) => view === "side" || m.kind !== "pillar")
      .sort((x, y) => rank[x.kind] - rank[y.kind]);
    for (const piece of pieces) {
      const shots = piece[view];
      const pts = shots[Math.min(k, shots.length - 1)];
      poly(g, pts, project, {fill: fillOf(piece), "fill-opacity": piece.kind === "platform" && view === "top" ? 0.55 : 1,
                             stroke: piece.owner !== undefined ? CZ.PLAYER[piece.owner] : "#333",
                             "stroke-width": piece.owner !== undefined ? 1.5 : 0.8});
    }
    return g;
  }

  function tick() {
    const a = anim.data;
    if (!a) { anim.loop = false; return; }
    const k = Math.floor((performance.now() - anim.start) / 1000 * SPEED * a.fps);
    const done = k >= a.frames - 1;
    const drawn = [];
    for (const view of ["top", "side"]) {
      const svgNode = document.getElementById(`ledges-${view}`);
      if (!svgNode) continue;
      svgNode.querySelectorAll("g.anim").forEach((g) => g.remove());
      const scene = svgNode.querySelector("g.scene");
      if (done) { if (scene) scene.removeAttribute("visibility"); continue; }
      if (scene) scene.setAttribute("visibility", "hidden");
      const g = drawFrame(svgNode, a, k, view);
      drawn.push(`${view}:${g.childElementCount}`);
    }
    // What the last frame drew, and which frame (the page's tests read them)
    if (drawn.length) document.body.dataset.batDrawn = drawn.join(" ");
    document.body.dataset.batFrame = String(Math.min(k, a.frames - 1));
    if (!done) document.body.dataset.bat = "playing";
    if (done) {
      anim.data = null;
      anim.loop = false;
      document.body.dataset.bat = "shown";
      return;
    }
    requestAnimationFrame(tick);
  }

  function play(a) {
    anim.data = a;
    anim.start = performance.now();
    document.body.dataset.bat = "starting";
    delete document.body.dataset.batDrawn;
    if (!anim.loop) { anim.loop = true; requestAnimationFrame(tick); }
  }

  // The drop of the toy, in the front view: from where it was batted to where it landed.
  function drop(side, a, high) {
    const toy = a.movers.find((m) => m.batted);
    if (!toy) return;
    const bottom = (pts) => Math.min(...pts.map((p) => p[1]));
    const from = bottom(toy.side[0]), to = bottom(toy.side[toy.side.length - 1]);
    const x = (Math.max(...toy.side[toy.side.length - 1].map((p) => p[0])) + 2 + HALF) * SCALE;
    const y = (z) => (high - z) * SCALE;
    const g = CZ.el("g", {class: "drop"}, side);
    for (const z of [from, to]) {
      CZ.el("line", {x1: 0, x2: size, y1: y(z), y2: y(z), stroke: "#ff7a00", "stroke-dasharray": "5 4"}, g);
    }
    CZ.el("line", {x1: x, x2: x, y1: y(from), y2: y(to), stroke: "#ff7a00", "stroke-width": 2}, g);
    const left = x > size - 90; // the label goes on the side with room
    CZ.el("text", {x: left ? x - 4 : x + 4, y: (y(from) + y(to)) / 2 + 4, "font-size": 12, fill: "#b34d00",
                   "text-anchor": left ? "end" : "start"}, g, `drop ${(from - to).toFixed(1)} cm`);
  }

  CZ.renderers.ledges = function (root, view) {
    const b = view.board;
    const s = b.supply;
    const a = view.animation;
    CZ.info(root, `Round ${b.round}/${b.max_rounds}, phase: ${b.phase}` + (b.phase === "bat" ? ` (bats used ${b.bats_used}/${b.max_bats})` : "")
      + `. First to ${b.winning_score} points starts the last round.` + (b.final_left ? ` Final round: ${b.final_left} turn(s) left.` : ""));
    CZ.info(root, `Supply: ${s.rectangular} rectangular and ${s.round} round platforms, ${s.short} short and ${s.tall} tall pillars. `
      + "Cats: " + b.cats.map((c, p) => `${c} (${CZ.who(view, p)})`).join(", "));
    const box = CZ.panel(root, "From above and from the front");
    const top = CZ.svg(box, size, size, "tower from above");
    top.id = "ledges-top";
    CZ.el("rect", {x: 0, y: 0, width: size, height: size, fill: "#efe6d2"}, top);
    const topScene = CZ.el("g", {class: "scene"}, top);
    for (const p of b.platforms) {
      poly(topScene, p.top, topXY, {fill: ICON[p.icon], "fill-opacity": 0.55, "data-key": `platform:${p.card}`});
    }
    for (const x of b.loose) {
      poly(topScene, x.top, topXY, {fill: x.kind === "cat" ? CZ.PLAYER[x.owner] : ICON[x.icon],
                                    stroke: CZ.PLAYER[x.owner], "stroke-width": 1.5});
    }
    for (const anchor of b.anchors) {
      const [cx, cy] = topXY(anchor.xy);
      CZ.el("circle", {cx: cx, cy: cy, r: 4, class: "anchor", "data-key": `anchor:${anchor.anchor}`}, topScene);
    }
    const heights = b.platforms.flatMap((p) => p.side.map((q) => q[1] + 5));
    if (a) for (const m of [...a.still, ...a.movers]) for (const f of m.side) for (const q of f) heights.push(q[1] + 5);
    const high = Math.max(20, ...heights);
    const side = CZ.svg(box, size, Math.round(high * SCALE), "tower from the front");
    side.id = "ledges-side";
    side.dataset.high = String(high);
    const sideXZ = sideOf(high);
    const sideScene = CZ.el("g", {class: "scene"}, side);
    for (const p of b.pillars) poly(sideScene, p.side, sideXZ, {fill: "#8c564b"});
    for (const p of b.platforms) poly(sideScene, p.side, sideXZ, {fill: ICON[p.icon]});
    for (const x of b.loose) {
      poly(sideScene, x.side, sideXZ, {fill: x.kind === "cat" ? CZ.PLAYER[x.owner] : ICON[x.icon]});
    }
    CZ.el("line", {x1: 0, x2: size, y1: high * SCALE, y2: high * SCALE, stroke: "#3d2b1f", "stroke-width": 3}, side);
    if (a) {
      const r = a.result;
      const what = r ? `${r.reason}: ${r.points > 0 ? "+" : ""}${r.points} point${r.points === 1 ? "" : "s"}`
        : "the toy stayed on its platform: bat again or stop";
      CZ.html("p", {class: "info bat-result", id: "bat-result"}, root, `${CZ.who(view, a.player)} batted the toy: ${what}.`);
      drop(sideScene, a, high);
      const again = CZ.html("button", {type: "button", id: "replay-bat"}, root, "Show the bat again");
      again.addEventListener("click", () => play(a));
      // (a bat still playing goes on in this new drawing: the loop finds it by id)
      if (anim.played !== a.event) {
        anim.played = a.event;
        play(a);
      }
    }
    if (b.last_turn) {
      CZ.info(root, `Last turn: ${CZ.who(view, b.last_turn.player)} scored ${b.last_turn.points}: ${b.last_turn.reason}`);
    }
  };
})();
