"""The clone benchmark's corpus: independent bots and copies of some of them, per game.

Independent: random, greedy, the mcts bot, the starter kits' JavaScript bot (seeded random),
and the small heuristics written for the corpus: examples/azul-most-tiles and
`bots.corpus.simple` in Azul, `bots.corpus.cards` in 5211. Copies, each by another author than
its original: the same bot under another name, its constants changed by 10%, playing at random
in 10% of its decisions, breaking its ties with a fixed seed of its own (`bots.corpus.variant`),
mcts with its exploration constant changed by 10%, and a bot ported to JavaScript (`node_port`:
most-tiles in Azul, `lead` in 5211). A bot's `family` is its original's name: two bots of one
family are a copy pair. Two bots of different families are an independent pair unless one
program underlies both (`built_on`, `kind`): mcts at 10 and at 25 iterations is one program at
two settings, and 5211's mcts runs greedy's own estimate as its prior, its model of the other
seat and its playouts; such related pairs are neither copies to find nor independent bots that
must not be flagged, and the bench counts them apart.
"""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[2]
STARTER_NODE = ROOT / "examples" / "starter-node" / "bot.js"
PORT = ROOT / "bots" / "corpus" / "most_tiles.js"
PORTS = {"azul": PORT, "5211": ROOT / "bots" / "corpus" / "lead.js"}
"""Each game's JavaScript port: the strategy part of a starter-kit bot."""
STRATEGY = "// ---- your strategy goes here"
STRATEGY_END = "// " + "-" * 96 + "\n"


EXPLORATION = {"azul": 0.1, "5211": 0.7}
"""The mcts bot's exploration constant per game (`bots.search`), which a copy changes."""


SEARCH_BUILT_ON = {"azul": ("mcts",), "5211": ("mcts", "greedy")}
"""What the mcts bots run, per game: the search program, and in 5211 greedy's estimate
(`bots.search.g5211`: its prior, its model of the other seat, its playouts)."""


CARD_RULES = ("lead", "hoard", "roosters", "high")
"""The 5211 heuristics of `bots.corpus.cards`."""


class Entry(msgspec.Struct, frozen=True):
    name: str
    command: str
    family: str
    """The original's name (its own for an independent bot)."""
    built_on: tuple[str, ...] = ()
    """The programs whose code the bot runs (at other settings) or builds on."""


def kind(a: Entry, b: Entry) -> str:
    """A pair of the corpus: "copy" (one family), "related" (of different families, one
    program under both: `built_on`) or "independent"."""
    if a.family == b.family:
        return "copy"
    if set(a.built_on) & set(b.built_on) or a.family in b.built_on or b.family in a.built_on:
        return "related"
    return "independent"


def node_port(folder: Path, port: Path = PORT) -> str:
    """Write the JavaScript port `port` (most-tiles' unless told) into `folder` — the starter
    kit's bot with the port's strategy in place of its own — and return the command that runs
    it."""
    starter = STARTER_NODE.read_text()
    before, rest = starter.split(STRATEGY, 1)
    after = rest.split(STRATEGY_END, 1)[1]
    path = folder / port.name
    path.write_text(before + port.read_text() + after)
    folder.chmod(0o755)  # the sandbox runs a bot as another user, who must read it
    path.chmod(0o644)
    return f"node {path}"


def corpus(game: str, folder: Path) -> list[Entry]:
    """The corpus for `game` (its JavaScript port written into `folder`)."""
    py = sys.executable
    variant = f"{py} -m bots.corpus.variant"
    search = SEARCH_BUILT_ON[game]
    c = f"{EXPLORATION[game] * 1.1:g}"
    made = [
        Entry("random", "random", "random"),
        Entry("greedy", "greedy", "greedy"),
        Entry("mcts-10", "mcts --iterations 10", "mcts-10", search),
        Entry("mcts-25", "mcts --iterations 25", "mcts-25", search),
        Entry("starter-node", f"node {STARTER_NODE}", "starter-node"),
        Entry("greedy-renamed", f"{variant} greedy --name mine", "greedy"),
        Entry("greedy-noise", f"{variant} greedy --noise 0.1", "greedy"),
        Entry("greedy-seed", f"{variant} greedy --seed 7", "greedy"),
        Entry("mcts-10-c", f"mcts --iterations 10 --c {c}", "mcts-10", search),
    ]
    constants = {"azul": ("DENY", 1.1, "ROUND", 0.72), "5211": ("KEEP", 0.385, "SOFTMAX", 1.35)}
    first, first_value, second, second_value = constants[game]
    made += [
        Entry(f"greedy-{first}", f"{variant} greedy --set {first}={first_value}", "greedy"),
        Entry(f"greedy-{second}", f"{variant} greedy --set {second}={second_value}", "greedy"),
    ]
    if game == "azul":
        made += [
            Entry("most-tiles", f"{py} {ROOT}/examples/azul-most-tiles/bot.py", "most-tiles"),
            Entry("most-tiles-js", node_port(folder), "most-tiles"),
        ]
        for rule in ("floor", "bottom", "finish", "few"):
            made += [
                Entry(rule, f"{py} -m bots.corpus.simple {rule}", rule),
                Entry(f"{rule}-noise", f"{variant} simple:{rule} --noise 0.1", rule),
            ]
    else:
        cards = f"{variant} cards:"
        made += [
            *(Entry(rule, f"{py} -m bots.corpus.cards {rule}", rule) for rule in CARD_RULES),
            Entry("lead-js", node_port(folder, PORTS[game]), "lead"),
            Entry("lead-noise", f"{cards}lead --noise 0.1", "lead"),
            Entry("hoard-SPEND", f"{cards}hoard --set SPEND=0.55", "hoard"),
            Entry("roosters-renamed", f"{cards}roosters --name mine", "roosters"),
            Entry("high-TABLE", f"{cards}high --set TABLE=0.27", "high"),
            Entry("high-noise", f"{cards}high --noise 0.1", "high"),
        ]
    return made
