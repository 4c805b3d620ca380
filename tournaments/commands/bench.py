"""`arena bench`: measure engine, protocol, referee, match and tournament speed on this machine."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tournaments.bench.report import HEADERS, SECTIONS, markdown, print_progress, run
from tournaments.output import add_output_options, render_csv, render_json, render_table


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="measure the framework's speed on this machine",
        description=(
            "Measure engine playouts, the pipe round trip, the referee's overhead per decision, "
            "match and tournament throughput, a peer engine and schedule memory; print each "
            "figure with its target. Sections: " + ", ".join(SECTIONS) + "."
        ),
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="tiny repetitions: checks that it runs, measures little",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=SECTIONS,
        default=[],
        metavar="SECTION",
        help="run this section (repeatable); the sections it is judged against run too",
    )
    parser.add_argument(
        "--write", type=Path, metavar="FILE", help="also write the results as Markdown to FILE"
    )
    parser.add_argument("--markdown", action="store_true", help="print Markdown, not a table")
    add_output_options(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    figures = run(args.only, quick=args.quick, progress=print_progress)
    argv = sys.argv[2:] if sys.argv[1:2] == ["bench"] else []
    if args.write is not None:
        existing = args.write.read_text() if args.write.exists() else ""
        args.write.write_text(markdown(figures, argv, existing))
    rows = [figure.row() for figure in figures]
    if args.markdown:
        print(markdown(figures, argv), end="")
    elif args.json:
        print(render_json(figures))
    elif args.csv:
        print(render_csv(HEADERS, rows), end="")
    else:
        print(render_table(HEADERS, rows, args.fmt))
    return 0 if all(figure.passed is not False for figure in figures) else 1
