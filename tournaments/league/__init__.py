"""The league: a tournament that never ends, fed by authors' uploads."""
