"""A bot's rating over time, for its page: openskill's Plackett–Luce mu after each of its games
in the order they were stored (`board` computes it, thinned), drawn as a small SVG line (the
pages run no script)."""

from __future__ import annotations

from collections.abc import Sequence

WIDTH, HEIGHT, PAD = 640, 160, 30


def svg_line(points: Sequence[float], games: int) -> str:
    """`points` (a rating over `games` games) as an SVG polyline with the lowest, highest and
    last values labelled; empty for fewer than two points. Every character is ours: no bot text
    goes in."""
    if len(points) < 2:
        return ""
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
        f"{games} games, now {points[-1]:.1f} (openskill mu)</text></svg>"
    )
