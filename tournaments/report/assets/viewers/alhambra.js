// Alhambra's drawing hook: the spectator state (AlhambraObservation, alhambra_messages.py) as
// SVG — the market (4 slots, each with its currency and building), the money offer, and per
// seat its Alhambra on a grid (buildings coloured by type with their price, walls as thick
// lines on walled sides, the fountain), its hand (public: docs/games/alhambra.md, ruling 18),
// reserve, buildings still to place, counts per type and score; Dirk's buildings with 2 players.
// Registered under the game's id.
(function () {
  "use strict";
  // Buildings 1–54 as type digit, price, walls (referee/games/alhambra_tiles.py BUILDINGS).
  const TILES = ("02NEW 03SW 04ES 05NW 06N 07E 08 13ESW 14NE 15SW 16ES 17W 18S 19 24NES 25NW 26SW " +
    "26NE 27ES 28N 28E 29 210 35NSW 36ES 37SW 37NE 38NW 39W 39S 310 311 46ESW 47NSW 48SW 48NE " +
    "48NW 49E 410N 410W 410 411 412S 57NEW 58NES 59ES 59NE 59NW 510W 511N 511S 511 512 513E")
    .split(" ").map(t => { const m = /^(\d)(\d+)([NESW]*)$/.exec(t); return {type: +m[1], price: +m[2], walls: m[3]}; });
  const TYPES = ["pavilion", "seraglio", "arcades", "chambers", "garden", "tower"];
  const TYPE_COLOURS = ["#7fb3e0", "#e58a8a", "#d9a45b", "#cdb8ea", "#86c784", "#a98bd0"];
  const CURRENCIES = ["yellow", "green", "blue", "orange"];
  const MONEY_COLOURS = ["#e8c12f", "#4c9a3f", "#3b6fb6", "#e37b2c"];
  const WALL = "#5a2d0c";
  const {text, panel, seatName, svg} = window.ARENA_SVG;
  const tileOf = id => TILES[id - 1];
  const label = id => id === 0 ? "fountain" : `${TYPES[tileOf(id).type]} ${tileOf(id).price}`;

  // One building (or the fountain, id 0) in a square of side k at (x, y).
  function tile(x, y, k, id) {
    if (id === 0) {
      return `<g class="building fountain"><rect x="${x}" y="${y}" width="${k}" height="${k}" fill="#f3efe6" stroke="#bbb"/>` +
        `<circle cx="${x + k / 2}" cy="${y + k / 2}" r="${k * 0.3}" fill="#5fb4d9" stroke="#2c6e8f" stroke-width="2"/></g>`;
    }
    const t = tileOf(id);
    let s = `<g class="building type-${t.type}"><rect x="${x}" y="${y}" width="${k}" height="${k}" fill="${TYPE_COLOURS[t.type]}" stroke="#777" stroke-width="0.5"/>`;
    s += text(x + k / 2, y + k / 2 + k * 0.15, t.price, {size: Math.round(k * 0.42), bold: true, anchor: "middle"});
    const w = Math.max(2, k / 8), h = w / 2;
    const sides = {N: [x, y + h, x + k, y + h], S: [x, y + k - h, x + k, y + k - h],
      W: [x + h, y, x + h, y + k], E: [x + k - h, y, x + k - h, y + k]};
    for (const side of t.walls) {
      const [x1, y1, x2, y2] = sides[side];
      s += `<line class="wall" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${WALL}" stroke-width="${w}" stroke-linecap="square"/>`;
    }
    return s + "</g>";
  }

  function money(x, y, card, scale) {
    const k = scale || 1, w = 20 * k, h = 28 * k;
    const dark = card.currency === 1 || card.currency === 2;
    return `<g class="money"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="3" fill="${MONEY_COLOURS[card.currency]}" stroke="#333"/>` +
      text(x + w / 2, y + h / 2 + 5 * k, card.value, {size: Math.round(14 * k), bold: true, anchor: "middle", fill: dark ? "#fff" : "#222"}) + "</g>";
  }

  // A row of buildings, wrapping after `perRow`.
  function tiles(x, y, ids, k, perRow) {
    return ids.map((id, i) => tile(x + (i % perRow) * (k + 3), y + Math.floor(i / perRow) * (k + 3), k, id)).join("");
  }

  // The Alhambra fitted into a box of width bw and height bh, centred in it.
  function alhambra(x, y, bw, bh, placed) {
    const xs = placed.map(p => p.x), ys = placed.map(p => p.y);
    const x0 = Math.min(...xs), y0 = Math.min(...ys);
    const cols = Math.max(...xs) - x0 + 1, rows = Math.max(...ys) - y0 + 1;
    const k = Math.max(8, Math.min(34, Math.floor(bw / cols), Math.floor(bh / rows)));
    const ox = x + (bw - cols * k) / 2, oy = y + (bh - rows * k) / 2;
    return `<g class="alhambra">` + placed.map(p => tile(ox + (p.x - x0) * k, oy + (p.y - y0) * k, k, p.building)).join("") + "</g>";
  }

  function counts(ids) {
    const found = [0, 0, 0, 0, 0, 0];
    for (const id of ids) if (id !== 0) found[tileOf(id).type]++;
    return found;
  }

  function chips(x, y, found) {
    return found.map((n, type) => `<rect x="${x + type * 30}" y="${y}" width="26" height="16" rx="3" fill="${TYPE_COLOURS[type]}" stroke="#777"/>` +
      text(x + type * 30 + 13, y + 12, n, {size: 11, bold: true, anchor: "middle"})).join("");
  }

  function draw(state, ctx) {
    const width = 1000, seats = state.scores.length;
    // 2 panels a row with 2 players, 3 with more; each as tall as the tallest Alhambra needs
    // (34 px cells, shrunk past 240 px) and the longest hand, reserve and purchases to place.
    const columns = seats === 2 ? 2 : 3, panelW = Math.floor((width - 4) / columns) - 8;
    const perRow = Math.floor((panelW - 100) / 23), handPerRow = Math.floor((panelW - 100) / 21);
    const rows = Math.max(...state.alhambras.map(placed => {
      const ys = placed.map(p => p.y);
      return Math.max(...ys) - Math.min(...ys) + 1;
    }));
    const gridH = Math.max(70, Math.min(240, rows * 34));
    const lines = (items, per) => Math.max(1, Math.ceil(items.length / per));
    const handH = seat => lines(state.hands[seat], handPerRow) * 24;
    const reserveH = seat => lines(state.reserves[seat], perRow) * 23 +
      (state.pending[seat].length ? lines(state.pending[seat], perRow) * 23 : 0);
    const infoH = Math.max(...state.scores.map((_, seat) => 52 + handH(seat) + reserveH(seat)));
    const panelH = infoH + gridH + 12;
    const phase = state.over ? "game over" : `seat ${state.current} to play, phase ${state.phase}, ${state.actions} action(s) this turn`;
    let s = text(10, 20, `Alhambra, ${state.players} players${state.dirk ? " + Dirk" : ""} — ${phase}`, {bold: true, size: 13});
    s += text(10, 38, `scorings done ${state.scorings} · deck ${state.deck} · discard ${state.discard.length} · bag ${state.bag}` +
      (state.out_of_play.length ? ` · out of play ${state.out_of_play.length}` : ""), {size: 11, fill: "#555"});
    // The market: slot k takes currency k.
    s += text(10, 62, "market", {bold: true});
    state.market.forEach((id, slot) => {
      const x = 70 + slot * 95, y = 48;
      const buying = state.phase === "pay" && state.paying === slot;
      s += `<g class="slot"><rect x="${x}" y="${y}" width="88" height="66" rx="5" fill="#fdfbf7" stroke="${MONEY_COLOURS[slot]}" stroke-width="${buying ? 5 : 3}"/>`;
      s += text(x + 44, y + 13, CURRENCIES[slot], {size: 10, anchor: "middle", fill: "#444"});
      if (id) {
        s += tile(x + 6, y + 18, 40, id);
        s += text(x + 50, y + 34, TYPES[tileOf(id).type].slice(0, 8), {size: 9});
        s += text(x + 50, y + 50, `price ${tileOf(id).price}`, {size: 9});
      } else s += text(x + 44, y + 44, "empty", {size: 10, anchor: "middle", fill: "#999"});
      s += "</g>";
    });
    if (state.phase === "pay" && state.paid.length) {
      s += text(70, 132, "paying:", {size: 11});
      state.paid.forEach((c, i) => { s += money(120 + i * 23, 120, c, 0.8); });
    }
    s += text(470, 62, "offer", {bold: true});
    state.offer.forEach((c, i) => { s += money(515 + i * 26, 50, c); });
    // A legend of the building types.
    TYPES.forEach((name, type) => {
      const x = 630 + (type % 3) * 120, y = 50 + Math.floor(type / 3) * 22;
      s += `<rect x="${x}" y="${y}" width="16" height="16" fill="${TYPE_COLOURS[type]}" stroke="#777"/>` + text(x + 21, y + 12, name, {size: 11});
    });
    const top = 150;
    for (let seat = 0; seat < seats; seat++) {
      const x = 6 + (seat % columns) * (panelW + 8), y = top + Math.floor(seat / columns) * (panelH + 8);
      const acting = ctx.toAct && ctx.toAct.includes(seat);
      s += `<g class="seat">${panel(x, y, panelW, panelH, acting)}`;
      s += text(x + 8, y + 18, `seat ${seat} ${seatName(ctx, seat)}: ${state.scores[seat]} points`, {bold: true});
      const placed = state.alhambras[seat];
      s += text(x + 8, y + 40, "buildings", {size: 11}) + chips(x + 100, y + 28, counts(placed.map(p => p.building)));
      const hand = state.hands[seat];
      const hy = y + 50;
      s += text(x + 8, hy + 14, `hand (total ${hand.reduce((t, c) => t + c.value, 0)})`, {size: 11});
      hand.forEach((c, i) => { s += money(x + 100 + (i % handPerRow) * 21, hy + Math.floor(i / handPerRow) * 24, c, 0.75); });
      const ry = hy + handH(seat);
      s += text(x + 8, ry + 14, `reserve (${state.reserves[seat].length})`, {size: 11});
      s += tiles(x + 100, ry, state.reserves[seat], 20, perRow);
      if (state.pending[seat].length) {
        const py = ry + lines(state.reserves[seat], perRow) * 23;
        s += text(x + 8, py + 14, "to place", {size: 11, bold: true});
        s += tiles(x + 100, py, state.pending[seat], 20, perRow);
      }
      s += alhambra(x + 8, y + infoH + 4, panelW - 16, gridH, placed);
      s += "</g>";
    }
    let y = top + Math.ceil(seats / columns) * (panelH + 8);
    if (state.dirk) {
      s += `<g class="dirk">` + text(10, y + 16, `Dirk (neutral): ${state.dirk_score} points, ${state.dirk_buildings.length} buildings`, {bold: true});
      s += chips(300, y + 4, counts(state.dirk_buildings));
      s += tiles(10, y + 26, state.dirk_buildings, 22, 36) + "</g>";
      y += 30 + Math.ceil(Math.max(1, state.dirk_buildings.length) / 36) * 25;
    }
    const height = y + 6;
    return svg("alhambra", width, height, s);
  }

  const cash = c => `${CURRENCIES[c.currency]} ${c.value}`;

  function describe(action, before) {
    const market = before && before.market;
    switch (action.type) {
      case "take": return "takes " + action.cards.map(cash).join(" + ");
      case "buy": return `buys the ${market && market[action.slot] ? label(market[action.slot]) : "building"} of the ${CURRENCIES[action.slot]} slot`;
      case "pay": return "pays " + cash(action.card);
      case "end": return before && before.phase === "pay" ? "completes the payment" : "ends the turn's actions";
      case "redesign": return `redesigns with the ${label(action.building)}`;
      case "place": return `places the ${label(action.building)} at (${action.x}, ${action.y})`;
      case "reserve": return `puts the ${label(action.building)} into the reserve`;
      case "dirk": return `gives the ${label(action.building)} to Dirk`;
      default: return JSON.stringify(action);
    }
  }

  (window.ARENA_VIEWERS = window.ARENA_VIEWERS || {})["alhambra"] = {draw, describe};
})();
