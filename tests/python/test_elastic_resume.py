"""Elastic resume under real launches: `python3 -m torch.distributed.run` (torchrun; gloo on
the loopback) runs N ranks that stop mid-epoch, rank 0 saves loader.state_dict() with
torch.save, and a new launch of M ranks loads it and finishes the epoch. Between them the
launches deliver every sample of the epoch exactly once, in equal counts per rank, each with
the crop and flip the uninterrupted run gave it; the next epoch is the plain M-rank order.

One chain of three launches shrinks the job, grows it again to a size it never had, and
resumes twice in one epoch (every pair of world sizes, 1-4 old and 1-5 new, is
elastic_order_test's and loader_elastic_test's, without launches). The file has 300 samples in
chunks of 16, batches of 8. The stops are chosen so that no deal needs padding (every remainder
divides by its world size), so "exactly once" is exact: 4 ranks x 75, stop after 2 (16 each):
236 left -> 2 x 118, stop after 5 (40 each): 156 left -> 3 x 52."""
from pathlib import Path

import numpy as np
import pytest
import torch

import h5feed
from conftest import SAMPLES, torchrun

from elastic_worker import EPOCH, open_loader

WORKER = Path(__file__).with_name("elastic_worker.py")


def launch(ranks, path, out_dir, name, stop, checkpoint=None):
    """One torchrun launch of `ranks` workers; returns their .npz results, rank by rank."""
    result = torchrun(ranks, WORKER, path, out_dir, name, stop,
                      *([checkpoint] if checkpoint else []), timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    runs = [dict(np.load(out_dir / f"{name}-rank{r}.npz")) for r in range(ranks)]
    # Equal counts: every rank delivered as many batches as the most any did.
    assert {int(r["batches"]) for r in runs} == {int(r["max_batches"]) for r in runs}
    return runs


@pytest.fixture(scope="module")
def reference(small_file):
    """Every row's image in the uninterrupted 4-rank epoch (the four ranks' loaders opened
    here, with the workers' options)."""
    images = {}
    for rank in range(4):
        loader = open_loader(small_file, rank=rank, world_size=4)
        loader.set_epoch(EPOCH)
        for x, _, indices in loader:
            images.update(zip(indices.tolist(), x.clone()))
    assert sorted(images) == list(range(SAMPLES))
    return images


def delivered(*launches):
    return sorted(row for runs in launches for run in runs for row in run["rows"].tolist())


def check_crops(reference, *launches):
    for runs in launches:
        for run in runs:
            for row, image in zip(run["rows"].tolist(), run["images"]):
                assert torch.equal(torch.from_numpy(image), reference[row]), row


def check_next_epoch(path, runs):
    """The epoch after the change is the plain order of the new world size."""
    for rank, run in enumerate(runs):
        plain = open_loader(path, rank=rank, world_size=len(runs))
        plain.set_epoch(EPOCH + 1)
        assert run["next_rows"].tolist() == [i for _, _, idx in plain for i in idx.tolist()]


def test_four_ranks_stop_two_resume_and_stop_three_finish(small_file, tmp_path, reference):
    four = launch(4, small_file, tmp_path, "four", 2)
    two = launch(2, small_file, tmp_path, "two", 5, tmp_path / "four.pt")
    state = torch.load(tmp_path / "two.pt")
    assert state["world_size"] == 2 and state["step"] == 7 and state["stretches"] == [[4, 2]]
    three = launch(3, small_file, tmp_path, "three", -1, tmp_path / "two.pt")
    assert delivered(four, two, three) == list(range(SAMPLES))
    assert {len(r["rows"]) for r in three} == {52}
    check_crops(reference, four, two, three)
    check_next_epoch(small_file, three)


def test_a_state_that_does_not_fit_is_refused_saying_what_differs(small_file):
    loader = open_loader(small_file, rank=0, world_size=2)
    loader.set_epoch(EPOCH)
    next(iter(loader))
    state = loader.state_dict()
    other = h5feed.Loader(small_file, 6, sampler="chunks:2", seed=11, rank=0, world_size=2)
    with pytest.raises(h5feed.InvalidArgumentError, match="batch_size 8 in the state, 6 here"):
        other.load_state_dict(state)
    fresh = open_loader(small_file, rank=0, world_size=3)
    for damaged, says in [({**state, "stretches": [[2]]}, "stretches"),
                          ({**state, "step": "1"}, "not an integer"),
                          ({**state, "world_size": 0, "stretches": [[2, 1]]}, "world_size is 0"),
                          ({k: v for k, v in state.items() if k != "seed"}, "no 'seed'"),
                          ([1, 2], "not a dict"),
                          # Beyond what the library's integers hold: refused as damaged, not
                          # a binding's TypeError listing its signature.
                          ({**state, "step": 2**63}, r"state\['step'\] is 9223372036854775808, "
                                                     "out of range"),
                          ({**state, "epoch": -2**64}, r"state\['epoch'\] .* out of range"),
                          ({**state, "world_size": 2**31}, r"state\['world_size'\] .* out of "
                                                           "range"),
                          ({**state, "stretches": [[2**40, 1]]}, "stretches.* out of range"),
                          ({**state, "seed": -1}, r"state\['seed'\] is -1, out of range")]:
        with pytest.raises(h5feed.InvalidArgumentError, match=says):
            fresh.load_state_dict(damaged)


def test_a_state_stripped_to_the_keys_of_old_states_is_refused_saying_so(small_file):
    """States saved before elastic resume are {epoch, step, seed, fingerprint}, with a
    fingerprint that covers the world size (loader_elastic_test restores one); today's state
    stripped to those keys lacks what a resume on any world size needs."""
    loader = open_loader(small_file, rank=0, world_size=2)
    loader.set_epoch(EPOCH)
    next(iter(loader))
    old_keys = {k: loader.state_dict()[k] for k in ("epoch", "step", "seed", "fingerprint")}
    with pytest.raises(h5feed.InvalidArgumentError, match="stored without its world_size"):
        open_loader(small_file, rank=0, world_size=2).load_state_dict(old_keys)


def test_a_state_taken_between_set_epoch_and_the_loop_resumes_at_that_epochs_start(small_file):
    """As the C++ Loader's State() after SetEpoch: not the end of the epoch before, which a
    resumed `for epoch in range(state["epoch"], ...)` would run (empty) a second time."""
    loader = open_loader(small_file, rank=0, world_size=2)
    loader.set_epoch(EPOCH)
    for _ in loader:
        pass
    loader.set_epoch(EPOCH + 1)
    state = loader.state_dict()
    assert (state["epoch"], state["step"], state["stretches"]) == (EPOCH + 1, 0, [])
    resumed = open_loader(small_file, rank=0, world_size=2)
    resumed.load_state_dict(state)
    resumed.set_epoch(EPOCH + 1)
    uninterrupted = open_loader(small_file, rank=0, world_size=2)
    uninterrupted.set_epoch(EPOCH + 1)
    assert ([b[-1].tolist() for b in resumed] == [b[-1].tolist() for b in uninterrupted])
