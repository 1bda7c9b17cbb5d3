"use strict";
// Cat Tree: the shared grid (row 0 on the floor, at the bottom), your two cards to keep
// one, the kept cards; a legal placement is the empty cell it would fill.
(function () {
  const CZ = window.CatZoo;
  const TYPE = ["#8d6e63", "#ef6c00", "#7cb342", "#00897b", "#c9a227", "#d81b60", "#5e35b1", "#3949ab"];

  CZ.renderers.cat_tree = function (root, view) {
    const b = view.board;
    CZ.info(root, `Turn ${b.turn}/${b.turns}, phase: ${b.phase}, leader P${b.leader}, shared score ${b.total}`);
    const size = 40, left = 26, top = 8;
    const box = CZ.panel(root, "The cat tree (rows above the dashed line score double)");
    const svg = CZ.svg(box, left + b.width * size + 8, top + b.height * size + 26, "cat tree grid");
    for (let row = 0; row < b.height; row++) {
      const y = top + (b.height - 1 - row) * size;
      CZ.el("text", {x: 4, y: y + size / 2 + 4, "font-size": 11}, svg, String(row));
      for (let col = 0; col < b.width; col++) {
        const i = row * b.width + col;
        const x = left + col * size;
        const kind = b.grid[i];
        const g = CZ.el("g", {"data-key": `cell:${i}`}, svg);
        const fill = kind < 0 ? (row >= b.altitude_row ? "#f1ecff" : "#fbf8f0") : TYPE[kind];
        CZ.el("rect", {x: x + 1, y: y + 1, width: size - 2, height: size - 2, fill: fill,
                       stroke: "#bbb", opacity: kind >= 0 && !b.counted[i] ? 0.45 : 1}, g);
        if (kind >= 0) {
          CZ.el("text", {x: x + size / 2, y: y + size / 2 + 5, "text-anchor": "middle", "font-size": 15,
                         "font-weight": "bold", fill: "#fff"}, g, b.letters[kind]);
        }
      }
    }
    const lineY = top + (b.height - b.altitude_row) * size;
    if (b.altitude_row > 0 && b.altitude_row < b.height) {
      CZ.el("line", {x1: left, x2: left + b.width * size, y1: lineY, y2: lineY, stroke: "#6a4fbf", "stroke-dasharray": "6 4", "stroke-width": 2}, svg);
    }
    CZ.el("line", {x1: left, x2: left + b.width * size, y1: top + b.height * size, y2: top + b.height * size, stroke: "#3d2b1f", "stroke-width": 4}, svg);
    for (let col = 0; col < b.width; col++) {
      CZ.el("text", {x: left + (col + 0.5) * size, y: top + b.height * size + 18, "text-anchor": "middle", "font-size": 11}, svg, String(col));
    }
    CZ.info(root, b.letters.map((l, k) => `${l} ${b.types[k]}`).join(", ") + "; faded: detached from the tree");
    const kept = b.kept.map((k, p) => `${CZ.who(view, p)}: ${k === null ? (b.has_kept[p] ? "kept a card (secret)" : "-") : b.types[k]}`
      + (b.to_place[p] ? " (to place)" : ""));
    CZ.info(root, "Kept: " + kept.join("; "));
    CZ.cardRow(root, b.phase === "keep" ? "Your two cards: keep one" : "Your cards this turn",
               b.hand.map((k, i) => ({label: b.letters[k], sub: b.types[k], fill: TYPE[k], ink: "#fff", key: `hand:${i}`})),
               {w: 70, h: 64});
  };
})();
