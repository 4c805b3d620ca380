"""`arena league`: a league's authors and bots from the command line — make (or re-issue) an
author's token, disable or enable a bot or an author, freeze the season for its final. It
works on the league's files whether or not its server runs (a league whose server will not
start can be mended here), but for `freeze`, which needs the server stopped."""

from __future__ import annotations

import argparse
import csv
import functools
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from protocol.errors import RequestError
from tournaments.commands.common import EXIT_ERROR, EXIT_OK, EXIT_USAGE
from tournaments.output import add_output_options, render_csv, render_json, render_table

if TYPE_CHECKING:  # the league's modules load when a sub-command runs: `arena` starts quickly
    from tournaments.league.files import League

EPILOG = f"""\
exit codes:
  {EXIT_OK}    done
  {EXIT_ERROR}    the league's files cannot be used (the message says which and why)
  {EXIT_USAGE}    a mistake in the command line or the league file, no such bot or author, or
       (freeze) a server runs the league: freeze it from its /league page instead"""

SERVED = (
    "a running server keeps its season in memory and would not see the freeze: freeze it "
    "from the server's /league page (or POST /api/league/freeze), or stop the server first"
)
"""Why `arena league freeze` refuses while a server holds the league."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "league",
        help="a league's authors and bots: tokens, disable and enable",
        description="Manage a league's authors and bots (its server may be running: a change "
        "takes effect at its next ladder round and page).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    token = actions.add_parser(
        "token",
        help="make authors' upload tokens (shown once; only their hashes are kept)",
        description="With one NAME: print a new upload token for that author; an earlier token "
        "of NAME stops working, and so do the browser sessions it signed in. With several "
        "names, or --roster: a class in one go, each new author's token written to --out (a "
        "new CSV file of name,token that only you may read); authors who already have a token "
        "keep it and are listed, unless --reissue. Only a token's hash is stored: keep what is "
        "printed or written, it cannot be shown again.",
    )
    token.add_argument("file", type=Path, metavar="LEAGUE", help="the league file (TOML)")
    token.add_argument("names", nargs="*", metavar="NAME", help="the authors")
    token.add_argument(
        "--roster", type=Path, metavar="FILE", help="a file of authors' names, one a line"
    )
    token.add_argument(
        "--out", type=Path, metavar="CSV", help="where a roster's tokens go (a new file)"
    )
    token.add_argument(
        "--reissue", action="store_true", help="replace the tokens of a roster's known authors"
    )
    token.add_argument(
        "--organiser", action="store_true", help="the tokens may also disable bots and authors"
    )
    for action, what in (("disable", "out of"), ("enable", "back into")):
        for kind, effect in (
            ("bot", f"puts an uploaded bot {what} the ladder"),
            ("author", f"lets an author's token {'no longer ' if action == 'disable' else ''}"
             "sign in or upload"),
        ):  # fmt: skip
            command = actions.add_parser(
                f"{action}-{kind}",
                help=f"{action} {'an' if kind == 'author' else 'a'} {kind}: {effect}",
                description=effect,
            )
            _league_and_name(command, f"the {kind}")
    freeze = actions.add_parser(
        "freeze",
        help="freeze the season for its final (with the server stopped)",
        description="Freeze the league's season: its ladder stops, and the next `arena serve` "
        "plays its final — the bots playing now, on fresh deals, every seat-set in every "
        "rotation, until every two neighbours in its standings are told apart or BUDGET games "
        "are played — then publishes its standings and opens the next season. A running "
        "server is frozen from its /league page or POST /api/league/freeze instead.",
    )
    freeze.add_argument("file", type=Path, metavar="LEAGUE", help="the league file (TOML)")
    freeze.add_argument(
        "--budget", type=int, required=True, metavar="GAMES", help="the final's most games"
    )
    clones = actions.add_parser(
        "clones",
        help="the playing bots of different authors compared by how they play (organisers')",
        description="Compare the fingerprints of the bots playing now (kept when the league "
        "file sets `fingerprints = true` in [league]): every pair of bots by different "
        "authors, the most suspicious first, with its likeness, the league's baseline and a "
        "verdict in plain words (docs/server.md, 'Copied bots').",
    )
    clones.add_argument("file", type=Path, metavar="LEAGUE", help="the league file (TOML)")
    clones.add_argument("--all", action="store_true", help="every pair, not only flagged ones")
    add_output_options(clones)
    parser.set_defaults(handler=handle)


def _league_and_name(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("file", type=Path, metavar="LEAGUE", help="the league file (TOML)")
    parser.add_argument("name", metavar="NAME", help=name)


def handle(args: argparse.Namespace) -> int:
    if args.action == "freeze":
        return freeze(args.file, args.budget)
    if args.action == "token":
        return tokens(args)
    if args.action == "clones":
        return clones(args)
    from tournaments.league.operations import Operations

    with _league(args.file) as league:
        operations = Operations(league)
        action, kind = args.action.split("-")
        disabled = action == "disable"
        if kind == "bot":
            operations.set_bot_disabled(args.name, disabled)
        else:
            operations.set_author_disabled(args.name, disabled)
    print(f"arena league: {kind} {args.name} {action}d", file=sys.stderr)
    return EXIT_OK


def tokens(args: argparse.Namespace) -> int:
    """One author's token printed, or a roster's written to a private CSV file."""
    names = list(args.names)
    if args.roster is not None:
        names += _roster(args.roster)
    if not names:
        raise RequestError("name the authors: NAME ..., or --roster FILE with one name a line")
    if args.roster is None and args.out is None and len(names) == 1:
        return _one_token(args.file, names[0], args.organiser)
    if args.out is None:
        raise RequestError("several authors' tokens go to a file, not the terminal: add --out")
    with _private_csv(args.out) as out, _league(args.file) as league:
        made, known = league.registry.new_tokens(names, args.organiser, args.reissue)
        disabled = [name for name in made if _disabled(league, name)]
        out.writerows([("name", "token"), *made.items()])
    say = functools.partial(print, file=sys.stderr)
    say(f"arena league: {len(made)} tokens written to {args.out} (only you may read it): keep it")
    if known:
        kept = "re-issued (their old tokens stop)" if args.reissue else "kept (--reissue replaces)"
        say(f"arena league: {len(known)} already had a token, {kept}: {', '.join(known)}")
    if disabled:
        say(f"arena league: disabled, their tokens work once enabled: {', '.join(disabled)}")
    return EXIT_OK


def _one_token(file: Path, name: str, organiser: bool) -> int:
    with _league(file) as league:
        token = league.registry.new_token(name, organiser=organiser)
        disabled = _disabled(league, name)
    print(token)
    print(f"arena league: the upload token of {name}; it is not stored: keep it", file=sys.stderr)
    if disabled:
        print(
            f"arena league: {name} is disabled: this token works once they are "
            f"enabled (arena league enable-author {file} {name})",
            file=sys.stderr,
        )
    return EXIT_OK


def _league(file: Path) -> League:
    """The league's files, opened."""
    from tournaments.league.files import League

    return League(file)


def _disabled(league: League, name: str) -> bool:
    author = league.registry.author(name)
    return author is not None and author.disabled


def _roster(path: Path) -> list[str]:
    """The names in a roster file: one a line, blank lines and `#` comments skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RequestError(f"cannot read the roster {path}: {exc}") from exc
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


@contextmanager
def _private_csv(path: Path) -> Iterator[Any]:
    """A CSV writer on a new file only its owner may read (mode 0600 from its creation), made
    before any token is: an existing file is never overwritten (an earlier roster's tokens
    cannot be shown again), and the file is removed if the tokens are not made."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise RequestError(
            f"{path} exists: it may hold tokens that cannot be shown again; give another --out"
        ) from None
    except OSError as exc:
        raise RequestError(f"cannot create {path}: {exc.strerror}") from exc
    try:
        with os.fdopen(descriptor, "w", newline="", encoding="utf-8") as out:
            yield csv.writer(out)
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def clones(args: argparse.Namespace) -> int:
    """Print the compared pairs (flagged ones, or all with --all) as a table, CSV or JSON."""
    with _league(args.file) as league:
        from tournaments.league.copies import CSV_HEADERS, league_pairs, rows

        pairs = league_pairs(league)
    shown = pairs if args.all else [pair for pair in pairs if pair.flagged]
    if args.json:
        print(render_json(shown))
    elif args.csv:
        print(render_csv(CSV_HEADERS, rows(shown)), end="")
    else:
        print(render_table(CSV_HEADERS, rows(shown), args.fmt))
    return EXIT_OK


def freeze(file: Path, budget: int) -> int:
    """Freeze the season, holding the league's lock: a running server keeps its season in
    memory, so it must be frozen through its own pages or API."""
    from tournaments.league.files import League, ServeLock
    from tournaments.league.operations import Operations

    with League(file) as league, ServeLock(league, SERVED):
        season = Operations(league).freeze(budget)
    print(
        f"arena league: season {season.number} frozen for its final of at most {budget} games; "
        f"`arena serve {file}` plays it",
        file=sys.stderr,
    )
    return EXIT_OK
