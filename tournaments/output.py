"""Output options shared by every command that prints rows: `--fmt`, `--json`, `--csv`."""

from __future__ import annotations

import argparse
import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import tabulate

FORMATS: tuple[str, ...] = tuple(tabulate.tabulate_formats)


def add_output_options(parser: argparse.ArgumentParser, default_fmt: str = "simple") -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--fmt",
        default=default_fmt,
        choices=FORMATS,
        metavar="FORMAT",
        help=f"table format, any of tabulate's: {', '.join(FORMATS)} (default {default_fmt})",
    )
    group.add_argument("--json", action="store_true", help="print JSON instead of a table")
    group.add_argument("--csv", action="store_true", help="print CSV instead of a table")


def plural(count: int, noun: str) -> str:
    """`1 bot`, `2 bots`: a count and its noun, in messages that may say one."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def render_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str) -> str:
    return tabulate.tabulate(rows, headers=list(headers), tablefmt=fmt, floatfmt=".1f")


def render_csv(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(headers)
    writer.writerows(rows)
    return buffer.getvalue()


def render_json(data: Any) -> str:
    return msgspec.json.format(msgspec.json.encode(data), indent=2).decode()


def render_tables(tables: Sequence[Any], args: argparse.Namespace) -> str:
    """Tables (with `name`, `title`, `keys`, `headers`, `rows`) as the output options ask.

    JSON is one object keyed by table name; CSV holds one table (callers ask for one, or write
    each to its own file with `write_csv_files`); text prints each table under its title.
    """
    if args.json:
        return render_json({table.name: table.records() for table in tables})
    if args.csv:
        (table,) = tables
        return render_csv(table.keys, table.rows).rstrip("\n")
    texts = []
    for table in tables:
        headers, rows = table.for_people()
        texts.append(f"{table.title}\n{render_table(headers, rows, args.fmt)}")
    return "\n\n".join(texts)


def write_csv_files(tables: Sequence[Any], directory: Path) -> list[Path]:
    """Each table as `<directory>/<name>.csv` (the directory is created); the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for table in tables:
        path = directory / f"{table.name}.csv"
        path.write_text(render_csv(table.keys, table.rows))
        written.append(path)
    return written
