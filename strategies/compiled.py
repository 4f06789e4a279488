"""Compiled forms of the built-in parts: what the fused backtest path runs.

The parts of a system (``strategies/parts.py``) declare their compiled form: a built-in
selection or staking plan returns a :class:`PartForm` from ``compiled_form()``, naming
itself by a code of :data:`SELECTIONS` or :data:`STAKINGS` and giving the numbers its
Python form reads, in the order the part's ``compiled_form`` lists them. Session rules
need no form: the fused kernel reads the configuration's ``SessionPolicy``
(``baccarat.replay.config_policy``). The Python form (``start``/``choose``/``stakes``/
``settle``) stays the reference: the fused kernel reproduces it bit for bit, and the
tests compare the two. Only a class that declares ``compiled_form`` itself is trusted
with it; a subclass that does not declare its own (a plugin that changes how a
Martingale stakes, say) is played by the generic replay. ``engine/fused_play.py`` reads
the forms, by the codes named here (``SEL_*``, ``STK_*``: each read from the tables by
the part's name): it plays every part of these tables (of the count triggers, only the
published counts: ``baccarat.fused``).
"""

from __future__ import annotations

from dataclasses import dataclass

#: The built-in selections, by part name.
SELECTIONS = {name: code for code, name in enumerate((
    "always", "follow", "chop", "streak", "ping_pong", "pattern", "skip_first",
    "after_ties", "road", "count"))}

#: The built-in staking plans, by part name.
STAKINGS = {name: code for code, name in enumerate((
    "flat", "martingale", "grand_martingale", "paroli", "dalembert", "fibonacci",
    "labouchere", "oscars_grind", "one_three_two_six", "contra_dalembert",
    "reverse_labouchere", "parlay", "one_three_two_four", "percent", "kelly"))}

#: Each part's code, by its name, as the play kernel branches on them.
SEL_ALWAYS = SELECTIONS["always"]
SEL_FOLLOW = SELECTIONS["follow"]
SEL_CHOP = SELECTIONS["chop"]
SEL_STREAK = SELECTIONS["streak"]
SEL_PING_PONG = SELECTIONS["ping_pong"]
SEL_PATTERN = SELECTIONS["pattern"]
SEL_SKIP_FIRST = SELECTIONS["skip_first"]
SEL_AFTER_TIES = SELECTIONS["after_ties"]
SEL_ROAD = SELECTIONS["road"]
SEL_COUNT = SELECTIONS["count"]
STK_FLAT = STAKINGS["flat"]
STK_MARTINGALE = STAKINGS["martingale"]
STK_GRAND_MARTINGALE = STAKINGS["grand_martingale"]
STK_PAROLI = STAKINGS["paroli"]
STK_DALEMBERT = STAKINGS["dalembert"]
STK_FIBONACCI = STAKINGS["fibonacci"]
STK_LABOUCHERE = STAKINGS["labouchere"]
STK_OSCARS_GRIND = STAKINGS["oscars_grind"]
STK_1326 = STAKINGS["one_three_two_six"]
STK_CONTRA_DALEMBERT = STAKINGS["contra_dalembert"]
STK_REVERSE_LABOUCHERE = STAKINGS["reverse_labouchere"]
STK_PARLAY = STAKINGS["parlay"]
STK_1324 = STAKINGS["one_three_two_four"]
STK_PERCENT = STAKINGS["percent"]
STK_KELLY = STAKINGS["kelly"]


@dataclass(frozen=True)
class PartForm:
    """One built-in part (a selection or a staking plan) as the fused kernel plays it.

    ``code``: the part's entry in :data:`SELECTIONS` or :data:`STAKINGS`. ``params``: the
    numbers its Python form reads (booleans as 0/1, a bet kind as its index in
    ``baccarat.bets.BET_KINDS``), in the order its ``compiled_form`` lists them.
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
