"""Sampling a long parametrized family for the everyday suite: every ``every``-th value runs in it, the others
are marked slow (CI runs both tiers, so every value still runs there; docs/testing.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest


def everyday_sample(values: Sequence[Any], every: int, *, ids: Callable[[Any], str] = str, offset: int = 0) -> list:
    """``values`` as test parameters, all but every ``every``-th (from the ``offset``-th) marked slow: families
    that test the same values with different offsets leave none out of the everyday suite."""
    return [
        pytest.param(v, id=ids(v), marks=() if i % every == offset % every else (pytest.mark.slow,))
        for i, v in enumerate(values)
    ]
