"use strict";
// Lunar: the trick track (what each position scores), trump tiles, the sky (2 players),
// the trick, your hand; suit cards in colour, rank cards white, a star on starred cards.
(function () {
  const CZ = window.CatZoo;
  const SUIT = {wolf: "#6b7280", owl: "#8b5a2b", lynx: "#e07b00", bat: "#6b3fa0"};
  const TEAM = ["#1565c0", "#c62828"];

  function face(c, key) {
    const star = c.stars ? "\u2605".repeat(c.stars) : undefined;
    if (c.suit) return {label: c.suit, size: 12, fill: SUIT[c.suit], ink: "#fff", key: key, sub: star};
    return {label: String(c.rank), key: key, sub: star, stroke: c.stars ? "#c9a227" : undefined};
  }

  // Positions 0-12, each with the stars it scores at the round's end, and the teams' markers.
  function track(root, b) {
    const box = CZ.panel(root, "Trick track: a team scores the stars beside its position at the round's end");
    const w = 34, n = b.track_stars.length;
    const svg = CZ.svg(box, n * w + 10, 74, "trick track");
    b.track_stars.forEach((s, i) => {
      const x = 5 + i * w;
      CZ.el("rect", {x: x, y: 6, width: w - 3, height: 34, rx: 4, fill: s ? "#fff3c4" : "#f3eee2", stroke: "#bbb"}, svg);
      CZ.el("text", {x: x + w / 2 - 1, y: 20, "text-anchor": "middle", "font-size": 11}, svg, String(i));
      CZ.el("text", {x: x + w / 2 - 1, y: 35, "text-anchor": "middle", "font-size": 11, fill: "#8a6d00"}, svg,
            s ? `${s}\u2605` : "-");
    });
    b.track.forEach((pos, t) => {
      const x = 5 + pos * w + (w - 3) / 2;
      CZ.el("circle", {cx: x + (t ? 6 : -6), cy: 52, r: 6, fill: TEAM[t], class: "track-marker", "data-team": t}, svg);
    });
    b.team_names.forEach((name, t) => {
      CZ.el("circle", {cx: 10 + t * 150, cy: 67, r: 4, fill: TEAM[t]}, svg);
      CZ.el("text", {x: 18 + t * 150, y: 71, "font-size": 11}, svg, `${name}: ${b.track[t]}`);
    });
  }

  CZ.renderers.lunar = function (root, view) {
    const b = view.board;
    const teams = b.team_names.map((name, t) => `${name}: ${b.team_scores[t]} points, `
      + `kept stars ${b.kept_stars[t]}`).join("; ");
    CZ.info(root, `Round ${b.round}, phase: ${b.phase}. ${teams}. A team needs more than ${b.target}.`);
    CZ.info(root, `Cards with a star (\u2605, one point each to the team that keeps it): ${b.starred.join(", ") || "none"}.`);
    track(root, b);
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
    const by = (c, sky) => Object.assign(face(c), {sub: `P${c.player}${sky && c.from_sky ? " sky" : ""}${c.stars ? " \u2605" : ""}`});
    if (b.trick.length || !b.last_trick) {
      CZ.cardRow(root, "Trick" + lead, b.trick.map((c) => by(c, true)));
    } else {
      CZ.cardRow(root, `Last trick, won by ${b.last_trick.winner}`, b.last_trick.cards.map((c) => by(c, false)));
    }
    CZ.info(root, view.seats.map((s, p) => `${CZ.who(view, p)} (${b.team_names[p % 2]}): ${b.hand_counts[p]} cards`).join("; "));
    if (b.passed && (b.passed.length || b.received.length)) {
      CZ.info(root, `You passed: ${b.passed.map((c) => c.name).join(" ") || "-"}; `
        + `you received: ${b.received.map((c) => c.name).join(" ") || "-"}`);
    }
    CZ.cardRow(root, "Your hand", b.hand.map((c) => face(c, `hand:${c.card}`)));
  };
})();
