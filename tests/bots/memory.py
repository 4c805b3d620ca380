"""A hostile bot that remembers the deals it has seen, to prove it never sees one twice.

Azul: at its first decision of a game it notes the factory displays. The same deal played in
another rotation shows the same displays (less the one factory seat 0 may have taken from), so a
process that met the deal before recognises it — and could then play knowing every draw of the
rounds to come. When it recognises a deal it says so by answering an index out of range, which
the referee records as a `bad_index` fault: a test sees the leak as a fault.

Every game it also writes a random token of its process and the `start` message to stderr (for
tests of which process played which game, and of what bots are told).
"""

from __future__ import annotations

import json
import secrets
import sys

seen: list[set[tuple[int, ...]]] = []
first_act = False
process = secrets.token_hex(8)  # not the pid: in the sandbox's pid namespace pids repeat

for raw in sys.stdin:
    message = json.loads(raw)
    kind = message["type"]
    if kind == "start":
        print(f"process={process}\nstart={json.dumps(message)}", file=sys.stderr, flush=True)
        first_act = True
        print(json.dumps({"type": "ready", "name": "memory"}), flush=True)
    elif kind == "act":
        index = 0
        if first_act and message["observation"].get("factories") is not None:
            first_act = False
            shown = {tuple(f) for f in message["observation"]["factories"] if any(f)}
            if any(len(shown & earlier) >= 4 for earlier in seen):
                index = 10**6  # "I have seen this deal before"
            seen.append(shown)
        reply = {"type": "action", "id": message["id"], "index": index}
        print(json.dumps(reply), flush=True)
    elif kind == "quit":
        break
