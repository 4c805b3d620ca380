"""The authority: rules engines (`referee.games`), bot processes, clocks and the match loop.

The public surface is re-exported here; the modules behind it each do one job:
`process` (bot processes and their groups), `lines` (a bounded line reader), `stderr` (capped
stderr logs), `clock` (time control arithmetic), `answers` (validating what bots send),
`faults` (fault kinds and forfeit ranking), `limits` (per-bot resource limits), `cgroups` (a
bot's cgroups: processes, total memory, CPU accounting), `spawn` (forking bots so that none
outlives the referee), `sandbox` (bubblewrap), `channel` (what the match loop needs of a bot:
a process, or a scripted fake of `referee.testing`), `match` (the match loop), `record` (game
records and replay) and `build` (an uploaded bot's build step, limited and sandboxed as a bot).

Names load lazily (SPEC 1's `lazy_loader`): `import referee.games` — what a Python bot does —
must not load trio, the bot processes or the match loop. The names are listed once, in
`__init__.pyi`, which the type checker reads too; to re-export a name, add it there.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
