"""The fused backtest path: built-in staking systems settled in one compiled pass.

The configurations of a run that have a compiled form (``strategies/compiled.py``) skip
the replay's (sessions x steps) grids and its Python loop over the steps. When all of a
chunk's configurations have one and its shoes are generated, one kernel shuffles, burns
and deals each shoe and keeps only what settlement needs, the class of each coup
(``engine/bets.py``), never a coups table; otherwise the classes come from the chunk's
coups table (read from the file, or dealt once for these and the replayed ones). A
second kernel then plays every configuration session by session over those classes,
applying the table limits, the bankroll shortfall rule and the stop rules, and accumulates
the per-session metrics the sessions table holds.

"Change no result": every figure is the generic path's, bit for bit. The kernel performs
the floating-point operations of the replay in the same order (``_settle_kernel``,
``_stop_kernel``, ``_path_metrics``), and the session sums (net, wagered) reproduce
numpy's pairwise summation over the chunk's grid width (``_numpy_sum``), which is what
``ndarray.sum(axis=1)`` does on the replay's grids. ``tests/test_fused.py`` compares the
sessions tables of both paths.

It applies (``fused_plan``) with ``ledger=False`` and ``expected="auto"``, to each
configuration that is a built-in whose own class declares ``compiled_form`` staking on
banker, player or tie. Any rule variant, table limits, ``when_short`` stop or reduce, the
stop rules and ``session_shoes`` are covered. Anything else (a plugin, the simple form,
roads, cards, side bets) is replayed beside it; the ledger and exact pricing replay
everything, and so does a chunk in which a stake is refused (below the table minimum,
not finite, or a bet the dataset cannot settle): the replay then raises its own error,
naming the session and the coup.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from strategies.base import Strategy
from strategies.compiled import COMPILED_SIDES, LABOUCHERE, CompiledForm, declared_form
from strategies.staking.progressions import FIB as _FIB

from .bets import (
    BANKER_3CARD_7,
    BANKER_6,
    KIND_INDEX,
    N_PAIR_STATES,
    N_SPECIAL,
    NO_PAIR,
    PLAIN,
    PLAYER_3CARD_8,
    classify_coups,
    payout_table,
)
from .cards import VALUE_OF_CODE, full_deck_codes
from .coups import BANKER, PLAYER, TIE, Coups
from .deal import (
    _BURN_CODES,
    BURN_STANDARD,
    _burn_length,
    _deal_run,
    banker_draws,
    max_coups_per_shoe,
)
from .jit import njit
from .ledger import session_rows
from .metrics import session_columns
from .replay import END, STOP_REASONS, SessionPolicy, full_shoe_ev, session_start_rows
from .rules import TableRules
from .shoe import shuffle_with

assert STOP_REASONS.index("end") == END

#: 2**k as numpy's exp2 gives it (what the Martingale family and Paroli stake by).
with np.errstate(over="ignore"):  # 2**1024 and above: inf, as numpy stakes them
    _POW2 = np.exp2(np.arange(1100, dtype=np.float64))
_ONE_THREE_TWO_SIX = np.array([1.0, 3.0, 2.0, 6.0])


@dataclass(frozen=True)
class FusedPlan:
    """The compiled forms of a run's configurations that have one, laid out for the kernel:
    ``configs`` are their indices among the run's configurations (the others replay)."""

    forms: tuple[CompiledForm, ...]
    rules: tuple[TableRules, ...]
    configs: tuple[int, ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        """The bet kind of each configuration."""
        return tuple(form.side for form in self.forms)


def fused_plan(configs: Sequence[Strategy], rules: TableRules,
               config_rules: Sequence[TableRules] | None, *, ledger: bool,
               expected: str) -> FusedPlan | None:
    """The fused path's plan for the configurations it can play, or None when the generic
    replay must play them all (a ledger to write, exact pricing, no configuration with a
    compiled form). A configuration without a compiled form, or one that needs the roads
    or the cards, is left to the replay."""
    if ledger or expected != "auto" or not configs:
        return None
    each = tuple(config_rules) if config_rules is not None else (rules,) * len(configs)
    forms, kept = [], []
    for k, config in enumerate(configs):
        if config.needs_cards or config.needs_roads:
            continue
        form = declared_form(config)
        if form is not None:
            forms.append(form)
            kept.append(k)
    if not forms:
        return None
    return FusedPlan(tuple(forms), tuple(each[k] for k in kept), tuple(kept))


#: The ``SessionPolicy`` fields the kernel plays (a stake below the table minimum hands the
#: chunk back to the replay, so every ``below_min`` is the replay's; ``last_session`` is
#: settled before any chunk): a run setting another field is replayed.
KERNEL_POLICY = ("bankroll", "when_short", "stop_loss", "win_goal", "max_coups",
                 "session_shoes", "below_min", "last_session")


def covers_policy(policy: SessionPolicy) -> bool:
    """Whether the kernel plays every session rule ``policy`` sets."""
    default = SessionPolicy()
    return all(getattr(policy, f.name) == getattr(default, f.name)
               for f in dataclasses.fields(policy) if f.name not in KERNEL_POLICY)


@dataclass
class FusedChunk:
    """What the fused path made of one chunk: the sessions tables of the configurations it
    played (``configs``, indices among the run's), and the chunk's figures. ``coups`` is
    the chunk's coups table when the fused path had to read or deal it (the replay of the
    other configurations then reuses it)."""

    tables: list[pa.Table]
    n_coups: int
    sessions: int
    staked: list[str]
    configs: tuple[int, ...]
    coups: Coups | None = None


def run_generated(plan: FusedPlan, names: Sequence[str], rules: TableRules, seed: int,
                  shoe_ids: np.ndarray, policy: SessionPolicy,
                  first_session: int) -> FusedChunk | None:
    """Deal the generated shoes ``shoe_ids`` and play the plan's configurations over them;
    None when a stake is refused (the caller replays the chunk to say where). ``names``
    are the names of all the run's configurations."""
    ids = np.ascontiguousarray(shoe_ids, dtype=np.int64)
    classes, counts = deal_classes(rules, seed, ids)
    total = classes.size
    shoe_starts = np.zeros(ids.size + 1, dtype=np.int64)
    np.cumsum(counts, out=shoe_starts[1:])
    per = policy.session_shoes
    starts = shoe_starts[::per]
    if starts[-1] != total:
        starts = np.r_[starts, total]
    return _play(plan, names, classes[:total], starts, ids[::per], policy, first_session)


def deal_classes(rules: TableRules, seed: int,
                 shoe_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The main-bet class of every coup of the generated shoes ``shoe_ids`` (as
    ``engine.deal.generate_coups`` deals them) and the coups of each shoe."""
    ids = np.ascontiguousarray(shoe_ids, dtype=np.int64)
    classes = np.empty(ids.size * max_coups_per_shoe(52 * rules.decks), dtype=np.int16)
    counts = np.empty(ids.size, dtype=np.int64)
    total = _deal_classes(_value_template(rules.decks), np.uint64(seed), ids,
                          _BURN_CODES[rules.burn], rules.burn_count, rules.cut_card,
                          rules.extra_coup_after_cut, _coup_table(), classes, counts,
                          *_deal_work(52 * rules.decks))
    return classes[:total], counts


def _deal_work(n: int) -> tuple[np.ndarray, ...]:
    """``_deal_classes``'s working space for shoes of ``n`` cards: the shoes dealt side by
    side, the shuffle's scratch, the classes held back, the engine's dealer's buffers for
    a shoe's last coups, and the values 0-9 as their own codes."""
    return (np.empty((_LANES, n), dtype=np.int8), np.empty(n, dtype=np.uint64),
            np.empty((_LANES, n // 4 + 1), dtype=np.int16), np.empty((2, 6), dtype=np.int8),
            np.empty(2, dtype=np.int8), np.empty(2, dtype=np.int8), np.empty(2, dtype=np.int8),
            np.arange(10, dtype=np.int8))


def run_coups(plan: FusedPlan, names: Sequence[str], coups: Coups, policy: SessionPolicy,
              first_session: int) -> FusedChunk | None:
    """Play the plan's configurations over the sessions of a coups table (see
    ``run_generated``)."""
    n = len(coups)
    starts = session_start_rows(coups.shoe, policy.session_shoes)
    first_shoe = coups.shoe[starts]
    played = _play(plan, names, classify_coups(coups), np.r_[starts, n].astype(np.int64),
                   first_shoe, policy, first_session)
    if played is not None:
        played.coups = coups
    return played


#: The kernel's float and integer outputs per configuration and session.
_NET, _WAGERED, _MAX_STAKE = range(3)
_LIMIT_HITS, _RUINED, _RUIN_COUP, _STOP, _COUPS, _BETS = range(6)
#: Why a chunk goes back to the generic replay.
_REFUSED = 1


def _play(plan: FusedPlan, names: Sequence[str], classes: np.ndarray, starts: np.ndarray,
          first_shoe: np.ndarray, policy: SessionPolicy,
          first_session: int) -> FusedChunk | None:
    n_configs = len(plan.forms)
    n_sessions = starts.size - 1
    width = int(np.diff(starts).max())
    systems = np.array([f.system for f in plan.forms], dtype=np.int64)
    columns = np.array([KIND_INDEX[f.side] for f in plan.forms], dtype=np.int64)
    n_params = max(len(f.params) for f in plan.forms)
    params = np.zeros((n_configs, n_params))
    n_given = np.zeros(n_configs, dtype=np.int64)
    for c, form in enumerate(plan.forms):
        params[c, :len(form.params)] = form.params
        n_given[c] = len(form.params)
    tables = {r: _main_bet_payouts(r) for r in set(plan.rules)}
    payouts = np.ascontiguousarray(np.stack([tables[r] for r in plan.rules]))
    table_min = np.array([float(r.table_min) for r in plan.rules])
    table_max = np.array([float(r.table_max) for r in plan.rules])
    # The stop thresholds exactly as the replay computes them (_apply_stop_rules).
    broke_below = np.array([r.table_min - 1e-9 for r in plan.rules])
    loss_at = -policy.stop_loss + 1e-9 if policy.stop_loss is not None else -np.inf
    goal_at = policy.win_goal - 1e-9 if policy.win_goal is not None else np.inf
    max_coups = policy.max_coups if policy.max_coups is not None else -1
    floats = np.zeros((n_configs, 3, n_sessions))
    ints = np.zeros((n_configs, 6, n_sessions), dtype=np.int64)
    path = np.zeros((n_configs, n_sessions, 9))
    staked = np.zeros(n_configs, dtype=np.bool_)
    problem = _settle_sessions(
        classes, starts, width, systems, columns, params, n_given, _POW2, _FIB,
        _ONE_THREE_TWO_SIX, payouts, table_min, table_max, policy.when_short == "reduce",
        float(policy.bankroll), broke_below, loss_at, goal_at, max_coups, floats, ints, path,
        staked, np.zeros(width), np.zeros(width), np.zeros(n_params + width + 2, dtype=np.int64),
        np.empty((4, _SUM_DEPTH), dtype=np.int64), np.empty(_SUM_DEPTH))
    if problem:
        return None
    session_ids = first_session + np.arange(n_sessions, dtype=np.int64)
    start = float(policy.bankroll)
    out = []
    for c, (form, rules) in enumerate(zip(plan.forms, plan.rules, strict=True)):
        wagered = floats[c, _WAGERED]
        expected = np.zeros(n_sessions)
        if staked[c]:  # the replay prices only the kinds a configuration staked on
            expected += wagered * full_shoe_ev(rules)[form.side]
        metrics = session_columns(
            start=start, net=floats[c, _NET], wagered=wagered, expected=expected,
            path=path[c], bets=ints[c, _BETS], max_stake=floats[c, _MAX_STAKE],
            limit_hits=ints[c, _LIMIT_HITS], ruined=ints[c, _RUINED].astype(bool),
            ruin_coup=ints[c, _RUIN_COUP], stop_reason=ints[c, _STOP].astype(np.int8),
            coups=ints[c, _COUPS])
        by_kind = {kind: (wagered if kind == form.side and staked[c] else
                          np.zeros(n_sessions)) for kind in KIND_INDEX}
        k = plan.configs[c]
        out.append(session_rows(k, names[k], session_ids, first_shoe, metrics, by_kind))
    kinds = sorted({form.side for c, form in enumerate(plan.forms) if staked[c]},
                   key=list(KIND_INDEX).index)
    return FusedChunk(out, int(classes.size), n_sessions, kinds, plan.configs)


@functools.lru_cache(maxsize=64)
def _main_bet_payouts(rules: TableRules) -> np.ndarray:
    """The payout table's Banker, Player and Tie columns, checked not to depend on the pair
    states (what lets ``_main_bet_class`` leave them out)."""
    table = payout_table(rules)[:, :len(COMPILED_SIDES)]
    by_pairs = table.reshape(-1, N_PAIR_STATES * N_PAIR_STATES, len(COMPILED_SIDES))
    assert all(np.array_equal(by_pairs[:, 0], by_pairs[:, j], equal_nan=True)
               for j in range(1, by_pairs.shape[1]))
    return np.ascontiguousarray(table)  # cached: callers copy it (np.stack), never write it


@njit(cache=True, native=True)
def _deal_classes(template, seed, shoe_ids, burn_mode, burn_count, cut_from_end, extra_coup,
                  coups, out_classes, out_counts, cards, scratch, held, tail_cards, tail_pt,
                  tail_bt, tail_outcome, values):  # pragma: no cover - compiled
    """Shuffle, burn and deal each shoe, keeping only the class of each coup as the main
    bets see it (``_main_bet_class``); returns the coups dealt.

    ``template`` holds the card *values* of the engine's ordered shoe: Fisher-Yates moves
    positions whatever they hold, so ``shuffle_with`` lays out exactly the cards of the
    engine's shoe (``engine.deal.generate_coups``), seen by their values. Each coup is then
    dealt by one lookup, without a branch on the cards (``_coup_class``; the drawing rules
    branch on random cards, and a mispredicted branch per draw costs more than the deal),
    and four shoes at a time: where a coup starts depends on the one before, a chain of
    dependent loads that leaves the processor idle unless other shoes' chains run beside
    it (one shoe at a time costs three times as much per coup, two shoes one and a half
    times). The other shoes' classes wait in small buffers until the first one's are
    written; the shoes left over (fewer than four) are dealt one at a time. The arrays
    from ``cards`` on are its working space (``_deal_work``): it allocates nothing, and so
    runs as native code (``engine.native``).
    """
    n = template.shape[0]
    tail = _Tail(tail_cards, tail_pt, tail_bt, tail_outcome, values)
    cut = n - cut_from_end if cut_from_end >= 0 else n + 1
    extra_coups = 1 if extra_coup else 0
    k = 0
    n_shoes = shoe_ids.shape[0]
    whole = n_shoes - n_shoes % _LANES
    for s in range(0, whole, _LANES):
        for lane in range(_LANES):
            shuffle_with(template, cards[lane], seed, np.uint64(shoe_ids[s + lane]), scratch)
        a, b, c, d = cards[0], cards[1], cards[2], cards[3]
        hb, hc, hd = held[1], held[2], held[3]
        pa = _burn_length(a, n, tail.values, burn_mode, burn_count)
        pb = _burn_length(b, n, tail.values, burn_mode, burn_count)
        pc = _burn_length(c, n, tail.values, burn_mode, burn_count)
        pd = _burn_length(d, n, tail.values, burn_mode, burn_count)
        ea = eb = ec = ed = extra_coups
        start = k
        kb = kc = kd = 0
        # The four shoes a coup at a time while all four deal whole coups; the checks
        # come first, so that each shoe goes on in _deal_rest exactly where it stood.
        while (_deals_on(pa, n, cut, ea) & _deals_on(pb, n, cut, eb)
               & _deals_on(pc, n, cut, ec) & _deals_on(pd, n, cut, ed)):
            ea -= pa > cut
            eb -= pb > cut
            ec -= pc > cut
            ed -= pd > cut
            out_classes[k], pa = _coup_class(a, pa, coups)
            hb[kb], pb = _coup_class(b, pb, coups)
            hc[kc], pc = _coup_class(c, pc, coups)
            hd[kd], pd = _coup_class(d, pd, coups)
            k += 1
            kb += 1
            kc += 1
            kd += 1
        k = _deal_rest(a, pa, n, cut, ea, coups, tail, out_classes, k)
        kb = _deal_rest(b, pb, n, cut, eb, coups, tail, hb, kb)
        kc = _deal_rest(c, pc, n, cut, ec, coups, tail, hc, kc)
        kd = _deal_rest(d, pd, n, cut, ed, coups, tail, hd, kd)
        out_counts[s] = k - start
        for lane, (buffer, dealt) in enumerate(((hb, kb), (hc, kc), (hd, kd))):
            for j in range(dealt):
                out_classes[k + j] = buffer[j]
            out_counts[s + 1 + lane] = dealt
            k += dealt
    for s in range(whole, n_shoes):  # the shoes left over, one at a time
        shuffle_with(template, cards[0], seed, np.uint64(shoe_ids[s]), scratch)
        pos = _burn_length(cards[0], n, tail.values, burn_mode, burn_count)
        start = k
        k = _deal_rest(cards[0], pos, n, cut, extra_coups, coups, tail, out_classes, k)
        out_counts[s] = k - start
    return k


#: How many shoes ``_deal_classes`` deals side by side.
_LANES = 4


@njit(cache=True, inline="always")
def _deals_on(pos, n, cut, extra):  # pragma: no cover - compiled
    """Whether a shoe dealing from ``pos`` deals another whole coup (six cards left, and
    the cut card not out or an extra coup still owed): ``_deal_rest``'s first checks."""
    return (pos + 6 <= n) & ((pos <= cut) | (extra > 0))


#: The engine's dealer's buffers for a shoe's last coups, and the values as their own codes.
_Tail = collections.namedtuple("_Tail", "cards pt bt outcome values")


@njit(cache=True, inline="always")
def _coup_class(buf, pos, coups):  # pragma: no cover - compiled
    """The class of the coup dealt from ``buf[pos:pos + 6]`` (card values) and where the
    next coup starts, by one lookup in ``coups`` (``_coup_table``)."""
    p = np.int64(buf[pos]) + buf[pos + 2]
    b = np.int64(buf[pos + 1]) + buf[pos + 3]
    p -= 10 * (p >= 10)
    b -= 10 * (b >= 10)
    coup = coups[((p * 10 + b) * 10 + buf[pos + 4]) * 10 + buf[pos + 5]]
    return coup >> _ADVANCE_BITS, pos + (coup & _ADVANCE_MASK)


@njit(cache=True)
def _deal_rest(buf, pos, n, cut, extra, coups, tail, out, k):  # pragma: no cover - compiled
    """Deal the rest of one shoe from ``pos`` into ``out[k:]``; returns the new ``k``: whole
    coups by ``_coup_class``, the last ones (fewer than six cards left) by the engine's own
    dealer (``engine.deal._deal_run``)."""
    while pos + 6 <= n:
        if pos > cut:  # the cut card came out during the previous coup
            if extra == 0:
                return k
            extra -= 1
        out[k], pos = _coup_class(buf, pos, coups)
        k += 1
    dealt, _, _ = _deal_run(buf, pos, n, tail.values, cut, extra, 2, tail.cards, tail.pt,
                            tail.bt, tail.outcome, 0)
    for j in range(dealt):
        out[k] = _main_bet_class(tail.outcome[j], tail.pt[j], tail.bt[j], tail.cards[j, 2],
                                 tail.cards[j, 5])
        k += 1
    return k


@functools.lru_cache(maxsize=8)
def _value_template(decks: int) -> np.ndarray:
    """The values of the engine's ordered shoe of ``decks`` decks (``_deal_classes``)."""
    return np.ascontiguousarray(VALUE_OF_CODE[full_deck_codes(decks)])


#: A ``_coup_table`` entry: the coup's class, shifted, and the cards it takes (4 to 6).
_ADVANCE_BITS = 3
_ADVANCE_MASK = (1 << _ADVANCE_BITS) - 1


@functools.lru_cache(maxsize=1)
def _coup_table() -> np.ndarray:
    """Every coup by the drawing rules, for ``_deal_classes``: at index ((Player's two-card
    total * 10 + Banker's) * 10 + the fifth card's value) * 10 + the sixth's, the coup's
    class (``_main_bet_class``) << ``_ADVANCE_BITS`` | the cards it takes. Made from the
    engine's own rule (``engine.deal.banker_draws``); 20 kB, so it stays in the cache."""
    table = np.empty(10 ** 4, dtype=np.int16)
    for p in range(10):
        for b in range(10):
            natural = p >= 8 or b >= 8
            for fifth in range(10):
                player_draws = not natural and p <= 5
                third = fifth if player_draws else -1
                banker_draws_ = not natural and bool(banker_draws.py_func(b, third))
                pt = (p + fifth) % 10 if player_draws else p
                for sixth in range(10):
                    banker_card = sixth if player_draws else fifth
                    bt = (b + banker_card) % 10 if banker_draws_ else b
                    outcome = BANKER if bt > pt else (PLAYER if pt > bt else TIE)
                    klass = _main_bet_class.py_func(outcome, pt, bt,
                                                    0 if player_draws else -1,
                                                    0 if banker_draws_ else -1)
                    taken = 4 + player_draws + banker_draws_
                    table[((p * 10 + b) * 10 + fifth) * 10 + sixth] = \
                        klass << _ADVANCE_BITS | taken
    assert int(table.max()) < 2 ** 15
    return table


@njit(cache=True, inline="always")
def _main_bet_class(outcome, player_total, banker_total, player_third,
                    banker_third):  # pragma: no cover - compiled
    """The class (``engine.bets.classify_coups``) of a coup dealt with its cards, as far as
    Banker, Player and Tie care: both pair states read NO_PAIR, which changes none of their
    payouts (``_play`` checks that on the payout table). Written without branches: the
    outcome is random, and a mispredicted branch per coup costs more than the deal."""
    special = PLAIN
    special = BANKER_6 if (outcome == BANKER) & (banker_total == 6) else special
    special = BANKER_3CARD_7 if ((outcome == BANKER) & (banker_total == 7)
                                 & (banker_third >= 0)) else special
    special = PLAYER_3CARD_8 if ((outcome == PLAYER) & (player_total == 8)
                                 & (player_third >= 0)) else special
    return ((outcome * N_SPECIAL + special) * N_PAIR_STATES + NO_PAIR) * N_PAIR_STATES \
        + NO_PAIR


assert BURN_STANDARD == _BURN_CODES["standard"]


@njit(cache=True, inline="always")
def _block_sum(a, lo, n):  # pragma: no cover - compiled
    """numpy's pairwise sum of ``a[lo:lo + n]`` for n <= 128: sequential below 8 values,
    else eight interleaved partial sums combined pairwise, then the rest in order."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    end = n - n % 8
    while i < end:
        j = lo + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


def _numpy_sum(a: np.ndarray, n: int) -> float:
    """``a[:n].sum()`` exactly as numpy adds a contiguous row of float64
    (``_pairwise_sum`` with its working space)."""
    return float(_pairwise_sum(a, n, np.empty((4, _SUM_DEPTH), dtype=np.int64),
                               np.empty(_SUM_DEPTH)))


#: The deepest split ``_pairwise_sum`` walks (a row of 128 * 2**63 values).
_SUM_DEPTH = 64


@njit(cache=True)
def _pairwise_sum(a, n, stack, left):  # pragma: no cover - compiled
    """``a[:n].sum()`` exactly as numpy adds a contiguous row of float64.

    numpy sums blocks of at most 128 values (``_block_sum``) and, above that, splits the
    row in two halves (the first a multiple of 8 long) and adds their sums. The split is
    walked here with an explicit stack rather than recursion: ``stack`` (4 x
    ``_SUM_DEPTH`` integers) and ``left`` (``_SUM_DEPTH`` floats) are its space.
    """
    if n <= 128:
        return 0.0 + _block_sum(a, 0, n)
    los, ns, halves, stage = stack[0], stack[1], stack[2], stack[3]
    top = 0
    los[0] = 0
    ns[0] = n
    stage[0] = 0
    ret = 0.0
    returning = False
    while True:
        if returning:
            if top < 0:
                return 0.0 + ret
            if stage[top] == 1:  # the left half is summed: now the right half
                left[top] = ret
                stage[top] = 2
                top += 1
                los[top] = los[top - 1] + halves[top - 1]
                ns[top] = ns[top - 1] - halves[top - 1]
                stage[top] = 0
                returning = False
            else:
                ret = left[top] + ret
                top -= 1
            continue
        size = ns[top]
        if size <= 128:
            ret = _block_sum(a, los[top], size)
            top -= 1
            returning = True
            continue
        half = size // 2
        half -= half % 8
        halves[top] = half
        stage[top] = 1
        top += 1
        los[top] = los[top - 1]
        ns[top] = half
        stage[top] = 0


@njit(cache=True, native=True)
def _settle_sessions(classes, starts, width, systems, columns, params, n_given, pow2, fib,
                     one_three_two_six, payouts, table_min, table_max, reduce, start,
                     broke_below, loss_at, goal_at, max_coups, floats, ints, path,
                     staked, nets, stakes, line, stack, left):  # pragma: no cover - compiled
    """Play every configuration over every session; 0, or _REFUSED when a stake is refused.

    Per session and step, in the replay's order: the system's stake, the checks and the
    table limit, the bankroll shortfall (stop: busted; reduce: scaled), the settlement by
    the payout table, the bankroll, the path metrics, the system's move on a win or a loss,
    and the stop rules. A session that stops plays no more coups; the replay's grids hold
    zeros there, which the sums below take into account by adding over the grid width.
    ``nets`` and ``stakes`` (``width`` zeros), ``line`` (Labouchere's) and the sums'
    ``stack`` and ``left`` are its working space: it allocates nothing (native code).
    """
    n_configs = systems.shape[0]
    n_sessions = starts.shape[0] - 1
    for c in range(n_configs):
        system = systems[c]
        column = columns[c]
        base = params[c, 0]
        p1 = params[c, 1] if params.shape[1] > 1 else 0.0
        cap = int(p1)
        tmin = table_min[c]
        tmax = table_max[c]
        any_stake = False
        for s in range(n_sessions):
            lo = starts[s]
            length = starts[s + 1] - lo
            # The system's state: k (a count, a step, or an index), series (Oscar's Grind).
            k = 1 if system == 7 else 0
            series = 0
            line_lo = 0
            line_hi = 0
            if system == 6:
                line_hi = n_given[c] - 1
                for j in range(line_hi):
                    line[j] = int(params[c, 1 + j])
            bankroll = start
            peak = start
            trough = start
            max_dd = 0.0
            max_dd_pct = 0.0
            win_run = 0
            lose_run = 0
            best_win = 0
            best_lose = 0
            wins = 0
            losses = 0
            pushes = 0
            limit_hits = 0
            bets = 0
            stop = 0
            ruined = 0
            ruin_coup = -1
            coup = 0
            played = 0
            for t in range(length):
                # --- the stake (the Python form's wager)
                if system == 0:
                    stake = base
                elif system == 1:
                    stake = base * pow2[min(k, pow2.shape[0] - 1)]
                elif system == 2:
                    stake = base * (pow2[min(k + 1, pow2.shape[0] - 1)] - 1.0)
                elif system == 3:
                    stake = base * pow2[min(k, pow2.shape[0] - 1)]
                elif system == 4:
                    stake = base + p1 * k
                elif system == 5:
                    stake = base * fib[min(k, fib.shape[0] - 1)]
                elif system == 6:
                    units = line[line_lo]
                    if line_hi - line_lo != 1:
                        units = units + line[line_hi - 1]
                    stake = base * float(units)
                elif system == 7:
                    stake = base * float(k)
                else:
                    stake = base * one_three_two_six[k]
                # --- the table rules (_settle_kernel)
                if not (np.isfinite(stake) and stake >= 0):
                    return 1
                if stake > tmax:
                    limit_hits += 1
                    stake = tmax
                if stake > 0 and stake < tmin - 1e-12:
                    return 1
                total = 0.0 + stake
                if total > bankroll + 1e-9:
                    small = True
                    if reduce:
                        scale = bankroll / (total if total > 0 else 1.0)
                        small = False
                        stake = stake * scale
                        if stake > 0 and stake < tmin - 1e-12:
                            small = True
                        total = total * scale
                    if small:
                        stop = 5  # busted: the session ends before this coup
                        break
                net = 0.0
                if stake > 0:
                    mult = payouts[c, classes[lo + t], column]
                    if np.isnan(mult):
                        return 1
                    net += stake * mult
                    any_stake = True
                bankroll = bankroll + net
                nets[t] = net
                stakes[t] = stake
                played += 1
                coup += 1
                # --- the path metrics (_path_metrics), written as selects: the outcome
                # of a coup is random, and a mispredicted branch costs more than the work
                peak = max(peak, bankroll)
                trough = min(trough, bankroll)
                dd = peak - bankroll
                max_dd = max(max_dd, dd)
                max_dd_pct = max(max_dd_pct, dd / peak if peak > 0 else 0.0)
                won = (total > 0) & (net > 0)
                lost = (total > 0) & (net < 0)
                # The moves below weigh each case by these 0/1 integers rather than choose
                # one by a conditional: numba compiles those as branches, which the random
                # outcome mispredicts half the time (a third of the kernel's time).
                win = np.int64(won)
                loss = np.int64(lost)
                same = 1 - win - loss  # neither: a push, or no stake
                if stake > 0:
                    bets += 1
                    wins += won
                    losses += lost
                    pushes += same  # a push neither extends nor breaks a streak
                    win_run = (win_run + 1) * win + win_run * same
                    lose_run = (lose_run + 1) * loss + lose_run * same
                    best_win = max(best_win, win_run)
                    best_lose = max(best_lose, lose_run)
                # --- the system's move (the Python form's settle); neither won nor lost
                # (a push, or no stake) leaves every system where it is
                if system == 1 or system == 2:
                    raised = 0 if (cap >= 0) & (k >= cap) else k + 1
                    k = raised * loss + k * same
                elif system == 3:
                    up = 0 if k + 1 >= cap else k + 1
                    k = up * win + k * same
                elif system == 4:
                    k = max(k - 1, 0) * win + (k + 1) * loss + k * same
                elif system == 5:
                    k = max(k - 2, 0) * win + (k + 1) * loss + k * same
                elif system == 6:
                    if won or lost:
                        units = line[line_lo]
                        if line_hi - line_lo != 1:
                            units = units + line[line_hi - 1]
                        if won:
                            line_lo += 1
                            line_hi -= 1
                            if line_hi <= line_lo:  # the line is won: a new cycle
                                line_lo = 0
                                line_hi = n_given[c] - 1
                                for j in range(line_hi):
                                    line[j] = int(params[c, 1 + j])
                        else:
                            if line_hi >= line.shape[0]:
                                return 1
                            line[line_hi] = units
                            line_hi += 1
                elif system == 7:
                    moved = series + k * win - k * loss
                    done = win * np.int64(moved >= 1)  # the series is won: a new one
                    k = done + (1 - done) * (min(k + 1, 1 - moved) * win + k * (1 - win))
                    series = (1 - done) * moved
                elif system == 8:
                    k = ((k + 1) % 4) * win + k * same
                # --- the stop rules (_stop_kernel), in their order
                result = bankroll - start
                if bankroll < broke_below[c]:
                    stop = 1
                    ruined = 1
                    ruin_coup = coup
                    break
                elif result <= loss_at:
                    stop = 2
                    break
                elif result >= goal_at:
                    stop = 3
                    break
                elif max_coups >= 0 and coup >= max_coups:
                    stop = 4
                    break
            floats[c, 0, s] = _pairwise_sum(nets, width, stack, left)
            floats[c, 1, s] = _pairwise_sum(stakes, width, stack, left)
            top = 0.0
            for t in range(played):
                top = max(top, stakes[t])
            floats[c, 2, s] = top
            for t in range(played):  # the buffers hold zeros past the coups played
                nets[t] = 0.0
                stakes[t] = 0.0
            ints[c, 0, s] = limit_hits
            ints[c, 1, s] = ruined
            ints[c, 2, s] = ruin_coup
            ints[c, 3, s] = stop
            ints[c, 4, s] = played
            ints[c, 5, s] = bets
            path[c, s, 0] = peak
            path[c, s, 1] = trough
            path[c, s, 2] = max_dd
            path[c, s, 3] = max_dd_pct
            path[c, s, 4] = best_win
            path[c, s, 5] = best_lose
            path[c, s, 6] = wins
            path[c, s, 7] = losses
            path[c, s, 8] = pushes
        staked[c] = any_stake
    return 0


assert LABOUCHERE == 6
