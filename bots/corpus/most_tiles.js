// examples/azul-most-tiles ported to JavaScript for the clone benchmark's corpus (a copy in
// another language): on a take, the take that puts the most tiles onto a pattern line; ties to
// the longest line, then to the first legal take; to the floor only when no line can take any.
// Place and split decisions: the first legal action. Only the strategy part: the bot is
// examples/starter-node/bot.js with this in place of its strategy (tournaments.bench.corpus).
const CENTRE = -1;
const FLOOR_LINE = 5;

function choose(observation, legal, game) {
  if (observation.decision.kind !== "take") return 0;
  const lines = observation.players[observation.seat].lines;
  let best = 0;
  let bestKey = [-1, -1];
  legal.forEach((take, index) => {
    let key;
    if (take.line === FLOOR_LINE) {
      key = [0, -1];
    } else {
      const source = take.source === CENTRE ? observation.centre : observation.factories[take.source];
      const room = take.line + 1 - lines[take.line].length;
      key = [Math.min(source[take.colour], room), take.line];
    }
    if (key[0] > bestKey[0] || (key[0] === bestKey[0] && key[1] > bestKey[1])) {
      best = index;
      bestKey = key;
    }
  });
  return best;
}

// A small seeded generator (mulberry32), so that a game replays the same with the same seed.
// (`seed` may exceed 2^53 and arrive rounded: still the same number for the same seed.)
