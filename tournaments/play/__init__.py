"""Playing: the runner (the coordinator of a tournament's games), its listeners and live view,
the check of newcomers, one match outside a tournament, and `arena compare`'s sequential test."""
