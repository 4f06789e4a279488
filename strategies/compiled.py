"""Compiled forms of the built-in strategies and parts: what the fused backtest path runs.

The parts of a system (``strategies/parts.py``) declare their compiled form: a built-in
selection or staking plan returns a :class:`PartForm` from ``compiled_form()``, naming
itself by a code of :data:`SELECTIONS` or :data:`STAKINGS` and giving the numbers its
Python form reads, in the order the part's ``compiled_form`` lists them. Session rules
need no form: the fused kernel reads the configuration's ``SessionPolicy``
(``engine.replay.config_policy``). The Python form (``start``/``choose``/``stakes``/
``settle``) stays the reference: the fused kernel reproduces it bit for bit, and the
tests compare the two. Only a class that declares ``compiled_form`` itself is trusted
with it; a subclass that does not declare its own (a plugin that changes how a
Martingale stakes, say) is played by the generic replay.

``declared_form`` gives the first wave's :class:`CompiledForm` of a system the kernel
plays today: a staking plan of the first nine on a fixed Banker, Player or Tie
(``always`` as the selection), with no session rule of its own.
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


#: The built-in selections the fused kernel plays, by part name.
SELECTIONS = {name: code for code, name in enumerate((
    "always", "follow", "chop", "streak", "ping_pong", "pattern", "skip_first",
    "after_ties", "road", "count"))}

#: The built-in staking plans the fused kernel plays, by part name (today's nine systems
#: keep their codes above).
STAKINGS = {name: code for code, name in enumerate((
    "flat", "martingale", "grand_martingale", "paroli", "dalembert", "fibonacci",
    "labouchere", "oscars_grind", "one_three_two_six", "contra_dalembert",
    "reverse_labouchere", "parlay", "one_three_two_four", "percent", "kelly"))}


@dataclass(frozen=True)
class PartForm:
    """One built-in part (a selection or a staking plan) as the fused kernel plays it.

    ``code``: the part's entry in :data:`SELECTIONS` or :data:`STAKINGS`. ``params``: the
    numbers its Python form reads (booleans as 0/1, a bet kind as its index in
    ``engine.bets.BET_KINDS``), in the order its ``compiled_form`` lists them.
    """

    code: int
    params: tuple[float, ...] = ()


def declared_part_form(part: object) -> PartForm | None:
    """The compiled form of ``part`` if its own class declares one, else None (a plugin
    subclass of a built-in part is played by the replay, as for strategies)."""
    cls = type(part)
    if "compiled_form" not in vars(cls):
        return None
    form = part.compiled_form()  # type: ignore[attr-defined]
    return form if isinstance(form, PartForm) else None


def declared_form(strategy: object) -> CompiledForm | None:
    """The first wave's compiled form of ``strategy``, or None.

    A built-in system (a preset such as ``martingale``, or a ``System`` of built-in parts)
    whose selection is ``always`` on Banker, Player or Tie, whose staking plan is one of
    the first nine, and which brings no session rule of its own.
    """
    from .system import trusted_parts

    parts = trusted_parts(strategy)
    if parts is None or parts.rules:
        return None
    selection = declared_part_form(parts.selection)
    staking = declared_part_form(parts.staking)
    if selection is None or staking is None or selection.code != SELECTIONS["always"] \
            or staking.code > ONE_THREE_TWO_SIX:
        return None
    side = parts.selection.side  # type: ignore[attr-defined]
    if side not in COMPILED_SIDES:
        return None
    return CompiledForm(staking.code, side, staking.params)
