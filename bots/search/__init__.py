"""Information-set Monte Carlo tree search for every game of the framework (the `mcts` bot).

`worlds` turns what a seat observes into a state the engine can simulate, `policies` holds the
optional per-game rollout heuristics and leaf evaluations, and `ismcts` is the one search.
"""
