"""A test bot that answers with a legal action object whose list fields are reversed: the same
choice in another spelling (Alhambra's take cards in another order than `legal`'s, say). It
prefers actions that have such lists, so that they are played whenever there are some."""

from __future__ import annotations

import json
import random
import sys


def respelled(action: dict) -> dict:
    return {
        key: list(reversed(value)) if isinstance(value, list) else value
        for key, value in action.items()
    }


def _long_list(value: object) -> bool:
    return isinstance(value, list) and len(value) > 1


def main() -> None:
    rng = random.Random(7)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            print(json.dumps({"type": "ready", "name": "respell"}), flush=True)
        elif message["type"] == "act":
            legal = message["legal"]
            listed = [
                a for a in legal if any(isinstance(v, list) and len(v) > 1 for v in a.values())
            ]
            action = respelled(rng.choice(listed or legal))
            print(json.dumps({"type": "action", "id": message["id"], "action": action}), flush=True)
        elif message["type"] == "quit":
            return


if __name__ == "__main__":
    main()
