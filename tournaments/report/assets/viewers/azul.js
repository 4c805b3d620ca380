// Azul's drawing hook: the spectator state (referee/games/azul_messages.py AzulObservation) as
// SVG — factories with their powers, the centre and the first-player marker, then each
// player's pattern lines, wall, floor and score. Registered under the game's id.
(function () {
  "use strict";
  const COLOURS = ["#2f6fb5", "#e8b923", "#c8423b", "#2d2d2d", "#e6e0d2"];
  const NAMES = ["blue", "yellow", "red", "black", "white"];
  const FLOOR = [-1, -1, -2, -2, -2, -3, -3];
  const T = 22;  // tile size
  const LINES = 16;  // a board's pattern lines start this far in: room for their numbers
  const FLOOR_X = 56;  // and its floor tiles: room for "floor (5)" before them
  const CENTRE_X = 86;  // the centre's tiles: room for "centre (-1)" before them
  const {text, panel, seatName, counted, total, svg} = window.ARENA_SVG;

  function tile(x, y, colour, opts) {
    const o = opts || {};
    if (colour === 5) {  // the first-player marker
      return `<rect x="${x}" y="${y}" width="${T - 2}" height="${T - 2}" rx="3" fill="#fff" stroke="#7a4b1f" stroke-width="2"/>` +
        `<text x="${x + T / 2 - 1}" y="${y + T / 2 + 4}" font-size="12" font-weight="bold" text-anchor="middle" fill="#7a4b1f">1</text>`;
    }
    if (colour == null || colour < 0) {
      const fill = o.ghost != null ? COLOURS[o.ghost] : "#fff";
      return `<rect x="${x}" y="${y}" width="${T - 2}" height="${T - 2}" rx="3" fill="${fill}" fill-opacity="${o.ghost != null ? 0.22 : 1}" stroke="#bbb" stroke-dasharray="3 2"/>`;
    }
    return `<rect class="tile" x="${x}" y="${y}" width="${T - 2}" height="${T - 2}" rx="3" fill="${COLOURS[colour]}" stroke="#555"/>`;
  }

  function factory(cx, cy, counts, power, index) {
    let s = `<circle cx="${cx}" cy="${cy}" r="${T * 1.35}" fill="#f3e6d3" stroke="#a58a66"/>`;
    const tiles = counted(counts), across = tiles.length > 4 ? 3 : 2;  // "+1" factories hold 5
    const k = across === 3 ? 0.75 : 1, size = T * k;
    tiles.forEach((colour, i) => {
      const x = cx - (across * size) / 2 + (i % across) * size + 1;
      const y = cy - size + Math.floor(i / across) * size + 1;
      s += `<g transform="translate(${x} ${y}) scale(${k})">${tile(0, 0, colour)}</g>`;
    });
    s += text(cx, cy + T * 1.35 + 13, `factory ${index}`, {anchor: "middle", size: 11});
    if (power) s += text(cx, cy + T * 1.35 + 27, power, {anchor: "middle", size: 11});  // a line of its own: "pull1" is as wide as a factory
    return s;
  }

  function board(x, y, player, seat, state, ctx) {
    const grey = state.variant === "grey";
    const acting = state.decision && state.decision.seat === seat;
    let s = panel(x, y, 13 * T, 8.6 * T, acting, true);
    const marker = state.marker === seat ? " · took the marker" : "";
    s += text(x + 8, y + 16, `seat ${seat} ${seatName(ctx, seat)}: ${player.score} points${marker}`, {bold: true, size: 11});
    for (let row = 0; row < 5; row++) {
      const ly = y + 26 + row * T;
      s += text(x + LINES + (5 - 1 - row) * T - 4, ly + T / 2 + 4, row, {anchor: "end", size: 9, fill: "#888"});  // the protocol's line number
      for (let k = 0; k <= row; k++) {  // pattern lines fill from the right
        const tx = x + LINES + (5 - 1 - k) * T;
        s += tile(tx, ly, k < player.lines[row].length ? player.lines[row][k] : -1);
      }
      for (let col = 0; col < 5; col++) {
        const ghost = grey ? null : (col - row + 5) % 5;
        s += tile(x + 6.5 * T + col * T, ly, player.wall[row][col], {ghost});
      }
    }
    const fy = y + 26 + 5 * T + 8;
    s += text(x + 6, fy + 14, "floor (5)", {size: 11});
    for (let i = 0; i < 7; i++) {
      const fx = x + FLOOR_X + i * T;
      s += tile(fx, fy, i < player.floor.length ? player.floor[i] : -1);
      s += text(fx + T / 2 - 1, fy + T + 10, FLOOR[i], {anchor: "middle", size: 9, fill: "#888"});
    }
    if (player.floor.length > 7) s += text(x + FLOOR_X + 7 * T + 1, fy + 14, `+${player.floor.length - 7}`, {size: 10});
    if (player.extra_floor != null) {
      s += text(x + 10.6 * T, fy + 14, "extra:", {size: 10});
      s += tile(x + 12 * T - 2, fy, player.extra_floor.length ? player.extra_floor[0] : -1);
    }
    return s;
  }

  function draw(state, ctx) {
    const n = state.factories.length, perRow = Math.min(n, 9);
    const fw = T * 3.3, width = Math.max(perRow * fw + 40, 2 * 13.5 * T + 20, 14 * T * 2);
    let s = "";
    const d = state.decision || {};
    const what = d.kind === "over" ? "game over" : `seat ${d.seat} to ${d.kind}` +
      (d.kind === "place" ? ` (row ${d.row}, ${NAMES[d.colour]} ${d.colour})` : "");
    const title = `Azul${state.variant === "grey" ? " (grey wall)" : ""}${state.special_factories ? ", special factories" : ""} — round ${state.round}`;
    if (d.kind === "split") {  // too long for one line: the decision goes on a second
      s += text(10, 16, `${title}: seat ${d.seat} to split`, {bold: true, size: 13});
      s += text(10, 31, `factory ${d.factory}: its leftovers to factory ${d.left} or ${d.right}`, {size: 11});
    } else {
      s += text(10, 18, `${title}: ${what}`, {bold: true, size: 13});
    }
    state.factories.forEach((counts, i) => {
      const cx = 20 + T * 1.4 + (i % perRow) * fw, cy = 40 + T * 1.4 + Math.floor(i / perRow) * (fw + 6);
      s += factory(cx, cy, counts, state.powers[i], i);
    });
    const rowsOfFactories = Math.ceil(n / perRow);
    const powered = state.powers.some(power => power);  // their second line of label
    const cy = 40 + rowsOfFactories * (fw + 6) + (powered ? 18 : 4);
    s += text(10, cy + 14, "centre (-1)");
    let cx = CENTRE_X;
    if (state.marker === -1) { s += tile(cx, cy, 5); cx += T + 4; }
    counted(state.centre).forEach(colour => { s += tile(cx, cy, colour); cx += T; });
    s += text(width - 10, cy + 14, `bag ${total(state.bag)} · lid ${total(state.lid)}`, {anchor: "end", size: 11, fill: "#555"});
    const by = cy + T + 14, bw = 13.5 * T, perLine = Math.max(1, Math.floor(width / bw));
    state.players.forEach((player, seat) => {
      s += board(10 + (seat % perLine) * bw, by + Math.floor(seat / perLine) * 9 * T, player, seat, state, ctx);
    });
    const height = by + Math.ceil(state.players.length / perLine) * 9 * T + 10;
    return svg("azul", width, height, s);
  }

  function describe(action, before) {
    if (action.type === "take") {
      const from = action.source === -1 ? "the centre (-1)" : `factory ${action.source}`;
      const to = action.line === 5 ? "the floor (line 5)" : `pattern line ${action.line} (${action.line + 1} tiles)`;
      return `takes ${NAMES[action.colour]} (${action.colour}) from ${from} to ${to}`;
    }
    if (action.type === "place") return `places row ${action.row}'s tile in column ${action.column}`;
    if (action.type === "split") {
      const list = cs => cs.map(c => NAMES[c]).join(" ") || "nothing";
      return `splits the leftovers: ${list(action.left)} left, ${list(action.right)} right`;
    }
    return JSON.stringify(action);
  }

  (window.ARENA_VIEWERS = window.ARENA_VIEWERS || {})["azul"] = {draw, describe};
})();
