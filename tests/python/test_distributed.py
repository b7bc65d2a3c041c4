"""Under `python3 -m torch.distributed.run --nproc_per_node=2` (gloo, loopback), each rank's
Loader takes rank and world_size from torch.distributed and reads a disjoint, equal share;
together the shares cover the epoch."""
import json
from pathlib import Path

from conftest import SAMPLES, torchrun

WORKER = Path(__file__).with_name("distributed_worker.py")


def test_two_ranks_read_disjoint_shares_that_cover_the_epoch(small_file, tmp_path):
    result = torchrun(2, WORKER, small_file, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    assert [r["rank"] for r in ranks] == [0, 1] and {r["world_size"] for r in ranks} == {2}
    first, second = ranks[0]["rows"], ranks[1]["rows"]
    assert len(first) == len(second) == SAMPLES // 2
    assert not set(first) & set(second)
    assert sorted(first + second) == list(range(SAMPLES))
    assert {r["batches"] for r in ranks} == {r["max_batches"] for r in ranks} == {r["len"] for r in ranks}
