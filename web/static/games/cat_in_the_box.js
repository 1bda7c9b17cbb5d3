"use strict";
// Cat in the Box: the research board (a cell is a card declared in a colour), the trick,
// your hand. A legal play is the board cell it would take.
(function () {
  const CZ = window.CatZoo;
  const COLOUR = {blue: "#3b6fd6", yellow: "#e0b400", green: "#3a9a4a", red: "#d23a3a"};
  const PALE = {blue: "#dbe6fb", yellow: "#fbf1c4", green: "#d7f0da", red: "#f8d6d6"};

  function trickCards(cards) {
    return cards.map((c) => ({label: String(c.number), sub: `P${c.player}`, fill: COLOUR[c.colour], ink: "#fff"}));
  }

  CZ.renderers.cat_in_the_box = function (root, view) {
    const b = view.board;
    CZ.info(root, `Round ${b.round}/${b.rounds}, phase: ${b.phase}` + (b.led ? `, led colour: ${b.led}` : "")
      + (b.red_broken ? ", red is broken" : ""));
    const size = 42, left = 70, top = 24;
    const box = CZ.panel(root, "Research board");
    const svg = CZ.svg(box, left + b.numbers * size + 10, top + b.rows.length * size + 10, "research board");
    for (let k = 1; k <= b.numbers; k++) {
      CZ.el("text", {x: left + (k - 0.5) * size, y: 16, "text-anchor": "middle", "font-size": 14}, svg, String(k));
    }
    b.rows.forEach((row, r) => {
      const y = top + r * size;
      CZ.el("text", {x: 4, y: y + size / 2 + 5, "font-size": 14, fill: COLOUR[row.colour]}, svg, row.colour);
      row.cells.forEach((owner, i) => {
        const g = CZ.el("g", {"data-key": `cell:${row.colour}:${i + 1}`, class: "cell"}, svg);
        const x = left + i * size;
        const fill = owner === -2 ? "#999" : PALE[row.colour];
        CZ.el("rect", {x: x + 2, y: y + 2, width: size - 4, height: size - 4, rx: 4, fill: fill, stroke: COLOUR[row.colour]}, g);
        if (owner >= 0) {
          CZ.el("circle", {cx: x + size / 2, cy: y + size / 2, r: 13, fill: CZ.PLAYER[owner]}, g);
          CZ.el("text", {x: x + size / 2, y: y + size / 2 + 5, "text-anchor": "middle", "font-size": 12, fill: "#fff"}, g, `P${owner}`);
        }
      });
    });
    if (b.revealed.length) {
      CZ.cardRow(root, "Leftover cards face up", b.revealed.map((k) => ({label: String(k)})), {w: 34, h: 46});
    }
    if (b.trick.length || !b.last_trick) {
      CZ.cardRow(root, "Trick" + (b.led ? ` (led ${b.led})` : ""), trickCards(b.trick));
    } else {
      const w = b.last_trick.winner;
      CZ.cardRow(root, `Last trick, won by ${w === null ? "nobody (paradox)" : CZ.who(view, w)}`,
                 trickCards(b.last_trick.cards));
    }
    const players = CZ.panel(root, "Table");
    b.players.forEach((p, i) => {
      const markers = Object.entries(p.markers).filter(([, held]) => held).map(([c]) => c).join(" ");
      CZ.info(players, `${CZ.who(view, i)}: ${p.tricks} tricks, prediction ${p.prediction === null ? "-" : p.prediction}, `
        + `${p.cards} cards, markers: ${markers || "none"}` + (p.set_aside ? ", card set aside" : ""));
    });
    const aside = b.aside === null ? "" : ` (set aside: ${b.aside})`;
    CZ.cardRow(root, "Your hand" + aside, b.hand.map((k) => ({label: String(k), key: `hand:${k}`})));
  };
})();
