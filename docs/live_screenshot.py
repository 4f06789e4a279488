"""Draw docs/live-80x24.png, the screenshot of ``baccarat live`` at 80x24 (docs/commands/live.md).

Types 34 coups of a recorded shoe (generated shoe 0 of seed 11, dealt by the engine) into
the app with Textual's headless pilot, key by key, with four systems, saves Textual's SVG
screenshot and renders it to PNG with a headless Chromium:

    python docs/live_screenshot.py [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from baccarat.cards import LABEL_OF_CODE
from baccarat.deal import generate_coups
from baccarat.live.app import LiveApp
from baccarat.live.journal import Journal
from baccarat.live.scorecard import Scorecard
from baccarat.live.session import LiveSession
from baccarat.live.systems import make_systems
from baccarat.rules import TableRules

HERE = Path(__file__).resolve().parent
SYSTEMS = ["flat", "martingale", "road:mode=red | flat", "counter:bet=tie"]


def dealt(row: np.ndarray) -> str:
    player, banker = [c for c in row[:3] if c >= 0], [c for c in row[3:] if c >= 0]
    order = [player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:]]
    return " ".join(LABEL_OF_CODE[c].lower() for c in order)


async def shoot(svg: Path, coups: int) -> None:
    shoe = generate_coups(TableRules(), 11, np.array([0]))
    with tempfile.TemporaryDirectory() as folder:
        card = Scorecard(LiveSession(Journal.create(Path(folder) / "table.csv",
                                                    TableRules())), make_systems(SYSTEMS))
        app = LiveApp(card)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("x", *LABEL_OF_CODE[int(shoe.burn_shown[0])].lower(), "enter")
            for i in range(coups):
                await pilot.press(*dealt(shoe.cards[i]), "enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            app.save_screenshot(str(svg))
        card.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--coups", type=int, default=34)
    args = parser.parse_args()
    png = HERE / "live-80x24.png"
    with tempfile.TemporaryDirectory() as folder:
        svg = Path(folder) / "live.svg"
        asyncio.run(shoot(svg, args.coups))
        page = Path(folder) / "live.html"
        page.write_text("<html><body style='margin:0;background:#fff'>"
                        f"<img src='{svg.name}' style='width:1000px'></body></html>")
        subprocess.run([args.chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", f"--screenshot={png}", "--window-size=1000,640",
                        page.as_uri()], check=True, capture_output=True, timeout=120)
    print(f"wrote {png.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
