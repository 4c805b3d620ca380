"""Standings that copies cannot bend: one bot per author in the headline standings and the
final's entrants (the organiser's `one_per_author` option), and the clusters of copies across
authors that the organisers' copy page shows.

An author who uploads many bots fills places that independent bots would hold; counted once
(by its best-placed bot), each author holds one place, and every other bot keeps the place it
would have without the extra bots. Copies across authors are joined into clusters by every
pair the copy check (`league.clones`) calls a copy — for the organisers only: merging them in
the public standings would show every author which bots were flagged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence


def groups(authors: dict[str, str], copies: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each bot's group: its author's, joined with the group of every bot it is a copy of
    (a house bot, author "", is a group of its own)."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.get(key, key) != key:
            key = parent[key]
        return key

    def join(a: str, b: str) -> None:
        first, second = sorted((find(a), find(b)))
        if first != second:
            parent[second] = first

    key = {bot: f"author:{author}" if author else f"bot:{bot}" for bot, author in authors.items()}
    for a, b in copies:
        if a in key and b in key:
            join(key[a], key[b])
    return {bot: find(own) for bot, own in key.items()}


def best_of_each(order: Sequence[str], group: dict[str, str]) -> tuple[list[str], list[str]]:
    """The bots of `order` (best first) that head their group, in order, and the others."""
    seen: set[str] = set()
    counted: list[str] = []
    apart: list[str] = []
    for bot in order:
        own = group.get(bot, f"bot:{bot}")
        (apart if own in seen else counted).append(bot)
        seen.add(own)
    return counted, apart


def finalists(playing: Mapping[str, str], order: Sequence[str]) -> list[str]:
    """One bot per author of the `playing` bots (bot: author): each author's best placed in
    `order` (the leaderboard, best first; bots it does not place come after it, by name)."""
    placed = [bot for bot in order if bot in playing]
    ranked = placed + sorted(set(playing) - set(placed))
    counted, _ = best_of_each(ranked, groups(dict(playing), ()))
    return counted


def clusters(copies: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The bots joined by copy pairs, each cluster sorted, largest first."""
    pairs = list(copies)
    group = groups({bot: "" for pair in pairs for bot in pair}, pairs)
    found: dict[str, list[str]] = {}
    for bot in sorted(group):
        found.setdefault(group[bot], []).append(bot)
    return sorted(found.values(), key=lambda members: (-len(members), members))
