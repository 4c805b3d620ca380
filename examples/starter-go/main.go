// A starter bot in Go: plays a seeded random legal action in every game the referee offers
// (Azul, Summer Pavilion, Alhambra, 5211). The standard library only.
//
// The protocol (docs/protocol.md): one JSON object per line on stdin, one per line on stdout.
//
//	referee: start -> bot: ready    (once per game; the process plays several games in a row)
//	referee: act   -> bot: action   (one per decision; answer with the same id)
//	referee: end                    (the game is over: no answer)
//	referee: quit                   (exit)
//
// stdout is for protocol lines only: log to stderr (the referee keeps it in a per-seat log).
//
// Build: go build -o bot main.go      Run: arena match --game azul ./bot random
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
)

const name = "starter-go"

// Start is the `start` message: the game, this bot's seat, the time control and its own seed.
type Start struct {
	Game    string          `json:"game"`
	Options json.RawMessage `json:"options"`
	Seat    int             `json:"seat"`
	Players int             `json:"players"`
	Seed    uint64          `json:"seed"`
}

// Act is an `act` message: the observation (its format is per game, docs/games/) and every
// legal action, kept as raw JSON so that the chosen one is sent back exactly as it came.
type Act struct {
	ID          int64             `json:"id"`
	Observation json.RawMessage   `json:"observation"`
	Legal       []json.RawMessage `json:"legal"`
	Clock       struct {
		MoveMs int `json:"move_ms"`
		BankMs int `json:"bank_ms"`
	} `json:"clock"`
}

// ---- your strategy goes here ------------------------------------------------------------------
// Return the index of the action to play. Decode `act.Observation` and the entries of
// `act.Legal` into structs of your own, following docs/games/<game>.md.
func choose(start Start, act Act, rng *rand.Rand) int {
	return rng.Intn(len(act.Legal))
}

// ------------------------------------------------------------------------------------------------

func send(out *bufio.Writer, message any) {
	line, err := json.Marshal(message)
	if err != nil {
		panic(err)
	}
	out.Write(append(line, '\n'))
	out.Flush()
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	var start Start
	var rng *rand.Rand
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return // stdin closed: the referee is done with us
		}
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			fmt.Fprintf(os.Stderr, "%s: cannot read %q: %v\n", name, line, err)
			return
		}
		switch head.Type {
		case "start":
			start = Start{}
			json.Unmarshal(line, &start)
			rng = rand.New(rand.NewSource(int64(start.Seed)))
			fmt.Fprintf(os.Stderr, "%s: game %s, seat %d of %d\n", name, start.Game, start.Seat, start.Players)
			send(out, map[string]any{"type": "ready", "name": name})
		case "act":
			var act Act
			json.Unmarshal(line, &act)
			chosen := act.Legal[choose(start, act, rng)]
			// The action object itself (sending {"index": k} instead works too).
			send(out, map[string]any{"type": "action", "id": act.ID, "action": chosen})
		case "quit":
			return
		}
	}
}
