"""The space of configurations a search tries: the grids its specs expand to, indexed lazily.

A search takes several SPECs; each stands for a grid (one configuration per combination of
its list values, in the order ``baccarat.strategies.registry.expand_spec`` gives), counted and
indexed by the registry's ``spec_space`` where it has one (the grammar of lists, ranges and
composed parts is the registry's), else here over its lists. The space is the specs' grids
one after the other. It is counted without building a configuration, and
configuration ``i`` is built on its own, so ``--sample K --seed S`` draws K configurations
from a space of billions without materialising it.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..errors import BaccaratError
from ..strategies.base import Strategy
from ..strategies.registry import load_class, make_strategy, parse_params, split_spec


@dataclass(frozen=True)
class SpecGrid:
    """One SPEC's grid: the fixed parameters and the listed ones, in expansion order."""

    spec: str
    cls: type[Strategy]
    fixed: dict[str, Any]
    keys: tuple[str, ...]
    values: tuple[tuple[Any, ...], ...]

    def __len__(self) -> int:
        return math.prod(len(v) for v in self.values)

    def __getitem__(self, index: int) -> Strategy:
        return self.at(index)

    def at(self, index: int) -> Strategy:
        """Configuration ``index`` of the grid, in ``itertools.product`` order (last key
        fastest), the order ``expand_spec`` lists them."""
        chosen: dict[str, Any] = {}
        for key, values in zip(reversed(self.keys), reversed(self.values), strict=True):
            index, digit = divmod(index, len(values))
            chosen[key] = values[digit]
        return make_strategy(self.cls, {**self.fixed, **chosen}, self.spec)


def spec_grid(spec: str) -> SpecGrid:
    """The grid of one SPEC: the class loaded and the parameters parsed.

    Every listed value is checked once (with the other keys at their first value), so a
    misspelt name, parameter or value is reported before anything runs, at the cost of
    the sum of the lists' lengths, not their product."""
    reference, text = split_spec(spec)
    cls = load_class(reference)
    params = parse_params(text, spec)
    keys = tuple(k for k, v in params.items() if isinstance(v, list))
    values = tuple(tuple(params[k]) for k in keys)
    for key, options in zip(keys, values, strict=True):
        if not options:
            raise BaccaratError(f"{spec!r}: the list of {key} is empty; give at least one "
                                f"value")
    fixed = {k: v for k, v in params.items() if k not in keys}
    grid = SpecGrid(spec, cls, fixed, keys, values)
    first = {k: v[0] for k, v in zip(keys, values, strict=True)}
    make_strategy(cls, {**fixed, **first}, spec)
    for key, options in zip(keys, values, strict=True):
        for value in options[1:]:
            make_strategy(cls, {**fixed, **first, key: value}, spec)
    return grid


class Grid(Protocol):
    """One SPEC's configurations: counted, and each built on its own."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int) -> Strategy: ...


def grid_of(spec: str) -> Grid:
    """The registry's space of ``spec`` (``baccarat.strategies.registry.spec_space``: lists,
    ranges, composed parts) where the registry has one, else :func:`spec_grid`'s."""
    from ..strategies import registry

    space = getattr(registry, "spec_space", None)
    return space(spec) if space is not None else spec_grid(spec)  # type: ignore[no-any-return]


class Space:
    """Every configuration the specs stand for, counted and indexed without building them."""

    def __init__(self, specs: Sequence[str]) -> None:
        if not specs:
            raise BaccaratError("no strategy given: strategies needs at least one SPEC",
                                params=("strategies",))
        self.grids: list[Grid] = [grid_of(spec) for spec in specs]
        self._ends = list(itertools.accumulate(len(g) for g in self.grids))

    def __len__(self) -> int:
        return self._ends[-1]

    def __getitem__(self, index: int) -> Strategy:
        if not 0 <= index < len(self):
            raise IndexError(index)
        g = bisect.bisect_right(self._ends, index)
        return self.grids[g][index - (self._ends[g - 1] if g else 0)]

    def __iter__(self) -> Iterator[Strategy]:
        for grid in self.grids:
            for i in range(len(grid)):
                yield grid[i]

    def sample(self, count: int, seed: int) -> tuple[list[int], list[Strategy]]:
        """``count`` distinct configurations drawn at random (uniformly, without
        replacement) with ``seed``: their indices in the space, in space order, and the
        configurations. The whole space when it holds no more than ``count``."""
        if count < 1:
            raise BaccaratError(f"sample {count}: expected at least 1 configuration",
                                params=("sample",))
        total = len(self)
        if count >= total:
            return list(range(total)), list(self)
        if total < 2**63:
            drawn = np.random.default_rng(seed).choice(total, size=count, replace=False)
            indices = sorted(int(i) for i in drawn)
        else:  # beyond numpy's integers: Python's own sampler, seeded the same way
            import random

            indices = sorted(random.Random(seed).sample(range(total), count))
        return indices, [self[i] for i in indices]


__all__ = ["Grid", "Space", "SpecGrid", "grid_of", "spec_grid"]
