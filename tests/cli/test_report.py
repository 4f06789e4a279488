"""The HTML report: the numbers behind its figures, its content, and how a browser shows it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from baccarat import Run as RunOptions
from baccarat import backtest
from baccarat.cli import app
from baccarat.metrics import SUMMARY_METRICS
from baccarat.report import Run, render_report, write_report
from baccarat.report.curves import bankroll_fans, ruin_curve
from baccarat.report.figures import bin_edges
from report_figures import expected_figures
from typer.testing import CliRunner

runner = CliRunner()
MAX_BYTES = 5_000_000


def flat(text: str) -> str:
    """Output with the line wrapping removed, for message checks."""
    return " ".join(text.split())


class Page(HTMLParser):
    """What a report page holds: tags, headings, figures, ids and outward references."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}
        self.headings: list[str] = []
        self.ids: list[str] = []
        self.references: list[str] = []
        self.figures_with_svg = 0
        self._heading: list[str] | None = None
        self._in_figure = False
        self._figure_has_svg = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for name, value in attrs:
            if name == "id" and value is not None:
                self.ids.append(value)
            if name in ("src", "href", "xlink:href", "action", "data") and value:
                self.references.append(value)
        if tag in ("h1", "h2", "h3"):
            self._heading = []
        if tag == "figure":
            self._in_figure, self._figure_has_svg = True, False
        if tag == "svg" and self._in_figure:
            self._figure_has_svg = True

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h1", "h2", "h3") and self._heading is not None:
            self.headings.append(" ".join("".join(self._heading).split()))
            self._heading = None
        if tag == "figure":
            self.figures_with_svg += self._figure_has_svg
            self._in_figure = False

    def handle_data(self, data: str) -> None:
        if self._heading is not None:
            self._heading.append(data)


def assert_self_contained(text: str) -> None:
    """No script, stylesheet link, font or reference that would need the network."""
    page = Page(text)
    assert "script" not in page.tags and "link" not in page.tags and "iframe" not in page.tags
    outward = [r for r in page.references if not r.startswith("#")]
    assert outward == [], outward[:5]
    lowered = text.lower()
    for needle in ("@import", "@font-face", "url(http", "url(//", "src=\"http", "src='http"):
        assert needle not in lowered, needle
    assert len(text.encode()) < MAX_BYTES


@pytest.fixture(scope="module")
def run3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report") / "run3"
    backtest(None, ["flat", "martingale", "follow"], shoes=400, seed=11, run=RunOptions(out=folder))
    return folder


@pytest.fixture(scope="module")
def report3(run3: Path) -> str:
    return render_report(run3)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run whose report is short (two figures: one configuration, no ledger), for the
    tests of how a report is written rather than what it shows."""
    folder = tmp_path_factory.mktemp("report") / "small"
    backtest(None, ["flat"], shoes=20, seed=11, run=RunOptions(ledger=False, out=folder))
    return folder


# -- the numbers behind the figures ---------------------------------------------------------

def _hand_run() -> tuple[Run, pd.DataFrame]:
    """Three sessions from 1000: +10 +10 +10; -10 then stopped; 0 -10 -10 (rows shuffled)."""
    sessions = pd.DataFrame({"config": [0, 0, 0], "session": [0, 1, 2],
                             "start_bankroll": [1000.0] * 3, "coups": [3, 1, 3]})
    rows = [(2, 3, 980.0), (0, 1, 1010.0), (1, 1, 990.0), (0, 3, 1030.0), (2, 1, 1000.0),
            (0, 2, 1020.0), (2, 2, 990.0)]
    ledger = pa.table({"config": pa.array([0] * len(rows), pa.int32()),
                       "session": [r[0] for r in rows], "session_coup": [r[1] for r in rows],
                       "bankroll": [r[2] for r in rows], "net": [0.0] * len(rows)})
    run = Run(label="hand", summary=pd.DataFrame({"config": [0], "spec": ["x"]}), info={},
              _sessions=sessions, _ledger=ledger)
    return run, sessions


def test_fan_percentiles_by_hand_with_carry_forward() -> None:
    run, sessions = _hand_run()
    fan = bankroll_fans(run, sessions, samples=3)[0]
    assert fan.coups.tolist() == [0, 1, 2, 3]
    # coup 1: {1010, 990, 1000}; coup 2: {1020, 990 (kept), 990}; coup 3: {1030, 990, 980}
    # percentiles interpolate between order statistics at (n - 1) q
    assert fan.quantiles[0.5].tolist() == [1000, 1000, 990, 990]
    assert fan.quantiles[0.05].tolist() == pytest.approx([1000, 991, 990, 981])
    assert fan.quantiles[0.25].tolist() == pytest.approx([1000, 995, 990, 985])
    assert fan.quantiles[0.75].tolist() == pytest.approx([1000, 1005, 1005, 1010])
    assert fan.quantiles[0.95].tolist() == pytest.approx([1000, 1009, 1017, 1026])
    assert {s: p.tolist() for s, p in fan.samples.items()} == {
        0: [1000, 1010, 1020, 1030], 1: [1000, 990], 2: [1000, 1000, 990, 980]}
    assert (fan.sessions_used, fan.sessions_total) == (3, 3)


def test_ruin_curve_by_hand() -> None:
    ruined = np.array([True, False, True, False])
    coup = np.array([2, -1, 5, -1])
    assert ruin_curve(ruined, coup, 6).tolist() == [0, 0, 0.25, 0.25, 0.25, 0.5, 0.5]


def test_fans_of_a_real_run_agree_with_sessions_and_ledger(run3: Path) -> None:
    run = Run(label="r", summary=pd.read_parquet(run3 / "summary.parquet"), info={},
              path=run3)
    sessions = pd.read_parquet(run3 / "sessions.parquet")
    ledger = pd.read_parquet(run3 / "ledger.parquet",
                             columns=["config", "session", "session_coup", "bankroll"])
    fans = bankroll_fans(run, sessions)
    assert sorted(fans) == [0, 1, 2]
    for config, fan in fans.items():
        s = sessions[sessions["config"] == config]
        # by the last coup every session has stopped: the column is the final bankrolls
        for q, values in fan.quantiles.items():
            assert values[-1] == pytest.approx(np.percentile(s["final_bankroll"], q * 100))
        # coup 1 is every session's bankroll after its first coup
        first = ledger[(ledger["config"] == config) & (ledger["session_coup"] == 1)]
        assert len(first) == len(s)
        assert fan.median[1] == pytest.approx(np.median(first["bankroll"]))
        assert fan.coups[-1] == s["coups"].max()
    martingale = sessions[sessions["config"] == 1]
    curve = ruin_curve(martingale["ruined"].to_numpy(), martingale["ruin_coup"].to_numpy(),
                       int(martingale["coups"].max()))
    summary = pd.read_parquet(run3 / "summary.parquet")
    assert curve[-1] == pytest.approx(summary["risk_of_ruin"].iloc[1]) and curve[-1] > 0


def test_a_large_run_uses_evenly_spaced_sessions(run3: Path) -> None:
    run = Run(label="r", summary=pd.read_parquet(run3 / "summary.parquet"), info={},
              path=run3)
    sessions = pd.read_parquet(run3 / "sessions.parquet")
    horizon = int(sessions[sessions["config"] == 0]["coups"].max())
    fans = bankroll_fans(run, sessions, cell_budget=100 * (horizon + 1))
    fan = fans[0]
    assert (fan.sessions_used, fan.sessions_total) == (100, 400)
    chosen = sessions[(sessions["config"] == 0) & (sessions["session"] % 4 == 0)]
    assert fan.median[-1] == pytest.approx(np.median(chosen["final_bankroll"]))


def test_histogram_bins_are_whole_multiples_of_the_stake() -> None:
    values = np.array([-145.5, -20.0, 0.0, 9.5, 19.0, 127.5])
    edges = bin_edges(values, unit=10.0)
    widths = np.diff(edges)
    assert np.allclose(widths, widths[0]) and widths[0] % 10 == 0
    assert edges[0] <= values.min() and edges[-1] > values.max()
    assert edges[0] % 10 == 0


def test_a_step_histogram_counts_and_frames_like_bars() -> None:
    """The report's histograms are one filled outline (quicker to draw than a bar per bin):
    the counts by hand, and the same axes limits as matplotlib's bars."""
    import matplotlib.pyplot as plt
    from baccarat.report.figures import step_histogram
    from matplotlib.patches import StepPatch

    values = np.array([0.0, 0.5, 1.0, 2.0, 2.5, 2.9])
    fig, (bars, outline) = plt.subplots(1, 2)
    bars.hist(values, bins=[0, 1, 2, 3])
    step_histogram(outline, values, [0, 1, 2, 3])
    (patch,) = [p for p in outline.patches if isinstance(p, StepPatch)]
    assert patch.get_data().values.tolist() == [2, 1, 3]  # [0,1): 0, 0.5; [1,2): 1; [2,3]
    assert outline.get_xlim() == bars.get_xlim() and outline.get_ylim() == bars.get_ylim()
    plt.close(fig)


# -- the page -------------------------------------------------------------------------------

def test_report_sections_figures_and_tables(report3: str, run3: Path) -> None:
    page = Page(report3)
    for heading in ("Baccarat backtest report", "Verdict (3 configurations tried)", "Summary",
                    "Rules, dataset and configurations", "Table rules",
                    "Dataset and sessions", "Configurations", "flat", "martingale", "follow"):
        assert heading in page.headings, heading
    # the verdict comes first, then the overlays, then the summary, then the setup
    order = [report3.find(f'id="{name}"') for name in ("verdict", "overlays", "summary",
                                                        "setup", "config-0")]
    assert all(p > 0 for p in order) and order == sorted(order)
    # the setup of one run is shown once: one rules table, one dataset table
    assert report3.count("<h3>Table rules</h3>") == 1
    assert report3.count("<h3>Dataset and sessions</h3>") == 1
    # per configuration: fan, final net, drawdown, and the ruin and bust curves where a
    # session was ruined or busted (no empty panel); plus the overlays with anything on them
    assert page.tags.get("figure") == expected_figures(run3)
    assert page.figures_with_svg == expected_figures(run3)
    assert "no session ruined" not in report3
    assert len(page.ids) == len(set(page.ids))  # figure ids do not collide
    # every summary metric title, in the table's order
    titles = [m.title for m in SUMMARY_METRICS]
    positions = [report3.find(f"<td>{t}") for t in titles]
    assert all(p > 0 for p in positions) and positions == sorted(positions)
    # the realized edge beside the exact house edge (1.058% for Banker, 8 decks)
    assert "1.058%" in report3
    assert "paired" in report3 and "unpaired" not in report3
    # the bottom line first, in the verdict's words, counting the three tried
    verdict = report3[report3.find('id="verdict"'):]
    assert verdict.index('class="bottom-line"') < verdict.index("<table")
    assert "(counting 3 tried)" in verdict[:verdict.index("<table")]
    assert_self_contained(report3)


def test_report_without_a_ledger(tmp_path: Path) -> None:
    folder = tmp_path / "noledger"
    backtest(None, ["flat", "martingale"], shoes=200, seed=3,
             run=RunOptions(ledger=False, out=folder))
    assert not (folder / "ledger.parquet").exists()
    text = render_report(folder)
    page = Page(text)
    assert "without a ledger" in text
    assert page.tags.get("figure") == expected_figures(folder)  # no fans, no bankroll overlay
    assert "Bankroll by coup" not in text
    assert_self_contained(text)


def test_report_of_two_runs_on_different_shoes(run3: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    backtest(None, ["flat"], shoes=300, seed=12, run=RunOptions(out=other))
    text = render_report([run3, other])
    page = Page(text)
    assert any(h.startswith(f"Run run3 {run3}") for h in page.headings)
    assert any(h.startswith(f"Run other {other}") for h in page.headings)
    assert "other/flat" in page.headings
    assert "unpaired" in text and "Welch" in text
    assert page.tags.get("figure") == expected_figures(run3, other)


def test_report_command(run3: Path, small_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", str(run3), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out} ({expected_figures(run3)} figures" in flat(result.output)
    assert_self_contained(out.read_text())
    again = runner.invoke(app, ["report", str(run3), "--out", str(out)])
    assert again.exit_code == 2 and "--force" in flat(again.output)
    # --force replaces a report of ours (here by a shorter one, quicker to draw)
    forced = runner.invoke(app, ["report", str(small_run), "--out", str(out), "--force"])
    assert forced.exit_code == 0, forced.output
    assert f"wrote {out} ({expected_figures(small_run)} figures" in flat(forced.output)


def test_report_command_errors_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", str(tmp_path / "missing"), "--out", str(out)])
    assert result.exit_code == 2
    assert "does not exist" in flat(result.output)
    assert list(tmp_path.iterdir()) == []


def test_write_report_is_atomic_and_refuses_overwrite(small_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "keep.html"
    out.write_text("precious")
    with pytest.raises(Exception, match="already exists"):
        write_report(small_run, out)
    assert out.read_text() == "precious"
    with pytest.raises(Exception, match="not an output baccarat wrote"):
        write_report(small_run, out, force=True)  # a user's file, even with force
    assert out.read_text() == "precious"
    out.unlink()
    write_report(small_run, out)
    first = out.read_text()
    write_report(small_run, out, force=True)  # a report of ours is replaced
    assert out.read_text().startswith("<!DOCTYPE html>") and first.startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == ["keep.html"]


# -- in a real browser ----------------------------------------------------------------------

def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def test_a_headless_browser_shows_the_figures(report3: str, tmp_path: Path) -> None:
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("chromium is not installed: .ci/run installs it for this test")
        pytest.skip("chromium is not installed")
    page = tmp_path / "report.html"
    page.write_text(report3, encoding="utf-8")
    shot = tmp_path / "shot.png"
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync",
               f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
               "--window-size=1280,4000", page.as_uri()]
    done = subprocess.run(command, capture_output=True, timeout=180, check=False)
    assert shot.exists(), done.stderr.decode(errors="replace")[-2000:]

    from PIL import Image

    image = np.asarray(Image.open(shot).convert("RGB"))
    assert image.shape[:2] == (4000, 1280)
    ink = (image < 235).any(axis=2)
    assert ink.mean() > 0.03  # far from a blank page
    colours = len(np.unique(image.reshape(-1, 3)[::7], axis=0))
    assert colours > 200  # antialiased charts, not a few flat colours
    # the configurations' colours are drawn: blue (flat), red (martingale), green (follow)
    for rgb in ((0x1F, 0x77, 0xB4), (0xD6, 0x27, 0x28), (0x2C, 0xA0, 0x2C)):
        close = (np.abs(image.astype(int) - rgb).sum(axis=2) < 40).sum()
        assert close > 500, rgb
    # ink all the way down: the figures below the tables were drawn too
    bands = ink.reshape(40, 100, 1280).mean(axis=(1, 2))
    assert (bands > 0.01).sum() >= 30, np.round(bands, 3).tolist()


def test_figures_keep_text_as_text(report3: str) -> None:
    # no glyph outlines embedded: labels are <text> drawn in the viewer's own sans-serif
    assert re.search(r"<text[^>]*>[^<]*coup in session", report3)
    assert "<font" not in report3 and "glyph" not in report3


def test_runs_that_share_their_setup_show_it_once(tmp_path: Path) -> None:
    folders = []
    for i, spec in enumerate(["flat", "martingale", "paroli", "flat:side=player"]):
        folders.append(tmp_path / f"r{i}")
        backtest(None, [spec], shoes=40, seed=8, run=RunOptions(out=folders[-1], ledger=False))
    text = render_report(folders)
    assert text.count("<h3>Table rules</h3>") == 1
    assert text.count("<h3>Dataset and sessions</h3>") == 1
    assert "<h3>Run " not in text
    # the verdict judges each realized edge against its own expected edge, beside the
    # full-shoe house edge, and says whose difference it is
    verdict = text[text.find('id="verdict"'):text.find('id="overlays"')]
    assert "expected edge" in verdict and "full-shoe house edge" in verdict
    assert "mean net: configuration - r0/flat" in verdict
    assert "-1.058%" in verdict and "-1.235%" in verdict  # Banker and Player, expected


def test_the_report_leads_with_the_mean_bankroll_plots_busts_and_names_rules_in_words(
        report3: str, run3: Path) -> None:
    overlays = report3[report3.find('id="overlays"'):report3.find('id="summary"')]
    assert "Mean bankroll by coup" in overlays
    sessions = pd.read_parquet(run3 / "sessions.parquet")
    assert sessions["busted"].any()  # Martingale busts in 400 shoes
    assert "Share of sessions busted" in overlays and "Share of sessions ruined" in overlays \
        or "No session ruined" in overlays
    setup = report3[report3.find('id="setup"'):]
    rules = setup[:setup.find("</table>")]
    for words in ("decks in the shoe", "cards behind the cut card", "Banker commission",
                  "one more coup after the cut card", "table minimum stake"):
        assert words in rules, words
    for raw in ("burn_count", "extra_coup_after_cut", "cut_card", "table_min"):
        assert f"<td>{raw}</td>" not in rules
