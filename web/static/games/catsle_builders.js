"use strict";
// CATsle Builders: every board's columns, the trick (cards still to take are clickable
// when taking), your hand. Your own columns are clickable when a card needs one.
(function () {
  const CZ = window.CatZoo;
  const SUIT = {Walls: "#7a7a7a", Gables: "#c0392b", Gates: "#8e5b2e", Bridges: "#2f6db5", Moats: "#1a9c8c"};

  function face(c, key, sub) {
    return {label: c.name, size: 15, fill: SUIT[c.suit], ink: "#fff", key: key, sub: sub};
  }

  function boardOf(root, view, p) {
    const b = view.board;
    const columns = b.boards[p];
    const colW = 58, cardH = 16, head = 34;
    const height = head + Math.max(5, ...columns.map((c) => c.cards.length)) * cardH + 10;
    const box = CZ.panel(root, `${CZ.who(view, p)}: ${b.hand_counts[p]} cards in hand`);
    const svg = CZ.svg(box, columns.length * (colW + 6) + 6, height, `board of P${p}`);
    columns.forEach((col, k) => {
      const x = 6 + k * (colW + 6);
      const g = CZ.el("g", {"data-key": `column:${p}:${k}`}, svg);
      CZ.el("rect", {x: x, y: 4, width: colW, height: height - 8, rx: 4, fill: "#f3eee2", stroke: "#aaa"}, g);
      CZ.el("text", {x: x + colW / 2, y: 18, "text-anchor": "middle", "font-size": 11}, g, `limit ${col.limit}`);
      CZ.el("text", {x: x + colW / 2, y: 30, "text-anchor": "middle", "font-size": 10, fill: "#555"}, g, `${col.points} pts`);
      col.cards.forEach((c, i) => {
        const over = i >= col.limit;
        CZ.el("rect", {x: x + 4 + (over ? 6 : 0), y: head + i * cardH, width: colW - 14, height: cardH - 2, rx: 2,
                       fill: SUIT[c.suit], opacity: over ? 0.6 : 1}, g);
        CZ.el("text", {x: x + colW / 2, y: head + i * cardH + 11, "text-anchor": "middle", "font-size": 10, fill: "#fff"}, g,
              c.name + (over ? " sideways" : ""));
      });
    });
  }

  CZ.renderers.catsle_builders = function (root, view) {
    const b = view.board;
    CZ.info(root, `Round ${b.round}/${b.rounds}, trick ${b.trick_number}/${b.tricks}, phase: ${b.phase}`
      + (b.led ? `, led suit: ${b.led}` : ""));
    if (b.trick.length) {
      const takes = b.rating.length ? " - takes: " + b.rating.map((p, i) => `P${p} ${b.takes[i]}`).join(", ") : "";
      CZ.cardRow(root, "Trick" + takes, b.trick.map((c) => Object.assign(
        face(c, c.left ? `trick:${c.card}` : null, `P${c.player}`), c.left ? {} : {fill: "#ccc"})));
    } else if (b.last_trick) {
      CZ.cardRow(root, "Last trick (strongest first: " + b.last_trick.rating.map((p) => "P" + p).join(" > ") + ")",
                 b.last_trick.cards.map((c) => face(c, null, `P${c.player}`)));
    } else {
      CZ.cardRow(root, "Trick", []);
    }
    if (b.pending) CZ.cardRow(root, "Card to put in one of your columns", [face(b.pending)]);
    boardOf(root, view, view.seat);
    view.seats.forEach((s, p) => { if (p !== view.seat) boardOf(root, view, p); });
    CZ.cardRow(root, "Your hand", b.hand.map((c) => face(c, `hand:${c.card}`)), {w: 40, h: 56});
  };
})();
