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


def test_a_process_of_several_without_torch_distributed_is_warned_it_reads_every_sample(
        small_file, monkeypatch):
    """mpirun or torchrun starting a trainer that never calls init_process_group: every process
    would read the whole epoch, silently N times over."""
    import warnings

    import pytest

    import h5feed
    for variable, launcher in [("WORLD_SIZE", "torchrun"), ("OMPI_COMM_WORLD_SIZE", "mpirun")]:
        monkeypatch.setenv(variable, "4")
        with pytest.warns(UserWarning, match=rf"{variable}=4 \({launcher}\) says this process is "
                                             "one of 4") as caught:
            loader = h5feed.Loader(small_file, 16)
        assert caught[0].filename == __file__  # the trainer's line, not h5feed's
        assert loader.samples_per_epoch == SAMPLES
        monkeypatch.delenv(variable)
    # One process of one, or a rank given, is nothing to warn about.
    monkeypatch.setenv("WORLD_SIZE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h5feed.Loader(small_file, 16)
        monkeypatch.setenv("WORLD_SIZE", "4")
        h5feed.Loader(small_file, 16, rank=1, world_size=4)
