"use strict";
// Small drawing helpers shared by the game renderers: SVG and HTML elements, cards.
window.CatZoo = (function () {
  const NS = "http://www.w3.org/2000/svg";
  const PLAYER = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"];

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

  return {el, html, svg, card, cardRow, panel, info, who, PLAYER, renderers: {}};
})();
