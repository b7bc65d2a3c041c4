"""Under `python3 -m torch.distributed.run --nproc_per_node=2` (gloo, loopback), each rank's
Loader takes rank and world_size from torch.distributed and reads a disjoint, equal share;
together the shares cover the epoch."""
import json
import os
import socket
from pathlib import Path

from conftest import SAMPLES, run_python

WORKER = Path(__file__).with_name("distributed_worker.py")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_ranks_read_disjoint_shares_that_cover_the_epoch(small_file, tmp_path):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    # --redirects/--tee: Debian's torch 1.13 under Python 3.11 cannot parse their default "0"
    # (IntFlag iteration changed) and fails at start; 2 (stderr) parses and keeps stderr visible.
    result = run_python(["-m", "torch.distributed.run", "--redirects=2", "--tee=2",
                         "--nnodes=1", "--nproc_per_node=2",
                         "--master_addr=127.0.0.1", f"--master_port={free_port()}", WORKER,
                         small_file, tmp_path], env=env, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    assert [r["rank"] for r in ranks] == [0, 1] and {r["world_size"] for r in ranks} == {2}
    first, second = ranks[0]["rows"], ranks[1]["rows"]
    assert len(first) == len(second) == SAMPLES // 2
    assert not set(first) & set(second)
    assert sorted(first + second) == list(range(SAMPLES))
    assert {r["batches"] for r in ranks} == {r["max_batches"] for r in ranks} == {r["len"] for r in ranks}
