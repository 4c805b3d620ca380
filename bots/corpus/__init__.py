"""Bots of the clone benchmark's corpus (`tournaments.bench.clones`): small heuristic bots
written independently of the house bots (`simple` for Azul, `cards` for 5211), and the ways a
copy is made of a bot (`variant`: the same bot under another name, its constants nudged, or
playing at random in a share of its moves; `most_tiles.js` and `lead.js`: examples/azul-most-tiles
and `cards`' `lead` ported to JavaScript)."""
