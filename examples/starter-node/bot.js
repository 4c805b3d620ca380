#!/usr/bin/env node
// A starter bot in JavaScript: plays a seeded random legal action in every game the referee
// offers (Azul, 5211, ...). Node.js only, no npm packages.
//
// The protocol (docs/protocol.md): one JSON object per line on stdin, one per line on stdout.
//   referee: start -> bot: ready      (once per game; the process plays several games in a row)
//   referee: act   -> bot: action     (one per decision; answer with the same id)
//   referee: end                      (the game is over: no answer)
//   referee: quit                     (exit)
// stdout is for protocol lines only: log to stderr (the referee keeps it in a per-seat log).
"use strict";

const readline = require("readline");

const NAME = "starter-node";

// ---- your strategy goes here ------------------------------------------------------------------
// `observation` is what your seat may know now and `legal` every legal action (both are plain
// objects; their format per game is in docs/games/). Return an index into `legal`.
// `game` holds the `start` message (game, seat, players, options, time) and a seeded `random()`.
function choose(observation, legal, game) {
  return Math.floor(game.random() * legal.length);
}
// ------------------------------------------------------------------------------------------------

// A small seeded generator (mulberry32), so that a game replays the same with the same seed.
// (`seed` may exceed 2^53 and arrive rounded: still the same number for the same seed.)
function seededRandom(seed) {
  let state = Number(BigInt.asUintN(32, BigInt(seed ?? 0))) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function log(text) {
  process.stderr.write(`${NAME}: ${text}\n`);
}

let game = null;
const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });

input.on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case "start":
      game = { ...message, random: seededRandom(message.seed) };
      log(`game ${message.game}, seat ${message.seat} of ${message.players}`);
      send({ type: "ready", name: NAME });
      break;
    case "act": {
      const index = choose(message.observation, message.legal, game);
      send({ type: "action", id: message.id, index });
      break;
    }
    case "end":
      log(`end: scores ${message.scores}, ranks ${message.ranks} (${message.reason})`);
      break;
    case "quit":
      process.exit(0);
      break;
    default:
      log(`ignored a message of type ${message.type}`); // later protocol versions may add some
  }
});
input.on("close", () => process.exit(0));
