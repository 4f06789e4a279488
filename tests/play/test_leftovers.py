"""A killed writer's temporary beside its output is removed by the next writer of it.

``search --out sr`` killed with kill -9 left a hidden ``.sr.<hex>.tmp/`` (40 MB) that no
later run removed. The next command writing the same output, holding its lock (so no
writer of that temporary is alive), removes it; temporaries of other names stay.
"""

from __future__ import annotations

from pathlib import Path

from baccarat.cli import app
from baccarat.io.owner import claim_output
from typer.testing import CliRunner


def _leftovers(folder: Path, name: str) -> list[Path]:
    made = [folder / f".{name}.1a2b3c4d.tmp", folder / f".{name}.00ff00ff.tmp"]
    made[0].mkdir()
    (made[0] / "part-0.parquet").write_bytes(b"x" * 1000)
    made[1].write_bytes(b"half a report")
    return made


def test_a_claim_removes_a_killed_writers_temporaries_and_keeps_others(tmp_path: Path):
    left = _leftovers(tmp_path, "sr")
    others = [tmp_path / ".srx.1a2b3c4d.tmp", tmp_path / ".sr.notmine.tmp",
              tmp_path / ".sr.1a2b3c4d.tmp.keep"]
    for path in others:
        path.write_text("someone else's")
    with claim_output(tmp_path / "sr", folder=True) as claim:
        assert not any(path.exists() for path in left)
        (claim.temp / "result.txt").write_text("done")
    assert (tmp_path / "sr" / "result.txt").read_text() == "done"
    assert all(path.exists() for path in others)


def test_the_next_generate_into_the_same_out_removes_them(tmp_path: Path):
    left = _leftovers(tmp_path, "shoes")
    result = CliRunner().invoke(app, ["generate", "--shoes", "2", "--out",
                                      str(tmp_path / "shoes"), "--quiet"])
    assert result.exit_code == 0, result.output
    assert not any(path.exists() for path in left)
