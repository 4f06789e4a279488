"""The fused backtest path: built-in systems played in compiled passes, no replay.

The configurations of a run that are built-in systems (a selection, a staking plan and
session rules, each part declaring its compiled form: ``strategies/compiled.py``) skip
the replay's (sessions x steps) grids and its Python loop over the steps. When all of a
chunk's configurations are such systems and its shoes are generated, one kernel
shuffles, burns and deals each shoe and keeps only what settlement needs, the class of
each coup (``engine/bets.py``), never a coups table; otherwise the classes come from the
chunk's coups table (read from the file, or dealt once for these and the replayed ones).
The road followers read what the derived roads show before each coup, found once per
chunk (``road_features``). The play kernel (``engine/fused_play.py``) then plays every
configuration session by session over those classes: each selection's choice, each
staking plan's stake, the table's rules (chips, limits, the minimum, the shortfall) and
every session rule, per session and per shoe, and accumulates the per-session metrics
the sessions table holds.

"Change no result": every figure is the replay's, bit for bit. The kernel performs the
floating-point operations of the replay in the same order (the table and session rules
are ``baccarat.session_play``'s, the replay's own) and writes the replay's grids of
stakes and nets, which the session sums are computed from as the replay's are
(``baccarat.metrics.grid_sums``). ``tests/play/test_fused.py`` compares the sessions tables of
both paths, for every part and for combinations a property test draws.

It applies (``fused_plan``) with ``ledger=False`` and ``expected="auto"`` to each
configuration that is exactly a built-in composition (``baccarat.strategies.system.trusted_parts``)
of the parts the kernel plays (every part of ``strategies/compiled.py``'s tables but
the count triggers that estimate or enumerate an EV, ``count:method=exact|true_count``;
the published Dragon 7 and Panda 8 counts and Kelly read the cards seen, from
``card_counts``, Kelly's EVs enumerated once per chunk for the coups it may bet). Any
rule variant, table limits and every field of ``SessionPolicy`` are covered, and with
the ledger the kernel keeps each configuration's grids for ``baccarat.ledger``'s rows.
Anything else (a plugin, a part of one, those two count methods) is replayed beside it;
exact pricing replays everything, and so does a chunk in which a stake is refused (not a
finite number, or a bet the dataset cannot settle): the replay then raises its own
error, naming the session and the coup.
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .bets import (
    BANKER_3CARD_7,
    BANKER_6,
    BET_KINDS,
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
from .fused_play import (
    COUNT_METHODS,
    CYCLES,
    I_BETS,
    I_COUPS,
    I_LIMIT_HITS,
    I_RUIN_COUP,
    I_RUINED,
    I_SHOE_STOPS,
    I_STOP,
    MIN_CARDS,
    N_INTS,
    NO_BET,
    play_systems,
)
from .jit import njit
from .ledger import session_rows
from .metrics import grid_sums, session_columns
from .odds import bets_offered
from .replay import (
    ConfigLedger,
    SessionGrid,
    SessionPolicy,
    config_policy,
    full_shoe_ev,
    session_grid,
    session_start_rows,
)
from .roads import BLUE, RED
from .rules import TableRules
from .session_play import N_PATH, policy_row
from .shoe import shuffle_with
from .strategies.base import Strategy
from .strategies.compiled import (
    SEL_AFTER_TIES,
    SEL_COUNT,
    SEL_PATTERN,
    SEL_ROAD,
    STK_KELLY,
    PartForm,
    declared_part_form,
)
from .strategies.kinds import win_payout
from .strategies.staking.progressions import FIB as _FIB

#: 2**k as numpy's exp2 gives it (what the Martingale family and Paroli stake by).
with np.errstate(over="ignore"):  # 2**1024 and above: inf, as numpy stakes them
    _POW2 = np.exp2(np.arange(1100, dtype=np.float64))

#: The most cells of (sessions x steps) grids the play kernel writes at once: its
#: configurations are played a few at a time within this.
_GRID_CELLS = 4_000_000

#: The published counts the kernel keeps (``Count.compiled_form``'s methods from
#: ``COUNT_METHODS`` on), and their tags by card value.
PUBLISHED = ("dragon7", "panda8")


@dataclass(frozen=True)
class SystemForm:
    """One configuration as the play kernel reads it: its selection's and staking plan's
    compiled forms, the bet kinds its selection may choose (in its own order, the order
    the replay meets them in a step), its session policy and its table rules."""

    selection: PartForm
    staking: PartForm
    kinds: tuple[str, ...]
    policy: SessionPolicy
    rules: TableRules
    config: Strategy

    @property
    def reads_cards(self) -> bool:
        """Whether it reads the cards seen (a count, Kelly), so that the replay prices its
        stakes from the cards left, not the full shoe."""
        return self.selection.code == SEL_COUNT or self.staking.code == STK_KELLY


@dataclass(frozen=True)
class FusedPlan:
    """The compiled forms of a run's configurations that have one, laid out for the kernel:
    ``configs`` are their indices among the run's configurations (the others replay)."""

    systems: tuple[SystemForm, ...]
    configs: tuple[int, ...]
    ledger: bool = False  # keep every coup played, for the ledger's rows

    @property
    def rules(self) -> tuple[TableRules, ...]:
        """The table rules of each configuration."""
        return tuple(system.rules for system in self.systems)

    @property
    def needs_roads(self) -> bool:
        """Whether a road follower reads the derived roads."""
        return any(system.selection.code == SEL_ROAD for system in self.systems)

    @property
    def needs_cards(self) -> bool:
        """Whether a count or Kelly reads the cards seen (the coups table must hold them)."""
        return any(system.reads_cards for system in self.systems)

    @property
    def needs_pairs(self) -> bool:
        """Whether a configuration may stake a bet whose payout reads the pair states,
        which the dealer of generated shoes does not keep (``deal_classes``)."""
        return any(not _pairs_ignored(system.rules, kind) for system in self.systems
                   for kind in system.kinds)


def fused_plan(configs: Sequence[Strategy], rules: TableRules,
               config_rules: Sequence[TableRules] | None, *, ledger: bool,
               expected: str, policy: SessionPolicy | None = None) -> FusedPlan | None:
    """The fused path's plan for the configurations it can play, or None when the generic
    replay must play them all (a ledger to write, exact pricing, no configuration it can
    play). A configuration that is not a built-in system of parts the kernel plays (a
    plugin, a part of one, a count trigger other than the published counts) is left to
    the replay."""
    if expected != "auto" or not configs:
        return None
    each = tuple(config_rules) if config_rules is not None else (rules,) * len(configs)
    systems, kept = [], []
    for k, config in enumerate(configs):
        system = system_form(config, each[k], policy or SessionPolicy())
        if system is not None:
            systems.append(system)
            kept.append(k)
    if not systems:
        return None
    return FusedPlan(tuple(systems), tuple(kept), ledger)


def system_form(config: Strategy, rules: TableRules,
                policy: SessionPolicy) -> SystemForm | None:
    """``config`` as the play kernel reads it, or None when the replay must play it."""
    from .strategies.system import trusted_parts

    parts = trusted_parts(config)
    if parts is None:
        return None
    selection = declared_part_form(parts.selection)
    staking = declared_part_form(parts.staking)
    if selection is None or staking is None or not _plays(selection):
        return None
    kinds = tuple(parts.selection.kinds())
    if not set(kinds) <= set(bets_offered(rules)):  # the replay refuses it, naming it
        return None
    return SystemForm(selection, staking, kinds, config_policy(config, policy), rules, config)


def _plays(selection: PartForm) -> bool:
    """Whether the kernel plays this selection: of the count triggers, the published counts
    (the effect-of-removal and exact EVs are the replay's: a matrix product whose order
    of additions the kernel cannot promise, and the enumeration)."""
    if selection.code == SEL_COUNT:
        return int(selection.params[1]) - COUNT_METHODS in range(len(PUBLISHED))
    return True  # every other part of strategies.compiled's tables


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
    #: With the plan's ``ledger``: each configuration's grids (``ConfigLedger``, as the
    #: replay's) and the sessions' grid of coup rows, for ``baccarat.ledger.ledger_table``.
    ledgers: list[ConfigLedger] | None = None
    grid: SessionGrid | None = None


def run_generated(plan: FusedPlan, names: Sequence[str], rules: TableRules, seed: int,
                  shoe_ids: np.ndarray, policy: SessionPolicy,
                  first_session: int) -> FusedChunk | None:
    """Deal the generated shoes ``shoe_ids`` and play the plan's configurations over them
    (sessions of ``policy.session_shoes`` shoes); None when a stake is refused (the caller
    replays the chunk to say where). ``names`` are the names of all the run's
    configurations. The plan must not need the pair states (``FusedPlan.needs_pairs``):
    this dealer keeps none."""
    ids = np.ascontiguousarray(shoe_ids, dtype=np.int64)
    classes, counts = deal_classes(rules, seed, ids)
    total = classes.size
    shoe_starts = np.zeros(ids.size + 1, dtype=np.int64)
    np.cumsum(counts, out=shoe_starts[1:])
    per = policy.session_shoes
    starts = shoe_starts[::per]
    if starts[-1] != total:
        starts = np.r_[starts, total]
    shoe_first = np.zeros(total, dtype=np.bool_)
    shoe_first[shoe_starts[:-1][counts > 0]] = True
    return _play(plan, names, classes[:total], shoe_first, starts, ids[::per], first_session)


def deal_classes(rules: TableRules, seed: int,
                 shoe_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The main-bet class of every coup of the generated shoes ``shoe_ids`` (as
    ``baccarat.deal.generate_coups`` deals them) and the coups of each shoe."""
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
    shoe_first = np.ones(n, dtype=np.bool_)
    shoe_first[1:] = coups.shoe[1:] != coups.shoe[:-1]
    cards = card_counts(coups, coups.decks or plan.rules[0].decks) if plan.needs_cards \
        else None
    played = _play(plan, names, classify_coups(coups), shoe_first,
                   np.r_[starts, n].astype(np.int64), first_shoe, first_session, cards)
    if played is not None:
        played.coups = coups
        if plan.ledger:
            played.grid = session_grid(coups, policy.session_shoes, first_session)
    return played


def _play(plan: FusedPlan, names: Sequence[str], classes: np.ndarray, shoe_first: np.ndarray,
          starts: np.ndarray, first_shoe: np.ndarray, first_session: int,
          cards: CardCounts | None = None) -> FusedChunk | None:
    """Play the plan over the chunk's coups (``classes``; ``shoe_first`` marks each shoe's
    first; ``cards``: their ``card_counts``, where a count reads them) in the sessions
    starting at ``starts``; their sessions tables."""
    systems = plan.systems
    n_configs = len(systems)
    n_sessions = starts.size - 1
    width = int(np.diff(starts).max())
    n_kinds = len(BET_KINDS)
    kinds = np.zeros((n_configs, n_kinds), dtype=np.bool_)
    for c, system in enumerate(systems):
        kinds[c, [KIND_INDEX[kind] for kind in system.kinds]] = True
    tables = {r: _payouts(r) for r in set(plan.rules)}
    roads = road_features(classes // _PER_OUTCOME, shoe_first) if plan.needs_roads else \
        np.zeros((1, 3, 3), dtype=np.int8)
    top = np.zeros((n_configs, n_sessions))
    ints = np.zeros((n_configs, N_INTS, n_sessions), dtype=np.int64)
    path = np.zeros((n_configs, n_sessions, N_PATH))
    per_coup = (cards.counts, cards.seen, cards.left, cards.whole) if cards is not None else \
        (np.zeros((len(PUBLISHED), 1), dtype=np.int64), np.zeros(1, dtype=np.int64),
         np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.bool_))
    kelly_ev = _kelly_evs(systems, classes.size, cards)
    win_pay = np.array([[win_payout(system.rules, kind) for kind in BET_KINDS]
                        for system in systems])
    # A count's or Kelly's stakes are priced from the cards left, coup by coup, as the
    # replay prices every strategy that reads the cards: those configurations are played
    # one at a time, keeping their grids; the others a few at a time, as many as
    # _GRID_CELLS of grids hold.
    priced = [c for c, system in enumerate(systems) if system.reads_cards]
    kept = list(range(n_configs)) if plan.ledger else priced  # each one's grids kept
    rest = [c for c in range(n_configs) if c not in kept]
    per_batch = max(1, _GRID_CELLS // max(n_sessions * width, 1))
    batches = [(rest[i:i + per_batch], False) for i in range(0, len(rest), per_batch)]
    batches += [([c], True) for c in kept]
    sums: dict[int, SessionSums] = {}
    expected_of: dict[int, np.ndarray] = {}
    grids_of: dict[int, tuple[np.ndarray, ...]] = {}
    priced_grid: dict[int, np.ndarray] = {}
    for batch, keep in batches:
        chosen = [systems[c] for c in batch]
        stkp = _padded([system.staking.params for system in chosen], extra=1)
        shape = (len(batch), n_sessions, width)
        side, stake, net = (np.full(shape, NO_BET, dtype=np.int8), np.zeros(shape),
                            np.zeros(shape))
        bankroll, played = (np.zeros(shape), np.zeros(shape, dtype=np.bool_)) if keep \
            else (np.zeros((1, 1, 1)), np.zeros((1, 1, 1), dtype=np.bool_))
        out_top = np.zeros((len(batch), n_sessions))
        out_ints = np.zeros((len(batch), N_INTS, n_sessions), dtype=np.int64)
        out_path = np.zeros((len(batch), n_sessions, N_PATH))
        first_step = np.full((len(batch), len(BET_KINDS)), width, dtype=np.int64)
        problem = play_systems(
            classes, shoe_first, roads, *per_coup, kelly_ev, starts,
            np.array([system.selection.code for system in chosen], dtype=np.int64),
            _padded([system.selection.params for system in chosen], extra=1),
            np.array([system.staking.code for system in chosen], dtype=np.int64), stkp,
            np.array([len(system.staking.params) for system in chosen], dtype=np.int64),
            np.stack([policy_row(system.policy, system.rules) for system in chosen]),
            np.ascontiguousarray(np.stack([tables[system.rules] for system in chosen])),
            np.ascontiguousarray(win_pay[batch]),
            _POW2, _FIB, CYCLES, out_top, out_ints, out_path, first_step, keep, side, stake, net,
            bankroll, played, np.zeros(stkp.shape[1] + width + 2, dtype=np.int64),
            np.zeros(max([1, *(_window(system.selection) for system in chosen)]),
                     dtype=np.int64))
        if problem:
            return None
        top[batch], ints[batch], path[batch] = out_top, out_ints, out_path
        for j, c in enumerate(batch):
            sums[c] = SessionSums.of(systems[c].kinds, first_step[j], side[j], stake[j],
                                     net[j])
        if keep:
            c = batch[0]
            grids = (side[0], stake[0], net[0], bankroll[0], played[0])
            if c in priced:
                assert cards is not None
                priced_grid[c] = _priced_by_the_cards(systems[c], grids, starts, cards)
                expected_of[c] = priced_grid[c].sum(axis=1)
            if plan.ledger:
                grids_of[c] = grids
    session_ids = first_session + np.arange(n_sessions, dtype=np.int64)
    out = []
    staked_kinds: set[str] = set()
    zeros = np.zeros(n_sessions)
    for c, system in enumerate(systems):
        # The bet kinds this configuration staked in the chunk, in the order the replay met
        # them (step by step, and within a step in its selection's order): what it prices.
        by_kind = sums[c].by_kind
        staked_kinds.update(by_kind)
        expected = expected_of.get(c)
        if expected is None:  # priced by the full shoe, as the replay prices it
            ev = full_shoe_ev(system.rules)
            expected = np.zeros(n_sessions)
            for kind, amount in by_kind.items():
                expected += amount * ev[kind]
        metrics = session_columns(
            start=float(system.policy.bankroll), net=sums[c].net,
            wagered=sums[c].wagered, expected=expected, path=path[c],
            bets=ints[c, I_BETS], max_stake=top[c],
            limit_hits=ints[c, I_LIMIT_HITS], ruined=ints[c, I_RUINED].astype(bool),
            ruin_coup=ints[c, I_RUIN_COUP], stop_reason=ints[c, I_STOP].astype(np.int8),
            coups=ints[c, I_COUPS], shoe_stops=ints[c, I_SHOE_STOPS:].T)
        k = plan.configs[c]
        out.append(session_rows(k, names[k], session_ids, first_shoe, metrics,
                                {kind: by_kind.get(kind, zeros) for kind in KIND_INDEX}))
    staked = sorted(staked_kinds, key=list(KIND_INDEX).index)
    chunk = FusedChunk(out, int(classes.size), n_sessions, staked, plan.configs)
    if plan.ledger:
        chunk.ledgers = [_config_ledger(system, grids_of[c], ints[c], list(sums[c].by_kind),
                                        priced_grid.get(c))
                         for c, system in enumerate(systems)]
    return chunk


def _kelly_evs(systems: Sequence[SystemForm], n_coups: int,
               cards: CardCounts | None) -> np.ndarray:
    """Kelly's EVs (coups x bet kinds): the exact EV per unit of each kind a Kelly
    configuration may stake, on the cards left before each coup where a session of it
    may bet (``Kelly._exact_ev``: 0 where fewer than six cards are left or the counts are
    not whole, and Kelly then stakes its base); a placeholder without Kelly."""
    kelly = [system for system in systems if system.staking.code == STK_KELLY]
    if not kelly:
        return np.zeros((1, len(BET_KINDS)))
    assert cards is not None
    from .strategies.selections.counting import exact_ev

    ev = np.zeros((n_coups, len(BET_KINDS)))
    whole = cards.whole & (cards.left >= MIN_CARDS)
    by_rules: dict[tuple[TableRules, str], np.ndarray] = {}
    for system in kelly:
        looks = whole & _may_bet(system.selection, cards)
        for kind in system.kinds:
            wanted = by_rules.setdefault((system.rules, kind), np.zeros(n_coups, np.bool_))
            wanted |= looks
    for (rules, kind), wanted in by_rules.items():
        rows = np.flatnonzero(wanted)
        if rows.size:
            remaining = cards.full - cards.by_value[rows].astype(np.int64)
            ev[rows, KIND_INDEX[kind]] = exact_ev(remaining, rules, kind, cards.decks)
    return ev


def _may_bet(selection: PartForm, cards: CardCounts) -> np.ndarray | bool:
    """The coups at which a session of this selection may bet, as far as the cards tell:
    a published count's trigger (the kernel's test), every coup for the others."""
    if selection.code != SEL_COUNT:
        return True
    j = int(selection.params[1]) - COUNT_METHODS
    with np.errstate(divide="ignore", invalid="ignore"):  # no cards left: not looking
        true_count = cards.counts[j] / (cards.left / 52.0)
    return (cards.seen >= int(selection.params[3])) & (true_count >= selection.params[2])


def _config_ledger(system: SystemForm, grids: tuple[np.ndarray, ...], ints: np.ndarray,
                   met: list[str], priced: np.ndarray | None) -> ConfigLedger:
    """A configuration's grids as the replay's ``ConfigLedger``: the stakes of each kind it
    staked in the chunk (``met``: in the order the replay met them), the nets, the
    bankroll after each coup and the coups played; its stakes' expected nets from the
    cards left where a count priced them so (``priced``)."""
    side, stake, net, bankroll, played = grids
    stakes = {kind: np.where(side == KIND_INDEX[kind], stake, 0.0) for kind in met}
    return ConfigLedger(
        strategy=system.config, stakes=stakes, net=net, bankroll=bankroll, played=played,
        limit_hits=ints[I_LIMIT_HITS], ruined=ints[I_RUINED].astype(bool),
        ruin_coup=ints[I_RUIN_COUP], stop_reason=ints[I_STOP].astype(np.int8),
        shoe_stops=ints[I_SHOE_STOPS:].T, start_bankroll=float(system.policy.bankroll),
        shoe_ev=full_shoe_ev(system.rules),
        exact_expected=priced,
        priced_by="remaining cards" if priced is not None else "full shoe")


def _kind_sums(side: np.ndarray, stake: np.ndarray, kind: str) -> np.ndarray:
    """``grid_sums`` of the stakes on ``kind`` (``side``: the kind of each stake), as the
    replay's grid of that kind holds them; a block of sessions at a time, so that the
    grid of one kind's stakes is never made whole."""
    out = np.empty(stake.shape[0])
    on = KIND_INDEX[kind]
    for lo in range(0, stake.shape[0], 1024):
        hi = lo + 1024
        out[lo:hi] = grid_sums(np.where(side[lo:hi] == on, stake[lo:hi], 0.0))
    return out


@dataclass(frozen=True)
class SessionSums:
    """A configuration's session sums, from its grids as the replay's are
    (``baccarat.metrics.grid_sums``): the net, the amount wagered and, for each bet kind
    it staked, in the order the replay met them (step by step, and within a step in its
    selection's order), the amount staked on it."""

    net: np.ndarray
    wagered: np.ndarray
    by_kind: dict[str, np.ndarray]

    @classmethod
    def of(cls, kinds: tuple[str, ...], first_step: np.ndarray, side: np.ndarray,
           stake: np.ndarray, net: np.ndarray) -> SessionSums:
        """The sums of the grids of the kind chosen, the stake and the net (sessions x
        steps) of a configuration whose selection may choose ``kinds``; ``first_step``:
        by bet kind, the first step at which it was staked (the steps if never)."""
        wagered = grid_sums(stake)
        met = sorted((int(first_step[KIND_INDEX[kind]]), i, kind)
                     for i, kind in enumerate(kinds)
                     if first_step[KIND_INDEX[kind]] < stake.shape[1])
        # one kind: its stakes are all the stakes
        by_kind = {kind: wagered if len(kinds) == 1 else _kind_sums(side, stake, kind)
                   for _, _, kind in met}
        return cls(grid_sums(net), wagered, by_kind)


def _priced_by_the_cards(system: SystemForm, grids: tuple[np.ndarray, ...],
                         starts: np.ndarray, cards: CardCounts) -> np.ndarray:
    """Each session's expected net of its stakes, each priced from the cards left in the
    shoe before its coup, as the replay prices a strategy that reads the cards
    (``baccarat.replay._price_step``): the exact EV of the kind staked on the composition
    left (the full shoe's where fewer than six cards are left), summed as numpy sums the
    replay's grid."""
    from .odds import expected_values_batch
    from .odds.cache import CACHE

    side, stake = grids[0], grids[1]
    sessions, steps = np.nonzero(stake > 0)
    rows = starts[sessions] + steps
    remaining = cards.full - cards.by_value[rows].astype(np.int64)
    whole = (remaining.sum(axis=1) >= MIN_CARDS) & (remaining >= 0).all(axis=1)
    rules = system.rules if cards.decks == system.rules.decks else \
        system.rules.model_copy(update={"decks": cards.decks})
    ev = np.empty((rows.size, len(BET_KINDS)))
    kinds = tuple(sorted({BET_KINDS[k] for k in side[sessions, steps]}, key=BET_KINDS.index))
    if whole.any():
        ev[whole] = expected_values_batch(remaining[whole], rules, validate=False,
                                          parallel=False, cache=CACHE, kinds=kinds)
    if not whole.all():
        shoe = full_shoe_ev(system.rules)
        ev[~whole] = [shoe[kind] for kind in BET_KINDS]
    expected = np.zeros(stake.shape)
    expected[sessions, steps] = 0.0 + stake[sessions, steps] * \
        ev[np.arange(rows.size), side[sessions, steps]]
    return expected


@dataclass(frozen=True)
class CardCounts:
    """What the cards seen in each coup's shoe before it show (``card_counts``)."""

    counts: np.ndarray    # each published count's running count (PUBLISHED x coups)
    seen: np.ndarray      # cards seen (coups)
    left: np.ndarray      # cards left (coups)
    whole: np.ndarray     # no value seen more often than the shoe holds (coups)
    by_value: np.ndarray  # the cards seen by value (coups x 10)
    full: np.ndarray      # the full shoe by value
    decks: int


def card_counts(coups: Coups, decks: int) -> CardCounts:
    """What the cards seen in each coup's shoe before it show, as the replay's table keeps
    them (the shown burn card, then every card of each coup dealt; ``baccarat.replay``'s
    ``_count_shown``), for a shoe of ``decks`` decks."""
    from .strategies.selections.counting import PUBLISHED_TAGS

    n = len(coups)
    tags = np.ascontiguousarray(np.stack([PUBLISHED_TAGS[name][0] for name in PUBLISHED]),
                                dtype=np.int64)
    full = np.array([16 * decks] + [4 * decks] * 9, dtype=np.int64)
    shoe_first = np.ones(n, dtype=np.bool_)
    shoe_first[1:] = coups.shoe[1:] != coups.shoe[:-1]
    counts = np.empty((len(PUBLISHED), n), dtype=np.int64)
    seen = np.empty(n, dtype=np.int64)
    left = np.empty(n, dtype=np.int64)
    whole = np.empty(n, dtype=np.bool_)
    by_value = np.empty((n, full.size), dtype=np.int16)
    _card_counts(np.ascontiguousarray(coups.cards), np.ascontiguousarray(coups.burn_shown),
                 shoe_first, VALUE_OF_CODE, full, tags, counts, seen, left, whole, by_value)
    return CardCounts(counts, seen, left, whole, by_value, full, decks)


@njit(cache=True)
def _card_counts(cards, burn_shown, shoe_first, value_of_code, full, tags, counts, seen,
                 left, whole, seen_by_value):  # pragma: no cover - compiled
    """``card_counts``' pass: the shoe's counts by value, before each coup."""
    by_value = np.zeros(full.shape[0], dtype=np.int64)
    for t in range(cards.shape[0]):
        if shoe_first[t]:
            by_value[:] = 0
            if burn_shown[t] >= 0:
                by_value[value_of_code[burn_shown[t]]] += 1
        total = 0
        ok = True
        for v in range(full.shape[0]):
            total += by_value[v]
            ok &= full[v] - by_value[v] >= 0
            seen_by_value[t, v] = by_value[v]
        for j in range(tags.shape[0]):
            running = 0
            for v in range(full.shape[0]):
                running += by_value[v] * tags[j, v]
            counts[j, t] = running
        seen[t] = total
        left[t] = full.sum() - total
        whole[t] = ok
        for column in range(cards.shape[1]):
            code = cards[t, column]
            if code >= 0:
                by_value[value_of_code[code]] += 1


#: A coup's outcome is its class divided by this (``baccarat.bets``).
_PER_OUTCOME = N_SPECIAL * N_PAIR_STATES * N_PAIR_STATES


def _padded(rows: list[tuple[float, ...]], extra: int) -> np.ndarray:
    """The rows as one float array, zero-padded (``extra`` zeros past the longest)."""
    out = np.zeros((len(rows), max(len(r) for r in rows) + extra))
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


def _window(selection: PartForm) -> int:
    """The outcomes a selection keeps: a pattern table's longest entry, a tie window."""
    if selection.code == SEL_AFTER_TIES:
        return int(selection.params[1])
    if selection.code == SEL_PATTERN:
        longest, j = 0, 2
        while j < len(selection.params) and selection.params[j] > 0:
            longest = max(longest, int(selection.params[j]))
            j += int(selection.params[j]) + 2
        return longest
    return 0


@functools.lru_cache(maxsize=64)
def _payouts(rules: TableRules) -> np.ndarray:
    """The payout table of ``rules`` (classes x bet kinds; cached, never written)."""
    return np.ascontiguousarray(payout_table(rules))


@functools.lru_cache(maxsize=256)
def _pairs_ignored(rules: TableRules, kind: str) -> bool:
    """Whether ``kind``'s payouts under ``rules`` are the same whatever the pair states."""
    column = payout_table(rules)[:, KIND_INDEX[kind]]
    by_pairs = column.reshape(-1, N_PAIR_STATES * N_PAIR_STATES)
    return all(np.array_equal(by_pairs[:, 0], by_pairs[:, j], equal_nan=True)
               for j in range(1, by_pairs.shape[1]))


@njit(cache=True)
def _deal_classes(template, seed, shoe_ids, burn_mode, burn_count, cut_from_end, extra_coup,
                  coups, out_classes, out_counts, cards, scratch, held, tail_cards, tail_pt,
                  tail_bt, tail_outcome, values):  # pragma: no cover - compiled
    """Shuffle, burn and deal each shoe, keeping only the class of each coup as the main
    bets see it (``_main_bet_class``); returns the coups dealt.

    ``template`` holds the card *values* of the engine's ordered shoe: Fisher-Yates moves
    positions whatever they hold, so ``shuffle_with`` lays out exactly the cards of the
    engine's shoe (``baccarat.deal.generate_coups``), seen by their values. Each coup is then
    dealt by one lookup, without a branch on the cards (``_coup_class``; the drawing rules
    branch on random cards, and a mispredicted branch per draw costs more than the deal),
    and four shoes at a time: where a coup starts depends on the one before, a chain of
    dependent loads that leaves the processor idle unless other shoes' chains run beside
    it (one shoe at a time costs three times as much per coup, two shoes one and a half
    times). The other shoes' classes wait in small buffers until the first one's are
    written; the shoes left over (fewer than four) are dealt one at a time. The arrays
    from ``cards`` on are its working space (``_deal_work``): it allocates nothing.
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
    dealer (``baccarat.deal._deal_run``)."""
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
    engine's own rule (``baccarat.deal.banker_draws``); 20 kB, so it stays in the cache."""
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
    """The class (``baccarat.bets.classify_coups``) of a coup dealt with its cards, as far as
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


#: The derived roads (``baccarat.roads``: 1 big eye boy, 2 small road, 3 cockroach pig) and
#: what ``road_features`` keeps of each before a coup: its latest mark, and the mark a
#: Banker win and a Player win would add.
_ROADS = 3
_LAST, _IF_BANKER, _IF_PLAYER = range(3)


def road_features(outcomes: np.ndarray, new_shoe: np.ndarray) -> np.ndarray:
    """What the derived roads of each coup's shoe show before it is dealt: an int8 array
    (coups, roads, 3) of the latest mark of road k + 1 and the marks a Banker and a Player
    win would add (``RED`` 1, ``BLUE`` -1, none 0), as ``baccarat.roads.RoadState`` gives
    them (``last_colour``, ``colour_if``). ``new_shoe`` flags each shoe's first coup: the
    roads start afresh there. One pass over the chunk's coups, shared by every road
    follower of a run."""
    out = np.empty((outcomes.size, _ROADS, 3), dtype=np.int8)
    _road_features(np.ascontiguousarray(outcomes, dtype=np.int8),
                   np.ascontiguousarray(new_shoe, dtype=np.bool_), out)
    return out


@njit(cache=True)
def _road_features(outcomes, new_shoe, out):  # pragma: no cover - compiled
    """``road_features``' pass: ``RoadState``'s update, one shoe's roads at a time."""
    lengths = np.zeros(_ROADS + 1, dtype=np.int64)  # the big road's last columns, newest first
    last = np.zeros(_ROADS, dtype=np.int8)
    columns = 0
    side = -1
    for t in range(outcomes.shape[0]):
        if new_shoe[t]:
            lengths[:] = 0
            last[:] = 0
            columns = 0
            side = -1
        outcome = outcomes[t]
        for k in range(1, _ROADS + 1):
            # The mark a repeat of the current side would add; a new column, the other.
            same = np.int8(RED if lengths[k] != lengths[0] else BLUE)
            marks = columns > k
            out[t, k - 1, _LAST] = last[k - 1]
            out[t, k - 1, _IF_BANKER] = (same if side == BANKER else -same) if marks else 0
            out[t, k - 1, _IF_PLAYER] = (same if side == PLAYER else -same) if marks else 0
            if outcome != TIE and marks:
                last[k - 1] = same if outcome == side else -same
        if outcome == TIE:
            continue
        if outcome == side:
            lengths[0] += 1
        else:
            for j in range(_ROADS, 0, -1):
                lengths[j] = lengths[j - 1]
            lengths[0] = 1
            columns += 1
            side = outcome
