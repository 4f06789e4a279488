"""baccarat-backtest: the game engine and the backtesting machinery."""

__version__ = "0.1.0"
