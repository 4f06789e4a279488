"""``table.rng`` / ``view.rng``: random systems whose ledger is the same however the run is
cut, and numbers that look uniform."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from baccarat import Run, backtest
from baccarat.strategies.randomness import TableRandom
from baccarat.strategy_check import check_strategy
from baccarat.testing import make_one_strategy

PLUGIN = textwrap.dedent('''
    import numpy as np
    from baccarat.strategies.base import SimpleStrategy, Strategy, Wager


    class CoinFlip(Strategy):
        """Banker or Player at random, one or two units at random."""

        def wager(self, table):
            side = table.rng.choice(["banker", "player"])
            units = table.rng.integers(1, 3)
            return Wager.side(side, self.base * units)


    class SimpleCoinFlip(SimpleStrategy):
        """The same, one session at a time."""

        def bet(self, view):
            side = view.rng.choice(["banker", "player"])
            return {side: self.base * view.rng.randint(1, 2)}
''')


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("random") / "coin_flip.py"
    path.write_text(PLUGIN)
    return path


@pytest.mark.parametrize("name", ["CoinFlip", "SimpleCoinFlip"])
def test_a_random_system_passes_every_chunking_check(plugin: Path, name: str):
    checks, _ = check_strategy(lambda: make_one_strategy(f"{plugin}:{name}"), shoes=12,
                               speed_shoes=4, speed_repeat=1)
    failed = {c.name: c.detail for c in checks if c.passed is False}
    assert not failed


def test_the_same_seed_gives_the_same_ledger_whatever_the_chunks_and_workers(plugin: Path):
    spec = f"{plugin}:CoinFlip"
    one = backtest(None, [spec], shoes=24, seed=5, run=Run(chunk_shoes=24, workers=1)).ledger
    many = backtest(None, [spec], shoes=24, seed=5, run=Run(chunk_shoes=5, workers=2)).ledger
    cols = ["session", "shoe", "coup", "banker", "player", "net"]
    assert one[cols].equals(many[cols])
    other = backtest(None, [spec], shoes=24, seed=6, run=Run(workers=1)).ledger
    assert not one[["banker", "player"]].equals(other[["banker", "player"]])


def test_draws_depend_on_the_session_and_the_coup_not_on_the_neighbours():
    wide = TableRandom(7, np.arange(100, 110))
    narrow = TableRandom(7, np.array([103]))
    first = wide.random()
    assert first[3] == narrow.random()[0]     # session 103's first draw of coup 0
    second = wide.random()
    assert second[3] == narrow.random()[0]    # and its second
    assert first[3] != second[3] and len(set(first)) == 10
    wide.at_step(5)
    narrow.at_step(5)
    assert wide.random()[3] == narrow.random()[0]   # coup 5 starts the count again
    # The simple form counts the draws of its own session: the other sessions' draws
    # (another session's copy drawing twice) change nothing.
    one, two = TableRandom(7, np.arange(100, 110)), TableRandom(7, np.arange(100, 110))
    two.session(4).random()
    two.session(4).random()
    assert one.session(3).random() == two.session(3).random()
    # A session's first draw is the same number in either form.
    simple = TableRandom(7, np.arange(100, 110)).session(3).random()
    assert simple == TableRandom(7, np.array([103])).random()[0]


def test_the_numbers_look_uniform():
    rng = TableRandom(11, np.arange(20_000))
    draws = np.concatenate([rng.random() for _ in range(5)])
    # Mean and variance of U(0, 1): 1/2 and 1/12; 100,000 draws, 5 standard errors.
    assert abs(draws.mean() - 0.5) < 5 * np.sqrt(1 / 12 / draws.size)
    assert abs(draws.var() - 1 / 12) < 5 * np.sqrt(1 / 180 / draws.size)
    counts = np.bincount(rng.integers(0, 10), minlength=10)
    assert counts.min() > 1_700 and counts.max() < 2_300  # 2,000 expected, sd 42
