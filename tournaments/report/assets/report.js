// The report's page: tables, the ladder plot, the crosstable heat map, the game list and the
// game viewer. Everything is drawn from ARENA_DATA; a game's steps come from its block, the script
// <games_dir>/<block>.js that calls arenaGames(block, packed) (script elements work from file://,
// fetch does not).
"use strict";

const viewers = window.ARENA_VIEWERS || {};  // game id -> {draw, describe}: viewers/*.js
const {esc} = window.ARENA_SVG;  // escaping for HTML too: svg.js, inlined before the viewers
// The game index comes by column (ARENA_DATA.games: each field's list over the games; bots by
// their number in ARENA_DATA.bots): a list of thousands of objects would repeat every key.
const GAMES = ARENA_DATA.games.id.map((id, i) => Object.fromEntries(
  Object.entries(ARENA_DATA.games).map(([key, column]) =>
    [key, key === "bots" ? column[i].map(bot => ARENA_DATA.bots[bot]) : column[i]])));
const gameEntries = new Map(GAMES.map(game => [game.id, game]));  // id -> its index entry
const loadedBlocks = new Map();  // block name -> promise of the unpacked block
const waiting = new Map();       // block name -> resolve function of a block being loaded
let current = null;              // {id, game, step}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "text") node.textContent = value;
    else if (key === "on") for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

// ---- tables ----------------------------------------------------------------------------------

function tableOf(table) {
  const [headers, rows] = table.display || [table.headers, table.rows];
  const head = el("tr", {}, ...headers.map(h => el("th", {text: h})));
  const body = rows.map(row => el("tr", {}, ...row.map(cell =>
    el("td", {text: cell == null ? "" : String(cell), class: typeof cell === "number" ? "" : "text"}))));
  return el("table", {id: "table-" + table.name}, el("thead", {}, head), el("tbody", {}, ...body));
}

function ladderPlot(standings) {
  const keys = standings.keys, rows = standings.rows;
  const at = name => keys.indexOf(name);
  const bots = rows.filter(r => r[at("elo")] != null);
  const lo = Math.min(...bots.map(r => r[at("elo")] - (r[at("ci")] || 0)));
  const hi = Math.max(...bots.map(r => r[at("elo")] + (r[at("ci")] || 0)));
  const pad = Math.max(20, (hi - lo) * 0.08);
  const left = 150, width = 560, rowH = 26, top = 20;
  const x = v => left + (v - (lo - pad)) / ((hi + pad) - (lo - pad)) * width;
  const h = top + rowH * bots.length + 30;
  let svg = `<svg id="ladder-plot" xmlns="http://www.w3.org/2000/svg" width="${left + width + 20}" height="${h}" viewBox="0 0 ${left + width + 20} ${h}">`;
  const ticks = 6;
  for (let i = 0; i <= ticks; i++) {
    const v = (lo - pad) + i * ((hi + pad) - (lo - pad)) / ticks;
    svg += `<line x1="${x(v)}" x2="${x(v)}" y1="${top - 8}" y2="${h - 24}" stroke="#eee"/>`;
    svg += `<text x="${x(v)}" y="${h - 8}" font-size="11" text-anchor="middle" fill="#555">${Math.round(v)}</text>`;
  }
  bots.forEach((r, i) => {
    const y = top + rowH * i + rowH / 2, elo = r[at("elo")], ci = r[at("ci")] || 0;
    svg += `<text x="${left - 8}" y="${y + 4}" font-size="12" text-anchor="end">${esc(r[at("bot")])}</text>`;
    svg += `<line class="errorbar" x1="${x(elo - ci)}" x2="${x(elo + ci)}" y1="${y}" y2="${y}" stroke="#2b6cb0" stroke-width="2"/>`;
    for (const end of [elo - ci, elo + ci]) svg += `<line x1="${x(end)}" x2="${x(end)}" y1="${y - 6}" y2="${y + 6}" stroke="#2b6cb0" stroke-width="2"/>`;
    svg += `<circle cx="${x(elo)}" cy="${y}" r="5" fill="#c53030"><title>${esc(r[at("bot")])}: ${elo} ± ${ci}</title></circle>`;
  });
  return svg + "</svg>";
}

function heatMap(table) {
  const [headers, rows] = table.display;
  const bots = headers.slice(1);
  const pct = new Map();
  for (const row of table.rows) bots.forEach((b, i) => pct.set(row[0] + "\u0000" + b, row[1 + 2 * i]));
  const head = el("tr", {}, ...headers.map(h => el("th", {text: h})));
  const body = rows.map(row => el("tr", {}, el("th", {text: row[0], class: "text"}),
    ...row.slice(1).map((cell, i) => {
      const value = pct.get(row[0] + "\u0000" + bots[i]);
      const td = el("td", {text: cell});
      if (value != null) td.style.background = `hsl(${Math.round(value * 1.2)}, 65%, 78%)`;
      return td;
    })));
  return el("table", {id: "crosstable"}, el("thead", {}, head), el("tbody", {}, ...body));
}

// Each bot's openskill mu after each of its games (ARENA_DATA.history: bot -> [[games played,
// mu], ...], thinned by page.py): one line a bot, labelled at its end.
function historyPlot(history) {
  const bots = Object.keys(history).filter(bot => history[bot].length);
  const points = bots.flatMap(bot => history[bot]);
  const most = Math.max(...points.map(p => p[0]));
  const lo = Math.min(...points.map(p => p[1])), hi = Math.max(...points.map(p => p[1]));
  const pad = Math.max(0.5, (hi - lo) * 0.08);
  const left = 50, width = 560, top = 14, height = 260, right = 150;
  const x = n => left + (most > 1 ? (n - 1) / (most - 1) : 0.5) * width;
  const y = mu => top + (1 - (mu - (lo - pad)) / ((hi + pad) - (lo - pad))) * height;
  const w = left + width + right, h = top + height + 34;
  let svg = `<svg id="history-plot" xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">`;
  const ticks = 5;
  for (let i = 0; i <= ticks; i++) {
    const mu = (lo - pad) + i * ((hi + pad) - (lo - pad)) / ticks;
    svg += `<line x1="${left}" x2="${left + width}" y1="${y(mu)}" y2="${y(mu)}" stroke="#eee"/>`;
    svg += `<text x="${left - 6}" y="${y(mu) + 4}" font-size="11" text-anchor="end" fill="#555">${mu.toFixed(1)}</text>`;
  }
  for (const n of [1, most]) svg += `<text x="${x(n)}" y="${top + height + 16}" font-size="11" text-anchor="middle" fill="#555">${n}</text>`;
  svg += `<text x="${left + width / 2}" y="${h - 2}" font-size="11" text-anchor="middle" fill="#555">games played</text>`;
  bots.forEach((bot, i) => {
    const colour = `hsl(${Math.round(i * 360 / bots.length)}, 65%, 42%)`, series = history[bot], [n, mu] = series[series.length - 1];
    svg += `<polyline class="history" fill="none" stroke="${colour}" stroke-width="1.5" points="${series.map(p => `${x(p[0])},${y(p[1])}`).join(" ")}"><title>${esc(bot)}</title></polyline>`;
    svg += `<text class="history-label" x="${x(n) + 6}" y="${y(mu) + 4}" font-size="12" fill="${colour}">${esc(bot)}</text>`;
  });
  return svg + "</svg>";
}

function overview() {
  const root = document.getElementById("overview");
  const tables = Object.fromEntries(ARENA_DATA.tables.map(t => [t.name, t]));
  if (!tables.standings) { root.append(el("p", {text: "No games stored yet."})); return; }
  root.append(el("h2", {id: "ladder", text: "Ladder (Elo, 95% interval)"}));
  const plot = el("div"); plot.innerHTML = ladderPlot(tables.standings); root.append(plot);
  root.append(tableOf(tables.standings));
  for (const note of tables.standings.notes || []) root.append(el("p", {class: "note", text: note}));  // text: never markup
  if (Object.keys(ARENA_DATA.history || {}).length) {
    root.append(el("h2", {id: "history", text: "Rating over time (openskill mu after each game)"}));
    const lines = el("div"); lines.innerHTML = historyPlot(ARENA_DATA.history); root.append(lines);
  }
  root.append(el("h2", {text: "Crosstable (row's score %, games)"}), heatMap(tables.crosstable));
  for (const name of ["ranks", "cycles", "pairs", "seats", "faults", "timing"]) {
    if (!tables[name] || (name === "cycles" && !tables[name].rows.length)) continue;
    root.append(el("h2", {text: tables[name].title}));
    root.append(tables[name].rows.length ? tableOf(tables[name]) : el("p", {class: "note", text: "none"}));
  }
}

// ---- game list -------------------------------------------------------------------------------

const LIST_LIMIT = 500;

function resultOf(game, bot) {
  const seats = game.bots.map((b, s) => b === bot ? s : -1).filter(s => s >= 0);
  if (!seats.length) return null;
  const rank = Math.min(...seats.map(s => game.ranks[s]));
  if (rank > 1) return "loss";
  return game.ranks.filter(r => r === 1).length > 1 ? "draw" : "win";
}

function gameList() {
  const root = document.getElementById("games-section");
  const games = GAMES;
  const bots = [...new Set(games.flatMap(g => g.bots))].sort();
  const select = (id, label, options) => el("label", {}, label + " ",
    el("select", {id, on: {change: drawList}}, ...options.map(([v, t]) => el("option", {value: v, text: t}))));
  const botOptions = [["", "any"], ...bots.map(b => [b, b])];
  root.append(el("h2", {id: "games", text: `Games (${games.length})`}),
    el("div", {class: "filters"},
      select("f-bot", "bot", botOptions), select("f-opponent", "opponent", botOptions),
      select("f-result", "result for the bot", [["", "any"], ["win", "win"], ["loss", "loss"], ["draw", "draw"]]),
      select("f-fault", "faults", [["", "any"], ["yes", "with a fault"], ["bot", "the bot faulted"], ["no", "none"]])),
    el("p", {id: "games-count", class: "note"}), el("div", {id: "games-list"}));
  drawList();
}

function drawList() {
  const value = id => document.getElementById(id).value;
  const bot = value("f-bot"), opponent = value("f-opponent"), result = value("f-result"), fault = value("f-fault");
  const shown = GAMES.filter(g =>
    (!bot || g.bots.includes(bot)) &&
    (!opponent || g.bots.some((b, s) => b === opponent && (!bot || b !== bot || g.bots.filter(x => x === b).length > 1))) &&
    (!result || !bot || resultOf(g, bot) === result) &&
    (!fault || (fault === "yes" ? g.faults.length > 0 : fault === "no" ? g.faults.length === 0 :
      g.faults.some(f => !bot || g.bots[f[0]] === bot))));
  document.getElementById("games-count").textContent =
    `${shown.length} games match` + (shown.length > LIST_LIMIT ? `; the first ${LIST_LIMIT} are listed (narrow the filters)` : "");
  const head = el("tr", {}, ...["id", "bots (by seat)", "scores", "ranks", "decisions", "deal", "seed", "faults", ""]
    .map(h => el("th", {text: h})));
  const rows = shown.slice(0, LIST_LIMIT).map(g => el("tr", {},
    el("td", {text: g.id}), el("td", {class: "text", text: g.bots.join(", ")}),
    el("td", {text: g.scores.join(" ")}), el("td", {text: g.ranks.join(" ")}),
    el("td", {text: g.decisions}), el("td", {text: `${g.deal}.${g.rotation}`}), el("td", {text: g.seed}),
    el("td", {class: "text", text: g.faults.map(f => `${g.bots[f[0]]} ${f[1]}`).join("; ")}),
    el("td", {}, el("a", {class: "game", href: "#game-" + g.id, text: "view"}))));
  const list = document.getElementById("games-list");
  list.replaceChildren(el("table", {id: "games-table"}, el("thead", {}, head), el("tbody", {}, ...rows)));
}

// ---- loading a game --------------------------------------------------------------------------

async function unpack(packed) {
  const bytes = Uint8Array.from(atob(packed), c => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return JSON.parse(await new Response(stream).text());
}

// Called by every <games_dir>/<block>.js (and by the inline block of a one-game page).
window.arenaGames = function (name, packed) {
  const done = unpack(packed);
  loadedBlocks.set(name, done);
  const resolve = waiting.get(name);
  if (resolve) { waiting.delete(name); resolve(done); }
};

function loadBlock(name) {
  if (loadedBlocks.has(name)) return loadedBlocks.get(name);
  const promise = new Promise((resolve, reject) => {
    waiting.set(name, resolve);
    const file = `${ARENA_DATA.games_dir}/${name}.js`;
    const failed = why => {
      waiting.delete(name);
      loadedBlocks.delete(name);  // opening a game again tries again
      reject(new Error(`${file} ${why}`));
    };
    const script = el("script", {src: file});
    script.onerror = () => failed(`could not be loaded (is the report's ${ARENA_DATA.games_dir}/ directory next to this page?)`);
    script.onload = () => { if (waiting.has(name)) failed("does not hold its games (written by another report?)"); };
    document.body.append(script);
  });
  loadedBlocks.set(name, promise);
  return promise;
}

// A step holds what changed since the step before (tournaments/report/viewer.py `delta`): a
// value, a value in a list of one (an object or a list), or the changes by key or index. The
// parts that did not change are shared with the step before, never copied.
function patched(base, patch) {
  if (patch === null || typeof patch !== "object") return patch;
  if (Array.isArray(patch)) return patch[0];
  const copy = Array.isArray(base) ? base.slice() : Object.assign({}, base);
  for (const key in patch) copy[key] = patched(base[key], patch[key]);
  return copy;
}

// Game `index` of a block, its steps whole again: a block holds each field over its games.
function gameOf(block, index) {
  const field = name => block[name][index];
  const privates = field("private");
  let state, own = null;  // the spectator's view, what each seat's own view adds to it
  const steps = field("n").map((n, k) => {
    state = patched(state, field("state")[k]);
    if (privates) own = patched(own, privates[k]);
    return {n, state, private: own, scores: field("scores")[k], to_act: field("to_act")[k],
      actions: field("actions")[k], ms: field("ms")[k], fallback: field("fallback")[k]};
  });
  return {...field("game"), steps};
}

async function loadGame(id) {
  const entry = gameEntries.get(id);
  if (!entry) throw new Error(`this report has no game ${id}`);
  const block = await loadBlock(ARENA_DATA.blocks[entry.block]);
  return gameOf(block, block.ids.indexOf(id));
}

// ---- the viewer ------------------------------------------------------------------------------

function seatName(game, seat) { return `seat ${seat} (${game.names[seat]})`; }

async function openGame(id, step) {
  const view = document.getElementById("viewer");
  view.hidden = false;
  if (current && current.id === id && view.querySelector("#board")) { go(step || 0); return; }
  view.replaceChildren(el("h2", {text: `Game ${id}`}), el("p", {text: "loading…"}));
  let game;
  try { game = await loadGame(id); } catch (error) {
    view.replaceChildren(el("h2", {text: `Game ${id}`}), el("p", {class: "error", text: String(error.message || error)}));
    return;
  }
  // Whose hidden information the board shows: "all" (a finished game hides nothing), "none" (a
  // spectator's view) or a seat number (that seat's view). Only finished games carry any.
  current = {id, game, step: 0, reveal: "all"};
  const hidden = game.steps.some(step => step.private);
  const views = [["all", "every hand"], ["none", "a spectator's view"],
    ...(game.names || []).map((name, seat) => [String(seat), `${seatName(game, seat)}'s view`])];
  const parts = [
    ARENA_DATA.mode === "game" ? gameLinks() : el("p", {}, el("a", {id: "back", href: "#games", text: "← all games"})),
    el("h2", {id: "viewer-title", text: ARENA_DATA.mode === "game" ? `Game of ${game.game}` : `Game ${id}: ${game.game || ""}`}),
    el("p", {class: "note", id: "viewer-info"}),
    game.error ? el("p", {class: "error", id: "viewer-error", text: "This record does not replay: " + game.error}) : null,
    el("div", {class: "controls"},
      el("button", {id: "first", text: "|◀", title: "start (Home)", on: {click: () => go(0)}}),
      el("button", {id: "prev", text: "◀", title: "previous (←)", on: {click: () => go(current.step - 1)}}),
      el("span", {id: "step-label"}),
      el("button", {id: "next", text: "▶", title: "next (→)", on: {click: () => go(current.step + 1)}}),
      el("button", {id: "last", text: "▶|", title: "end (End)", on: {click: () => go(current.game.steps.length - 1)}}),
      el("span", {class: "note", text: " arrow keys step; Home/End jump"}),
      hidden ? el("label", {class: "note"}, " show ", el("select", {id: "reveal",
        on: {change: event => { current.reveal = event.target.value; go(current.step); }}},
        ...views.map(([value, text]) => el("option", {value, text})))) : null),
    el("div", {id: "actions", class: "actions"}),
    el("div", {id: "faults"}),
    el("div", {id: "board", class: "board"})];
  view.replaceChildren(...parts.filter(part => part != null));
  const options = Object.entries(game.options || {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" ");
  document.getElementById("viewer-info").textContent =
    `${(game.names || []).map((n, s) => `seat ${s}: ${n}`).join(", ")} | seed ${game.seed} | options ${options || "none"}` +
    (game.result ? ` | final scores ${game.result.scores.join(" ")}, ranks ${game.result.ranks.join(" ")}` +
      (game.result.tiebreak ? ` (tie-break: ${game.result.tiebreak})` : "") : "");
  const reveal = document.getElementById("reveal");
  if (reveal) reveal.value = current.reveal;
  go(step || 0);
  window.scrollTo(0, 0);
}

// A page's links (a league's game page: back to its leaderboard and bots, and its downloads;
// a league's published final: back to the league), as the server that made the page listed
// them: [text, address] pairs.
function gameLinks() {
  const links = ARENA_DATA.links || [];
  if (!links.length) return null;
  const parts = links.flatMap(([text, href], k) => [k ? " · " : null, el("a", {href, text})]);
  return el("p", {id: "links"}, ...parts.filter(part => part != null));
}

// A fault at decision n was made while the referee asked for decision n: it shows where that
// decision was applied (by the fallback policy), or at the last step when it ended the game.
function stepOfDecision(steps, n) {
  const found = steps.findIndex((step, k) => k > 0 && step.n === n);
  return found < 0 ? steps.length - 1 : found;
}

function go(step) {
  if (!current || !current.game.steps.length) return;
  const steps = current.game.steps;
  current.step = Math.max(0, Math.min(steps.length - 1, step));
  const game = current.game, here = steps[current.step];
  history.replaceState(null, "", ARENA_DATA.mode === "game" ? `#step-${current.step}` : `#game-${current.id}/step-${current.step}`);
  document.getElementById("step-label").textContent =
    `step ${current.step} / ${steps.length - 1}` + (current.step ? ` (decision ${here.n})` : " (start)");
  const viewer = viewers[game.game];
  const before = current.step ? steps[current.step - 1].state : null;
  const actions = document.getElementById("actions");
  actions.replaceChildren();
  if (here.actions) for (const [seat, action] of Object.entries(here.actions)) {
    const text = viewer && viewer.describe ? viewer.describe(action, before, Number(seat)) : JSON.stringify(action);
    const ms = here.ms && here.ms[seat] != null ? ` in ${here.ms[seat]} ms` : "";
    const fallback = here.fallback.includes(Number(seat)) ? " — played by the fallback policy (the bot had faulted)" : "";
    actions.append(el("div", {class: "action", text: `${seatName(game, Number(seat))}: ${text}${ms}${fallback}`},
      el("code", {class: "protocol", text: " " + JSON.stringify(action)})));  // as the bot sent it
  } else actions.append(el("div", {text: "the start of the game"}));
  actions.append(el("div", {text: `scores: ${here.scores.join(" ")}` +
    (here.to_act.length ? ` | to act: ${here.to_act.map(s => seatName(game, s)).join(", ")}` : " | game over")}));
  const faults = document.getElementById("faults");
  faults.replaceChildren(...game.faults.filter(f => stepOfDecision(steps, f.decision) === current.step).map(f =>
    el("div", {class: "fault", text: `fault at decision ${f.decision}: ${seatName(game, f.seat)} — ${f.kind}: ${f.reason}`})));
  const board = document.getElementById("board");
  const shown = !here.private || current.reveal === "none" ? null : current.reveal === "all" ? here.private
    : here.private.map((fields, seat) => String(seat) === current.reveal ? fields : {});
  const ctx = {names: game.names, toAct: here.to_act, scores: here.scores, private: shown};
  if (viewer) board.innerHTML = viewer.draw(here.state, ctx);
  else board.replaceChildren(el("pre", {class: "state", text: JSON.stringify(here.state, null, 1)}));
}

document.addEventListener("keydown", event => {
  if (!current || document.getElementById("viewer").hidden) return;
  if (event.target instanceof HTMLSelectElement || event.target instanceof HTMLInputElement) return;
  const moves = {ArrowRight: 1, ArrowLeft: -1};
  if (event.key in moves) go(current.step + moves[event.key]);
  else if (event.key === "Home") go(0);
  else if (event.key === "End") go(current.game.steps.length - 1);
  else return;
  event.preventDefault();
});

// `#game-<id>` is that game's own view (the list hidden), `#game-<id>/step-<n>` a step of it;
// stepping keeps the address current, so a link names what is on the screen.
function route() {
  const match = /^#game-(\d+)(?:\/step-(\d+))?$/.exec(location.hash);
  for (const id of ["overview", "games-section"]) document.getElementById(id).hidden = match != null;
  if (match) openGame(Number(match[1]), match[2] == null ? 0 : Number(match[2]));
  else document.getElementById("viewer").hidden = true;
}

function start() {
  document.title = ARENA_DATA.title;
  document.getElementById("title").textContent = ARENA_DATA.title;
  if (ARENA_DATA.mode === "game") {  // one game's page: `#step-<k>`, or `#decision-<n>` (a fault's)
    document.getElementById("nav").remove();
    const address = /^#(step|decision)-(\d+)$/.exec(location.hash);
    openGame(0, address && address[1] === "step" ? Number(address[2]) : 0).then(() => {
      if (address && address[1] === "decision" && current) go(stepOfDecision(current.game.steps, Number(address[2])));
    });
    return;
  }
  const links = gameLinks();  // a league's published final: back to the league
  if (links) document.getElementById("title").after(links);
  const s = ARENA_DATA.settings || {};
  document.getElementById("settings").textContent =
    `game ${s.game} | ${s.players} players | options ${JSON.stringify(s.options || {})} | time ${JSON.stringify(s.time || {})}`;
  document.getElementById("nav").append(el("a", {href: "#ladder", text: "ladder"}), el("a", {href: "#games", text: "games"}));
  overview();
  gameList();
  window.addEventListener("hashchange", route);
  route();
}

window.addEventListener("DOMContentLoaded", start);
