"""Session rules as parts of a system: when to stop, written in the SPEC.

``stop:win=50,loss=200,per=shoe`` sets, for its configuration only, stop rules the engine
applies after every coup (fields of :class:`baccarat.replay.SessionPolicy`, the same the
``backtest`` flags set for every configuration of a run). ``per=session`` (the default)
ends the session; ``per=shoe`` ends play in the current shoe only, and the session goes
on at its next shoe (with one shoe per session, the same thing). Several ``stop`` parts
may be joined (``stop:win=50,per=shoe | stop:loss=500``); a rule set twice is refused.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from .parts import SessionRule, register_part
from .staking.progressions import NoneWord

#: Each ``stop`` field and the SessionPolicy field it sets, per session and per shoe.
STOP_FIELDS = {
    "win": ("win_goal", "shoe_win_goal"),
    "loss": ("stop_loss", "shoe_stop_loss"),
    "trailing": ("trailing_stop", "shoe_trailing_stop"),
    "losses": ("losses_in_row", "shoe_losses_in_row"),
    "coups": ("max_coups", "shoe_max_coups"),
}


@register_part
class Stop(SessionRule):
    """Stop at a win goal, a loss limit, a trailing stop, n losses in a row or n coups.

    Ends the session (``per=session``) or play in the current shoe (``per=shoe``) once it
    is ``win`` ahead, ``loss`` behind, ``trailing`` below the highest bankroll it reached,
    after ``losses`` losing bets in a row (a push or a coup without a bet neither counts
    nor breaks the run), or after ``coups`` coups. Each is off unless given.
    """

    name: ClassVar[str] = "stop"

    win: Annotated[float | None, NoneWord] = Field(None, gt=0, description="stop once this "
                                                   "much ahead")
    loss: Annotated[float | None, NoneWord] = Field(None, gt=0, description="stop once this "
                                                    "much behind")
    trailing: Annotated[float | None, NoneWord] = Field(
        None, gt=0, description="stop once the bankroll is this far below its highest")
    losses: Annotated[int | None, NoneWord] = Field(None, ge=1, description="stop after this "
                                                    "many losing bets in a row")
    coups: Annotated[int | None, NoneWord] = Field(None, ge=1, description="stop after this "
                                                   "many coups")
    per: Literal["session", "shoe"] = Field("session", description="session: end the "
                                            "session; shoe: sit out the rest of the shoe")

    def policy(self) -> dict[str, Any]:
        scope = 0 if self.per == "session" else 1
        return {fields[scope]: getattr(self, name) for name, fields in STOP_FIELDS.items()
                if getattr(self, name) is not None}


__all__ = ["STOP_FIELDS", "Stop"]
