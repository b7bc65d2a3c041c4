"""Masks and boxes through ranks and an elastic resume under real launches: three torchrun
ranks read a file of coordinate images with a mask and boxes (tests/lib/loader/
write_geometry_test_file: 48 rows, row r's box labels 10 r + k) with random resized crops,
flips and echo 2, stop mid-echo, rank 0 saves loader.state_dict(); two new ranks load it and
finish the epoch. Between the launches every row is delivered, each echo copy's fields with
their row: every delivered mask, box and box label equals the uninterrupted three-rank run's
for that row and copy (the draws are keyed by row and copy, never by rank or step). The sizes
need no padding: 3 x 16 rows, 3 batches of 4 each before the stop (the third a first echo copy,
whose row's second copy is not delivered, docs/reader.md), 24 rows left -> 2 x 12."""
import os
import subprocess
from collections import defaultdict
from pathlib import Path

import torch

from conftest import torchrun

from fields_elastic_worker import EPOCH, fields_of, open_loader

WORKER = Path(__file__).with_name("fields_elastic_worker.py")
ROWS = 48


def launch(ranks, path, out_dir, name, stop, checkpoint=None):
    result = torchrun(ranks, WORKER, path, out_dir, name, stop,
                      *([checkpoint] if checkpoint else []), timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    runs = [torch.load(out_dir / f"{name}-rank{r}.pt") for r in range(ranks)]
    assert len({run["batches"] for run in runs}) == 1  # equal counts on every rank
    return [d for run in runs for d in run["delivered"]]


def same(a, b):
    return all(torch.equal(x, y) for x, y in zip(a[1:], b[1:]))


def test_three_ranks_stop_mid_echo_and_two_finish_with_every_rows_fields(tmp_path):
    path = tmp_path / "geometry.h5"
    subprocess.run([os.environ["WRITE_GEOMETRY_TEST_FILE"], str(path), "--images", str(ROWS)],
                   check=True)
    reference = defaultdict(list)  # row -> its echo copies' fields, uninterrupted
    for rank in range(3):
        loader = open_loader(path, rank=rank, world_size=3)
        loader.set_epoch(EPOCH)
        for batch in loader:
            for delivered in fields_of(batch):
                reference[delivered[0]].append(delivered)
    assert sorted(reference) == list(range(ROWS))
    assert {len(copies) for copies in reference.values()} == {2}
    assert any(not same(*copies) for copies in reference.values())  # copies draw apart

    before = launch(3, path, tmp_path, "three", 3)
    state = torch.load(tmp_path / "three.pt")
    assert state["world_size"] == 3 and state["step"] == 3
    after = launch(2, path, tmp_path, "two", -1, tmp_path / "three.pt")
    rows = defaultdict(int)
    for delivered in before + after:
        row = delivered[0]
        rows[row] += 1
        assert any(same(delivered, copy) for copy in reference[row]), row
        labels = delivered[3].tolist()
        assert all(label // 10 == row for label in labels), (row, labels)
    assert sorted(rows) == list(range(ROWS))
    # Before the stop each rank delivered both copies of its first load and the first copy of
    # its second; after it, both copies of every remaining row.
    assert sum(rows.values()) == 3 * (4 * 2 + 4) + 24 * 2
