"""Copied bots are found by how they play: a port of a bot to another language is flagged, two
independent bots are not, a copy that tries to tell the fingerprint's games from others is
flagged all the same, and no one but an organiser sees a fingerprint or a flag."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest
import trio
from leaguehelp import BOT, LEAGUE, front_of, sign_in
from spinning_bot import SPIN_S

from protocol.messages import TimeControl
from referee import BotHandle, Limits
from tournaments.bench.corpus import corpus, kind, node_port
from tournaments.cli import main
from tournaments.league import copies
from tournaments.league import fingerprint as fingerprint_module
from tournaments.league.board import Board
from tournaments.league.checks import check_version
from tournaments.league.clones import Pair, baseline, compare
from tournaments.league.files import League
from tournaments.league.fingerprint import (
    Answer,
    Fingerprint,
    Fingerprints,
    Meter,
    bank,
    fingerprint,
)
from tournaments.league.headline import best_of_each, clusters, finalists, groups
from tournaments.league.registry import Registry
from tournaments.league.season import OpenSeason
from tournaments.league.service import LeagueService
from tournaments.league.submissions import submit
from tournaments.plan.botcommands import parse_bot
from tournaments.plan.config import Tournament

ROOT = Path(__file__).parents[2]
PY = sys.executable
BOTS = {
    "most-tiles": f"{PY} {ROOT}/examples/azul-most-tiles/bot.py",
    "most-tiles-js": "",  # the port, written by the fixture (`corpus.node_port`)
    "evasive": f"{PY} {Path(__file__).parent}/evasive_bot.py",
    "floor": f"{PY} -m bots.corpus.simple floor",
    "bottom": f"{PY} -m bots.corpus.simple bottom",
}
SECRET = b"test-clone-secret-of-32-bytes!!!"
UNBOXED = Limits(sandbox="none")
"""The bots run as plain processes: pytest's private tmp dirs hold the port."""


@pytest.fixture(scope="module")
def fingerprints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Fingerprint]:
    """The corpus's bots fingerprinted once for the module (a small bank: 4 deals, 2 times)."""
    tournament = Tournament(game="azul", players=2)
    port = node_port(tmp_path_factory.mktemp("port"))

    async def made() -> dict[str, Fingerprint]:
        found = {}
        for name, command in BOTS.items():
            spec = parse_bot(command or port, name)
            found[name] = await fingerprint(tournament, spec, UNBOXED, SECRET, 4, 2)
        return found

    return trio.run(made)


def pair(pairs: list[Pair], a: str, b: str) -> Pair:
    return next(p for p in pairs if {p.a, p.b} == {a, b})


@pytest.mark.needs("node")
def test_a_port_to_another_language_is_flagged(fingerprints: dict[str, Fingerprint]) -> None:
    pairs = compare(fingerprints, {name: name for name in fingerprints})
    port = pair(pairs, "most-tiles", "most-tiles-js")
    assert port.verdict.startswith("copy"), port
    assert port.evidence and all(e.action.startswith('{"type":"take"') for e in port.evidence)
    # one author's own bots are never compared
    same = {name: "one" for name in fingerprints}
    assert compare(fingerprints, same) == []


def test_two_independent_bots_are_not_flagged(fingerprints: dict[str, Fingerprint]) -> None:
    pairs = compare(fingerprints, {name: name for name in fingerprints})
    for a, b in (("floor", "bottom"), ("floor", "most-tiles"), ("bottom", "most-tiles-js")):
        found = pair(pairs, a, b)
        assert found.shared >= 8 and found.verdict == "independent", found


TIES = {
    "greedy": "greedy",
    "greedy-noise": f"{PY} -m bots.corpus.variant greedy --noise 0.1",
    "greedy-seed": f"{PY} -m bots.corpus.variant greedy --seed 7",
    "mcts-10": "mcts --iterations 10",
}
"""A bot that breaks its many ties at random (Azul's greedy), its copy that plays at random in
a tenth of its decisions, its copy that breaks the ties with a fixed seed of its own, and an
independent search bot that also spreads its choices."""


@pytest.fixture(scope="module")
def tie_breakers() -> dict[str, Fingerprint]:
    """`TIES` fingerprinted on a bank of 2 deals played 6 times each."""
    tournament = Tournament(game="azul", players=2)

    async def made() -> dict[str, Fingerprint]:
        return {
            name: await fingerprint(tournament, parse_bot(command, name), UNBOXED, SECRET, 2, 6)
            for name, command in TIES.items()
        }

    return trio.run(made)


def test_a_noisy_copy_of_a_bot_that_breaks_ties_at_random_is_flagged(
    fingerprints: dict[str, Fingerprint], tie_breakers: dict[str, Fingerprint]
) -> None:
    """Greedy's plays part at its first tie drawn otherwise, its copy's too; the twos of plays
    that reach a position again, a few moves into a deal, tell the copy (it agrees with greedy
    as often as greedy with itself) from a search bot that spreads its choices as widely (in
    Azul mcts at 10 iterations agrees with itself too seldom to be compared at all) and from
    the steady heuristics, whose choices often fall among greedy's ties."""
    everyone = {**fingerprints, **tie_breakers}
    pairs = compare(everyone, {name: name for name in everyone})
    copy = pair(pairs, "greedy", "greedy-noise")
    assert copy.verdict.startswith("copy"), copy
    for tie_breaker in ("greedy", "greedy-noise"):
        for other in ("mcts-10", *fingerprints):
            independent = pair(pairs, tie_breaker, other)
            assert not independent.flagged, independent


def test_a_copy_that_breaks_ties_with_a_fixed_seed_is_flagged(
    fingerprints: dict[str, Fingerprint], tie_breakers: dict[str, Fingerprint]
) -> None:
    """The copy ignores the game's seed: each of its plays of a deal is the same one draw of
    greedy's ties, so it answers the same way every time, and greedy's plays that meet it agree
    with it as often as they agree with each other."""
    seeded = tie_breakers["greedy-seed"].answers.values()
    assert all(len(set(answer.choices)) == 1 for answer in seeded)
    assert any(len(answer.choices) == 6 for answer in seeded)
    everyone = {**fingerprints, **tie_breakers}
    pairs = compare(everyone, {name: name for name in everyone})
    for original in ("greedy", "greedy-noise"):
        copy = pair(pairs, original, "greedy-seed")
        assert copy.verdict.startswith("copy"), copy
    for other in ("mcts-10", *fingerprints):
        independent = pair(pairs, "greedy-seed", other)
        assert not independent.flagged, independent


def test_the_corpus_counts_pairs_of_one_program_apart(tmp_path: Path) -> None:
    """mcts at two settings is one program, and 5211's mcts runs greedy's estimate: their pairs
    are related, neither copies nor independent; Azul's mcts is not built on greedy."""
    for game, on_greedy in (("5211", "related"), ("azul", "independent")):
        bots = {entry.name: entry for entry in corpus(game, tmp_path)}
        assert kind(bots["mcts-10"], bots["mcts-10-c"]) == "copy"
        assert kind(bots["mcts-10"], bots["mcts-25"]) == "related"
        assert kind(bots["greedy-seed"], bots["mcts-25"]) == on_greedy
        assert kind(bots["greedy-seed"], bots["greedy"]) == "copy"
        assert kind(bots["random"], bots["mcts-25"]) == "independent"


def test_a_copy_that_looks_for_the_fingerprint_gains_nothing(
    fingerprints: dict[str, Fingerprint],
) -> None:
    """The copy plays at random wherever it thinks it is fingerprinted (its first game, a late
    start, a deal seen before): the fingerprint's games are ladder-like units of several deals
    back to back, on deals it never saw, so it plays itself in most of them and is flagged."""
    pairs = compare(fingerprints, {name: name for name in fingerprints})
    evasive = pair(pairs, "most-tiles", "evasive")
    assert evasive.verdict.startswith("copy"), evasive


def test_the_bank_is_secret_and_fixed() -> None:
    """Every version meets the same deals and house seeds; another secret, other deals; the
    version's own seed changes with the repeat, the house bots' do not; every seat plays the
    deals once before any plays them twice."""
    first, again = bank(SECRET, "azul", 2, 3, 2), bank(SECRET, "azul", 2, 3, 2)
    other = bank(b"another secret", "azul", 2, 3, 2)
    assert first == again and first[0][0].seed != other[0][0].seed
    assert [unit[0].seat for unit in first] == [0, 1, 0, 1]
    seat0, seat0_again = first[0][0], first[2][0]  # seat 0, repeats 0 and 1, deal 0
    assert seat0.seed == seat0_again.seed
    assert seat0.bot_seeds[0] != seat0_again.bot_seeds[0]
    assert seat0.bot_seeds[1] == seat0_again.bot_seeds[1]


def test_a_bot_that_spends_cpu_is_held_to_the_fingerprints_budget() -> None:
    """A bot that burns CPU at every decision is killed where its bots' CPU reaches the budget,
    in its first game: the fingerprint asks nothing more and keeps that game's answers (clocks
    long enough that a loaded machine does not time its start or its decisions out first)."""
    spinning = parse_bot(f"{PY} {Path(__file__).parent}/spinning_bot.py", "spinning")
    tournament = Tournament(game="azul", players=2, time=TimeControl(60_000, startup_ms=60_000))
    budget = 1.0
    made = trio.run(fingerprint, tournament, spinning, UNBOXED, SECRET, 2, 2, budget)
    assert made.cut and budget <= made.cpu_s < budget + 0.5, made.cpu_s
    answers = made.answers.values()
    assert 0 < sum(len(answer.choices) for answer in answers) < budget / SPIN_S
    assert {(answer.deal, answer.seat) for answer in answers} == {(0, 0)}


class Gone:
    """A bot's process as the meter sees it: its CPU so far, and whether it has died."""

    def __init__(self) -> None:
        self.cpu, self.dead = 0.0, False

    def exit_status(self) -> int | None:
        return 1 if self.dead else None

    def cpu_s(self) -> float:
        return self.cpu


def test_a_process_that_dies_between_two_looks_is_counted_at_the_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bot that burns CPU and dies before the next look takes what it used since the last
    with it: the meter counts the most it could have used, the time since on every core; a
    process closed just after a look (killed at once) counts what was read."""
    now = [100.0]
    monkeypatch.setattr(fingerprint_module.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(fingerprint_module.os, "cpu_count", lambda: 2)
    meter, dying, closing = Meter(), Gone(), Gone()
    handles = [SimpleNamespace(process=process, starts=1) for process in (dying, closing)]
    meter.watch(*cast(list[BotHandle], handles))
    dying.cpu, closing.cpu = 1.0, 2.0
    assert meter.look() == 3.0
    meter.close(cast(BotHandle, handles[1]))
    dying.dead = closing.dead = True
    now[0] += 0.25
    assert meter.look() == 3.0 + 0.25 * 2


def test_a_deterministic_bot_answers_the_same_way_twice(
    fingerprints: dict[str, Fingerprint],
) -> None:
    answers = fingerprints["floor"].answers.values()
    assert answers and all(len(set(answer.choices)) == 1 for answer in answers)
    assert any(len(answer.choices) == 2 for answer in answers)


AUTHORS = dict(zip(("ann", "bob", "cy", "di", "ed"), BOTS, strict=True))
"""Each corpus bot's author in the league of `league_of`."""


def league_of(folder: Path, fingerprints: dict[str, Fingerprint]) -> tuple[Path, dict[str, str]]:
    """A league file whose authors (`AUTHORS`) play the corpus's bots, fingerprinted, and the
    tokens of its authors and of its organiser `boss`."""
    file = folder / "cup.toml"
    file.write_text(LEAGUE + "fingerprints = true\n")
    with League(file) as league:
        registry = league.registry
        tokens = {name: registry.new_token(name) for name in AUTHORS}
        tokens["boss"] = registry.new_token("boss", organiser=True)
        for author, bot in AUTHORS.items():
            found = registry.author(author)
            assert found is not None
            version = registry.add_version(found.id, bot, "0" * 64, "python bot.py", None)
            registry.set_status(version.id, "checking")
            registry.set_status(version.id, "playing")
            with Fingerprints(league.fingerprints_path) as kept:
                kept.put(version.id, fingerprints[bot])
    return file, tokens


@pytest.mark.needs("node")
def test_arena_league_clones_lists_the_flagged_pairs(
    tmp_path: Path, fingerprints: dict[str, Fingerprint], capsys: pytest.CaptureFixture[str]
) -> None:
    file, _ = league_of(tmp_path, fingerprints)
    assert main(["league", "clones", str(file), "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("bot,author,other bot,other author,likeness")
    flagged = {frozenset(line.split(",")[0:3:2]) for line in lines[1:]}
    assert frozenset({"most-tiles", "most-tiles-js"}) in flagged
    assert frozenset({"floor", "bottom"}) not in flagged
    assert main(["league", "clones", str(file), "--all", "--csv"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1 + 10  # every pair of 5 authors


@pytest.mark.needs("node")
async def test_authors_never_see_a_fingerprint_or_a_flag(
    tmp_path: Path, fingerprints: dict[str, Fingerprint]
) -> None:
    file, tokens = league_of(tmp_path, fingerprints)
    boss = tokens.pop("boss")
    authors = AUTHORS
    async with front_of(tmp_path, file.read_text()) as (_, client):
        # the organiser sees the flagged pair, by page, CSV and API
        answer = await client.get(
            "/api/organiser/clones", headers={"Authorization": f"Bearer {boss}"}
        )
        assert answer.status_code == 200
        assert answer.json()["pairs"][0]["verdict"].startswith("copy")
        await sign_in(client, boss)
        page = await client.get("/organiser/clones")
        assert page.status_code == 200 and "most-tiles-js" in page.text and "copy:" in page.text
        csv = await client.get("/organiser/clones.csv")
        assert csv.status_code == 200 and "copy:" in csv.text
        client.cookies.clear()
        # signed out, signed in as an author, or with an author's token: refused
        for path in ("/organiser/clones", "/organiser/clones.csv"):
            refused = await client.get(path)
            assert refused.status_code == 403 and "copy:" not in refused.text
        assert (await client.get("/api/organiser/clones")).status_code == 401
        for token in tokens.values():
            bearer = {"Authorization": f"Bearer {token}"}
            refused = await client.get("/api/organiser/clones", headers=bearer)
            assert refused.status_code == 403 and "copy" not in refused.text
            await sign_in(client, token)
            for path in ("/organiser/clones", "/organiser/clones.csv"):
                refused = await client.get(path)
                assert refused.status_code == 403 and "copy:" not in refused.text
        for author, token in tokens.items():
            await sign_in(client, token)
            mine = await client.get(f"/bots/{authors[author]}")
            assert mine.status_code == 200
            assert "copy" not in mine.text and "fingerprint" not in mine.text.lower()
            client.cookies.clear()


def test_one_bot_per_author_keeps_every_other_bots_place() -> None:
    """Five more bots of one author, placed anywhere, change no other bot's place."""
    authors = {"x": "ann", "y": "bob", "z": "cy", "house": ""}
    alone, _ = best_of_each(["x", "y", "house", "z"], groups(authors, ()))
    extra = {f"x{n}": "ann" for n in range(5)}
    order = ["x0", "y", "x1", "x", "house", "x2", "x3", "z", "x4"]
    counted, apart = best_of_each(order, groups({**authors, **extra}, ()))
    assert counted == ["x0", "y", "house", "z"] and apart == ["x1", "x", "x2", "x3", "x4"]
    assert [bot for bot in counted if bot != "x0"] == [bot for bot in alone if bot != "x"]


def test_five_copies_by_other_authors_change_no_other_bots_place(
    fingerprints: dict[str, Fingerprint],
) -> None:
    """Five copies of `floor` by five other authors, placed around it: the check calls each a
    copy (its baseline not taken in by them), the one-per-author standings count the family
    once, and every other bot keeps its place."""

    def places(order: list[str], kept: dict[str, Fingerprint]) -> dict[str, int]:
        pairs = compare(kept, {bot: f"author of {bot}" for bot in kept})
        copied = [(p.a, p.b) for p in pairs if p.verdict.startswith("copy")]
        counted, _ = best_of_each(order, groups({bot: f"author of {bot}" for bot in kept}, copied))
        return {bot: place for place, bot in enumerate(counted, 1)}

    alone = places(["most-tiles", "floor", "most-tiles-js", "evasive", "bottom"], fingerprints)
    extra = {f"floor-{n}": fingerprints["floor"] for n in range(5)}
    everyone = {**fingerprints, **extra}
    order = ["most-tiles", "floor-3", "floor", "floor-0", "most-tiles-js", "floor-1"]
    order += ["evasive", "floor-4", "floor-2", "bottom"]
    added = places(order, everyone)
    assert set(added) == {"most-tiles", "floor-3", "bottom"}
    assert added["most-tiles"] == alone["most-tiles"] and added["bottom"] == alone["bottom"]
    pairs = compare(everyone, {bot: bot for bot in everyone})
    assert all(pair(pairs, "floor", bot).verdict.startswith("copy") for bot in extra)
    assert pair(pairs, "floor", "bottom").verdict == "independent"


def ann_and_bob(registry: Registry) -> None:
    """Ann's bots x, x2 and x3 and Bob's y, playing."""
    for author, bots in (("ann", ("x", "x2", "x3")), ("bob", ("y",))):
        registry.new_token(author)
        found = registry.author(author)
        assert found is not None
        for bot in bots:
            version = registry.add_version(found.id, bot, "0" * 64, "python3 bot.py", None)
            registry.set_status(version.id, "checking")
            registry.set_status(version.id, "playing")


def test_the_baseline_weighs_each_family_once() -> None:
    """Pairs of copies stay out of the baseline and a large family counts as one; without two
    families the baseline is 0 (the fixed bars decide)."""
    # versions 0-3 are one family, alike to 4 (0.6); 4, 5 and 6 are far apart (0.1-0.2):
    # the median of every pair would be 0.6, that of the families' pairs is 0.15
    first = np.array([0, 0, 1, 0, 1, 2, 3, 4, 5, 4])
    second = np.array([1, 2, 3, 4, 4, 4, 4, 5, 6, 6])
    values = np.array([0.95, 0.9, 0.99, 0.6, 0.6, 0.6, 0.6, 0.1, 0.2, 0.15])
    assert baseline(7, first, second, values) == 0.15
    assert baseline(2, np.array([0]), np.array([1]), np.array([1.0])) == 0.0


def played(openings: dict[tuple[int, int], list[str]], past: dict[str, int]) -> Fingerprint:
    """A fingerprint with the given choices at the openings of 5 deals × 2 seats (one per
    (deal, seat)) and past them, at position `key`, `past[key]` plays of one action."""
    made = Fingerprint("azul", 2)
    for (deal, seat), choices in openings.items():
        made.add(f"open:{deal}:{seat}", Answer(deal, seat, 0, choices))
    for key, plays in past.items():
        made.add(key, Answer(0, 0, 1, ["same"] * plays))
    return made


def test_steady_bots_that_share_few_positions_past_the_openings() -> None:
    """Steady at the openings and parting there in every deal: independent. One of them
    spreads its choices at the openings, so its plays met the other's past them seldom: the
    few positions they share there say nothing of copying, either way."""
    cells = [(deal, seat) for deal in range(5) for seat in range(2)]
    steady = played({cell: ["x"] * 10 for cell in cells}, {f"s{n}": 10 for n in range(9)})
    other = played({cell: ["z"] * 10 for cell in cells}, {f"o{n}": 10 for n in range(9)})
    spread = [f"m{n}" for n in range(10)]  # ten even moves, one of them steady's once in a while
    spreads = played({cell: spread for cell in cells}, {"s0": 1, "s1": 1, "s2": 1, "t": 1})
    kept = {"steady": steady, "other": other, "spreads": spreads}
    pairs = compare(kept, {name: name for name in kept})
    parted = pair(pairs, "steady", "other")
    assert parted.shared == 10 and parted.verdict == "independent", parted
    for name in ("steady", "other"):
        thin = pair(pairs, name, "spreads")
        assert thin.shared >= 10 and thin.verdict == "too few shared positions to tell", thin


def test_a_fingerprint_cut_short_is_named_with_its_pairs() -> None:
    """The organiser reads that a pair's evidence is thinner because a fingerprint was cut by its
    CPU budget: on the pair, in its CSV row."""
    cells = [(deal, seat) for deal in range(5) for seat in range(2)]
    steady = played({cell: ["x"] * 10 for cell in cells}, {f"s{n}": 10 for n in range(9)})
    slow = played({cell: ["z"] * 10 for cell in cells}, {f"o{n}": 10 for n in range(9)})
    slow.cut = True
    pairs = compare({"steady": steady, "slow": slow}, {"steady": "ann", "slow": "bob"})
    assert [p.cut for p in pairs] == [["slow"]]
    row = dict(zip(copies.CSV_HEADERS, copies.rows(pairs)[0], strict=True))
    assert row["fingerprints cut short"] == "slow"


def test_the_final_plays_one_bot_per_author_when_the_organiser_asks(tmp_path: Path) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE + "one_per_author = true\n")
    with LeagueService.opened(file) as service:
        registry = service.league.registry
        ann_and_bob(registry)
        service.operations.freeze(4, ["x2", "y", "x"])  # the leaderboard, best first
        assert [version.bot for version in registry.finalists(1)] == ["x2", "y"]
    # unplaced bots follow the placed ones, by name
    assert finalists({"b": "ann", "a": "ann", "c": "bob"}, ["c"]) == ["c", "a"]


def test_copies_across_authors_are_clustered_for_the_organisers() -> None:
    pairs = [("a", "b"), ("c", "b"), ("d", "e")]
    assert clusters(pairs) == [["a", "b", "c"], ["d", "e"]]


async def test_a_checked_version_is_fingerprinted_and_its_logs_say_nothing_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `fingerprints = true` a version that passes its check gets a fingerprint (a
    bank of one deal here, for speed), which its check log does not mention."""

    async def small(*args: Any) -> Fingerprint:
        return await fingerprint(*args, 1, 2)

    monkeypatch.setattr(copies, "fingerprint", small)
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE + "fingerprints = true\n")
    with League(file) as league:
        ann = league.registry.author_for(league.registry.new_token("ann"))
        assert ann is not None
        code = BOT.format(pick="len(legal) - 1", name="last").encode()
        version = await submit(league, ann, "last", "bot.py", code)
        with OpenSeason(league) as season:
            checked = await check_version(league, season.limits, version)
        assert checked.status == "playing"
        with Fingerprints(league.fingerprints_path) as kept:
            made = kept.get(version.id)
        assert made is not None and made.game == "azul" and made.answers
        assert all(len(answer.choices) == 2 for answer in made.answers.values())
        logs = league.registry.logs(version.id)
        assert "fingerprint" not in str(logs).lower() and "greedy" not in str(logs)


async def test_the_leaderboard_ranks_one_bot_per_author_when_the_organiser_asks(
    tmp_path: Path,
) -> None:
    async with front_of(tmp_path, LEAGUE + "one_per_author = true\n") as (service, client):
        registry = service.league.registry
        ann_and_bob(registry)
        order = ["x2", "y", "x", "random", "x3"]
        rows = [
            {"bot": bot, "elo": 2000 - 10 * n, "ci": 10, "games": 9, "wins": 3, "losses": 3}
            | {"draws": 3}
            for n, bot in enumerate(order)
        ]
        service.board.board = Board(games=20, standings=rows)
        service.board.generation += 1
        board = service.views.leaderboard()
        assert [(s.bot, s.row["rank"]) for s in board.standings] == [
            ("x2", 1),
            ("y", 2),
            ("random", 3),
        ]
        assert [s.bot for s in board.apart] == ["x", "x3"]
        page = (await client.get("/")).text
        assert 'id="apart"' in page and page.index('href="/bots/x3"') > page.index('id="apart"')
