"""The lifetimes of test_zero_copy.py with device="cuda": the images are the GPU stage's device
buffers, the labels a device copy of their own made on the loader's stream, the indices a host
copy. Keeping the labels and indices of every batch never stops the loader, and what was kept
still equals the file's rows once the device has finished. Labelled gpu; skipped where torch
sees no CUDA device (Debian's python3-torch is a CPU build)."""
import gc

import numpy as np
import pytest
import torch

import h5feed
from conftest import keep_indices_of_every_batch, read_rows

if not torch.cuda.is_available():
    pytest.skip("no usable CUDA device in torch", allow_module_level=True)

EPOCHS = 3


def test_only_the_images_hold_the_device_buffer(small_file):
    loader = h5feed.Loader(small_file, 16, slots=2, device="cuda", with_indices=True,
                           sampler="sequential")
    images, labels, indices = next(iter(loader))
    assert images.is_cuda and labels.is_cuda and not indices.is_cuda
    assert loader._native.held_batches == 1
    del images
    gc.collect()
    assert loader._native.held_batches == 0
    _, expected_labels = read_rows(small_file, indices.numpy())
    np.testing.assert_array_equal(labels.cpu().numpy(), expected_labels)


def test_keeping_the_indices_of_every_batch_does_not_stop_the_loader(small_file):
    loader = h5feed.Loader(small_file, 16, slots=1, device="cuda", with_indices=True,
                           sampler="random")
    keep_indices_of_every_batch(loader, EPOCHS)


@pytest.mark.parametrize("own_stream", [False, True])
def test_labels_kept_while_the_device_lags_equal_the_files(small_file, own_stream):
    # The trainer's stream is made to lag far behind the host (a sleep kernel per step), so the
    # loader reuses each device buffer while earlier steps' label copies are still queued: they
    # must be ordered before the reuse. On a stream of the trainer's own, or torch's default.
    stream = torch.cuda.Stream() if own_stream else torch.cuda.current_stream()
    with torch.cuda.stream(stream):
        loader = h5feed.Loader(small_file, 16, slots=1, device="cuda", with_indices=True,
                               sampler="chunks:2")
        targets, rows = [], []
        for epoch in range(EPOCHS):
            loader.set_epoch(epoch)
            for images, labels, indices in loader:
                torch.cuda._sleep(1_000_000)  # about a millisecond of device time
                assert labels.device == images.device
                targets.append(labels)
                rows.append(indices)
    torch.cuda.synchronize()
    assert len(targets) == EPOCHS * len(loader)
    _, expected_labels = read_rows(small_file, torch.cat(rows).numpy())
    np.testing.assert_array_equal(torch.cat(targets).cpu().numpy(), expected_labels)


def test_holding_every_batchs_images_is_still_an_error(small_file):
    loader = h5feed.Loader(small_file, 16, slots=2, device="cuda")
    kept = []
    with pytest.raises(h5feed.InvalidArgumentError):
        for images, labels in loader:
            kept.append(images)
    assert 1 <= len(kept) < len(loader)
