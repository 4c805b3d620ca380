"""An organiser's changes to a league — disable or enable a bot or an author, freeze the season
for its final — and their refusals, decided once for every front: the web pages and the API
(through `service.LeagueService`, which lets only an organiser ask and tells the running
league) and `arena league` (on the league's files, whether or not its server runs; a freeze
alone needs it stopped, since a running server keeps its season in memory).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from protocol.errors import RequestError
from tournaments.league.board import compute
from tournaments.league.files import League
from tournaments.league.headline import finalists
from tournaments.league.registry import Author, Bot, Season
from tournaments.store.store import Store


class Operations:
    """The organisers' changes to the league of `league`, made in its registry."""

    def __init__(self, league: League) -> None:
        self.league = league

    def set_bot_disabled(self, bot: str, disabled: bool) -> Bot:
        """Disable an uploaded bot (out of the ladder) or enable it again; the bot now."""
        return self.league.registry.set_bot_disabled(bot, disabled)

    def set_author_disabled(self, name: str, disabled: bool, actor: Author | None = None) -> Author:
        """Disable an author or enable them again; the author now. `actor`: the organiser who
        asks, who may not disable themselves (None: whoever holds the league's files)."""
        if actor is not None and actor.name == name and disabled:
            raise RequestError("an organiser cannot disable themselves")
        return self.league.registry.set_author_disabled(name, disabled)

    def freeze(self, budget: int, order: Sequence[str] | None = None) -> Season:
        """Freeze the season for its final of at most `budget` games: uploads are kept and
        checked but play no more; the final plays the bots playing now (with `one_per_author`,
        each author's best placed in `order`, the leaderboard's bots best first: by default
        the standings of the season's store). The season then."""
        if budget < 1:
            raise RequestError(f"a final's budget is a number of games, at least 1, not {budget}")
        league = self.league
        playing = league.registry.playing()
        bots = None
        if league.settings.one_per_author:  # each author's best placed bot (`headline`)
            if order is None:
                order = [str(row["bot"]) for row in compute(league.store_path).standings]
            bots = finalists({version.bot: str(version.author) for version in playing}, order)
        entrants = len(playing) if bots is None else len(bots)
        field = entrants + len(league.tournament.participants)
        if field < league.tournament.players:
            raise RequestError(
                f"a final needs {league.tournament.players} bots for a game; {field} play now"
            )
        make_store(league.final_store(league.season.number))
        league.season_now(league.registry.freeze(budget, bots))
        return league.season


def make_store(store: Path) -> None:
    """Make a store before any task or page opens it: a reader that opened it while a writer
    was making it would find an empty file, or one without its tables, which is no store. (One
    there already is left as it is: whoever opens it says what is wrong with it.)"""
    if not store.exists():
        Store(store).close()
