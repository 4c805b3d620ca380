// 5211's drawing hook: the spectator state (referee/games/g5211_messages.py G5211Observation) as
// SVG — per seat its hand (card backs; face up when the viewer shows that seat's view), the
// cards revealed this round and its score pile (a red dot marks a rooster, value 1); the draw
// pile, the discard and what the last scored round revealed. Registered under the game's id.
(function () {
  "use strict";
  const COLOURS = ["#e8c12f", "#4c9a3f", "#e37b2c", "#1f3b73", "#2a9d9a"];
  const NAMES = ["yellow", "green", "orange", "dark blue", "teal"];
  const W = 30, H = 42;
  const {text, panel, seatName, svg} = window.ARENA_SVG;

  function card(x, y, c, scale) {
    const k = scale || 1, w = W * k, h = H * k;
    const light = c.colour === 0 || c.colour === 2;
    const rooster = c.value === 1 ? `<circle cx="${x + w - 7 * k}" cy="${y + 7 * k}" r="${4 * k}" fill="#c53030" stroke="#fff"/>` : "";
    return `<g class="card"><rect x="${x}" y="${y}" width="${w}" height="${h}" rx="4" fill="${COLOURS[c.colour]}" stroke="#333"/>` +
      `<text x="${x + w / 2}" y="${y + h / 2 + 6 * k}" font-size="${17 * k}" font-weight="bold" text-anchor="middle" fill="${light ? "#222" : "#fff"}">${c.value}</text>${rooster}</g>`;
  }

  function back(x, y) {
    return `<rect x="${x}" y="${y}" width="${W}" height="${H}" rx="4" fill="#7b5ea7" stroke="#333"/>` +
      `<rect x="${x + 4}" y="${y + 4}" width="${W - 8}" height="${H - 8}" rx="2" fill="none" stroke="#d6c8ef"/>`;
  }

  function row(x, y, cards, scale) {
    return cards.map((c, i) => card(x + i * (W * (scale || 1) + 3), y, c, scale)).join("");
  }

  function draw(state, ctx) {
    const width = 900, seatH = 2 * H + 40;
    let s = text(10, 20, `5211 (${state.variant}) — deal ${state.deal}, round ${state.round}, turn ${state.turn}` +
      (state.last_round ? " (last round)" : "") + (state.over ? " — game over" : ""), {bold: true, size: 13});
    s += text(10, 40, `draw pile ${state.draw_pile} · removed ${state.removed} · discard ${state.discard.length}`, {size: 11, fill: "#555"});
    state.scores.forEach((score, seat) => {
      const y = 52 + seat * seatH;
      const acting = ctx.toAct && ctx.toAct.includes(seat);
      s += panel(6, y, width - 12, seatH - 6, acting);
      s += text(14, y + 18, `seat ${seat} ${seatName(ctx, seat)}: ${score} points`, {bold: true});
      const hand = ctx.private && ctx.private[seat].hand;  // shown by the viewer's "show" choice
      s += text(14, y + 36, `hand (${state.hand_sizes[seat]})`, {size: 11});
      if (hand) s += `<g class="hand" data-seat="${seat}">${row(14, y + 42, hand, 0.6)}</g>`;
      else for (let i = 0; i < state.hand_sizes[seat]; i++) s += back(14 + i * 12, y + 42);
      s += text(170, y + 36, "revealed this round", {size: 11});
      s += row(170, y + 42, state.played[seat]);
      s += text(420, y + 36, `score pile (${state.score_piles[seat].length})`, {size: 11});
      s += row(420, y + 48, state.score_piles[seat], 0.7);
    });
    let y = 52 + state.scores.length * seatH + 10;
    const prev = state.previous;
    if (prev) {
      const what = prev.outcome === "majority" ? `${NAMES[prev.colour]} was the majority` :
        prev.outcome === "roosters" ? "roosters scored" : "nothing scored";
      s += text(10, y + 12, `round ${prev.round}: ${what}; points ${prev.points.join(", ")}`, {size: 12, bold: true});
      prev.played.forEach((cards, seat) => {
        s += text(14, y + 38 + seat * 34, `seat ${seat}`, {size: 11});
        s += row(70, y + 20 + seat * 34, cards, 0.7);
      });
      y += 30 + prev.played.length * 34;
    }
    s += text(10, y + 14, "discard", {size: 11});
    s += row(70, y + 2, state.discard.slice(-24), 0.6);
    const height = y + 40;
    return svg("g5211", width, height, s);
  }

  function describe(action) {
    if (action.type === "play") return "plays " + action.cards.map(c => `${NAMES[c.colour]} ${c.value}`).join(" and ");
    return JSON.stringify(action);
  }

  (window.ARENA_VIEWERS = window.ARENA_VIEWERS || {})["5211"] = {draw, describe};
})();
