"""Cycles in a "beats" relation: bots that beat one another in a circle (a > b > c > a).

No ranking orders such bots rightly: whichever comes first, one of them is ranked above a bot
that beats it. The tables give this relation only the pairs whose results are significant, so
that a cycle found is the bots' doing, not the luck of the deals (`tables.cycles`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence


def _reach(beats: Mapping[str, Collection[str]], bot: str) -> set[str]:
    """The bots reachable from `bot` through `beats`, itself included."""
    seen, todo = {bot}, [bot]
    while todo:
        for other in beats.get(todo.pop(), ()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


def _shortest_cycle(
    beats: Mapping[str, Collection[str]], start: str, within: Collection[str]
) -> list[str] | None:
    """A shortest cycle through `start` among the bots `within` (breadth-first)."""
    parent: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for bot in frontier:
            for other in beats.get(bot, ()):
                if other == start:
                    path = [bot]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return path[::-1]
                if other in within and other not in parent:
                    parent[other] = bot
                    following.append(other)
        frontier = following
    return None


def find_cycles(beats: Mapping[str, Collection[str]], order: Sequence[str]) -> list[list[str]]:
    """One shortest cycle in each group of bots that all reach one another through `beats`
    (a strongly connected component): its bots, each beating the next and the last the first,
    from the cycle's bot earliest in `order` (which lists every bot); groups in the order of
    their bot earliest in `order`.

    A group is reported once, by a shortest cycle in it, so the list stays short however
    tangled the results: each entry says "these bots cannot be ranked", with its proof.
    """
    reach = {bot: _reach(beats, bot) for bot in order}
    placed: set[str] = set()
    found = []
    for bot in order:
        if bot in placed:
            continue
        group = {other for other in reach[bot] if bot in reach.get(other, ())}
        placed |= group
        if len(group) > 1:
            candidates = (_shortest_cycle(beats, other, group) for other in order if other in group)
            found.append(min((cycle for cycle in candidates if cycle), key=len))
    return found
