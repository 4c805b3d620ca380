"""`arena bench`: the framework's speed measured on the machine it runs on.

Kept light on purpose: `python -m tournaments.bench.children` (the benchmark's own child
processes) imports this package, and a child should start fast. The sections live in their
modules (`engine`, `pipes`, `matches`, `scale`, `search`, `memory`, `league_server`, ...);
`report` runs them and renders the table.
"""
