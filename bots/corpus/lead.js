// bots.corpus.cards `lead` (5211) ported to JavaScript for the clone benchmark's corpus (a copy
// in another language): a card of a colour that leads this round and stays under the limit is
// worth LEAD times the colour's count plus its value, one that breaks the limit costs its value;
// the play worth the most, ties to the first legal play. Only the strategy part: the bot is
// examples/starter-node/bot.js with this in place of its strategy (tournaments.bench.corpus).
const LEAD = 2.0;

function choose(observation, legal, game) {
  const counts = [0, 0, 0, 0, 0];
  for (const cards of observation.played) {
    for (const card of cards) counts[card.colour] += 1;
  }
  const limit = observation.players + 3;
  let best = 0;
  let bestValue = -Infinity;
  legal.forEach((play, index) => {
    const table = counts.slice();
    let value = 0;
    for (const card of play.cards) {
      table[card.colour] += 1;
      value += table[card.colour] >= limit ? -card.value : LEAD * table[card.colour] + card.value;
    }
    if (value > bestValue) {
      best = index;
      bestValue = value;
    }
  });
  return best;
}

