"use strict";
// The page: the set-up form at /, the table at /play#TOKEN (the token stays in the
// fragment, which browsers never send to a server or in a Referer).
(function () {
  const CZ = window.CatZoo;
  const $ = (id) => document.getElementById(id);

  async function api(method, url, body) {
    const init = {method: method, headers: {}};
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    try {
      const r = await fetch(url, init);
      let data = null;
      try { data = await r.json(); } catch (e) { data = {error: `bad answer (${r.status})`}; }
      return {ok: r.ok, status: r.status, data: data};
    } catch (e) {
      return {ok: false, status: 0, data: {error: "the server cannot be reached"}};
    }
  }

  function showError(message) {
    const box = $("error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  // --- set-up --------------------------------------------------------------------------
  async function setup() {
    $("setup").hidden = false;
    document.body.dataset.state = "setup";
    const r = await api("GET", "/api/catalogue");
    if (!r.ok) { showError(r.data.error); return; }
    const games = r.data.games;
    const gameSelect = $("game");
    for (const g of games) CZ.html("option", {value: g.name}, gameSelect, g.title);
    const current = () => games.find((g) => g.name === gameSelect.value);

    function seatChoices(g, n) {
      const out = [["human", "you / a human"]];
      for (const b of g.bots) out.push([b, `bot: ${b}`]);
      for (const c of g.checkpoints) {
        if (c.players !== n) continue;
        const shipped = c.name.startsWith("shipped:");
        out.push([`checkpoint:${c.name}`, shipped ? `policy shipped with CatZoo (${c.name})`
                                                  : `checkpoint: ${c.name}`]);
      }
      return out;
    }

    const heuristicOf = (g) => (g.bots.includes("heuristic") ? "heuristic" : "random");
    // A seat left at its default plays best, the strongest bot for the game and count
    // (offered first); else the game's shipped policy when one is shipped for this many
    // players (the catalogue lists shipped:GAME once per count, each with its count),
    // which with game options (which it may not know) gives way to the heuristic.
    function defaultBot(g, n) {
      if (g.bots.includes("best")) return "best";
      const shipped = g.checkpoints.find((c) => c.name === `shipped:${g.name}` && c.players === n);
      return shipped ? `checkpoint:${shipped.name}` : heuristicOf(g);
    }

    function fillSeats() {
      const g = current();
      const n = Number($("players").value);
      const list = $("seat-list");
      list.querySelectorAll(".seat-row").forEach((row) => row.remove());
      const fallback = defaultBot(g, n);
      for (let i = 0; i < n; i++) {
        const row = CZ.html("div", {class: "seat-row"}, list);
        CZ.html("span", {}, row, `P${i}`);
        const select = CZ.html("select", {class: "seat", "data-seat": i, "data-auto": "1"}, row);
        for (const [value, label] of seatChoices(g, n)) CZ.html("option", {value: value}, select, label);
        select.value = i === 0 ? "human" : fallback;
        select.addEventListener("change", () => select.removeAttribute("data-auto"));
      }
    }

    function fillPlayers() {
      const g = current();
      $("game-kind").textContent = g.kind;
      const rules = $("rules-link");
      rules.href = `/rules/${g.name}`;
      rules.textContent = `rules of ${g.title}`;
      rules.hidden = false;
      const players = $("players");
      players.replaceChildren();
      for (const n of g.players) CZ.html("option", {value: n}, players, String(n));
      players.value = String(g.default_players);
      fillSeats();
    }

    gameSelect.addEventListener("change", fillPlayers);
    $("players").addEventListener("change", fillSeats);
    fillPlayers();

    $("setup-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      showError("");
      const typed = $("options").value.trim() !== "";
      const body = {game: gameSelect.value,
                    seats: [...document.querySelectorAll("select.seat")].map((s) =>
                      typed && s.dataset.auto && s.value.startsWith("checkpoint:shipped:")
                        ? heuristicOf(current()) : s.value),
                    options: {}};
      const seed = $("seed").value.trim();
      if (seed !== "") body.seed = Number(seed);
      for (const part of $("options").value.split(",")) {
        if (!part.trim()) continue;
        const at = part.indexOf("=");
        if (at < 1) { showError(`option "${part.trim()}" must look like key=value`); return; }
        body.options[part.slice(0, at).trim()] = part.slice(at + 1).trim();
      }
      const r = await api("POST", "/api/games", body);
      if (!r.ok) { showError(r.data.error); return; }
      const humans = r.data.seats.filter((s) => s.human);
      if (humans.length === 1) {
        location.href = `/play#${humans[0].token}`;
        return;
      }
      const box = $("invites");
      box.hidden = false;
      box.replaceChildren();
      CZ.html("p", {}, box, "One link per human seat: open yours, send the others to the other players.");
      for (const s of humans) {
        const line = CZ.html("p", {}, box);
        const url = `${location.origin}/play#${s.token}`;
        CZ.html("a", {href: url, class: "invite", "data-seat": s.seat}, line, `P${s.seat}: ${url}`);
      }
    });
  }

  // --- the table -----------------------------------------------------------------------
  const table = {token: null, view: null, group: null, busy: false, dismissed: 0, replay: null};

  function status(view) {
    if (view.error) return `The game stopped: ${view.error}`;
    if (view.over) return "Game over";
    if (view.to_act === view.seat) return "Your turn";
    const acting = view.seats[view.to_act];
    if (acting && acting.human) return `Waiting for ${CZ.who(view, view.to_act)}…`;
    return `${CZ.who(view, view.to_act)} is thinking…`;
  }

  // A bot to act: the status says so, with a pulse while it thinks.
  function botThinking(view) {
    const acting = view.seats[view.to_act];
    return !view.error && !view.over && view.to_act !== view.seat && !!acting && !acting.human;
  }

  function render(view) {
    if (table.view && view.turn < table.view.turn) return; // an older answer, overtaken
    if (table.replay) { table.view = view; return; } // watching the replay: keep it
    table.view = view;
    const body = document.body;
    body.dataset.state = view.error ? "error" : view.over ? "over"
      : view.to_act === view.seat ? "your-turn" : "waiting";
    body.dataset.turn = String(view.turn);
    $("title").textContent = `${view.title}: you are P${view.seat}`;
    $("status").textContent = status(view);
    $("status").classList.toggle("thinking", botThinking(view));
    drawTable(view);
    wireMoves(view);
    renderResult(view);
  }

  // What every view shows, live or in the replay: the board, players, sheet, log.
  function drawTable(view) {
    const rules = $("rules-link");
    rules.href = view.rules;
    rules.textContent = "rules";
    rules.hidden = false;
    const board = $("board");
    board.replaceChildren();
    const draw = CZ.renderers[view.game];
    if (draw) draw(board, view); else CZ.info(board, "This game has no drawing yet: use the buttons.");
    renderRoundSummary(view);
    renderScores(view);
    renderSheet(view);
    renderLog(view);
  }

  // The round just ended, until closed or the next one ends.
  function renderRoundSummary(view) {
    const box = $("round-summary");
    box.replaceChildren();
    const rounds = view.rounds || [];
    // live: a new summary shows until closed; in the replay, the last one so far shows
    box.hidden = !rounds.length || (!table.replay && rounds.length <= table.dismissed);
    if (box.hidden) return;
    const last = rounds[rounds.length - 1];
    const head = CZ.html("div", {class: "summary-head"}, box);
    CZ.html("h2", {}, head, last.title);
    if (!table.replay) {
      const close = CZ.html("button", {type: "button", id: "close-summary"}, head, "Close");
      close.addEventListener("click", () => { table.dismissed = rounds.length; renderRoundSummary(table.view); });
    }
    CZ.resultTable(box, view, last.head, last.rows, {id: "round-table"});
    for (const note of last.notes) CZ.html("p", {class: "hint"}, box, note);
  }

  function renderSheet(view) {
    const box = $("sheet-box"), t = $("sheet");
    t.replaceChildren();
    const sheet = view.sheet;
    box.hidden = !sheet || sheet.head.length < 2;
    if (box.hidden) return;
    const tr = CZ.html("tr", {}, t);
    CZ.html("th", {}, tr, "");
    for (const h of sheet.head) CZ.html("th", {}, tr, h);
    for (const row of sheet.rows) {
      const r = CZ.html("tr", {}, t);
      CZ.players(CZ.html("td", {}, r), view, row.who);
      row.cells.forEach((c, i) => CZ.html("td", {class: "num" + (i === row.cells.length - 1 ? " total" : "")}, r, c));
    }
  }

  function wireMoves(view) {
    const groupsBox = $("groups"), movesBox = $("moves");
    groupsBox.replaceChildren();
    movesBox.replaceChildren();
    const moves = view.moves;
    const groups = [...new Set(moves.map((m) => m.group).filter((g) => g))];
    if (!groups.includes(table.group)) table.group = null;
    if (groups.length === 1) table.group = groups[0];
    if (groups.length > 1) {
      for (const g of groups) {
        const b = CZ.html("button", {type: "button", class: "group-btn" + (g === table.group ? " selected" : "")},
                          groupsBox, g);
        b.addEventListener("click", () => { table.group = g; render(table.view); });
      }
    }
    const board = $("board");
    for (const m of moves) {
      if (m.group && m.group !== table.group) continue;
      const targets = m.key ? [...board.querySelectorAll(`[data-key="${CSS.escape(m.key)}"]`)] : [];
      const free = targets.filter((t) => !t.hasAttribute("data-action"));
      if (free.length) {
        for (const t of free) {
          t.classList.add("legal");
          t.setAttribute("data-action", m.action);
          CZ.el("title", {}, t, m.label);
          t.addEventListener("click", () => send(m.action));
        }
      } else {
        const b = CZ.html("button", {type: "button", class: "move-btn", "data-action": m.action}, movesBox, m.label);
        b.addEventListener("click", () => send(m.action));
      }
    }
  }

  function renderScores(view) {
    const t = $("scores");
    t.replaceChildren();
    view.seats.forEach((s, p) => {
      const row = CZ.html("tr", {class: view.to_act === p ? "to-act" : ""}, t);
      const name = CZ.html("td", {}, row);
      CZ.tint(CZ.html("span", {class: "swatch"}, name), p, "background");
      CZ.whoSpan(name, view, p);
      CZ.html("td", {class: "score", "data-seat": p}, row, String(view.scores[p]));
    });
    // The legend: what each short name stands for.
    const legend = $("legend");
    const full = view.seats.filter((s) => s.spec && s.spec !== s.name && !s.human);
    legend.textContent = full.length ? full.map((s) => `P${s.seat} ${s.name}: ${s.spec}`).join("; ") : "";
  }

  function renderLog(view) {
    const log = $("log");
    log.replaceChildren();
    for (const e of view.events) {
      CZ.html("li", {value: e.number + 1}, log, `${CZ.who(view, e.player)}: ${e.text}`);
    }
    log.scrollTop = log.scrollHeight;
  }

  function renderResult(view) {
    const box = $("result");
    box.hidden = !view.over;
    box.replaceChildren();
    if (!view.over) return;
    CZ.html("h2", {}, box, "Final result");
    const t = CZ.html("table", {id: "final-scores"}, box);
    view.seats.forEach((s, p) => {
      const row = CZ.html("tr", {}, t);
      CZ.whoSpan(CZ.html("td", {}, row), view, p);
      CZ.html("td", {class: "final-score", "data-seat": p}, row, String(view.result.scores[p]));
      CZ.html("td", {}, row, view.result.winners.includes(p) ? "winner" : "");
    });
    const won = view.result.winners.includes(view.seat);
    const winners = view.result.winners.map((p) => CZ.who(view, p)).join(" and ");
    CZ.html("p", {id: "verdict"}, box, (won ? (view.result.winners.length > 1 ? "A shared win." : "You win!") : "The bots win this one.")
      + ` Winner${view.result.winners.length > 1 ? "s" : ""}: ${winners}.`);
    if (view.result.reason) CZ.html("p", {id: "end-reason"}, box, `The game ended: ${view.result.reason}.`);
    if (view.result.tie_break) CZ.html("p", {id: "tie-break"}, box, `Tie-break: ${view.result.tie_break}`);
    const links = CZ.html("p", {}, box);
    const watch = CZ.html("button", {type: "button", id: "watch-replay"}, links, "Watch the replay, step by step");
    watch.addEventListener("click", () => showStep(0));
    CZ.html("a", {href: `/api/seat/${table.token}/replay`, download: "", id: "replay-link"}, links, "Download the replay");
    CZ.html("a", {href: "/"}, links, "New game");
  }

  // --- the replay: the finished game again, move by move, backwards and forwards ------
  async function showStep(at) {
    const r = await api("GET", `/api/seat/${table.token}/replay/${at}`);
    if (!r.ok) { showError(r.data.error); return; }
    const view = r.data;
    table.replay = view.replay;
    document.body.dataset.state = "replay";
    document.body.dataset.replayAt = String(view.replay.at);
    $("status").textContent = `Replay: after move ${view.replay.at} of ${view.replay.total}`;
    $("groups").replaceChildren();
    $("moves").replaceChildren();
    $("result").hidden = true;
    drawTable(view);
    replayBar();
  }

  function replayBar() {
    const bar = $("replay-bar");
    bar.hidden = false;
    bar.replaceChildren();
    const {at, total} = table.replay;
    const button = (id, label, target, disabled) => {
      const b = CZ.html("button", {type: "button", id: id}, bar, label);
      b.disabled = disabled;
      b.addEventListener("click", () => showStep(Math.max(0, Math.min(total, target))));
    };
    button("replay-first", "|< start", 0, at === 0);
    button("replay-back", "< back", at - 1, at === 0);
    CZ.html("span", {id: "replay-at"}, bar, `move ${at} / ${total}`);
    button("replay-next", "next >", at + 1, at === total);
    button("replay-last", "end >|", total, at === total);
    const leave = CZ.html("button", {type: "button", id: "replay-leave"}, bar, "Back to the result");
    leave.addEventListener("click", () => {
      table.replay = null;
      bar.hidden = true;
      render(Object.assign({}, table.view));
    });
  }


  async function send(action) {
    if (table.busy || !table.view) return;
    table.busy = true;
    showError("");
    const r = await api("POST", `/api/seat/${table.token}/move`, {action: action, turn: table.view.turn});
    table.busy = false;
    if (r.ok) { render(r.data); return; }
    showError(r.data.error);
    const again = await api("GET", `/api/seat/${table.token}`);
    if (again.ok) render(again.data);
  }

  async function follow() {
    const first = await api("GET", `/api/seat/${table.token}`);
    if (!first.ok) { showError(first.data.error); document.body.dataset.state = "error"; return; }
    render(first.data);
    while (!table.view.over && !table.view.error) {
      const r = await api("GET", `/api/seat/${table.token}?after=${table.view.turn}`);
      if (r.ok) {
        render(r.data);
      } else {
        showError(r.data.error);
        if (r.status === 404) { document.body.dataset.state = "error"; return; }
        await new Promise((done) => setTimeout(done, 1000));
      }
    }
  }

  // Another seat's link opened in this tab: start over from it, not from the old seat.
  window.addEventListener("hashchange", () => location.reload());
  const token = location.hash.slice(1);
  if (location.pathname === "/play" && token) {
    table.token = token;
    $("table").hidden = false;
    follow();
  } else {
    setup();
  }
})();
