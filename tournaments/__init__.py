"""The arena: the `arena` CLI and its commands, the league and its server, the benchmarks, and
the library beneath them, one folder a layer (play, report, executors, plan, rank, store)."""
