"""Attacks on the secrecy of deals: a bot process that plays two rotations of one deal would
remember the draws (Azul) or the other seat's hand (5211); match ids and bot seeds must not
carry the game seed; deal seeds must not be a public function of the tournament seed."""

from __future__ import annotations

import re
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

import trio

from protocol import TimeControl
from referee import Limits, MatchOutcome, open_bots, play_match
from tournaments.plan.botcommands import parse_bot
from tournaments.plan.prepare import prepare
from tournaments.plan.schedule import deal_seed
from tournaments.play.runner import Runner
from tournaments.store.store import Store

BOTS = Path(__file__).resolve().parents[1] / "bots"
MEMORY = f"{sys.executable} {BOTS}/memory.py"

TOURNAMENT = """
game = "{game}"
players = {players}
deals = {deals}
seed = 3
concurrency = 2
sandbox = "none"

[time]
move_ms = 5000

[participants]
memory = "{memory}"
random = "random"
{extra}
"""


def run_tournament(tmp_path: Path, game: str, players: int, deals: int, extra: str = "") -> Path:
    file = tmp_path / "cup.toml"
    text = TOURNAMENT.format(game=game, players=players, deals=deals, memory=MEMORY, extra=extra)
    file.write_text(text)
    return run_file(file)


def run_file(file: Path) -> Path:
    """Play the tournament of `file` to its end; its store."""
    prepared = prepare(file)
    try:
        trio.run(
            Runner(
                prepared.tournament, prepared.store, prepared.players, limits=prepared.limits
            ).run
        )
    finally:
        prepared.close()
    return file.with_suffix(".sqlite")


def find(pattern: str, text: str, group: int = 1) -> str:
    found = re.search(pattern, text)
    assert found is not None, f"{pattern!r} not in {text[:300]!r}"
    return found[group]


def faults(store: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(store) as db:
        return db.execute("SELECT kind, reason FROM faults").fetchall()


async def test_the_memory_bot_recognises_a_deal_it_has_seen() -> None:
    """The detector works: one process given the same deal twice says so (a `bad_index`)."""
    async with open_bots([parse_bot(MEMORY), parse_bot("random")], Limits(sandbox="none")) as bots:
        first = await play_match("azul", {}, 99, bots, TimeControl(move_ms=5000))
        second = await play_match("azul", {}, 99, bots[::-1], TimeControl(move_ms=5000))
    assert first.faults == []
    assert [(f.seat, f.kind) for f in second.faults] == [(1, "bad_index")]


def test_no_bot_process_plays_two_rotations_of_a_deal_azul(tmp_path: Path) -> None:
    store = run_tournament(tmp_path, "azul", 2, deals=4)
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT count(*) FROM games").fetchone() == (8,)
    assert faults(store) == []


def test_no_bot_process_plays_two_games_of_a_deal_5211(tmp_path: Path) -> None:
    """Every game the memory bot plays, it logs a token of its process: within one deal (all
    rotations), no token appears twice. Its `start` carries nothing of the deal's seed."""
    store = run_tournament(tmp_path, "5211", 3, deals=3, extra='third = "greedy"')
    assert faults(store) == []
    with sqlite3.connect(store) as db:
        seeds = {deal: seed for deal, seed in db.execute("SELECT deal, seed FROM games")}
        logs = db.execute(  # whose log each file is: the store's record, not its name
            "SELECT games.deal, logs.file FROM logs JOIN games ON games.id = logs.game "
            "JOIN seats ON seats.game = logs.game AND seats.seat = logs.seat "
            "JOIN bots ON bots.id = seats.bot WHERE bots.name = 'memory'"
        ).fetchall()
    processes: dict[int, list[str]] = {}
    match_ids = set()
    for deal, file in logs:
        text = (store.with_suffix(".logs") / file).read_text()
        processes.setdefault(deal, []).append(find(r"process=(\w+)", text))
        start = find(r"start=(.*)", text)
        match_ids.add(find(r'"match": "(\w*)"', start))
        assert str(seeds[deal]) not in start
    assert sorted(processes) == [0, 1, 2]
    for deal, tokens in processes.items():
        assert len(tokens) == 3, (deal, tokens)
        assert len(set(tokens)) == 3, f"one process played two games of deal {deal}: {tokens}"
    assert len(match_ids) == 9 and all(re.fullmatch(r"[0-9a-f]{16}", m) for m in match_ids)


def test_deal_seeds_are_keyed_by_the_store_secret(tmp_path: Path) -> None:
    """The same file into two stores deals differently (the tournament seed alone reveals
    nothing), one store is reproducible, and the seeds are those keyed by its secret."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    stores = [run_tournament(tmp_path / name, "azul", 2, deals=2) for name in "ab"]
    dealt = []
    for path in stores:
        with sqlite3.connect(path) as db:
            dealt.append(dict(db.execute("SELECT deal, seed FROM games")))
            [table] = db.execute("SELECT DISTINCT seat_set FROM games").fetchone()
        store = Store(path)
        try:
            secret = store.secret()
        finally:
            store.close()
        assert dealt[-1] == {deal: deal_seed(secret, 3, table, deal) for deal in range(2)}
    assert dealt[0] != dealt[1]
    assert deal_seed(b"k" * 32, 3, "1,2", 0) != deal_seed(b"j" * 32, 3, "1,2", 0)


async def test_a_match_tells_bots_nothing_of_its_seed(tmp_path: Path) -> None:
    """Match ids are random, and bot seeds are drawn afresh unless given."""
    starts = []
    for _ in range(2):
        outcome = await _one_game(tmp_path, seed=123456789)
        text = Path(outcome.logs[0]).read_text()
        starts.append(find(r"start=(.*)", text))
        assert "123456789" not in starts[-1]
    assert starts[0] != starts[1]


async def _one_game(tmp_path: Path, seed: int) -> MatchOutcome:
    limits = Limits(sandbox="none", log_dir=str(tmp_path / "logs"))
    async with open_bots([parse_bot(MEMORY), parse_bot("random")], limits) as bots:
        return await play_match("azul", {}, seed, bots, TimeControl(move_ms=5000))


PEEKER = """
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
seen = []
for name in ("cup.toml", "cup.sqlite", "cup.logs"):
    path = os.path.join(here, name)
    try:
        if os.path.isdir(path):
            seen.append(name) if os.listdir(path) else None
        else:
            with open(path, "rb") as file:
                seen.append(name) if file.read(1) else None
    except OSError:
        pass
for raw in sys.stdin:
    message = json.loads(raw)
    if message["type"] == "start":
        print(json.dumps({"type": "ready", "name": "peeker"}), flush=True)
    elif message["type"] == "act":
        # Reading anything is the attack succeeding: say so with an out-of-range index.
        index = 10**6 + len(seen) if seen else 0
        print(json.dumps({"type": "action", "id": message["id"], "index": index}), flush=True)
        print("saw", seen, file=sys.stderr, flush=True)
    elif message["type"] == "quit":
        break
"""


def test_a_sandboxed_bot_beside_the_tournament_file_sees_neither_it_nor_the_store() -> None:
    """The README's layout puts bots next to the tournament file: in the sandbox, the file (its
    seed), the store (its secret, every record) and the logs are not there for them."""
    home = Path(tempfile.mkdtemp(prefix="arena-peek-"))
    try:
        home.chmod(0o755)  # the sandboxed bot runs as its own unprivileged user
        (home / "peeker.py").write_text(PEEKER)
        (home / "peeker.py").chmod(0o644)
        file = home / "cup.toml"
        file.write_text(
            TOURNAMENT.format(game="azul", players=2, deals=2, memory=MEMORY, extra="")
            .replace('sandbox = "none"', 'sandbox = "bwrap"')
            .replace(f'memory = "{MEMORY}"', f'peeker = "{sys.executable} peeker.py"')
        )
        file.chmod(0o644)
        store = run_file(file)
        assert (home / "cup.logs").is_dir() and store.stat().st_size > 0  # they do exist
        assert faults(store) == []
        with sqlite3.connect(store) as db:
            assert db.execute("SELECT count(*) FROM games").fetchone() == (4,)
    finally:
        shutil.rmtree(home, ignore_errors=True)
