"""Shared fixtures for the engine tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.cards import parse_card


@pytest.fixture
def codes() -> Callable[[str], list[int]]:
    """Turn ``"AS 10H KD"`` into card codes, so a test writes cards as a dealer reads them."""
    return lambda text: [parse_card(word) for word in text.split()]
