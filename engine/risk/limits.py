"""The limits of exact risk by default, in a module light enough for a command's options
and the Python face to name them without loading the chain."""

#: Most (state, bankroll) cells the chain may hold at once.
DEFAULT_CELL_LIMIT = 20_000_000
#: Most states of the system a session may reach.
DEFAULT_STATE_LIMIT = 200_000
#: Most seconds the exact chain may take: past the projection of its time
#: (``baccarat.risk.chain.Budget``) the caller simulates instead, saying why.
DEFAULT_TIME_LIMIT = 120.0

__all__ = ["DEFAULT_CELL_LIMIT", "DEFAULT_STATE_LIMIT", "DEFAULT_TIME_LIMIT"]
