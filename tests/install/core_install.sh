#!/usr/bin/env bash
# The package as a user installs it: `pip install .` (not editable, no extras) into a
# fresh virtual environment, used from a folder outside the repository. Run by .ci/run.
#   - `import baccarat` gives every name of the face; `engine` and `strategies` are not
#     installed;
#   - a headless backtest runs and prints its table without any extra;
#   - a command whose extra is missing says which to install, in one line, exit 2.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$repo"
cd "$work"
py="$work/venv/bin/python"

"$py" - <<'PY'
import importlib, inspect
import baccarat
for name in baccarat.__all__:
    value = getattr(baccarat, name)
    assert inspect.isfunction(value) or inspect.isclass(value), name
for gone in ("engine", "strategies"):
    try:
        importlib.import_module(gone)
    except ModuleNotFoundError:
        pass
    else:
        raise SystemExit(f"{gone} is installed as a top-level package")
for extra in ("textual", "matplotlib", "openpyxl", "distributed"):
    assert importlib.util.find_spec(extra) is None, f"{extra} came with the core install"
print(f"face: {len(baccarat.__all__)} names")
PY

"$work/venv/bin/baccarat" backtest -s flat -s martingale --shoes 200 --out run > out.txt
grep -q "martingale" out.txt || { cat out.txt; echo "no results table"; exit 1; }

set +e
"$work/venv/bin/baccarat" live --out card.csv < /dev/null > live.txt 2>&1
code=$?
set -e
[ "$code" -eq 2 ] || { cat live.txt; echo "live without its extra exited $code"; exit 1; }
grep -q "pip install 'baccarat-backtest\[live\]'" live.txt || { cat live.txt; exit 1; }
[ "$(wc -l < live.txt)" -eq 1 ] || { cat live.txt; echo "more than one line"; exit 1; }
echo "core install: face, headless backtest and the missing-extra line all right"
