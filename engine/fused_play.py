"""The fused path's play kernel: every built-in selection and staking plan.

``play_systems`` plays each configuration of a chunk (a system of built-in parts: a
selection, a staking plan, its session policy) session after session, coup after coup,
in the replay's order of operations (``engine/replay.py``): before each coup the session
rules' new-shoe bookkeeping, the selection's choice, the staking plan's stake, the table
rules, the payout lookup and the bankroll; after it the path metrics, the selection and
the staking plan learning the coup (a plan moves only on a coup its session staked on and
won or lost), the stop rules per session and then per shoe. The table rules, the stop
rules and the path metrics are ``baccarat.session_play``'s functions, the replay's own.

Each part's compiled form (``strategies/compiled.py``: a code and the numbers its Python
form reads) is read here; the Python parts stay the reference, and ``tests/play/test_fused.py``
compares the two bet for bet. Every floating-point operation follows the replay's order,
and the kernel writes the replay's grids of stakes and nets, from which the session sums
are computed as the replay's are (``baccarat.metrics.grid_sums``): every column is the
replay's bit for bit.

The kernel allocates nothing (its callers pass its working space); it returns 0, or a
problem code where the replay would raise (a stake that is not a finite non-negative
number, a bet the dataset cannot settle): the caller then replays the chunk, which says
where.
"""

from __future__ import annotations

import numpy as np

from .bets import N_PAIR_STATES, N_SPECIAL
from .jit import njit
from .session_play import (
    BELOW_MIN,
    BUSTED,
    END,
    N_SHOE_STOPS,
    R_BELOW,
    R_CHIP,
    R_REDUCE,
    R_SHOES,
    R_START,
    R_TABLE_MAX,
    R_TABLE_MIN,
    RUIN,
    SHOE_STOP_SLOT,
    drawdown_step,
    is_stake,
    policy_values,
    reduce_scale,
    reduced_stake,
    short,
    stop_after_coup,
    streak_step,
    table_stake,
)
from .strategies.compiled import (
    SEL_AFTER_TIES,
    SEL_ALWAYS,
    SEL_CHOP,
    SEL_COUNT,
    SEL_FOLLOW,
    SEL_PATTERN,
    SEL_PING_PONG,
    SEL_ROAD,
    SEL_SKIP_FIRST,
    SEL_STREAK,
    STK_1324,
    STK_1326,
    STK_CONTRA_DALEMBERT,
    STK_DALEMBERT,
    STK_FIBONACCI,
    STK_FLAT,
    STK_GRAND_MARTINGALE,
    STK_LABOUCHERE,
    STK_MARTINGALE,
    STK_OSCARS_GRIND,
    STK_PARLAY,
    STK_PAROLI,
    STK_PERCENT,
    STK_REVERSE_LABOUCHERE,
)

#: A session's choice: a bet kind's index in ``baccarat.bets.BET_KINDS``, or no bet.
NO_BET = -1
_BANKER, _PLAYER, _TIE = 0, 1, 2
#: A coup's outcome is its class (``baccarat.bets``) divided by this.
_PER_OUTCOME = N_SPECIAL * N_PAIR_STATES * N_PAIR_STATES

#: The kernel's integer outputs per configuration and session.
I_LIMIT_HITS, I_RUINED, I_RUIN_COUP, I_STOP, I_COUPS, I_BETS, I_SHOE_STOPS = range(7)
#: ``I_SHOE_STOPS`` and the next ``N_SHOE_STOPS - 1``: the shoes each per-shoe rule cut short.
N_INTS = I_SHOE_STOPS + N_SHOE_STOPS

#: Problems: where the replay would raise.
NOT_A_STAKE, UNSETTLED = 1, 2

#: The count methods' codes (``Count.compiled_form``): exact, true_count, then the
#: published counts the kernel plays (dragon7, panda8), in ``PUBLISHED`` order from here.
COUNT_METHODS = 2
#: Fewer cards left than this and a count does not look (``baccarat.odds`` MIN_CARDS).
MIN_CARDS = 6

#: The stake cycles of 1-3-2-6 and 1-3-2-4, in base units.
CYCLES = np.array([[1.0, 3.0, 2.0, 6.0], [1.0, 3.0, 2.0, 4.0]])


@njit(cache=True, inline="always")
def _units(line, lo, hi):  # pragma: no cover - compiled
    """A Labouchere line's stake in base units: first + last, or the one number left."""
    units = line[lo]
    if hi - lo != 1:
        units = units + line[hi - 1]
    return units


@njit(cache=True)
def play_systems(classes, shoe_first, roads, counts, seen_cards, cards_left, cards_ok,
                 kelly_ev, starts, sel, selp, stk, stkp, stk_n, rules, payouts, win_pay, pow2,
                 fib, cycles, top, ints, path, first_step, keep, grid_side, grid_stake, grid_net,
                 grid_bankroll, grid_played, line, recent):  # pragma: no cover - compiled
    """Play every configuration over every session; 0, or the problem (``NOT_A_STAKE``,
    ``UNSETTLED``) that makes the replay raise.

    Per coup (the chunk's): ``classes`` (``baccarat.bets``), ``shoe_first`` (a shoe's first
    coup), ``roads`` (``baccarat.fused.road_features``), and what the cards seen in its shoe
    before it show (``baccarat.fused.card_counts``): each published count's running count
    (``counts``), the cards seen and left, and whether the counts are whole (``cards_ok``);
    for Kelly, the exact EV per unit of each bet kind on the cards left (``kelly_ev``,
    coups x bet kinds; 0 where it is not enumerated). Per session: ``starts`` (its first
    coup; the last entry ends the chunk). Per configuration: the selection's code and
    numbers (``sel``, ``selp``), the staking plan's (``stk``, ``stkp``, ``stk_n`` of
    them), ``rules`` (its policy row, ``baccarat.session_play.policy_row``), ``payouts``
    (classes x bet kinds) and ``win_pay`` (each kind's win payout b of b:1, for Kelly).
    Out: ``top`` (configs x sessions: the largest stake), ``ints`` (configs x ``N_INTS``
    x sessions), ``path`` (configs x sessions x ``N_PATH``), ``first_step`` (configs x
    bet kinds: the first step, over the sessions, at which each kind was staked, the
    order the replay met them in; the number of steps as it comes in) and the replay's
    grids
    (configs x sessions x the longest session, zeros and ``NO_BET`` as they come in) of
    what each session did on each coup it played: the kind chosen, the stake placed and
    the net (``grid_side``, ``grid_stake``, ``grid_net``: the session sums are numpy's
    over them, as over the replay's), and with ``keep`` the bankroll after it and True
    (``grid_bankroll``, ``grid_played``: for the ledger and for the prices of the stakes
    from the cards left). The rest is working space: ``line`` (a Labouchere line),
    ``recent`` (a pattern's or a tie window's outcomes).
    """
    n_configs = sel.shape[0]
    n_sessions = starts.shape[0] - 1
    n_pow2 = pow2.shape[0]
    n_fib = fib.shape[0]
    for c in range(n_configs):
        s_code = sel[c]
        k_code = stk[c]
        base = stkp[c, 0]
        k_p1 = stkp[c, 1] if stkp.shape[1] > 1 else 0.0
        cap = int(k_p1)  # the Martingale family's most doublings (-1: none), wins to bank
        policy = policy_values(rules[c])
        start = policy[R_START]
        reduce = policy[R_REDUCE] > 0
        chip = policy[R_CHIP]
        below = int(policy[R_BELOW])
        tmin = policy[R_TABLE_MIN]
        tmax = policy[R_TABLE_MAX]
        shoes = policy[R_SHOES] > 0
        tmin_low = tmin - 1e-12  # a stake below this is below the table minimum
        plain_stakes = chip <= 0  # no chip rounding: a stake the table takes stands
        # The selection's numbers.
        per_shoe = True
        n_sel = 0
        side_sel = 0
        m_sel = 0
        ties_keep = False
        road_k = 0
        road_mode = 0
        count_j = 0
        threshold = 0.0
        if s_code == SEL_ALWAYS:
            side_sel = int(selp[c, 0])
        elif s_code == SEL_FOLLOW or s_code == SEL_CHOP:
            per_shoe = selp[c, 0] > 0
        elif s_code == SEL_STREAK or s_code == SEL_PING_PONG:
            n_sel = int(selp[c, 0])
            per_shoe = selp[c, 1] > 0
        elif s_code == SEL_PATTERN:
            ties_keep = selp[c, 0] > 0
            per_shoe = selp[c, 1] > 0
            j = 2  # the entries, longest first: length, outcomes, side
            while j < selp.shape[1] and selp[c, j] > 0:
                m_sel = max(m_sel, int(selp[c, j]))
                j += int(selp[c, j]) + 2
        elif s_code == SEL_SKIP_FIRST:
            n_sel = int(selp[c, 0])
            side_sel = int(selp[c, 1])
        elif s_code == SEL_AFTER_TIES:
            n_sel = int(selp[c, 0])
            m_sel = int(selp[c, 1])
            side_sel = int(selp[c, 2])
        elif s_code == SEL_ROAD:
            road_k = int(selp[c, 0])
            road_mode = int(selp[c, 1])
        else:  # SEL_COUNT: a published count (its tags' running counts are in ``counts``)
            side_sel = int(selp[c, 0])
            count_j = int(selp[c, 1]) - COUNT_METHODS
            threshold = selp[c, 2]
            n_sel = int(selp[c, 3])  # min_depth
        n_line = stk_n[c] - 1
        blank = 0 if s_code == SEL_AFTER_TIES else -1  # a window's empty place
        # Whether the selection learns from the outcomes (always, skip_first and the road
        # followers read none of their own).
        learns = s_code != SEL_ALWAYS and s_code != SEL_SKIP_FIRST and s_code != SEL_ROAD \
            and s_code != SEL_COUNT
        for s in range(n_sessions):
            lo = starts[s]
            length = starts[s + 1] - lo
            # The selection's state.
            last = NO_BET
            run = 0
            alternations = 0
            ties = 0
            at = 0
            for j in range(m_sel):
                recent[j] = blank
            # The staking plan's state.
            k = 0
            series = 0
            units = 1
            ride = base
            line_lo = 0
            line_hi = n_line
            if k_code == STK_LABOUCHERE or k_code == STK_REVERSE_LABOUCHERE:
                for j in range(n_line):
                    line[j] = int(stkp[c, 1 + j])
            # The session's money, the stop rules' counts, the path metrics.
            bankroll = start
            peak = start
            trough = start
            max_dd = 0.0
            max_dd_pct = 0.0
            losses_row = 0
            shoe_start = start
            shoe_peak = start
            shoe_losses = 0
            shoe_coups = 0
            sitting = False
            win_run = 0
            lose_run = 0
            best_win = 0
            best_lose = 0
            wins = 0
            losses = 0
            pushes = 0
            limit_hits = 0
            bets = 0
            stop = END
            ruined = 0
            ruin_coup = -1
            coup = 0
            shoe_coup = 0
            played = 0
            top_stake = 0.0
            for t in range(length):
                row = lo + t
                if t == 0 or shoe_first[row]:
                    shoe_coup = 0
                    if shoes:
                        if sitting:  # back at the table: the per-shoe stop is over
                            stop = END
                            sitting = False
                        shoe_start = bankroll
                        shoe_peak = bankroll
                        shoe_losses = 0
                        shoe_coups = 0
                    if per_shoe:
                        last = NO_BET
                        run = 0
                        alternations = 0
                        for j in range(m_sel):
                            recent[j] = blank
                        ties = 0
                if sitting:
                    shoe_coup += 1
                    continue
                # --- the selection's choice
                if s_code == SEL_ALWAYS:
                    side = side_sel
                elif s_code == SEL_FOLLOW:
                    side = last
                elif s_code == SEL_CHOP:
                    side = 1 - last if last >= 0 else NO_BET
                elif s_code == SEL_STREAK:
                    side = last if run >= n_sel else NO_BET
                elif s_code == SEL_PING_PONG:
                    side = 1 - last if alternations >= n_sel else NO_BET
                elif s_code == SEL_PATTERN:
                    side = NO_BET
                    j = 2
                    while j < selp.shape[1] and selp[c, j] > 0:
                        size = int(selp[c, j])
                        match = True
                        for q in range(size):
                            if recent[m_sel - size + q] != int(selp[c, j + 1 + q]):
                                match = False
                                break
                        if match:
                            side = int(selp[c, j + 1 + size])
                            break
                        j += size + 2
                elif s_code == SEL_SKIP_FIRST:
                    side = side_sel if shoe_coup >= n_sel else NO_BET
                elif s_code == SEL_AFTER_TIES:
                    side = side_sel if ties >= n_sel else NO_BET
                elif s_code == SEL_ROAD:
                    wanted = roads[row, road_k - 1, 0] if road_mode == 0 else road_mode
                    side = NO_BET
                    if wanted != 0:
                        if roads[row, road_k - 1, 1] == wanted:
                            side = _BANKER
                        elif roads[row, road_k - 1, 2] == wanted:
                            side = _PLAYER
                else:  # SEL_COUNT: the true count (running count per deck left), as
                    # Count.true_count computes it, where the session looks
                    side = NO_BET
                    left_cards = cards_left[row]
                    if (seen_cards[row] >= n_sel) & (left_cards >= MIN_CARDS) & cards_ok[row]:
                        if counts[count_j, row] / (left_cards / 52.0) >= threshold:
                            side = side_sel
                # --- the staking plan's stake
                if side < 0:
                    stake = 0.0
                else:
                    if k_code == STK_FLAT:
                        stake = base
                    elif k_code == STK_MARTINGALE or k_code == STK_PAROLI:
                        stake = base * pow2[min(k, n_pow2 - 1)]
                    elif k_code == STK_GRAND_MARTINGALE:
                        stake = base * (pow2[min(k + 1, n_pow2 - 1)] - 1.0)
                    elif k_code == STK_DALEMBERT or k_code == STK_CONTRA_DALEMBERT:
                        stake = base + k_p1 * k
                    elif k_code == STK_FIBONACCI:
                        stake = base * fib[min(k, n_fib - 1)]
                    elif k_code == STK_LABOUCHERE or k_code == STK_REVERSE_LABOUCHERE:
                        stake = base * float(_units(line, line_lo, line_hi))
                    elif k_code == STK_OSCARS_GRIND:
                        stake = base * float(units)
                    elif k_code == STK_1326:
                        stake = base * cycles[0, k]
                    elif k_code == STK_1324:
                        stake = base * cycles[1, k]
                    elif k_code == STK_PARLAY:
                        stake = ride
                    elif k_code == STK_PERCENT:
                        stake = max(k_p1 / 100.0 * bankroll, base)
                    else:  # STK_KELLY: fraction x bankroll x EV / b, at least the base,
                        # at most max_stake (the third number; -1: none), as Kelly.stakes
                        stake = max(k_p1 * bankroll * (kelly_ev[row, side] / win_pay[c, side]),
                                    base)
                        if stkp[c, 2] >= 0:
                            stake = min(stake, stkp[c, 2])
                    # --- the table rules, skipped for the common stake (one the table
                    # takes as it is)
                    if not (plain_stakes & (stake >= tmin_low) & (stake <= tmax)):
                        if not is_stake(stake):
                            return NOT_A_STAKE
                        stake, capped, ends = table_stake(stake, chip, tmin, tmax, below)
                        limit_hits += capped
                        if ends:  # the session ends before this coup
                            stop = BELOW_MIN
                            break
                total = 0.0 + stake
                if short(total, bankroll):
                    small = True
                    if reduce:
                        scale = reduce_scale(total, bankroll)
                        stake, small = reduced_stake(stake, scale, chip, tmin)
                        total = total * scale if chip <= 0 else stake
                    if small:
                        stop = BUSTED  # the session ends before this coup
                        break
                net = 0.0
                if stake > 0:
                    mult = payouts[c, classes[row], side]
                    if np.isnan(mult):
                        return UNSETTLED
                    net += stake * mult
                bankroll = bankroll + net
                grid_side[c, s, t] = side
                grid_stake[c, s, t] = stake
                grid_net[c, s, t] = net
                if keep:  # the ledger's grids: what the session did on this coup
                    grid_bankroll[c, s, t] = bankroll
                    grid_played[c, s, t] = True
                top_stake = max(top_stake, stake)
                if stake > 0 and t < first_step[c, side]:
                    first_step[c, side] = t
                played += 1
                coup += 1
                shoe_coup += 1
                # --- the path metrics; 0/1 weights rather than branches from here on
                peak, trough, max_dd, max_dd_pct = drawdown_step(bankroll, peak, trough,
                                                                 max_dd, max_dd_pct)
                bet = np.int64(total > 0)
                win = bet * np.int64(net > 0)
                loss = bet * np.int64(net < 0)
                same = 1 - win - loss  # neither: a push, or no bet
                bets += bet
                win_run, lose_run, best_win, best_lose, wins, losses, pushes = streak_step(
                    bet, win, loss, win_run, lose_run, best_win, best_lose, wins, losses,
                    pushes)
                # --- the selection learns the coup it played
                if learns:
                    outcome = classes[row] // _PER_OUTCOME
                    decided = np.int64(outcome != _TIE)
                    if s_code == SEL_PING_PONG:
                        switch = decided * np.int64((last >= 0) & (outcome != last))
                        alternations = (alternations + 1) * switch + alternations * (1 - decided)
                    repeat = decided * np.int64(outcome == last)
                    run = (run + 1) * repeat + (decided - repeat) + run * (1 - decided)
                    last = outcome * decided + last * (1 - decided)
                    if s_code == SEL_PATTERN:
                        if decided or ties_keep:
                            for j in range(m_sel - 1):
                                recent[j] = recent[j + 1]
                            recent[m_sel - 1] = outcome
                    elif s_code == SEL_AFTER_TIES:
                        tie = 1 - decided
                        ties += tie - recent[at]
                        recent[at] = tie
                        at = (at + 1) % m_sel
                # --- the staking plan moves on a coup it won or lost (a push, or no bet,
                # leaves it where it is)
                if k_code == STK_MARTINGALE or k_code == STK_GRAND_MARTINGALE:
                    raised = 0 if (cap >= 0) & (k >= cap) else k + 1
                    k = raised * loss + k * same
                elif k_code == STK_PAROLI:
                    up = 0 if k + 1 >= cap else k + 1
                    k = up * win + k * same
                elif k_code == STK_DALEMBERT:
                    k = max(k - 1, 0) * win + (k + 1) * loss + k * same
                elif k_code == STK_CONTRA_DALEMBERT:
                    k = (k + 1) * win + max(k - 1, 0) * loss + k * same
                elif k_code == STK_FIBONACCI:
                    k = max(k - 2, 0) * win + (k + 1) * loss + k * same
                elif k_code == STK_1326 or k_code == STK_1324:
                    k = ((k + 1) % 4) * win + k * same
                elif k_code == STK_OSCARS_GRIND:
                    moved = series + units * win - units * loss
                    done = win * np.int64(moved >= 1)  # the series is won: a new one
                    units = done + (1 - done) * (min(units + 1, 1 - moved) * win
                                                 + units * (1 - win))
                    series = (1 - done) * moved
                elif k_code == STK_PARLAY:
                    if win + loss:
                        up = k + 1
                        if loss or up >= cap:
                            ride = base
                            k = 0
                        else:
                            ride = total + net
                            k = up
                elif k_code == STK_LABOUCHERE or k_code == STK_REVERSE_LABOUCHERE:
                    if win + loss:
                        crossed = win if k_code == STK_LABOUCHERE else loss
                        written = _units(line, line_lo, line_hi)
                        if crossed:
                            line_lo += 1
                            line_hi -= 1
                            if line_hi <= line_lo:  # the line is done: a new cycle
                                line_lo = 0
                                line_hi = n_line
                                for j in range(n_line):
                                    line[j] = int(stkp[c, 1 + j])
                        else:
                            if line_hi >= line.shape[0]:  # never: one place per coup
                                return NOT_A_STAKE
                            line[line_hi] = written
                            line_hi += 1
                # --- the stop rules, per session then per shoe
                reason, shoe_stop, peak, losses_row, shoe_peak, shoe_losses, shoe_coups = \
                    stop_after_coup(policy, bankroll, coup, win, loss, peak, losses_row,
                                    shoe_start, shoe_peak, shoe_losses, shoe_coups)
                if reason >= 0:
                    stop = reason
                    if not shoe_stop:
                        if reason == RUIN:
                            ruined = 1
                            ruin_coup = coup
                        break
                    sitting = True
                    ints[c, I_SHOE_STOPS + SHOE_STOP_SLOT[reason], s] += 1
            top[c, s] = top_stake
            ints[c, I_LIMIT_HITS, s] = limit_hits
            ints[c, I_RUINED, s] = ruined
            ints[c, I_RUIN_COUP, s] = ruin_coup
            ints[c, I_STOP, s] = stop
            ints[c, I_COUPS, s] = played
            ints[c, I_BETS, s] = bets
            path[c, s, 0] = peak
            path[c, s, 1] = trough
            path[c, s, 2] = max_dd
            path[c, s, 3] = max_dd_pct
            path[c, s, 4] = best_win
            path[c, s, 5] = best_lose
            path[c, s, 6] = wins
            path[c, s, 7] = losses
            path[c, s, 8] = pushes
    return 0
