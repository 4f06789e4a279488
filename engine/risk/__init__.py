"""Exact risk: the whole distribution of a session's result, without simulation.

For a system whose state is finite (``strategies/finite_state.py``), a session is a
Markov chain over (the system's state, the bankroll), and each coup moves it with the
exact probabilities of a full shoe's classes of coup (:mod:`baccarat.risk.coups`).
:mod:`baccarat.risk.machine` numbers the system's declared states,
:mod:`baccarat.risk.chain` plays the chain coup by coup (the whole distribution from one
bankroll), :mod:`baccarat.risk.backward` runs it backward (the risk from every bankroll at
once), :mod:`baccarat.risk.exact` turns a chain into figures
(:func:`session_distribution` is the notebook's door), :mod:`baccarat.risk.sizing` sizes
bankrolls and base stakes and plays sessions in a row, :mod:`baccarat.risk.check` measures
the same figures over real shoes, :mod:`baccarat.risk.job` is ``baccarat risk``,
:mod:`baccarat.risk.shoes` says how many coups a shoe holds, :mod:`baccarat.risk.verify`
checks a declaration against the strategy's own play.
"""

from __future__ import annotations

from ..lazy import lazy_exports

__getattr__ = lazy_exports(__name__, {
    "ExactRisk": ".exact",
    "Machine": ".machine",
    "RiskCurve": ".backward",
    "RiskError": ".machine",
    "RiskJob": ".job",
    "SessionChain": ".chain",
    "TooManyStates": ".machine",
    "declaration_mismatch": ".verify",
    "exact_risk": ".exact",
    "risk_curve": ".backward",
    "run_risk": ".job",
    "session_distribution": ".exact",
    "sessions_risk": ".sizing",
    "size_bankroll": ".sizing",
    "size_base": ".sizing",
})

__all__ = ["ExactRisk", "Machine", "RiskCurve", "RiskError", "RiskJob", "SessionChain",
           "TooManyStates", "declaration_mismatch", "exact_risk", "risk_curve", "run_risk",
           "session_distribution", "sessions_risk", "size_bankroll", "size_base"]
