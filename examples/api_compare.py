"""Backtest two systems from Python over the same shoes and compare them.

Both runs replay the same 2,000 generated shoes (seed 7), so the comparison pairs them
session by session: the difference in mean net comes with a 95% interval, and "significant"
says whether that interval excludes zero.

    python examples/api_compare.py            # print the comparison
    python examples/api_compare.py out/       # also save both runs and an HTML report there
"""

from __future__ import annotations

import sys
from pathlib import Path

from baccarat import Run, backtest
from baccarat.report import compare, write_report

HERE = Path(__file__).resolve().parent
PLUGIN = f"{HERE / 'banker_after_players.py'}:BankerAfterPlayers"
SHOES, SEED = 2000, 7


def main(out: Path | None = None) -> None:
    """Backtest flat Banker and the plugin, print the comparison, optionally save it all."""
    flat = backtest(None, ["flat"], shoes=SHOES, seed=SEED,
                    run=Run(out=out / "flat" if out else None))
    mine = backtest(None, [PLUGIN], shoes=SHOES, seed=SEED,
                    run=Run(out=out / "banker_after_players" if out else None))
    runs = {"flat": flat, "mine": mine}  # the keys label the rows: flat/flat, mine/...
    table = compare(runs, sort="mean_net")  # each row's mean net minus the first (flat)
    columns = ["label", "mean_net", "mean_wagered", "realized_edge", "expected_edge",
               "diff_mean_net", "diff_low", "diff_high", "significant", "pairing"]
    print(table[columns].to_string(index=False, float_format=lambda x: f"{x:,.4g}"))
    if out is not None:
        report = write_report(runs, out / "report.html", force=True)
        print(f"wrote {out / 'flat'}, {out / 'banker_after_players'} and {report}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
