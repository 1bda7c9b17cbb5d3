"use strict";
// Lunar: trump tiles, the sky (2 players), the trick, your hand; suit cards in colour,
// rank cards white.
(function () {
  const CZ = window.CatZoo;
  const SUIT = {wolf: "#6b7280", owl: "#8b5a2b", lynx: "#e07b00", bat: "#6b3fa0"};

  function face(c, key) {
    if (c.suit) return {label: c.suit, size: 12, fill: SUIT[c.suit], ink: "#fff", key: key};
    return {label: String(c.rank), key: key};
  }

  CZ.renderers.lunar = function (root, view) {
    const b = view.board;
    const teams = b.teams.map((members, t) => `team ${members.map((p) => "P" + p).join("+")}: `
      + `${b.team_scores[t]} points, track ${b.track[t]}, kept stars ${b.kept_stars[t]}`).join("; ");
    CZ.info(root, `Round ${b.round}, phase: ${b.phase}. ${teams}. A team needs more than ${b.target}.`);
    const tiles = CZ.panel(root, b.trump ? `Trump: ${b.trump}` : "Trump tiles (turn one face down)");
    const svg = CZ.svg(tiles, 4 * 76 + 8, 56, "trump tiles");
    ["wolf", "owl", "lynx", "bat"].forEach((s, i) => {
      const up = b.face_up.includes(s);
      const g = CZ.el("g", {"data-key": `tile:${s}`}, svg);
      CZ.el("rect", {x: 6 + i * 76, y: 6, width: 70, height: 44, rx: 8, fill: up ? SUIT[s] : "#ddd",
                     stroke: b.trump === s ? "#000" : "#555", "stroke-width": b.trump === s ? 4 : 1}, g);
      CZ.el("text", {x: 41 + i * 76, y: 33, "text-anchor": "middle", "font-size": 13, fill: up ? "#fff" : "#777"}, g,
            up ? s : `${s} (P${b.turned_by[s]})`);
    });
    if (b.sky) {
      CZ.cardRow(root, `The sky (decks: ${b.deck[0]} suits, ${b.deck[1]} ranks)`,
                 b.sky.map((c) => face(c, `sky:${c.card}`)));
    }
    const lead = b.lead_suit ? ` (lead suit ${b.lead_suit})` : "";
    if (b.trick.length || !b.last_trick) {
      CZ.cardRow(root, "Trick" + lead, b.trick.map((c) => Object.assign(face(c), {sub: `P${c.player}${c.from_sky ? " sky" : ""}`})));
    } else {
      CZ.cardRow(root, `Last trick, won by team ${b.last_trick.winning_team}`,
                 b.last_trick.cards.map((c) => Object.assign(face(c), {sub: `P${c.player}`})));
    }
    CZ.info(root, view.seats.map((s, p) => `${CZ.who(view, p)}: ${b.hand_counts[p]} cards`).join("; "));
    if (b.passed && (b.passed.length || b.received.length)) {
      CZ.info(root, `You passed: ${b.passed.map((c) => c.name).join(" ") || "-"}; `
        + `you received: ${b.received.map((c) => c.name).join(" ") || "-"}`);
    }
    CZ.cardRow(root, "Your hand", b.hand.map((c) => face(c, `hand:${c.card}`)));
  };
})();
