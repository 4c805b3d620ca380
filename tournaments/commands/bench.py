"""`arena bench`: measure engine, protocol, referee, match and tournament speed on this machine."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tournaments.bench.sections import SECTIONS
from tournaments.commands.common import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from tournaments.output import add_output_options, render_csv, render_json, render_table

if TYPE_CHECKING:  # the sections' code loads when the benchmark runs: `arena` starts quickly
    from tournaments.bench.report import Figure

BENCH_EXIT_CODES = f"""\
exit codes:
  {EXIT_OK}    done: every target met, or a --quick run (its misses are shown, not judged)
  {EXIT_ERROR}    a target missed (a full run), or the bench failed (the message says how)
  {EXIT_USAGE}    a mistake in the command line
  {EXIT_INTERRUPTED}  stopped by Ctrl-C"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="measure the framework's speed on this machine",
        description=(
            "Measure engine playouts, the pipe round trip, the referee's overhead per decision, "
            "match and tournament throughput, a peer engine and schedule memory; print each "
            "figure with its target. Sections: " + ", ".join(SECTIONS) + "."
        ),
        epilog=BENCH_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=(
            "tiny repetitions: checks that it runs, measures little; a missed target is shown "
            "(MISS) but does not make the exit code 1"
        ),
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
    from tournaments.bench.report import HEADERS, markdown, print_progress, run

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
    return exit_code(figures, args.quick)


def exit_code(figures: list[Figure], quick: bool) -> int:
    """1 for a missed target, but not in a --quick run: its tiny repetitions on a loaded
    machine miss targets that say nothing of the code (a smoke run fails only when it breaks)."""
    if quick or all(figure.passed is not False for figure in figures):
        return EXIT_OK
    return EXIT_ERROR
