"""Exact risk: the whole distribution of a session's result, without simulation.

For a system whose state is finite (``strategies/finite_state.py``), a session is a
Markov chain over (the system's state, the bankroll), and each coup moves it with the
exact probabilities of a full shoe's classes of coup (:mod:`engine.risk.coups`).
:mod:`engine.risk.machine` numbers the system's declared states,
:mod:`engine.risk.shoes` says how many coups a shoe holds, :mod:`engine.risk.verify`
checks a declaration against the strategy's own play.
"""

from __future__ import annotations

from ..lazy import lazy_exports

__getattr__ = lazy_exports(__name__, {
    "Machine": ".machine",
    "RiskError": ".machine",
    "TooManyStates": ".machine",
    "declaration_mismatch": ".verify",
})

__all__ = ["Machine", "RiskError", "TooManyStates", "declaration_mismatch"]
