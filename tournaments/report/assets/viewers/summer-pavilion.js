// Azul: Summer Pavilion's drawing hook: the spectator state (referee/games/
// summer_pavilion_messages.py SummerPavilionObservation) as SVG — the round's wild colour, the
// factories, the centre with the first-player marker, the supply, then per player the 7 stars
// (six 60° diamonds each, laid out as on the board: the centre star ringed by orange, red,
// blue, yellow, green and purple clockwise from the upper left), each empty space with its cost,
// the hand, the storage and the score. Registered under the game's id.
(function () {
  "use strict";
  const COLOURS = ["#7b4fa0", "#3f9a4a", "#e8872c", "#e8c12f", "#2f6fb5", "#c8423b"];
  const NAMES = ["purple", "green", "orange", "yellow", "blue", "red"];
  const RING = [2, 5, 4, 3, 1, 0];  // outer stars clockwise from the upper left
  const CENTRE = 6;
  const T = 18;  // tile size
  const L = 25;  // a diamond's side
  const GAP = 112;  // from the centre star to an outer star
  const BW = 2 * GAP + 4 * L + 40;  // a player's panel
  const BH = 2 * GAP + 4 * L + 116;
  const {text, panel, seatName, counted, total, svg} = window.ARENA_SVG;
  const starName = (star, grey) => (star === CENTRE ? "the centre star" : grey ? "star" : `the ${NAMES[star]} star`) + ` (star ${star})`;

  function tile(x, y, colour, wild) {
    if (colour === "marker") {
      return `<rect x="${x}" y="${y}" width="${T - 2}" height="${T - 2}" rx="3" fill="#fff" stroke="#7a4b1f" stroke-width="2"/>` +
        `<text x="${x + T / 2 - 1}" y="${y + T / 2 + 4}" font-size="11" font-weight="bold" text-anchor="middle" fill="#7a4b1f">1</text>`;
    }
    const mark = colour === wild ? `<text x="${x + T / 2 - 1}" y="${y + T / 2 + 4}" font-size="11" text-anchor="middle" fill="#fff">★</text>` : "";
    return `<rect class="tile" x="${x}" y="${y}" width="${T - 2}" height="${T - 2}" rx="3" fill="${COLOURS[colour]}" stroke="#555"/>${mark}`;
  }

  function tiles(x, y, counts, wild, perRow) {
    const across = perRow || 40;
    return counted(counts).map((colour, i) => tile(x + (i % across) * T, y + Math.floor(i / across) * T, colour, wild)).join("");
  }

  function factory(cx, cy, counts, index, wild) {
    let s = `<circle cx="${cx}" cy="${cy}" r="${T * 1.3}" fill="#f3e6d3" stroke="#a58a66"/>`;
    counted(counts).forEach((colour, i) => { s += tile(cx - T + (i % 2) * T + 1, cy - T + Math.floor(i / 2) * T + 1, colour, wild); });
    return s + text(cx, cy + T * 1.3 + 12, `factory ${index}`, {anchor: "middle", size: 10});
  }

  const at = (x, y, angle, r) => [x + r * Math.cos(angle), y + r * Math.sin(angle)];

  // Space p (1..6) of a star points at -90° + (p - 1)·60°: space 1 up, then clockwise.
  function star(cx, cy, spaces, costs, tint) {
    let s = "";
    spaces.forEach((colour, i) => {
      const a = (-90 + i * 60) * Math.PI / 180;
      const points = [[cx, cy], at(cx, cy, a - Math.PI / 6, L), at(cx, cy, a, L * Math.sqrt(3)), at(cx, cy, a + Math.PI / 6, L)];
      const filled = colour >= 0;
      s += `<polygon class="${filled ? "space filled" : "space"}" points="${points.map(p => p.map(v => v.toFixed(1)).join(",")).join(" ")}" ` +
        `fill="${filled ? COLOURS[colour] : tint}" fill-opacity="${filled ? 1 : 0.25}" stroke="${filled ? "#444" : "#999"}"/>`;
      const [tx, ty] = at(cx, cy, a, L * Math.sqrt(3) / 2);
      if (!filled) s += text(tx.toFixed(1), (ty + 4).toFixed(1), costs[i], {anchor: "middle", size: 10, fill: "#333"});
    });
    return s;
  }

  function board(x, y, player, seat, state, ctx) {
    const grey = state.variant === "grey";
    const acting = state.decision && state.decision.seat === seat;
    let s = panel(x, y, BW - 8, BH - 8, acting, true);
    const notes = (state.marker === seat ? " · has the marker" : "") + (player.passed ? " · passed" : "");
    s += text(x + 8, y + 16, `seat ${seat} ${seatName(ctx, seat)}: ${player.score} points${notes}`, {bold: true});
    const cx = x + (BW - 8) / 2, cy = y + 28 + GAP + 2 * L;
    const centreTint = grey ? "#999" : "#b9a38a";
    s += star(cx, cy, player.stars[CENTRE], state.costs[CENTRE], centreTint);
    RING.forEach((outer, k) => {
      const [sx, sy] = at(cx, cy, (-120 + k * 60) * Math.PI / 180, GAP);
      s += star(sx, sy, player.stars[outer], state.costs[outer], grey ? "#999" : COLOURS[outer]);
    });
    const hy = y + BH - 64;
    s += text(x + 8, hy + 12, `hand (${total(player.hand)})`, {size: 11});
    s += tiles(x + 80, hy, player.hand, state.wild, Math.floor((BW - 96) / T));
    s += text(x + 8, hy + 2 * T + 12, "storage", {size: 11});
    s += tiles(x + 80, hy + 2 * T, player.storage, state.wild);
    return s;
  }

  function decisionText(d, grey) {
    if (!d || d.kind === "over") return "game over";
    let what = `seat ${d.seat} to ${d.kind}`;
    if (d.kind === "place") what = `seat ${d.seat} to place or pass`;
    if (d.kind === "pay") what += ` for ${NAMES[d.colour]} on ${starName(d.star, grey)}, space ${d.space} (cost ${d.cost || 0}, ${d.min_wilds || 0}..${d.max_wilds || 0} wilds)`;
    if (d.kind === "bonus") what += ` tile (${d.owed} owed)`;
    return what;
  }

  function draw(state, ctx) {
    const grey = state.variant === "grey";
    const n = state.factories.length, fw = T * 3.1;
    const perLine = state.players.length > 2 ? 2 : state.players.length;
    const width = Math.max(perLine * BW + 12, n * fw + 40, 560);
    let s = text(10, 18, `Azul: Summer Pavilion (${grey ? "grey" : "coloured"} side) — round ${state.round}, wild ${NAMES[state.wild]}`, {bold: true, size: 13});
    s += text(10, 36, decisionText(state.decision, grey), {size: 12});
    s += text(10, 56, "wild", {size: 11});
    s += tile(40, 44, state.wild, state.wild);
    s += text(60, 56, `${NAMES[state.wild]} (★ marks wild tiles)`, {size: 11, fill: "#555"});
    state.factories.forEach((counts, i) => { s += factory(20 + T * 1.3 + i * fw, 68 + T * 1.3, counts, i, state.wild); });
    const cy = 68 + T * 2.6 + 22;
    s += text(10, cy + 13, "centre (-1)", {size: 11});
    let x = 60;
    if (state.marker === -1) { s += tile(x, cy, "marker"); x += T + 4; }
    s += tiles(x, cy, state.centre, state.wild);
    const sy = cy + T + 8;
    s += text(10, sy + 13, "supply", {size: 11});
    s += tiles(60, sy, state.supply, state.wild);
    s += text(width - 10, sy + 13, `bag ${total(state.bag)} · tower ${total(state.tower)}`, {anchor: "end", size: 11, fill: "#555"});
    const by = sy + T + 14;
    state.players.forEach((player, seat) => {
      s += board(6 + (seat % perLine) * BW, by + Math.floor(seat / perLine) * BH, player, seat, state, ctx);
    });
    const height = by + Math.ceil(state.players.length / perLine) * BH + 4;
    return svg("summer-pavilion", width, height, s);
  }

  function describe(action, before) {
    const grey = before && before.variant === "grey";
    if (action.type === "take") {
      const source = before && (action.source === -1 ? before.centre : before.factories[action.source]);
      const withWild = before && source && action.colour !== before.wild && source[before.wild] > 0;
      const from = action.source === -1 ? "the centre (-1)" : `factory ${action.source}`;
      return `takes ${NAMES[action.colour]}${withWild ? " and a wild" : ""} from ${from}`;
    }
    if (action.type === "place") return `places ${NAMES[action.colour]} on ${starName(action.star, grey)}, space ${action.space}`;
    if (action.type === "pay") return `pays with ${action.wilds} wild${action.wilds === 1 ? "" : "s"}`;
    if (action.type === "bonus") return `takes a bonus ${NAMES[action.colour]} tile`;
    if (action.type === "pass") return `passes, keeping ${action.keep.map(c => NAMES[c]).join(" ") || "nothing"}`;
    return JSON.stringify(action);
  }

  (window.ARENA_VIEWERS = window.ARENA_VIEWERS || {})["summer-pavilion"] = {draw, describe};
})();
