"""How strongly ``analyze_coups`` sees riffled discards: the carry-over statistic by K.

For K = 1..7 riffles, generates ``--shoes`` shoes from ``generate --shuffle riffle:K``
(tables of ``--table-shoes``), analyses them, and prints the carry-over share against the
fair reference mean, its z, its Holm-adjusted p, and every statistic that stood out.

    python benchmarks/bench_analysis_power.py --shoes 200 --reference 100
"""

from __future__ import annotations

import argparse

import numpy as np
from baccarat.analysis import analyze_coups
from baccarat.rules import TableRules
from baccarat.shuffles import generate_model_coups, parse_shuffle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=200)
    parser.add_argument("--reference", type=int, default=100)
    parser.add_argument("--table-shoes", type=int, default=8)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--max-riffles", type=int, default=7)
    args = parser.parse_args()
    print("K  carry-over  fair mean  z  adjusted p  standing out")
    for k in range(1, args.max_riffles + 1):
        model = parse_shuffle(f"riffle:{k}", table_shoes=args.table_shoes)
        coups = generate_model_coups(TableRules(), args.seed, np.arange(args.shoes), model)
        table = analyze_coups(coups, n_reference=args.reference,
                              table_shoes=args.table_shoes).table.set_index("statistic")
        row = table.loc["carry_over_share"]
        print(f"{k}  {row.observed:.4f}  {row.reference_mean:.4f}  {row.z:+.1f}  "
              f"{row.p_adjusted:.2g}  {list(table.index[table.stands_out])}", flush=True)


if __name__ == "__main__":
    main()
