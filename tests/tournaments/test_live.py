"""The live view draws progress and the top of the ladder (on a terminal only)."""

from __future__ import annotations

import io

from rich.console import Console
from tourhelp import series

from tournaments.play.live import LiveView
from tournaments.rank.ratings import elo_from_score


def test_live_view_shows_progress_and_ladder() -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    stored = series("strong", "weak", 3, 1)
    with LiveView("cup", stored, console) as view:
        view.on_start(10, len(stored))
        for game in series("strong", "weak", 5, 1):
            view.on_game(game)
    text = screen.getvalue()
    assert "cup" in text and "10/10" in text
    ladder = text[text.rindex("10/10") :]
    assert ladder.index("strong") < ladder.index("weak")
    # 8 wins of 10, plus one virtual draw: 8.5 of 11, half the difference each side of 1500.
    assert f"strong  {1500 + elo_from_score(8.5 / 11) / 2:.0f}" in ladder
