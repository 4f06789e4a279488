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
the forms; ``baccarat.fused.PLAYED_SELECTIONS`` and ``PLAYED_STAKINGS`` say which it plays
(the count triggers and Kelly, which price bets from the cards left, are replayed).
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
