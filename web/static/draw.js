"use strict";
// Small drawing helpers shared by the game renderers: SVG and HTML elements, cards.
window.CatZoo = (function () {
  const NS = "http://www.w3.org/2000/svg";
  // Players' colours: none is a suit's (Cat in the Box's rows are blue, yellow, green and
  // red), so a token on a row never reads as that row's colour.
  const PLAYER = ["#7b1fa2", "#263238", "#00838f", "#8d6e63", "#ad1457"];

  function el(tag, attrs, parent, text) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null) node.setAttribute(k, v);
    }
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function html(tag, attrs, parent, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null) node.setAttribute(k, v);
    }
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function panel(root, title) {
    const div = html("div", {class: "panel"}, root);
    if (title) html("h3", {}, div, title);
    return div;
  }

  function svg(parent, width, height, label) {
    return el("svg", {viewBox: `0 0 ${width} ${height}`, width: width, height: height,
                      role: "img", "aria-label": label}, parent);
  }

  // A card: a rounded rectangle with a big label and a small one; ``key`` ties it to moves.
  function card(parent, x, y, o) {
    const w = o.w || 46, h = o.h || 64;
    const g = el("g", {"data-key": o.key, class: "card"}, parent);
    el("rect", {x: x, y: y, width: w, height: h, rx: 6, fill: o.fill || "#fff",
                stroke: o.stroke || "#555", "stroke-width": 1.5}, g);
    el("text", {x: x + w / 2, y: y + h / 2 + 6, "text-anchor": "middle", "font-size": o.size || 20,
                "font-weight": "bold", fill: o.ink || "#222"}, g, o.label);
    if (o.sub) {
      el("text", {x: x + w / 2, y: y + h - 6, "text-anchor": "middle", "font-size": 10,
                  fill: o.ink || "#222"}, g, o.sub);
    }
    return g;
  }

  // A row of cards in an SVG of its own, under a title; returns the svg.
  function cardRow(root, title, cards, o) {
    const div = panel(root, title);
    o = o || {};
    const w = o.w || 46, h = o.h || 64, gap = 6;
    const svgNode = svg(div, Math.max(1, cards.length) * (w + gap) + gap, h + 2 * gap, title);
    cards.forEach((c, i) => card(svgNode, gap + i * (w + gap), gap, Object.assign({w: w, h: h}, c)));
    if (!cards.length) el("text", {x: gap, y: h / 2 + gap, "font-size": 14, fill: "#888"}, svgNode, "none");
    return svgNode;
  }

  function info(root, text) {
    return html("p", {class: "info"}, root, text);
  }

  function who(view, p) {
    if (p === null || p === undefined) return "-";
    return p === view.seat ? `P${p} (you)` : `P${p} ${view.seats[p].name}`;
  }

  // A player's colour on an HTML element, through the CSSOM (the page's CSP forbids
  // style attributes, not styles set from script).
  function tint(node, p, property) {
    node.style[property || "color"] = PLAYER[p % PLAYER.length];
    return node;
  }

  // A seat's name in its colour, the full spec on hover.
  function whoSpan(parent, view, p) {
    const s = view.seats[p];
    return tint(html("span", {class: "who", title: s && s.spec && s.spec !== s.name ? s.spec : null},
                     parent, who(view, p)), p);
  }

  // The players a row is about: a seat, or a team ("team P0+P2").
  function players(parent, view, list) {
    if (list.length === 1) return whoSpan(parent, view, list[0]);
    const span = html("span", {class: "team"}, parent, "team ");
    list.forEach((p, i) => {
      if (i) span.appendChild(document.createTextNode("+"));
      tint(html("span", {class: "who"}, span, `P${p}`), p);
    });
    return span;
  }

  // A table of rows {who, cells} under a head whose first column names the players.
  function resultTable(parent, view, head, rows, attrs) {
    const t = html("table", Object.assign({class: "result-table"}, attrs || {}), parent);
    const tr = html("tr", {}, t);
    for (const h of head) html("th", {}, tr, h);
    for (const row of rows) {
      const r = html("tr", {}, t);
      players(html("td", {}, r), view, row.who);
      for (const c of row.cells) html("td", {class: /^[-+]?[\d.]+$|^-$/.test(c) ? "num" : ""}, r, c);
    }
    return t;
  }

  return {el, html, svg, card, cardRow, panel, info, who, whoSpan, players, resultTable, tint, PLAYER,
          renderers: {}};
})();
