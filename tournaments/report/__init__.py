"""See what happened: game records step by step, game exports and the static HTML report.

`steps` re-plays a record through its engine (the one source of every drawn state and of the
observations an export adds); `viewer` packs a game's steps for the browser; `page` writes the
self-contained report (no network, no server: it opens from file://).
"""
