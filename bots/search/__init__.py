"""Information-set Monte Carlo tree search for every game of the framework (the `mcts` bot).

Each engine's `Game.from_observation` turns what a seat observes into a state to simulate,
`policies` holds the optional per-game rollout heuristics and leaf evaluations, and `ismcts` is
the one search.
"""
