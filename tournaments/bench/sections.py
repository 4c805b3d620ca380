"""The benchmark's sections by name, in the order they run: apart from the sections' code, so
that `arena` lists them without loading it."""

SECTIONS = (
    "engine",
    "primitives",
    "startup",
    "floor",
    "overhead",
    "referee",
    "match",
    "tournament",
    "scale",
    "peer",
    "memory",
    "search",
    "league",
    "league-memory",
    "standings",
    "league-scale",
    "final-sim",
    "clones",
)
