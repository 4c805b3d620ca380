"""One-decision heuristics per game, used by the greedy bot (bots/greedy.py)."""
