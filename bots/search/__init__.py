"""Information-set Monte Carlo tree search for every game of the framework (the `mcts` bot).

Each engine's `Game.from_observation` turns what a seat observes into a state to simulate,
each game's module here (`azul`, `g5211`, ...) holds its search settings and knowledge as a
`policies.SearchProfile` (`PROFILE`), and `ismcts` is the one search.
"""
