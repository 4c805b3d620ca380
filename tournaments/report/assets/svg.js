// What the games' drawing hooks (viewers/<game id>.js) share, written once: escaping, SVG text,
// a seat's panel, the picture's frame. Inlined in front of the hooks (tournaments/report/page.py
// `viewer_scripts`); the page's own code uses `esc` too.
window.ARENA_SVG = (function () {
  "use strict";
  const esc = s => String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));

  // Text at (x, y); o: size (12), bold, fill ("#222"), anchor ("start").
  const text = (x, y, s, o) => `<text x="${x}" y="${y}" font-size="${(o && o.size) || 12}" font-weight="${o && o.bold ? "bold" : "normal"}" fill="${(o && o.fill) || "#222"}" text-anchor="${(o && o.anchor) || "start"}">${esc(s)}</text>`;

  // A seat's background, highlighted while the seat is to act (`thick`: with a 3 px border).
  const panel = (x, y, width, height, acting, thick) =>
    `<rect x="${x}" y="${y}" width="${width}" height="${height}" rx="6" fill="${acting ? "#fff8dc" : "#fdfbf7"}" stroke="${acting ? "#d69e2e" : "#bbb"}"` +
    (thick ? ` stroke-width="${acting ? 3 : 1}"/>` : "/>");

  // The seat's bot name from the viewer's context ("" when it has none).
  const seatName = (ctx, seat) => ctx.names && ctx.names[seat] != null ? ctx.names[seat] : "";

  // Tile counts by colour as the list of their colours, and their total.
  const counted = counts => counts.flatMap((n, colour) => Array(n).fill(colour));
  const total = counts => counts.reduce((a, b) => a + b, 0);

  // The whole picture: `body` in an SVG of that size, classed by the game.
  const svg = (game, width, height, body) =>
    `<svg xmlns="http://www.w3.org/2000/svg" class="${game}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>`;

  return {esc, text, panel, seatName, counted, total, svg};
})();
