"""What is kept: a tournament's SQLite store of games, the plain data of a finished game, the
bots removed from its tables, and the bots' stderr logs."""
