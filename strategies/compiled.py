"""Compiled forms of the built-in staking systems: what the fused backtest path runs.

A strategy class may declare ``compiled_form()``: which system it is (one of the codes
below), the bet kind it stakes on and its parameters, in the order the compiled kernel
of ``engine/fused.py`` reads them. The Python form (``start``/``wager``/``settle``) stays
the reference: the fused kernel reproduces it bit for bit, and the tests compare the two.
Only the class that declares ``compiled_form`` itself is trusted with it; a subclass that
does not declare its own (a plugin that changes how a Martingale stakes, say) is played
by the generic replay.
"""

from __future__ import annotations

from dataclasses import dataclass

FLAT, MARTINGALE, GRAND_MARTINGALE, PAROLI, DALEMBERT, FIBONACCI, LABOUCHERE, \
    OSCARS_GRIND, ONE_THREE_TWO_SIX = range(9)

#: The bet kinds a compiled form may stake on (their payout-table columns are 0, 1, 2).
COMPILED_SIDES = ("banker", "player", "tie")


@dataclass(frozen=True)
class CompiledForm:
    """One configuration of a built-in system, as the fused kernel plays it.

    ``params`` are the system's numbers: ``base`` first, then the system's own (the
    Martingale family's most doublings, -1 for none; Paroli's target wins; D'Alembert's
    unit; Labouchere's starting line).
    """

    system: int
    side: str
    params: tuple[float, ...]


def declared_form(strategy: object) -> CompiledForm | None:
    """The compiled form of ``strategy`` if its own class declares one, else None."""
    cls = type(strategy)
    if "compiled_form" not in vars(cls):
        return None
    form = strategy.compiled_form()  # type: ignore[attr-defined]
    if not isinstance(form, CompiledForm) or form.side not in COMPILED_SIDES:
        return None
    return form
