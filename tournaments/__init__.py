"""Tournaments: schedules, the concurrent runner, the SQLite store, ratings, tables and the CLI."""
