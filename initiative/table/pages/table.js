"use strict";
// The parts every page of `serve` is built from: the tracker, the battle map, the roll cards,
// the narration, the round and the countdown, drawn from the server's frames (docs/protocol.md).
// The page's kind is on <body>: "gm" adds the override controls, "seat" the decision, "watch"
// only watches. The token comes from the URL's fragment (#token=T), which the browser never
// sends to any server. Text from the encounter is always set as text, never as HTML.
const kind = document.body.dataset.kind;
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const el = (tag, text, cls) => {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
};
const svg = (tag, attrs, text) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};
// Side colours: never the hit-point colours (green, amber, red).
const SIDES = ["#2f6fde", "#8e44ad", "#b0306a", "#7a5230", "#0f8b8d", "#44546a"];
const RADIUS = {1: 0.32, 2: 0.45, 3: 0.8, 4: 1.1};  // metres, by size

const token = new URLSearchParams(location.hash.slice(1)).get("token") || "";
const seatName = kind === "seat" ? decodeURIComponent(location.pathname.replace(/^\/seat\//, "")) : null;
const page = {
  state: null, board: null, names: {}, asked: null, shownAt: 0, clocks: {}, chosen: null,
  ended: false, rolls: [], nextId: 1, pending: {}, gmRolls: {}, mine: [], role: null,
  odds: null, oddsTrail: [], review: null,
};
window.initiativePage = page;  // for tests and the curious: what the page was told

function colour(side) {
  const sides = page.board ? page.board.sides : [];
  const i = sides.indexOf(side);
  return SIDES[(i < 0 ? sides.length : i) % SIDES.length];
}
function name(id) { return page.names[id] || id; }
function show(id, on) { $(id).hidden = !on; }
function banner(id, text, cls) {
  const b = $(id);
  b.textContent = text || "";
  b.hidden = !text;
  if (cls !== undefined) b.className = "banner " + cls;
}
function status(text) { $("status").textContent = text; }
// The GM's own roll, as the GM's narration says it (a secret one is told to no one else).
function rolled(e) {
  let faces = e.dice.join(" + ");
  if (e.modifier) faces += (e.modifier > 0 ? " + " : " - ") + Math.abs(e.modifier);
  return e.expr + " comes up " + faces + " = " + e.total + (e.gm_only ? " (secret)" : "") + ".";
}
function waiting(title, text, stopped) {
  $("waiting").classList.toggle("stopped", Boolean(stopped));
  $("waiting-title").textContent = title;
  $("waiting-text").textContent = text;
}

// -- the connection ---------------------------------------------------------------------

let ws = null;
// A lost connection is tried again, backing off from half a second to five (a restarted
// server, serve --resume, keeps the tokens); the hello's "since" says what was heard already.
let retry = 500;
function connect() {
  if (kind === "home") {
    waiting("This is a table of initiative serve",
      "Open the link serve printed: /gm for the game master, /watch for spectators, /seat/NAME for a player (each with its token).", true);
    status("no link opened");
    $("who").textContent = "";
    return;
  }
  $("who").textContent = kind === "gm" ? "game master" : kind === "watch" ? "spectator" : "seat " + seatName;
  ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.onopen = () => {
    const hello = {type: "hello", version: 1, token: token};
    if (kind === "seat") hello.seat = seatName;
    else hello.role = kind === "gm" ? "gm" : "spectator";
    if (kind === "gm") hello.review = true;  // stay after the end, to ask for the review
    if (page.lines) hello.since = page.lines;
    ws.send(JSON.stringify(hello));
    status("saying hello…");
  };
  ws.onclose = () => {
    if (page.ended || page.refused) return;
    status("disconnected: trying again…");
    if (!page.state) waiting("Not connected", "The connection to the server is lost; this page tries again by itself.", true);
    banner("errors", "The connection to the server is lost; trying again in " + Math.ceil(retry / 1000) + " s.", "bad");
    clearDecision("The connection to the server is lost.");
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
  ws.onmessage = (message) => receive(JSON.parse(message.data));
}

function send(frame) {
  page.sent = Date.now();
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
}

function receive(frame) {
  switch (frame.type) {
    case "welcome":
      retry = 500;
      if (page.state) {  // back after a lost connection: the page keeps what it showed
        banner("errors", "");
        status("back at the table");
        break;
      }
      page.role = frame.role || (frame.seat ? "seat" : "spectator");
      page.mine = frame.combatants || [];
      if (kind === "gm") conditionPicker(frame.conditions || [], frame.ruleset);
      $("title").textContent = frame.encounter;
      document.title = frame.encounter + " · " + $("who").textContent;
      status("waiting for the fight…");
      waiting("Waiting for the fight to begin",
        "The fight starts once every seat is taken. This page fills in by itself.");
      break;
    case "news":
      if (page.asked && frame.event.seq > page.asked.seq) clearDecision("The fight has moved on: that decision is no longer asked.");
      if (kind === "gm" && frame.event.type === "GmRolled") {  // (before or after its gm_result)
        page.gmRolls[frame.event.cause] = rolled(frame.event);
        banner("gm-result", page.gmRolls[frame.event.cause], "");
      }
      break;
    case "table":
      table(frame);
      break;
    case "priority":
      decide(frame);
      break;
    case "clock":
      page.clocks[frame.seat] = {who: frame.who, until: performance.now() + 1000 * frame.left, total: frame.left};
      tick();
      break;
    case "grace":  // remaining 0: the seat is back (or its grace is over)
      page.grace = frame.remaining > 0 ? {who: frame.who, name: frame.name, until: performance.now() + 1000 * frame.remaining} : null;
      if (!page.grace) banner("grace", "");
      tick();
      break;
    case "odds":
      drawOdds(frame);
      break;
    case "review_status":
      drawReview(frame);
      break;
    case "gm_result": {
      const asked = page.pending[frame.id] || "override";
      delete page.pending[frame.id];
      if (frame.ok) banner("gm-result", page.gmRolls[frame.seq] || asked + ": recorded as event " + frame.seq + ".", "");
      else banner("gm-result", asked + " refused: " + frame.reason, "bad");
      break;
    }
    case "error":
      if (frame.fatal) {
        page.refused = true;
        status("refused");
        waiting("The server refused this page", frame.reason, true);
      }
      if (page.asked && frame.reason.indexOf("seq " + page.asked.seq + " ") >= 0) clearDecision("Time ran out: the decision was recorded as a timeout.");
      banner("errors", frame.reason, "bad");
      page.refusedSince = true;
      break;
    case "end":
      page.ended = true;
      page.clocks = {};
      clearDecision("");
      status("the fight is over: " + (frame.winner ? frame.winner + " won" : "no one won"));
      $("idle").textContent = $("status").textContent + ".";
      if (!page.state) waiting("The fight is over", $("status").textContent + ".", true);
      if (kind === "gm") { show("review-card", true); if (!page.review) drawReview(null); }
      tick();
      break;
  }
}

// -- the table frame: tracker, map, dice, narration -----------------------------------------

function table(frame) {
  page.heard = Date.now();  // when the latest table frame came (the tests measure the lag)
  page.lines = Math.max(page.lines || 0, frame.lines || 0);
  page.state = frame.state;
  page.board = frame.board || page.board;
  for (const c of frame.state.combatants) page.names[c.id] = c.name;
  show("waiting", false);
  show("live", true);
  show("decision", kind === "seat");
  show("gm", kind === "gm");
  banner("grace", "");
  page.grace = null;
  if (page.board) {
    for (const seat of Object.keys(page.clocks)) {
      if (page.clocks[seat].who !== page.board.priority) delete page.clocks[seat];
    }
    page.rolls = page.rolls.concat(page.board.rolls).slice(-30);
  }
  const s = frame.state;
  $("round").hidden = !s.round;
  $("round").textContent = "Round " + s.round;
  $("turn").textContent = s.ended ? "the fight is over" : s.turn ? s.turn + "'s turn" : "";
  if (!page.asked && !page.ended) status(s.ended ? "the fight is over" : "the fight goes on");
  tell(frame.said);
  drawTracker();
  drawMap();
  drawRolls();
  drawGm();
  tick();
}

function tell(sentences) {
  const list = $("story");
  for (const s of sentences) list.append(el("li", s, /^Round \d+$/.test(s) ? "round" : ""));
  while (list.children.length > 400) list.firstChild.remove();
  list.scrollTop = list.scrollHeight;
}

function tokenOf(id) {
  return page.board ? page.board.tokens.find((t) => t.id === id) : undefined;
}

// A counter in words: "attacks made: 2"; one kept in centimetres in metres ("moved: 12 m").
function counterWords(counter, value) {
  const cm = /(^|[_.])cm$/.test(counter);
  const said = counter.replace(/(^|[_.])cm$/, "").replace(/[_.]/g, " ").trim();
  return said + ": " + (cm ? +(value / 100).toFixed(2) + " m" : value);
}

function drawTracker() {
  const s = page.state;
  const rows = $("tracker");
  rows.replaceChildren();
  const head = el("tr");
  const columns = ["", "Combatant", "Init", "Hit points", "AP"];
  if (kind === "seat") columns.push("Away");
  for (const h of columns) head.append(el("th", h));
  rows.append(head);
  s.combatants.forEach((c, i) => {
    const t = tokenOf(c.id);
    const gone = t ? t.left : c.health === "gone";  // left the fight: not down
    const tr = el("tr", undefined, "row" + (c.standing ? "" : gone ? " down gone" : " down") + (c.acting ? " turn" : "") + (page.chosen === c.id ? " chosen" : ""));
    tr.dataset.id = c.id;
    tr.append(el("td", String(i + 1), "pos"));
    const cell = el("td", undefined, "name");
    const dot = el("span", undefined, "dot");
    dot.style.background = colour(t ? t.side : c.side);
    cell.append(dot, el("span", c.name, "who"));
    if (c.role === "you") cell.append(el("span", "you", "tag you"));
    if (c.acting) cell.append(el("span", "turn", "tag"));
    if (page.board && page.board.priority === c.id) {
      cell.append(el("span", page.board.window === "opening" ? "reacting" : "acting", "tag priority"));
    }
    const chips = el("div", undefined, "chips");
    const conditions = t ? t.conditions : c.conditions.map((x) => [x, x, ""]);
    for (const [, what, until] of conditions) chips.append(el("span", until ? what + " · until " + until : what, "chip"));
    for (const [counter, value] of (t ? t.counters : [])) chips.append(el("span", counterWords(counter, value), "chip counter"));
    for (const marker of (t && t.markers) || []) chips.append(el("span", marker, "chip marker"));
    if (chips.children.length) cell.append(chips);
    tr.append(cell, el("td", t && t.initiative !== null && t.initiative !== undefined ? String(t.initiative) : "", "num init"));
    const hp = el("td");
    const box = el("div", undefined, "hp");
    if (c.hp !== null && c.max_hp && c.standing) {
      const bar = el("div", undefined, "bar");
      const share = Math.max(0, Math.min(1, c.hp / c.max_hp));
      const fill = el("div", undefined, "fill" + (share <= 0.25 ? " low" : share <= 0.5 ? " mid" : ""));
      fill.style.width = (100 * share) + "%";
      bar.append(fill);
      box.append(bar, el("span", c.standing ? c.hp + " / " + c.max_hp : c.health));
    } else {
      box.append(el("span", c.health));  // "gone" (left the fight) or "down"
    }
    hp.append(box);
    tr.append(hp, el("td", c.ap === null || !c.standing ? "" : String(c.ap), "num"));
    if (kind === "seat") tr.append(el("td", c.distance === null || !c.standing ? "" : c.distance.toFixed(1) + " m", "num"));
    tr.onclick = () => choose(c.id);
    if (kind === "gm") {  // the keyboard chooses too: Tab to a row, Enter
      tr.tabIndex = 0;
      tr.onkeydown = (e) => { if (e.key === "Enter") choose(c.id); };
    }
    rows.append(tr);
  });
}

// -- roll cards: every die, newest first --------------------------------------------------

function drawRolls() {
  const box = $("rolls");
  if (!page.rolls.length) return;
  box.replaceChildren(...[...page.rolls].reverse().map((r) => rollCard(r, name)));
}

// -- the battle map ----------------------------------------------------------------------------

let geometry = null;  // {S, ox, oy, minx, miny}: metres to pixels

function drawMap() {
  const map = $("map");
  const board = page.board;
  if (!board || !board.tokens.length) return;
  const points = [];
  for (const t of board.tokens) {
    const r = RADIUS[t.size] || 0.45;
    points.push([t.at[0] - r, t.at[1] - r], [t.at[0] + r, t.at[1] + r]);
  }
  if (board.last_move) points.push(board.last_move[1], board.last_move[2]);
  const move = moveOffer();
  if (move) {
    const me = tokenOf(page.asked.who);
    if (me) points.push([me.at[0] - move.max, me.at[1] - move.max], [me.at[0] + move.max, me.at[1] + move.max]);
  }
  let minx = Math.min(...points.map((p) => p[0])) - 2.5, maxx = Math.max(...points.map((p) => p[0])) + 2.5;
  let miny = Math.min(...points.map((p) => p[1])) - 1.5, maxy = Math.max(...points.map((p) => p[1])) + 1.5;
  const W = Math.max(320, map.clientWidth || map.parentElement.clientWidth || 600);
  const S = Math.max(14, Math.min(80, W / (maxx - minx), 560 / (maxy - miny)));
  const H = Math.max(340, (maxy - miny) * S);
  const ox = (W - (maxx - minx) * S) / 2, oy = (H - (maxy - miny) * S) / 2;
  geometry = {S, ox, oy, minx, miny};
  const X = (x) => ox + (x - minx) * S, Y = (y) => oy + (y - miny) * S;
  map.setAttribute("viewBox", `0 0 ${W} ${H}`);
  map.style.height = H + "px";
  map.replaceChildren();
  const defs = svg("defs");
  const arrow = svg("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse"});
  arrow.append(svg("path", {d: "M 0 0 L 10 5 L 0 10 z", fill: "#5d6676"}));
  defs.append(arrow);
  map.append(defs);
  // A grid each metre (each 5 m when small), numbered in metres along the top and the left.
  const step = S >= 28 ? 1 : 5;
  const grid = svg("g");
  for (let x = Math.ceil((minx - ox / S) / step) * step; X(x) <= W; x += step) {
    grid.append(svg("line", {x1: X(x), y1: 0, x2: X(x), y2: H, class: "grid"}));
  }
  for (let y = Math.ceil((miny - oy / S) / step) * step; Y(y) <= H; y += step) {
    grid.append(svg("line", {x1: 0, y1: Y(y), x2: W, y2: Y(y), class: "grid"}));
  }
  map.append(grid);
  if (move) {
    const me = tokenOf(page.asked.who);
    if (me) map.append(svg("circle", {cx: X(me.at[0]), cy: Y(me.at[1]), r: move.max * S, class: "reachable"}));
  }
  if (board.last_move) {
    const [who, from, to] = board.last_move;
    const t = tokenOf(who);
    map.append(svg("line", {x1: X(from[0]), y1: Y(from[1]), x2: X(to[0]), y2: Y(to[1]), class: "trail",
      stroke: t ? colour(t.side) : "#5d6676", "marker-end": "url(#arrow)"}));
    map.append(svg("circle", {cx: X(from[0]), cy: Y(from[1]), r: 3, fill: "#5d6676"}));
  }
  const layer = svg("g");
  const ordered = [...board.tokens].sort((a, b) => (a.standing - b.standing));  // the fallen underneath
  for (const t of ordered) {
    const r = (RADIUS[t.size] || 0.45) * S;
    const g = svg("g", {class: "token" + (t.standing ? "" : t.left ? " down gone" : " down") + (page.chosen === t.id ? " chosen" : ""), "data-id": t.id});
    g.append(svg("circle", {cx: X(t.at[0]), cy: Y(t.at[1]), r: r + t.reach * S, class: "reach"}));
    g.append(svg("circle", {cx: X(t.at[0]), cy: Y(t.at[1]), r: r, fill: colour(t.side), class: "body"}));
    if (board.priority === t.id) g.append(svg("circle", {cx: X(t.at[0]), cy: Y(t.at[1]), r: r + 4, class: "ring", stroke: "#f4a900"}));
    if (!t.standing && !t.left) {  // a cross on the fallen; who left is only greyed
      const d = r * 0.6;
      g.append(svg("path", {d: `M ${X(t.at[0]) - d} ${Y(t.at[1]) - d} L ${X(t.at[0]) + d} ${Y(t.at[1]) + d} M ${X(t.at[0]) + d} ${Y(t.at[1]) - d} L ${X(t.at[0]) - d} ${Y(t.at[1]) + d}`, class: "cross"}));
    }
    const marks = [...t.conditions.map((c) => c[1]), ...(t.markers || [])];
    if (marks.length) {  // a badge on a token with conditions or GM markers; hover names them
      g.append(svg("circle", {cx: X(t.at[0]) + r * 0.75, cy: Y(t.at[1]) - r * 0.75, r: Math.max(3.5, r * 0.3), class: "badge"}));
    }
    g.append(svg("title", {}, t.name + " · reach " + t.reach + " m" + (marks.length ? " · " + marks.join(", ") : "")));
    layer.append(g);
    g.addEventListener("pointerdown", (e) => grab(e, t));
  }
  map.append(layer);
  const labels = svg("g");
  map.append(labels);
  const trails = board.last_move ? [[X(board.last_move[1][0]), Y(board.last_move[1][1]), X(board.last_move[2][0]), Y(board.last_move[2][1])]] : [];
  placeLabels(labels, board, X, Y, S, W, H, trails);
  map.classList.toggle("clickable", Boolean(move) || (kind === "gm" && page.chosen !== null));
  drawLegend(move);
}

// Each token's name in a box, placed where the view places them (replays/parts/map.js: no name
// over another or over a token, inside the map; a leader to a name set apart).
function placeLabels(layer, board, X, Y, S, W, H, trails) {
  const toks = board.tokens.map((t, index) => {
    const g = svg("g", {class: "label", "data-id": t.id});
    const text = svg("text", {x: 0, y: 0}, t.name);
    const back = svg("rect", {rx: 4, ry: 4});
    g.append(back, text);
    layer.append(g);
    const rank = board.priority === t.id ? 0 : t.standing ? 1 : 2;
    return {id: t.id, index, rank, g, text, back, cx: X(t.at[0]), cy: Y(t.at[1]), r: (RADIUS[t.size] || 0.45) * S,
      w: text.getComputedTextLength() + 10, h: 17};
  });
  const where = placeMapNames(toks, W, H, trails);
  for (const t of toks) {
    const box = where.get(t.id);
    if (!box) { t.g.remove(); continue; }
    const {x, y, w, h} = box;
    t.back.setAttribute("x", x); t.back.setAttribute("y", y); t.back.setAttribute("width", w); t.back.setAttribute("height", h);
    t.text.setAttribute("x", x + 5); t.text.setAttribute("y", y + 12.5);
    if (box.leader) {
      const [x1, y1, x2, y2] = box.leader;
      t.g.prepend(svg("line", {class: "leader", x1, y1, x2, y2}));
    }
  }
}

function drawLegend(move) {
  const legend = $("legend");
  legend.replaceChildren();
  for (const side of (page.board ? page.board.sides : [])) {
    const s = el("span");
    const i = el("i");
    i.style.background = colour(side);
    s.append(i, document.createTextNode(side));
    legend.append(s);
  }
  const items = [["ring", "holds priority"], ["trail", "the last move"], ["reach", "reach (hover a token)"]];
  const marked = (page.board ? page.board.tokens : []).some((t) => t.conditions.length || (t.markers || []).length);
  if (marked) items.push(["badge", "conditions or GM markers (hover)"]);
  if (move) items.push(["reach", "where you can move (click)"]);
  for (const [cls, text] of items) {
    const s = el("span");
    s.append(el("i", undefined, cls), document.createTextNode(text));
    legend.append(s);
  }
  const note = kind === "gm" ? "drag a token to move it" : move ? "click where to move" : "";
  $("map-note").textContent = note;
}

function toWorld(event) {
  const map = $("map");
  const box = map.getBoundingClientRect();
  const view = map.viewBox.baseVal;
  const px = (event.clientX - box.left) * view.width / box.width;
  const py = (event.clientY - box.top) * view.height / box.height;
  const g = geometry;
  return [Math.round(10 * (g.minx + (px - g.ox) / g.S)) / 10, Math.round(10 * (g.miny + (py - g.oy) / g.S)) / 10];
}

// Drag (GM): a token follows the pointer and is moved where it is let go; a press that does not
// move chooses it.
function grab(event, t) {
  if (kind !== "gm") return;
  event.preventDefault();
  event.stopPropagation();
  const start = [event.clientX, event.clientY];
  const node = event.currentTarget;
  let moved = false;
  const follow = (e) => {
    const dx = e.clientX - start[0], dy = e.clientY - start[1];
    if (Math.hypot(dx, dy) > 4) moved = true;
    const box = $("map").getBoundingClientRect();
    const k = $("map").viewBox.baseVal.width / box.width;
    node.setAttribute("transform", `translate(${dx * k} ${dy * k})`);
  };
  const drop = (e) => {
    window.removeEventListener("pointermove", follow);
    window.removeEventListener("pointerup", drop);
    grabbed = true;  // the click that follows is this press's, not one on the map
    node.removeAttribute("transform");
    if (moved) override({type: "MoveToken", who: t.id, to: toWorld(e)}, "Move " + t.name);
    else choose(t.id);
  };
  window.addEventListener("pointermove", follow);
  window.addEventListener("pointerup", drop);
}

let grabbed = false;
$("map").addEventListener("pointerdown", () => { grabbed = false; });
$("map").addEventListener("click", (event) => {
  if (grabbed || (event.target.closest && event.target.closest(".token"))) {
    grabbed = false;
    return;
  }
  if (!geometry) return;
  const at = toWorld(event);
  const move = moveOffer();
  if (move) {
    moveTo(at, move);
  } else if (kind === "gm" && page.chosen) {
    offerMove(page.chosen, at);  // a click alone never moves a token: "Move here" does
  }
});

// A GM's click on the map only proposes a move: the token goes there when "Move here" is
// pressed (a stray click, or one meant to choose nobody, moves no one).
function offerMove(who, at) {
  page.moveTo = {who: who, to: at};
  $("move-here").textContent = "Move " + name(who) + " here (" + at[0].toFixed(1) + ", " + at[1].toFixed(1) + ")";
  $("move-here-box").hidden = false;
}
function dropMove() {
  page.moveTo = null;
  $("move-here-box").hidden = true;
}
$("move-here").addEventListener("click", () => {
  const m = page.moveTo;
  dropMove();
  if (m) override({type: "MoveToken", who: m.who, to: m.to}, "Move " + name(m.who));
});
$("move-cancel").addEventListener("click", dropMove);

// -- the GM's overrides --------------------------------------------------------------------

function choose(id) {
  if (kind !== "gm") return;
  page.chosen = page.chosen === id ? null : id;
  dropMove();  // a proposed move was for the one chosen before
  clearForm();  // what was typed for the one chosen before is not for this one
  drawTracker();
  drawMap();
  drawGm();
}

// The fields typed for one combatant, emptied when the GM chooses another (the "quietly" and
// "secret" ticks are the GM's way of working, and stay).
function clearForm() {
  for (const id of ["hp", "cond-arg", "rounds", "marker", "new-id", "new-name"]) $(id).value = "";
  $("why").value = "fled";
  $("before").value = "";
  $("cond").selectedIndex = 0;
  conditionChosen();
}

// The picker of the conditions the ruleset declares (the welcome's "conditions"): a name, and
// for one that names something ("disarmed:WEAPON") a box for the thing.
function conditionPicker(conditions, ruleset) {
  const picker = $("cond");
  page.conditions = conditions;
  picker.replaceChildren();
  for (const c of conditions) {
    const [named, what] = c.split(":");
    const o = el("option", named.replace(/_/g, " ") + (what ? " (" + what.toLowerCase() + ")" : ""));
    o.value = c;
    picker.append(o);
  }
  if (!conditions.length) {
    const o = el("option", "none in " + ruleset + ": use a GM marker");
    o.value = "";
    picker.append(o);
  }
  picker.disabled = $("rounds").disabled = $("cond-add").disabled = !conditions.length;
  conditionChosen();
}
function conditionChosen() {
  const what = ($("cond").value.split(":")[1] || "").toLowerCase();
  $("cond-of").hidden = !what;
  $("cond-arg").placeholder = what;
}
$("cond").addEventListener("change", conditionChosen);

function override(what, label) {
  const id = page.nextId++;
  page.pending[id] = label;
  banner("gm-result", label + ": sent…", "");
  send({type: "gm", id: id, override: what});
}

function drawGm() {
  if (kind !== "gm" || !page.state) return;
  const who = page.chosen;
  const row = page.state.combatants.find((c) => c.id === who);
  $("gm").classList.toggle("idle", !row);
  $("gm-target").textContent = row ? row.name : "click a token or a row to choose a combatant";
  if (!row) return;
  if (document.activeElement !== $("hp")) $("hp").value = row.hp === null ? "" : row.hp;
  const before = $("before");
  const keep = before.value;
  before.replaceChildren();
  for (const c of page.state.combatants) {
    if (c.id === who) continue;
    const o = el("option", c.name);
    o.value = c.id;
    before.append(o);
  }
  const last = el("option", "(the end of the order)");
  last.value = "";
  before.append(last);
  if (keep) before.value = keep;
  const chips = $("end-conds");
  chips.replaceChildren();
  const t = tokenOf(who);
  for (const [condition, words, until] of (t ? t.conditions : [])) {
    const chip = el("span", words + (until ? " · until " + until : ""), "chip");
    const end = el("button", "end ✕", "end");
    end.type = "button";
    end.onclick = () => override({type: "EndCondition", who: who, condition: condition}, "End " + words + " on " + row.name);
    chip.append(end);
    chips.append(chip);
  }
}

function guarded(form, build) {
  $(form).addEventListener("submit", (event) => {
    event.preventDefault();
    if (page.chosen) build(page.chosen, name(page.chosen));
  });
}
guarded("f-hp", (who, n) => {
  const hp = parseInt($("hp").value, 10);
  const quiet = $("hp-quiet").checked;  // not told to the players
  const o = quiet ? {type: "SetHp", who: who, hp: hp, quiet: true} : {type: "SetHp", who: who, hp: hp};
  if (Number.isFinite(hp)) override(o, (quiet ? "Quietly set " : "Set ") + n + "'s hp to " + hp);
});
guarded("f-cond", (who, n) => {
  const [named, what] = $("cond").value.split(":");
  const thing = $("cond-arg").value.trim();
  if (!named) return;
  if (what && !thing) { banner("gm-result", named.replace(/_/g, " ") + ": which " + what.toLowerCase() + "?", "bad"); return; }
  const condition = what ? named + ":" + thing : named;
  const rounds = parseInt($("rounds").value, 10);
  const lasting = Number.isFinite(rounds) ? " for " + rounds + (rounds === 1 ? " round" : " rounds") : "";
  override({type: "AddCondition", who: who, condition: condition, rounds: Number.isFinite(rounds) ? rounds : null},
    "Add " + named.replace(/_/g, " ") + (what ? " (" + thing + ")" : "") + " to " + n + lasting);
});
guarded("f-add", (who, n) => {
  const id = $("new-id").value.trim();
  if (id) override({type: "AddCombatant", id: id, name: $("new-name").value.trim() || id, like: who, side: null, at: null}, "Add " + ($("new-name").value.trim() || id) + " like " + n);
});
guarded("f-mark", (who, n) => {
  const text = $("marker").value.trim();
  if (text) override({type: "AddMarker", who: who, text: text}, "Mark " + n + ": " + text);
});
guarded("f-order", (who, n) => {
  const before = $("before").value || null;
  override({type: "Reorder", who: who, before: before}, "Move " + n + (before ? " before " + name(before) : " to the end"));
});
// Removal asks to be confirmed: the first press arms the button for a few seconds, for this
// combatant only; the second sends it.
let removing = null;
guarded("f-remove", (who, n) => {
  const button = $("f-remove").querySelector("button");
  if (removing && removing.who === who) {
    clearTimeout(removing.timer);
    removing = null;
    button.textContent = "Remove";
    button.classList.remove("armed");
    override({type: "RemoveCombatant", who: who, reason: $("why").value.trim() || "removed"}, "Remove " + n);
    return;
  }
  if (removing) clearTimeout(removing.timer);
  const disarm = () => { removing = null; button.textContent = "Remove"; button.classList.remove("armed"); };
  removing = {who: who, timer: setTimeout(disarm, 6000)};
  button.textContent = "Confirm: remove " + n;
  button.classList.add("armed");
});
// The GM's tools that need no combatant: undo, dice, a private note.
function unguarded(form, build) {
  $(form).addEventListener("submit", (event) => { event.preventDefault(); build(); });
}
unguarded("f-undo", () => override({type: "Undo"}, "Undo"));
unguarded("f-roll", () => {
  const expr = $("dice").value.trim(), secret = $("secret").checked;
  if (expr) override({type: "GmRoll", expr: expr, secret: secret}, (secret ? "Secret roll " : "Roll ") + expr);
});
unguarded("f-note", () => {
  const text = $("note").value.trim();
  if (text) { override({type: "GmNote", text: text}, "Note"); $("note").value = ""; }
});

// -- the GM's live odds (serve --gm-odds) and the review at the end -------------------------

function sidesOf(win) {
  const known = page.board ? page.board.sides.filter((s) => s in win) : [];
  return known.concat(Object.keys(win).filter((s) => !known.includes(s)));
}
function pct(p) { return Math.round(100 * p) + "%"; }

function drawOdds(frame) {
  show("odds-card", true);
  $("odds-card").classList.toggle("stale", Boolean(frame.stopped));
  $("odds-stopped").hidden = !frame.stopped;
  $("odds-stopped").textContent = frame.stopped || "";
  if (frame.stopped && page.odds) return;  // the last odds stay, greyed
  page.odds = frame;
  const sides = sidesOf(frame.win);
  const trail = page.oddsTrail;
  if (frame.seq !== null && !frame.stopped && (!trail.length || trail[trail.length - 1].seq !== frame.seq)) trail.push({seq: frame.seq, win: frame.win});
  const bar = $("odds-bar");
  bar.replaceChildren();
  for (const side of sides) {
    const p = frame.win[side];
    if (p <= 0) continue;  // (no sliver for a side with no chance)
    const seg = el("span", p >= 0.2 ? side + " " + pct(p) : p >= 0.06 ? pct(p) : "", "side");
    seg.style.flex = "0 0 " + (100 * p) + "%";
    seg.style.background = colour(side);
    seg.title = side + ": " + pct(p) + (frame.interval[side] ? " (95%: " + pct(frame.interval[side][0]) + " to " + pct(frame.interval[side][1]) + ")" : "");
    seg.dataset.side = side;
    bar.append(seg);
  }
  const rest = 1 - sides.reduce((a, s) => a + frame.win[s], 0);
  bar.title = rest > 0.005 ? pct(rest) + " of the fights played out end with no winner (the stripes)" : "";
  $("odds-sub").textContent = frame.ended ? "the result" : frame.who ? "before " + name(frame.who) + " decides" : "";
  let note = "";
  if (frame.ended) note = "the fight is over";
  else if (frame.rollouts) {
    const widest = Math.max(...sides.map((s) => (frame.interval[s][1] - frame.interval[s][0]) / 2));
    note = "round " + frame.round + " · " + frame.rollouts + " fights played out · ± " + Math.round(100 * widest) + " points";
  }
  $("odds-note").textContent = note;
  drawTrend(sides);
}

// How the chances went, one line per side, from the first odds heard to the newest.
function drawTrend(sides) {
  const trend = $("odds-trend");
  const trail = page.oddsTrail;
  trend.replaceChildren();
  const W = 300, H = 46;
  trend.setAttribute("viewBox", `0 0 ${W} ${H}`);
  trend.append(svg("line", {x1: 0, x2: W, y1: H / 2, y2: H / 2, class: "mid"}));
  if (trail.length < 2) return;
  for (const side of sides) {
    const points = trail.map((t, i) => (W * i / (trail.length - 1)).toFixed(1) + "," + (3 + (H - 6) * (1 - (t.win[side] || 0))).toFixed(1));
    trend.append(svg("polyline", {points: points.join(" "), stroke: colour(side)}));
  }
}

function drawReview(frame) {
  page.review = frame;
  const state = frame ? frame.state : "none";
  $("review-ask").hidden = state === "ready";
  $("review-ask").disabled = state === "running";
  $("review-ask").textContent = state === "failed" ? "Try again" : state === "running" ? "Reviewing…" : "Review this fight";
  $("review-cost").hidden = state !== "none";
  show("review-progress", state === "running");
  show("review-failed", state === "failed");
  $("review-failed").textContent = state === "failed" ? frame.reason : "";
  if (state === "running") {
    const share = frame.total ? frame.done / frame.total : 0;
    $("review-fill").style.width = (100 * share) + "%";
    $("review-text").textContent = frame.total ? frame.done + " of " + frame.total + " decisions" : "starting…";
    $("review-sub").textContent = "reviewing";
  } else if (state === "ready") {
    $("review-sub").textContent = frame.done + " decisions reviewed";
    fetchReview(frame.path || "/review");
  } else {
    $("review-sub").textContent = "the fight is over";
  }
}

// The report is the GM's: fetched with the GM token (never put in a link), then opened from
// this page's memory.
async function fetchReview(path) {
  if (page.reviewUrl) { show("review-ready", true); return; }
  try {
    const answer = await fetch(path, {headers: {Authorization: "Bearer " + token}, cache: "no-store"});
    if (!answer.ok) throw new Error((await answer.text()).trim() || "HTTP " + answer.status);
    const html = await answer.text();
    page.reviewUrl = URL.createObjectURL(new Blob([html], {type: "text/html"}));
  } catch (problem) {
    $("review-failed").textContent = "The review is ready, but this page could not fetch it: " + problem.message;
    show("review-failed", true);
    $("review-ask").hidden = false;
    return;
  }
  $("review-open").href = page.reviewUrl;
  $("review-save").href = page.reviewUrl;
  $("review-save").download = ($("title").textContent || "fight").replace(/[^\w.-]+/g, "-") + ".review.html";
  show("review-ready", true);
}
$("review-ask").addEventListener("click", () => {
  send({type: "review"});
  drawReview({type: "review_status", state: "running", done: 0, total: 0});
});

// -- the seat's decision -------------------------------------------------------------------

function moveOffer() {
  // The contract's screen.move: {type, max, action}; absent until the server offers moves to a point.
  const a = page.asked;
  const move = a && a.screen ? a.screen.move : null;
  return move && move.action && typeof move.max === "number" ? move : null;
}

function moveTo(at, move) {
  const me = tokenOf(page.asked.who);
  if (me) {
    const far = Math.hypot(at[0] - me.at[0], at[1] - me.at[1]);
    if (far > move.max + 1e-6) {
      $("move-hint").hidden = false;
      $("move-hint").textContent = "Too far: " + far.toFixed(1) + " m, and you can move " + move.max.toFixed(1) + " m now.";
      return;
    }
  }
  const action = Object.assign({}, move.action, {to: at});
  const frame = page.asked;
  page.refusedSince = false;
  send({type: "decision", who: frame.who, seq: frame.seq, action: action});
  clearDecision("You chose: move to " + at[0].toFixed(1) + ", " + at[1].toFixed(1) + ". Waiting for the others…");
  status("waiting…");
}

function clearDecision(why) {
  page.asked = null;
  $("offers").replaceChildren();
  $("heading").textContent = "";
  $("reacting").hidden = true;
  $("notes").replaceChildren();
  $("move-hint").hidden = true;
  $("idle").textContent = why || "";
  if (page.board) drawMap();
  tick();
}

function decide(frame) {
  const p = frame.screen;
  page.asked = frame;
  page.shownAt = performance.now();
  for (const c of p.combatants) page.names[c.id] = c.name;
  // An error since the last answer is the rules' refusal of it: it stays, saying why.
  if (!page.refusedSince) banner("errors", "");
  page.refusedSince = false;
  $("idle").textContent = "";
  $("heading").textContent = p.reacting_to ? p.heading.replace(": " + p.reacting_to + ".", ".") : p.heading;
  $("reacting").hidden = !p.reacting_to;
  $("reacting").textContent = p.reacting_to ? "Reacting to: " + p.reacting_to : "";
  $("notes").replaceChildren(...p.notes.map((n) => el("li", n)));
  const box = $("offers");
  box.replaceChildren();
  for (const offer of p.offers) {
    const b = el("button", undefined, "offer " + offer.kind);
    b.append(el("span", String(offer.number), "num"), el("span", offer.text, "text"), el("span", offer.cost ? offer.cost + " AP" : "free", "cost"));
    b.onclick = () => {
      if (page.asked !== frame) return;
      page.refusedSince = false;
      send({type: "decision", who: frame.who, seq: frame.seq, offer: offer.number - 1});
      clearDecision("You chose: " + offer.text + ". Waiting for the others…");
      status("waiting…");
    };
    box.append(b);
  }
  const move = moveOffer();
  $("move-hint").hidden = !move;
  if (move) $("move-hint").textContent = "Or click the map to move there (up to " + move.max.toFixed(1) + " m).";
  status(p.name + ": your decision");
  if (page.board) drawMap();
  tick();
}

// -- the countdown ---------------------------------------------------------------------------

function tick() {
  const now = performance.now();
  let left = null, total = 1, text = "";
  if (page.asked) {
    total = page.asked.deadline;
    left = Math.max(0, total - (now - page.shownAt) / 1000);
    text = left > 0 ? Math.ceil(left) + " s to decide" : "time is up";
  } else {
    for (const [seat, clock] of Object.entries(page.clocks)) {
      const l = Math.max(0, (clock.until - now) / 1000);
      if (left === null || l < left) {
        left = l; total = clock.total || 1;
        text = name(clock.who) + " decides (seat " + seat + "): " + Math.ceil(l) + " s";
      }
    }
  }
  $("clock").hidden = left === null || page.ended;
  if (left !== null) {
    $("left").textContent = text;
    $("fill").style.width = Math.max(0, Math.min(100, 100 * left / total)) + "%";
    $("clock").classList.toggle("late", left < Math.min(10, total / 4));
  }
  if (page.grace) {
    const g = Math.max(0, (page.grace.until - now) / 1000);
    banner("grace", g > 0 ? "waiting for " + (page.grace.name || name(page.grace.who)) + " to reconnect: " + Math.ceil(g) + " s" : "", "warn");
    if (g <= 0) page.grace = null;
  }
}
setInterval(tick, 250);
let resizing = null;
window.addEventListener("resize", () => { clearTimeout(resizing); resizing = setTimeout(drawMap, 100); });
connect();
