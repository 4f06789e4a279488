"""``baccarat odds``: exact probabilities and house edges, for a full shoe or the cards left."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.table import Table

from . import app
from .common import (
    build_rules,
    console,
    print_table,
    reports_errors,
)
from .rule_options import Commission, Decks, RulesFile, TiePays, VariantOpt

if TYPE_CHECKING:
    from ..odds.enumeration import OutcomeProbabilities
    from ..odds.side_bets import BetOdds
    from ..rules import TableRules

#: The rule sets ``--compare`` puts side by side (on top of the pays given by the flags).
COMPARE_RULES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("standard", {"variant": "standard", "commission": 0.05, "tie_pays": 8}),
    ("EZ", {"variant": "ez", "tie_pays": 8}),
    ("Super 6", {"variant": "super6", "tie_pays": 8}),
    ("4% comm", {"variant": "standard", "commission": 0.04, "tie_pays": 8}),
    ("tie 9:1", {"variant": "standard", "commission": 0.05, "tie_pays": 9}),
)
COMPARE_DECKS = (1, 2, 4, 6, 8)

_TITLES = {
    "banker": "Banker", "player": "Player", "tie": "Tie", "player_pair": "Player pair",
    "banker_pair": "Banker pair", "dragon7": "Dragon 7", "panda8": "Panda 8",
    "super6": "Super 6",
}

PairPays = Annotated[float | None, typer.Option("--pair-pays", help="pair bets pay N:1")]
Dragon7Pays = Annotated[float | None, typer.Option("--dragon7-pays", help="Dragon 7 pays N:1")]
Panda8Pays = Annotated[float | None, typer.Option("--panda8-pays", help="Panda 8 pays N:1")]
Super6Pays = Annotated[float | None, typer.Option("--super6-pays", help="Super 6 pays N:1")]
Remaining = Annotated[
    str | None,
    typer.Option(
        "--remaining",
        help="cards left, by value: 10 comma-separated counts of values 0 (10/J/Q/K), "
        "1 (A), 2, ..., 9; or 13 by rank (A..K: the pair side bets need them); or 52 by "
        "card (A of spades, hearts, diamonds, clubs, then 2, ...: Perfect Pair needs them)",
    ),
]
Paytable = Annotated[
    list[str] | None,
    typer.Option(
        "--paytable",
        help="a side bet's paytable, BET=NAME (lucky6=macau, tiger_tie=retired); repeat "
        "for several. The defaults are the standard published ones",
    ),
]


def parse_paytables(items: list[str] | None) -> dict[str, str]:
    """``--paytable BET=NAME`` items as a mapping (checked when the odds are computed)."""
    from ..odds import OddsError

    tables = {}
    for item in items or []:
        bet, sep, name = item.partition("=")
        if not sep or not bet.strip() or not name.strip():
            raise OddsError(f"--paytable {item!r}: expected BET=NAME, e.g. lucky6=macau")
        tables[bet.strip()] = name.strip()
    return tables


def parse_remaining(text: str, decks: int) -> list[int]:
    """Parse ``--remaining`` into 10 counts by value, 13 by rank or 52 by card; refuse what
    ``decks`` decks cannot hold."""
    from ..odds import OddsError
    from ..odds.side_bets import check_cards

    parts = [part.strip() for part in text.split(",")]
    if len(parts) not in (10, 13, 52):
        raise OddsError(
            f"--remaining has {len(parts)} number(s): expected 10 comma-separated counts of "
            f"the cards left of values 0 (10/J/Q/K), 1 (A), 2, ..., 9 (or 13 by rank, or "
            f"52 by card)"
        )
    counts = []
    for value, part in enumerate(parts):
        try:
            counts.append(int(part))
        except ValueError:
            raise OddsError(
                f"--remaining: count of value {value} is {part!r}, expected a whole number"
            ) from None
    check_cards(counts, max_decks=decks, where=f"--remaining ({decks}-deck shoe)")
    return counts


def _pays(kind: str, rules: TableRules) -> str:
    """The payout of ``kind`` as printed on the layout."""
    from ..odds.bets import SUPER6_BANKER_SIX_PAYS

    if kind == "banker":
        if rules.variant == "ez":
            return "1:1, 3-card 7 pushes"
        if rules.variant == "super6":
            return f"1:1, a 6 pays {SUPER6_BANKER_SIX_PAYS:g}:1"
        return f"{1 - rules.banker_commission:g}:1"
    pays = {
        "player": 1.0, "tie": rules.tie_pays, "player_pair": rules.pair_pays,
        "banker_pair": rules.pair_pays, "dragon7": rules.dragon7_pays,
        "panda8": rules.panda8_pays, "super6": rules.super6_pays,
    }[kind]
    return f"{pays:g}:1"


def _p_win(kind: str, probs: OutcomeProbabilities) -> float:
    return {
        "banker": probs.banker, "player": probs.player, "tie": probs.tie,
        "player_pair": probs.pair, "banker_pair": probs.pair,
        "dragon7": probs.banker_three_card_7, "panda8": probs.player_three_card_8,
        "super6": probs.banker_six,
    }[kind]


def _print_odds(rules: TableRules, probs: OutcomeProbabilities, edges: dict[str, float],
                remaining: list[int] | None) -> None:
    where = (f"{sum(remaining)} cards left of a {rules.decks}-deck shoe" if remaining
             else f"full shoe of {rules.decks} decks")
    outcomes = Table(title=f"Exact probabilities of the next coup, {where}",
                     title_justify="left")
    outcomes.add_column("Event (one coup)")
    outcomes.add_column("Probability", justify="right")
    for label, value in (
        ("Banker wins", probs.banker), ("Player wins", probs.player), ("Tie", probs.tie),
        ("Banker wins with a three-card 7", probs.banker_three_card_7),
        ("Player wins with a three-card 8", probs.player_three_card_8),
        ("Banker wins with a two-card 6", probs.banker_two_card_6),
        ("Banker wins with a three-card 6", probs.banker_three_card_6),
        ("Player pair: Player's first two cards of one rank", probs.pair),
        ("Banker pair: Banker's first two cards of one rank", probs.pair),
    ):
        outcomes.add_row(label, f"{value:.6f}")
    bets = Table(title=f"Each bet on one coup, {rules.label()}", title_justify="left")
    for column, justify in (("Bet", "left"), ("Pays", "left"), ("P(bet wins)", "right"),
                            ("House edge (loss per unit staked)", "right")):
        bets.add_column(column, justify=justify)  # type: ignore[arg-type]
    for kind, edge in edges.items():
        bets.add_row(_TITLES[kind], _pays(kind, rules), f"{_p_win(kind, probs):.6f}",
                     f"{edge * 100:.4f}%")
    print_table(outcomes)
    print_table(bets)


def _print_side_bets(side: dict[str, BetOdds], left_out: list[str]) -> None:
    table = Table(title="Side bets on one coup (the standard paytable unless --paytable)",
                  title_justify="left")
    for column, justify in (("Side bet", "left"), ("Pays on", "left"),
                            ("P(paid or pushed)", "right"), ("House edge", "right"),
                            ("SD", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for bet, o in side.items():
        pays = ", ".join(f"{event.replace('_', ' ')} {p:g}" for event, p in o.pays.items())
        table.add_row(bet, pays, f"{1 - o.lose:.6f}", f"{o.house_edge * 100:.4f}%",
                      f"{o.sd:.4f}")
    print_table(table)
    if left_out:
        console.print(f"Not priced from counts by value: {', '.join(left_out)} (the pair "
                      f"bets need --remaining by rank, 13 counts; Perfect Pair by card, 52)",
                      highlight=False)  # wrapped at the terminal's width


def _count(rules: TableRules, bet: str, max_tag: int | None, tables: dict[str, Any],
           as_json: bool) -> None:
    """``--count``: a bet's effects of removal, tags and break-even true count."""
    from ..odds import count_system, effect_of_removal

    system = count_system(rules, bet, max_tag=max_tag, paytables=tables)
    eor = effect_of_removal(rules, paytables=tables)[bet]
    values = ["10/J/Q/K", "A", "2", "3", "4", "5", "6", "7", "8", "9"]
    if as_json:
        typer.echo(json.dumps({
            "bet": bet, "decks": rules.decks, "base_ev": system.base_ev,
            "effect_of_removal": dict(zip(values, eor.tolist(), strict=True)),
            "tags": dict(zip(values, system.tags.tolist(), strict=True)),
            "unit": system.unit, "break_even_true_count": system.trigger()}, indent=2))
        return
    table = Table(title=f"Count of {bet}, {rules.decks} decks: EV {system.base_ev * 100:.4f}% "
                  f"on a full shoe; it breaks even at a true count of {system.trigger():.2f}",
                  title_justify="left")
    for column in ("Card removed", "Effect on the EV (%)", "Tag"):
        table.add_column(column, justify="right")
    for label, effect, tag in zip(values, eor, system.tags, strict=True):
        table.add_row(label, f"{effect * 100:+.5f}", f"{tag:+.5g}" if max_tag is None
                      else f"{int(tag):+d}")
    print_table(table)


def compare_rows(base: TableRules) -> list[dict[str, Any]]:
    """House edges of every offered bet under each of :data:`COMPARE_RULES` and deck counts."""
    from ..odds import house_edges
    from ..rules import rules_from_mapping

    rows = []
    for name, update in COMPARE_RULES:
        for decks in COMPARE_DECKS:
            rules = rules_from_mapping({**base.model_dump(), **update, "decks": decks})
            rows.append({
                "rules": name, "variant": rules.variant,
                "commission": rules.banker_commission, "tie_pays": rules.tie_pays,
                "decks": decks, "house_edge": house_edges(rules),
            })
    return rows


_SHORT_TITLES = {
    "banker": "Banker", "player": "Player", "tie": "Tie", "player_pair": "P pair",
    "banker_pair": "B pair", "dragon7": "Drag 7", "panda8": "Panda 8", "super6": "Super 6",
}


def _print_compare(rows: list[dict[str, Any]]) -> None:
    kinds = list(_SHORT_TITLES)
    table = Table(title="House edge in % by rules and decks (blank: bet not offered)",
                  title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                  collapse_padding=True, padding=(0, 1, 0, 0))
    table.add_column("Rules", no_wrap=True)
    table.add_column("Decks", justify="right", no_wrap=True, min_width=5)
    for kind in kinds:
        table.add_column(_SHORT_TITLES[kind], justify="right")  # "Panda 8" may wrap
    for i, row in enumerate(rows):
        edges = row["house_edge"]
        table.add_row(row["rules"], str(row["decks"]), *(
            f"{edges[kind] * 100:.3f}" if kind in edges else "" for kind in kinds
        ), end_section=i + 1 < len(rows) and rows[i + 1]["rules"] != row["rules"])
    print_table(table, keys=2, stack=True)


@app.command()
@reports_errors
def odds(
    decks: Decks = None,
    remaining: Remaining = None,
    rules_file: RulesFile = None,
    commission: Commission = None,
    tie_pays: TiePays = None,
    variant: VariantOpt = None,
    pair_pays: PairPays = None,
    dragon7_pays: Dragon7Pays = None,
    panda8_pays: Panda8Pays = None,
    super6_pays: Super6Pays = None,
    paytable: Paytable = None,
    side_bets: Annotated[
        bool, typer.Option("--side-bets", help="with --json: the side bets too (the "
                           "tables always show them)")
    ] = False,
    count: Annotated[
        str | None, typer.Option("--count", help="the card count of a bet (a main or side "
                                 "bet: dragon_bonus_player, big_tiger, ...): the effect of "
                                 "removing one card of each value on its EV, by enumeration, "
                                 "the tags and the true count at which it breaks even")
    ] = None,
    max_tag: Annotated[
        int | None, typer.Option("--max-tag", min=1, help="with --count: integer tags up "
                                 "to this size (default: the effects of removal themselves)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of tables")] = False,
    compare: Annotated[
        bool, typer.Option("--compare", help="house edges under standard (5%), EZ, Super 6, "
                           "4% commission and tie 9:1 for 1, 2, 4, 6 and 8 decks")
    ] = False,
) -> None:
    """Exact probabilities and house edge of every bet, by enumerating every coup.

    A full shoe of --decks decks (8 by default), or the cards left in it (--remaining).
    The side bets (Dragon Bonus, the Tiger family, Lucky 6, the pairs, Big and Small,
    Egalite) follow, each with the probability of the events it pays on and the standard
    deviation of a unit stake (in --json with --side-bets).

    House edges are expected losses per unit staked, ties and pushes included.
    """
    from ..odds import (
        OddsError,
        bets_offered,
        house_edges,
        outcome_probabilities,
        shoe_rank_counts,
    )
    from ..odds import (
        odds as side_bet_odds,
    )
    from ..odds.side_bets import N_CARDS, SIDE_BETS

    rules = build_rules(rules_file, decks=decks, commission=commission, tie_pays=tie_pays,
                        variant=variant, pair_pays=pair_pays, dragon7_pays=dragon7_pays,
                        panda8_pays=panda8_pays, super6_pays=super6_pays)
    if compare:
        if remaining is not None:
            raise OddsError("--compare covers full shoes of 1 to 8 decks; drop --remaining")
        rows = compare_rows(rules)
        if as_json:
            typer.echo(json.dumps({"compare": rows}, indent=2))
        else:
            _print_compare(rows)
        return
    from ..rules import load_paytables

    tables: dict[str, Any] = {**(load_paytables(rules_file) if rules_file else {}),
                              **parse_paytables(paytable)}
    if count is not None:
        _count(rules, count, max_tag, tables, as_json)
        return
    counts = parse_remaining(remaining, rules.decks) if remaining is not None else None
    composition = counts if counts is not None else shoe_rank_counts(rules.decks)
    if len(composition) == N_CARDS:  # the main bets by rank
        composition = [sum(composition[4 * r:4 * r + 4]) for r in range(13)]
    probs = outcome_probabilities(composition, rules.decks)
    edges = house_edges(rules, composition)
    assert list(edges) == list(bets_offered(rules))
    side = side_bet_odds(counts, decks=rules.decks, paytables=tables, bets=SIDE_BETS)
    left_out = [bet for bet in SIDE_BETS if bet not in side]
    if as_json:
        typer.echo(json.dumps({
            "decks": rules.decks,
            "probabilities": {"banker": probs.banker, "player": probs.player,
                              "tie": probs.tie},
            "pair_probability_one_hand": probs.pair,
            "house_edge": edges,
            **({"side_bets": {bet: o.as_dict() for bet, o in side.items()}}
               if side_bets or tables else {}),
        }, indent=2))
    else:
        _print_odds(rules, probs, edges, counts)
        _print_side_bets(side, left_out)
