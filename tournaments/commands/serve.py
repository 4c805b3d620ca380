"""`arena serve LEAGUE.toml`: run a league — its pages, upload API, checks and ladder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tournaments.commands.common import EXIT_CODES, EXIT_OK, run_trio
from tournaments.errors import UsageError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run a league: the web server authors upload to, the checks and the ladder",
        description="Serve the league of LEAGUE (a tournament file with a [league] table) until "
        "Ctrl-C or SIGTERM; started again, it goes on where it stopped. Make tokens with "
        "`arena league token LEAGUE NAME` (see docs/server.md).",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", type=Path, metavar="LEAGUE", help="the league file (TOML)")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="port (default: %(default)s; 0: any free one)"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    try:
        from tournaments.server.serve import serve  # the optional extra: starlette, hypercorn
    except ModuleNotFoundError as exc:
        raise UsageError(
            f"the league server needs the optional packages of tile-arena[server] ({exc.name} "
            "is missing): pip install '.[server]' in the project's folder"
        ) from None

    def ready(addresses: list[str]) -> None:
        for address in addresses:
            print(f"arena serve: serving {args.file} on {address}", file=sys.stderr, flush=True)

    run_trio(serve, args.file, args.host, args.port, ready)
    return EXIT_OK
