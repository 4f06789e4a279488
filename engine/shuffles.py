"""Shoes from real shuffles: riffled discards and continuous shuffling machines.

``generate --shuffle MODEL`` deals shoes from one of these models instead of a perfect
(uniform) shuffle:

- ``uniform``: every order equally likely (Fisher-Yates, :mod:`baccarat.shoe`); the default.
- ``riffle:K`` (``riffle:K:strip``, ``riffle:K:cut``, ``riffle:K:strip:cut``): shoes come in
  tables of ``table_shoes`` consecutive shoes. The first shoe of a table is shuffled
  uniformly; each next shoe is the previous shoe's cards in discard order (the burn, the
  coups' cards in the order dealt, then the cards behind the cut card: the previous shoe's
  own order) after K Gilbert-Shannon-Reeds riffles, then optionally a strip (packets of 1
  to a fifth of the cards peeled off the top, which reverses their order) and a cut
  (the deck split at a uniform point of its middle half, the halves swapped).
- ``csm``: a continuous shuffling machine. A "shoe" is ``coups_per_shoe`` coups; it starts
  from a uniform shuffle, and after each coup its cards go back into the machine, each at a
  uniformly random place among the cards in it. No burn and no cut card.

Every shoe stays a pure function of (seed, table, shoe): shoe id ``s`` is shoe
``s % table_shoes`` of table ``s // table_shoes``, and a chunk that starts inside a table
shuffles the table's earlier shoes again (the riffles alone, no dealing) to get its cards.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from .cards import NO_CARD, VALUE_OF_CODE, full_deck_codes
from .coups import Coups
from .deal import _BURN_CODES as BURN_CODES
from .deal import _allocate, _deal_run, _deal_shoe, _trim, max_coups_per_shoe
from .errors import BaccaratError
from .jit import njit
from .rules import TableRules
from .shoe import _mix64, _next_bounded, shoe_stream_state, shuffle_into

#: Salt of the stream a CSM draws its insertion places from (not the shuffle's stream).
_CSM_SALT = np.uint64(0x5DEECE66D1CE4E5B)
DEFAULT_TABLE_SHOES = 8
DEFAULT_CSM_COUPS = 80


class ShuffleError(BaccaratError):
    """A shuffle model that is not one."""


@dataclass(frozen=True)
class ShuffleModel:
    """How the shoes are shuffled: the model and its parameters (stored in the metadata)."""

    kind: Literal["uniform", "riffle", "csm"] = "uniform"
    riffles: int = 0
    strip: bool = False
    cut: bool = False
    table_shoes: int = 1
    coups_per_shoe: int | None = None

    @property
    def spec(self) -> str:
        """The model as ``--shuffle`` spells it."""
        if self.kind != "riffle":
            return self.kind
        return ":".join(["riffle", str(self.riffles)] + ["strip"] * self.strip
                        + ["cut"] * self.cut)

    def to_dict(self) -> dict[str, Any]:
        """The model and its parameters, for a dataset's metadata and a run's run.json."""
        return {"model": self.spec, **asdict(self)}


def parse_shuffle(spec: str, table_shoes: int | None = None,
                  coups_per_shoe: int | None = None) -> ShuffleModel:
    """The model named by ``--shuffle`` (with ``--table-shoes`` / ``--coups-per-shoe``)."""
    text = spec.strip().lower()
    parts = text.split(":")
    if parts[0] == "uniform" and len(parts) == 1:
        model = ShuffleModel()
    elif parts[0] == "csm" and len(parts) == 1:
        coups = DEFAULT_CSM_COUPS if coups_per_shoe is None else coups_per_shoe
        if coups < 1:
            raise ShuffleError(f"coups_per_shoe must be at least 1, got {coups}",
                               params=("coups_per_shoe",))
        model = ShuffleModel(kind="csm", coups_per_shoe=coups)
    elif parts[0] == "riffle" and len(parts) >= 2 and parts[1].isdigit():
        extras = parts[2:]
        unknown = [p for p in extras if p not in ("strip", "cut")]
        if unknown or len(set(extras)) != len(extras):
            raise ShuffleError(f"shuffle {spec!r}: after riffle:K come only 'strip' and "
                               "'cut', once each (riffle:3:strip:cut)", params=("shuffle",))
        riffles = int(parts[1])
        if not 1 <= riffles <= 20:
            raise ShuffleError(f"shuffle {spec!r}: K riffles must be 1 to 20", params=("shuffle",))
        shoes = DEFAULT_TABLE_SHOES if table_shoes is None else table_shoes
        if shoes < 1:
            raise ShuffleError(f"table_shoes must be at least 1, got {shoes}",
                               params=("table_shoes",))
        model = ShuffleModel(kind="riffle", riffles=riffles, strip="strip" in extras,
                             cut="cut" in extras, table_shoes=shoes)
    else:
        raise ShuffleError(f"shuffle {spec!r}: no such model; use uniform, "
                           "riffle:K (riffle:K:strip, riffle:K:cut, riffle:K:strip:cut) or csm",
                           params=("shuffle",))
    if table_shoes is not None and model.kind != "riffle":
        raise ShuffleError("table_shoes chains shoes of a riffle model (shuffle riffle:K)",
                           params=("table_shoes", "shuffle"))
    if coups_per_shoe is not None and model.kind != "csm":
        raise ShuffleError("coups_per_shoe sets the coups of a csm shoe (shuffle csm)",
                           params=("coups_per_shoe", "shuffle"))
    return model


# --- The shuffles, compiled ---------------------------------------------------------------


@njit(cache=True)
def riffle_once(deck: np.ndarray, buf: np.ndarray, state: np.ndarray) -> None:
    """One Gilbert-Shannon-Reeds riffle of ``deck`` in place (``buf``: scratch, same size).

    The cut takes a Binomial(n, 1/2) number of cards off the top; the packets are then
    interleaved dropping each card from a packet with probability proportional to its size.
    """
    n = deck.shape[0]
    top = 0
    for _ in range(n):
        top += int(_next_bounded(state, np.uint64(2)))
    left = top
    right = n - top
    i = 0
    j = top
    for k in range(n):
        if int(_next_bounded(state, np.uint64(left + right))) < left:
            buf[k] = deck[i]
            i += 1
            left -= 1
        else:
            buf[k] = deck[j]
            j += 1
            right -= 1
    for k in range(n):
        deck[k] = buf[k]


@njit(cache=True)
def strip_once(deck: np.ndarray, buf: np.ndarray, state: np.ndarray) -> None:
    """Strip: packets of 1 to n/5 cards peeled off the top onto a pile (their order reversed)."""
    n = deck.shape[0]
    largest = max(1, n // 5)
    taken = 0
    while taken < n:
        size = min(n - taken, 1 + int(_next_bounded(state, np.uint64(largest))))
        # the packet deck[taken:taken+size] lands on top of the pile built so far
        for k in range(size):
            buf[n - taken - size + k] = deck[taken + k]
        taken += size
    for k in range(n):
        deck[k] = buf[k]


@njit(cache=True)
def cut_once(deck: np.ndarray, buf: np.ndarray, state: np.ndarray) -> None:
    """Cut: split at a uniform point of the middle half and put the bottom part on top."""
    n = deck.shape[0]
    at = n // 4 + int(_next_bounded(state, np.uint64(max(1, n // 2))))
    for k in range(n):
        buf[k] = deck[(at + k) % n]
    for k in range(n):
        deck[k] = buf[k]


@njit(cache=True)
def reshuffle(deck, buf, seed, shoe_id, riffles, strip, cut):
    """The shuffle of a riffle table's next shoe ``shoe_id``: K riffles, strip, cut."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = shoe_stream_state(seed, np.uint64(shoe_id))
    for _ in range(riffles):
        riffle_once(deck, buf, state)
    if strip:
        strip_once(deck, buf, state)
    if cut:
        cut_once(deck, buf, state)


@njit(cache=True)
def _riffle_kernel(template, seed, shoe_ids, table_shoes, riffles, strip, cut, values,
                   burn_mode, burn_count, cut_from_end, extra_coup, out_cards, out_pt, out_bt,
                   out_outcome, out_shoe, out_coup, out_burn_shown, out_counts):
    n = template.shape[0]
    deck = np.empty(n, dtype=np.int8)
    buf = np.empty(n, dtype=np.int8)
    last = -2
    k = 0
    for s in range(shoe_ids.shape[0]):
        sid = shoe_ids[s]
        first = sid - sid % table_shoes
        if sid != last + 1 or sid == first:
            # Start the table over: its first shoe, then every shoe up to this one.
            shuffle_into(template, deck, seed, np.uint64(first))
            for j in range(first + 1, sid + 1):
                reshuffle(deck, buf, seed, j, riffles, strip, cut)
        else:
            # The discard order of shoe sid - 1 is its own order: riffle it.
            reshuffle(deck, buf, seed, sid, riffles, strip, cut)
        last = sid
        out_burn_shown[s] = deck[0] if burn_mode == 1 else NO_CARD
        dealt, _ = _deal_shoe(deck, n, values, burn_mode, burn_count, cut_from_end, extra_coup,
                              out_cards, out_pt, out_bt, out_outcome, k)
        for j in range(dealt):
            out_shoe[k + j] = sid
            out_coup[k + j] = j + 1
        out_counts[s] = dealt
        k += dealt
    return k


@njit(cache=True)
def _csm_kernel(template, seed, shoe_ids, coups_per_shoe, values, out_cards, out_pt, out_bt,
                out_outcome, out_shoe, out_coup, out_counts):
    n = template.shape[0]
    deck = np.empty(n, dtype=np.int8)
    dealt_cards = np.empty(8, dtype=np.int8)
    state = np.empty(1, dtype=np.uint64)
    k = 0
    for s in range(shoe_ids.shape[0]):
        sid = np.uint64(shoe_ids[s])
        shuffle_into(template, deck, seed, sid)
        state[0] = _mix64(shoe_stream_state(seed, sid) ^ _CSM_SALT)
        for c in range(coups_per_shoe):
            _, used, _ = _deal_run(deck, 0, n, values, n + 1, 0, 1,
                                   out_cards, out_pt, out_bt, out_outcome, k)
            for i in range(used):
                dealt_cards[i] = deck[i]
            for i in range(n - used):
                deck[i] = deck[i + used]
            size = n - used
            for i in range(used):  # each card back at a uniform place among those in
                at = int(_next_bounded(state, np.uint64(size + 1)))
                for m in range(size, at, -1):
                    deck[m] = deck[m - 1]
                deck[at] = dealt_cards[i]
                size += 1
            out_shoe[k] = shoe_ids[s]
            out_coup[k] = c + 1
            k += 1
        out_counts[s] = coups_per_shoe
    return k


def generate_model_coups(rules: TableRules, seed: int, shoe_ids: np.ndarray,
                         model: ShuffleModel) -> Coups:
    """Shuffle by ``model`` and deal the shoes ``shoe_ids`` under ``rules`` into coups.

    ``uniform`` is :func:`baccarat.deal.generate_coups` itself, so its output is unchanged.
    """
    from .deal import generate_coups

    if model.kind == "uniform":
        return generate_coups(rules, seed, shoe_ids)
    ids = np.ascontiguousarray(shoe_ids, dtype=np.int64)
    if ids.size and ids.min() < 0:
        raise ValueError("shoe ids must be non-negative")
    template = full_deck_codes(rules.decks)
    per_shoe = (model.coups_per_shoe or 0) if model.kind == "csm" \
        else max_coups_per_shoe(template.size)
    columns = _allocate(max(ids.size * per_shoe, 1))
    cards, pt, bt, outcome, shoe, coup = columns
    counts = np.empty(ids.size, dtype=np.int64)
    burn_shown = np.full(ids.size, NO_CARD, dtype=np.int8)
    if model.kind == "riffle":
        rows = _riffle_kernel(
            template, np.uint64(seed), ids, model.table_shoes, model.riffles, model.strip,
            model.cut, VALUE_OF_CODE, BURN_CODES[rules.burn], rules.burn_count,
            rules.cut_card, rules.extra_coup_after_cut, cards, pt, bt, outcome, shoe, coup,
            burn_shown, counts)
    else:
        rows = _csm_kernel(template, np.uint64(seed), ids, per_shoe, VALUE_OF_CODE, cards, pt,
                           bt, outcome, shoe, coup, counts)
    cards, pt, bt, outcome, shoe, coup = _trim(columns, rows)
    return Coups(shoe=shoe, coup=coup, cards=cards, player_total=pt, banker_total=bt,
                 outcome=outcome, burn_shown=np.repeat(burn_shown, counts))


def rising_sequences(order: np.ndarray) -> int:
    """Rising sequences of a permutation of 0..n-1 (maximal runs of consecutive values
    appearing in increasing positions): a card starts a new one when the card labelled one
    less comes after it. K GSR riffles leave at most 2**K of them.
    """
    position = np.empty(order.size, dtype=np.int64)
    position[order] = np.arange(order.size)
    return 1 + int((position[1:] < position[:-1]).sum())


__all__ = ["DEFAULT_CSM_COUPS", "DEFAULT_TABLE_SHOES", "ShuffleError", "ShuffleModel",
           "generate_model_coups", "parse_shuffle", "riffle_once", "rising_sequences"]
