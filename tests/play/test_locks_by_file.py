"""Locks and pins follow the file (device and inode), not the name it was given by.

``live --resume F`` and ``live --resume LINK`` (a hard link or a symlink to F) both ran,
and an undo in one deleted the other's coups; ``generate --force --out D`` was not
refused while a run read D through a symlink. A lock is now taken on the name with every
symlink resolved, and on the file or folder itself, so every name of one output finds it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from baccarat.io.owner import OutputBusyError, OutputLock, claim_output, pinned


def test_a_hard_link_to_a_held_file_is_refused_naming_the_holder(tmp_path: Path):
    card = tmp_path / "card.txt"
    card.write_text("# scorecard\n")
    os.link(card, tmp_path / "link.txt")
    held = OutputLock(card)
    held.acquire()
    try:
        with pytest.raises(OutputBusyError, match=rf"link\.txt is in use by another run "
                                                  rf"\(pid {os.getpid()}\)"):
            OutputLock(tmp_path / "link.txt").acquire()
    finally:
        held.release()
    again = OutputLock(tmp_path / "link.txt")
    again.acquire()  # free once released
    again.release()


def test_a_dataset_read_through_a_symlink_cannot_be_replaced(tmp_path: Path):
    data = tmp_path / "shoes"
    data.mkdir()
    (tmp_path / "via").symlink_to(data)
    with pinned(tmp_path / "via") as pin:
        assert pin is not None
        with pytest.raises(OutputBusyError, match="is being read by another run"), \
                claim_output(data, force=True, folder=True, ours=lambda path: True):
            pass
    assert data.is_dir()


def test_writers_through_two_names_of_one_folder_exclude_each_other(tmp_path: Path):
    run = tmp_path / "run"
    run.mkdir()
    (tmp_path / "alias").symlink_to(run)
    held = OutputLock(tmp_path / "alias")
    held.acquire()
    try:
        with pytest.raises(OutputBusyError, match=r"in use by another run"):
            OutputLock(run).acquire()
    finally:
        held.release()
