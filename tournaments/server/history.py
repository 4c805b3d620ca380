"""A bot's rating over time, for its page: openskill's Plackett–Luce mu after each of its games
in the order they were stored, drawn as a small SVG line (the pages run no script)."""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.ratings import plackett_luce_steps
from tournaments.results import FinishedGame

WIDTH, HEIGHT, PAD = 640, 160, 30
MAX_POINTS = 200


def rating_history(games: Sequence[FinishedGame], bot: str) -> list[float]:
    """Mu of every label of `bot` (its versions) after each game it sat in, `games` in the
    order they were stored."""
    return [
        mu
        for _, after in plackett_luce_steps(games)
        for label, (mu, _sigma) in after.items()
        if label.split("@")[0] == bot
    ]


def svg_line(values: Sequence[float]) -> str:
    """`values` as an SVG polyline with its first, last, lowest and highest values labelled;
    empty for fewer than two values. Every character is ours: no bot text goes in."""
    if len(values) < 2:
        return ""
    step = max(1, len(values) // MAX_POINTS)
    points = list(values[::step]) + ([values[-1]] if (len(values) - 1) % step else [])
    low, high = min(points), max(points)
    span = (high - low) or 1.0
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD
    xy = [
        (PAD + inner_w * k / (len(points) - 1), PAD + inner_h * (1 - (v - low) / span))
        for k, v in enumerate(points)
    ]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
    return (
        f'<svg class="history" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="rating over time">'
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#fbfbfb" stroke="#ddd"/>'
        f'<polyline fill="none" stroke="#1f3b73" stroke-width="2" points="{line}"/>'
        f'<text x="4" y="{PAD - 8}" font-size="11">{high:.1f}</text>'
        f'<text x="4" y="{HEIGHT - 8}" font-size="11">{low:.1f}</text>'
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - 8}" font-size="11" text-anchor="end">'
        f"{len(values)} games, now {values[-1]:.1f} (openskill mu)</text></svg>"
    )
