"""`arena fetch URL BOT`: list a bot's games on a league server, filtered, and download their
records — the game's record for anyone, and with the author's token their own seats' records
with what each was sent (`arena replay` checks them; a bot can be run on them again at home)."""

from __future__ import annotations

import argparse
import urllib.parse
from pathlib import Path

import msgspec
from tabulate import tabulate

from protocol.errors import ArenaError
from referee import MAX_RECORD_BYTES
from tournaments.commands.client import (
    TOKEN_VARIABLE,
    base_url,
    optional_token,
    request_json,
    send,
)
from tournaments.commands.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE
from tournaments.errors import UsageError
from tournaments.league.api_answers import GameRow, GamesAnswer
from tournaments.output import render_json

EPILOG = f"""\
environment:
  {TOKEN_VARIABLE}  your author token (optional): with it, your own seats' records with what
               they were sent are listed and downloaded too

exit codes:
  {EXIT_OK}    listed (and downloaded)
  {EXIT_ERROR}    the server failed (5xx), answered what a league server does not, or cannot be
       reached
  {EXIT_USAGE}    a mistake in the command line, the server refused (an unknown bot or
       version, a wrong filter: its reason is printed), or a record's file exists already
       (without --force)"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "fetch",
        help="list a league bot's games and download their records",
        description="List the games of BOT on the league server at URL, newest first, "
        "filtered by season, opponent, version, fault and result; with --out, download each game's "
        "record to DIR/season-S-game-ID.jsonl and, for your own bots' seats (with your token), "
        "the record with what that seat was sent before each decision to "
        "DIR/season-S-game-ID-seatN.jsonl, which `arena replay` checks (game ids start again "
        "each season: S names it). A file there already is left alone unless --force.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("url", metavar="URL", help="the league server's address")
    parser.add_argument("bot", metavar="BOT", help="the bot's name in the league")
    parser.add_argument(
        "--season", type=int, metavar="N", help="the games of season N (default: this season's)"
    )
    parser.add_argument("--opponent", metavar="NAME", help="only games against this bot")
    parser.add_argument("--version", type=int, metavar="N", help="only games of its version N")
    parser.add_argument("--faulted", action="store_true", help="only games where BOT faulted")
    parser.add_argument(
        "--result", choices=("win", "draw", "loss"), help="only games BOT won, drew or lost"
    )
    parser.add_argument(
        "--count", type=int, default=50, metavar="N", help="at most N games (default: 50)"
    )
    parser.add_argument(
        "--before", type=int, metavar="ID", help="only games older than game ID (the next page)"
    )
    parser.add_argument("--out", type=Path, metavar="DIR", help="download the games' records")
    parser.add_argument(
        "--force", action="store_true", help="with --out: write over records already there"
    )
    parser.add_argument(
        "--token", help=f"your author token (default: the environment variable {TOKEN_VARIABLE})"
    )
    parser.add_argument("--json", action="store_true", help="print the server's list as JSON")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    base = base_url(args.url)
    token = optional_token(args.token)
    if not 1 <= args.count <= 500:
        raise UsageError("--count: give a number from 1 to 500")
    answer = listed(base, token, args)
    if args.json:
        print(render_json(msgspec.to_builtins(answer)))
    else:
        print(table(answer) if answer.games else f"{answer.bot}: no games match")
        if answer.more is not None:
            print(f"older games: add --before {answer.more}")
    if args.out is not None:
        written = download(base, token, answer.games, args.out, args.force)
        print(f"wrote {len(written)} records to {args.out}; check one with `arena replay FILE`")
    return EXIT_OK


def listed(base: str, token: str | None, args: argparse.Namespace) -> GamesAnswer:
    query = {
        "opponent": args.opponent,
        "version": args.version,
        "faulted": "true" if args.faulted else None,
        "result": args.result,
        "before": args.before,
        "count": args.count,
        "season": args.season,
    }
    given = urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
    path = f"/api/bots/{urllib.parse.quote(args.bot, safe='')}/games?{given}"
    text = request_json(base, "GET", path, token)
    try:
        return msgspec.json.decode(text, type=GamesAnswer)
    except msgspec.DecodeError:
        raise ArenaError(
            f"the server's answer is not a list of games (is {base} a league server?)"
        ) from None


def table(answer: GamesAnswer) -> str:
    rows = [
        [
            game.id,
            game.result,
            ", ".join(game.seats),
            " ".join(map(str, game.scores)),
            ", ".join(f"seat {f.seat} {f.kind}" for f in game.faults),
            ", ".join(f"seat {seat}" for seat in game.observations),
        ]
        for game in answer.games
    ]
    headers = ["game", f"{answer.bot}'s result", "seats", "scores", "faults", "your seats"]
    return tabulate(rows, headers)


def download(
    base: str, token: str | None, games: list[GameRow], out: Path, force: bool = False
) -> list[Path]:
    """Each game's record, and each of its seats' records the server lists for the token's
    author, written to `out` under its season's name; the files written. A file there already
    is a `UsageError` before anything is written, unless `force`."""
    wanted = {path: address for game in games for path, address in _files(game, out).items()}
    for address in wanted.values():
        if not address.startswith(("/games/", "/seasons/", "/scrimmage-games/")):
            raise ArenaError(f"the server lists a record at {address!r}, not one of its games")
    there = [path for path in wanted if path.exists()]
    if there and not force:
        more = f" and {len(there) - 1} more" if len(there) > 1 else ""
        raise UsageError(
            f"{there[0]}{more} exist already: nothing written (add --force to write over them, "
            "or choose another --out)"
        )
    out.mkdir(parents=True, exist_ok=True)
    for path, address in wanted.items():
        path.write_bytes(send(base, "GET", address, token, limit=MAX_RECORD_BYTES)[1])
    return list(wanted)


def _files(game: GameRow, out: Path) -> dict[Path, str]:
    """Where a game's records go in `out` (named by its season: ids start again each season;
    a server that names none: `game-ID`), and their addresses."""
    stem = f"game-{game.id}" if game.season is None else f"season-{game.season}-game-{game.id}"
    files = {out / f"{stem}.jsonl": game.record}
    for seat, address in game.observations.items():
        files[out / f"{stem}-seat{int(seat)}.jsonl"] = address
    return files
