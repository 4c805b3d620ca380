"""Fixtures of the referee's tests (helpers live in refhelp.py)."""

from __future__ import annotations

import pytest
from refhelp import Bots


@pytest.fixture
def bots() -> Bots:
    return Bots()
