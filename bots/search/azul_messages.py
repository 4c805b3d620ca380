"""The file Azul's fitted weights ship in (`bots.search.azul.WEIGHTS_FILE`).

A msgspec Struct, kept apart from `bots.search.azul` so that module can be compiled with mypyc
(the Structs must stay ordinary Python classes, as the engines' `*_messages` modules are)."""

from __future__ import annotations

import msgspec


class WeightsFile(msgspec.Struct, forbid_unknown_fields=True):
    """The features the weights were fitted to, by name, and a row of weights per phase."""

    features: list[str]
    phases: list[list[float]]
