"""h5feed.Loader's contract from Python: batches equal h5py's read of the same rows, an epoch
covers every row once, orders follow (seed, epoch), state_dict resumes exactly, ranks get
disjoint equal shares, and the options reach the C++ loader."""
import os

import h5py
import numpy as np
import pytest
import torch

import h5feed
from conftest import CHUNK, SAMPLES, make_arrays, read_rows


def epoch_indices(loader):
    return [indices.tolist() for _, _, indices in loader]


def test_raw_batches_equal_h5py_read_of_the_same_rows(small_file):
    loader = h5feed.Loader(small_file, 32, dtype=None, with_indices=True)
    seen = []
    for images, labels, indices in loader:
        assert images.dtype == torch.uint8 and images.shape[1:] == (8, 6, 3)
        assert labels.dtype == torch.int64 and indices.dtype == torch.int64
        expected_images, expected_labels = read_rows(small_file, indices.numpy())
        np.testing.assert_array_equal(images.numpy(), expected_images)
        np.testing.assert_array_equal(labels.numpy(), expected_labels)
        seen.extend(indices.tolist())
    assert sorted(seen) == list(range(SAMPLES))  # every row once
    assert len(loader) == 10  # ceil(300 / 32), the short last batch kept


@pytest.mark.parametrize("map_file, direct", [(True, False), (False, False), (True, True)])
def test_uncompressed_chunks_mapped_read_or_read_directly_give_h5py_rows(tmp_path, map_file,
                                                                           direct):
    images, labels = make_arrays()
    np.save(tmp_path / "images.npy", images)
    np.save(tmp_path / "labels.npy", labels)
    path = tmp_path / "none.h5"
    h5feed.convert_npy(tmp_path / "images.npy", path, labels=tmp_path / "labels.npy",
                       chunk=CHUNK, compression="none")
    if direct:
        try:
            os.close(os.open(path, os.O_RDONLY | os.O_DIRECT))
        except OSError:
            pytest.skip("the file system of tmp_path refuses O_DIRECT")
    # A cache of two chunks: mapped chunks are unmapped and mapped again during the epoch.
    loader = h5feed.Loader(path, 32, dtype=None, with_indices=True, map_file=map_file,
                           direct=direct, cache_bytes=2 * CHUNK * images[0].nbytes)
    seen = []
    for batch, batch_labels, indices in loader:
        expected_images, expected_labels = read_rows(path, indices.numpy())
        np.testing.assert_array_equal(batch.numpy(), expected_images)
        np.testing.assert_array_equal(batch_labels.numpy(), expected_labels)
        seen.extend(indices.tolist())
    assert sorted(seen) == list(range(SAMPLES))


def test_normalized_batches_are_float32_nchw_scaled_by_mean_and_std(small_file):
    mean, std = (0.5, 0.4, 0.3), (0.2, 0.25, 0.3)
    loader = h5feed.Loader(small_file, 50, mean=mean, std=std, with_indices=True)
    images, _, indices = next(iter(loader))
    assert images.dtype == torch.float32 and images.shape == (50, 3, 8, 6)
    raw, _ = read_rows(small_file, indices.numpy())
    expected = (raw.astype(np.float32) / 255 - np.float32(mean)) / np.float32(std)
    np.testing.assert_allclose(images.numpy(), expected.transpose(0, 3, 1, 2), rtol=1e-5,
                               atol=1e-5)


def test_the_same_seed_gives_the_same_order_and_another_seed_another(small_file):
    first = epoch_indices(h5feed.Loader(small_file, 32, seed=7, with_indices=True))
    again = epoch_indices(h5feed.Loader(small_file, 32, seed=7, with_indices=True))
    other = epoch_indices(h5feed.Loader(small_file, 32, seed=8, with_indices=True))
    assert first == again
    assert first != other


def test_set_epoch_changes_the_order_and_without_it_epochs_repeat(small_file):
    loader = h5feed.Loader(small_file, 32, with_indices=True)
    epoch0 = epoch_indices(loader)
    assert epoch_indices(loader) == epoch0  # like DistributedSampler without set_epoch
    loader.set_epoch(1)
    epoch1 = epoch_indices(loader)
    assert epoch1 != epoch0
    assert sorted(sum(epoch1, [])) == list(range(SAMPLES))


@pytest.mark.parametrize("sampler", ["sequential", "random", "chunks:4", "quasi:4"])
def test_state_dict_resumes_mid_epoch_to_the_uninterrupted_run(small_file, sampler):
    def run(loader, epochs):
        out = []
        for epoch in epochs:
            loader.set_epoch(epoch)
            out += [(epoch, i.tolist()) for _, _, i in loader]
        return out

    options = dict(sampler=sampler, seed=11, with_indices=True)
    uninterrupted = run(h5feed.Loader(small_file, 32, **options), [0, 1])

    first = h5feed.Loader(small_file, 32, **options)
    first.set_epoch(1)
    iterator = iter(first)
    taken = [next(iterator)[2].tolist() for _ in range(4)]
    state = first.state_dict()
    assert state["epoch"] == 1 and state["step"] == 4

    resumed = h5feed.Loader(small_file, 32, **options)
    resumed.load_state_dict(state)
    rest = run(resumed, [1])  # set_epoch(1) keeps the restored position
    assert [(1, i) for i in taken] + rest == uninterrupted[10:]


def test_load_state_dict_rejects_a_state_of_another_seed(small_file):
    state = h5feed.Loader(small_file, 32, seed=1).state_dict()
    with pytest.raises(h5feed.InvalidArgumentError, match="seed"):
        h5feed.Loader(small_file, 32, seed=2).load_state_dict(state)


@pytest.mark.parametrize("world", [3, 7])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("sampler", ["random", "chunks:2"])
def test_ranks_get_disjoint_equal_shares_covering_the_epoch(small_file, world, drop_last,
                                                            sampler):
    shares = []
    for rank in range(world):
        loader = h5feed.Loader(small_file, 16, rank=rank, world_size=world,
                               drop_last=drop_last, sampler=sampler, with_indices=True)
        loader.set_epoch(2)
        shares.append([i for batch in epoch_indices(loader) for i in batch])
    # DistributedSampler's contract: equal counts; padded by repeats, or tail rows dropped.
    per_rank = SAMPLES // world if drop_last else -(-SAMPLES // world)
    delivered = per_rank // 16 * 16 if drop_last else per_rank
    assert [len(share) for share in shares] == [delivered] * world
    all_rows = [i for share in shares for i in share]
    if drop_last:
        assert len(set(all_rows)) == len(all_rows)
    else:
        assert set(all_rows) == set(range(SAMPLES))
        assert len(all_rows) - SAMPLES == per_rank * world - SAMPLES < world


def test_drop_last_drops_the_short_last_batch(small_file):
    loader = h5feed.Loader(small_file, 32, drop_last=True, dtype=None)
    sizes = [labels.shape[0] for _, labels in loader]
    assert len(loader) == 9 and sizes == [32] * 9


def test_echo_delivers_each_loaded_batch_echo_times(small_file):
    loader = h5feed.Loader(small_file, 60, echo=2, slots=4, sampler="sequential",
                           with_indices=True)
    batches = epoch_indices(loader)
    assert len(loader) == len(batches) == 10
    for copy0, copy1 in zip(batches[::2], batches[1::2]):
        assert sorted(copy0) == sorted(copy1)


def test_rank_and_world_size_come_as_a_pair(small_file):
    with pytest.raises(ValueError, match="both rank and world_size"):
        h5feed.Loader(small_file, 16, rank=1)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_output_is_the_float32_result_rounded_or_unsupported(small_file, dtype):
    # The C++ loader delivers float16/bfloat16 once the GPU stage lands (issue 4); until then
    # it refuses them, and the refusal must reach Python as h5feed.UnsupportedError.
    reference = next(iter(h5feed.Loader(small_file, 32, with_indices=True)))
    batch = first_batch_or_unsupported(small_file, dtype=dtype)
    if batch is None:
        return
    images, _, indices = batch
    assert images.dtype == dtype
    assert torch.equal(indices, reference[2])
    torch.testing.assert_close(images, reference[0].to(dtype))


def first_batch_or_unsupported(path, **options):
    """The first (images, labels, indices) of a Loader, or None when this build's library
    refuses the output form (h5feed.UnsupportedError, naming LoaderOptions.output)."""
    try:
        return next(iter(h5feed.Loader(path, 32, with_indices=True, **options)))
    except h5feed.UnsupportedError as error:
        assert "LoaderOptions.output" in str(error)
        return None


def test_channels_last_gives_the_same_values_in_channels_last_memory(small_file):
    reference = next(iter(h5feed.Loader(small_file, 32, with_indices=True)))
    batch = first_batch_or_unsupported(small_file, memory_format=torch.channels_last)
    if batch is None:
        return
    images, _, indices = batch
    assert images.shape == reference[0].shape  # N x C x H x W, as torch's channels_last
    assert images.is_contiguous(memory_format=torch.channels_last)
    assert torch.equal(indices, reference[2]) and torch.equal(images, reference[0])


def test_random_flip_mirrors_some_samples_and_leaves_the_others(small_file):
    reference = next(iter(h5feed.Loader(small_file, 32, with_indices=True)))
    batch = first_batch_or_unsupported(small_file, augment={"random_flip": True})
    if batch is None:
        return
    images, _, indices = batch
    assert torch.equal(indices, reference[2])
    flipped = [not torch.equal(a, b) for a, b in zip(images, reference[0])]
    for image, expected, was_flipped in zip(images, reference[0], flipped):
        assert torch.equal(image, expected.flip(-1) if was_flipped else expected)
    assert 0 < sum(flipped) < len(flipped)  # 32 fair coins: all equal has odds 2^-31


def test_the_file_geometry_and_classes_are_reported(small_file):
    loader = h5feed.Loader(small_file, 32)
    assert loader.dataset["samples"] == SAMPLES
    assert loader.dataset["image_shape"] == [8, 6, 3]
    assert loader.dataset["chunk_samples"] == CHUNK
    assert loader.dataset["classes"] == ["0", "1", "2", "3", "4"]
    for _ in loader:
        pass
    stats = loader.stats()
    assert stats["samples"] == SAMPLES and stats["chunk_reads"] >= 19


def test_a_second_iteration_stops_the_first(small_file):
    loader = h5feed.Loader(small_file, 32)
    first = iter(loader)
    next(first)
    second = iter(loader)
    assert sum(1 for _ in second) == len(loader)
    with pytest.raises(RuntimeError, match="another iteration"):
        next(first)


def test_a_file_without_labels_gives_label_zero(tmp_path):
    images = np.arange(40 * 4 * 4 * 3, dtype=np.uint64).astype(np.uint8).reshape(40, 4, 4, 3)
    with h5py.File(tmp_path / "foreign.h5", "w") as f:
        f.create_dataset("x", data=images, chunks=(8, 4, 4, 3), compression="gzip")
    loader = h5feed.Loader(tmp_path / "foreign.h5", 8, dtype=None, sampler="sequential")
    got = torch.cat([batch.clone() for batch, _ in loader])  # a batch is the loader's buffer
    np.testing.assert_array_equal(got.numpy(), images)
    assert all(int(labels.sum()) == 0 for _, labels in loader)
