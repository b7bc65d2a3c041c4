"""A batch's images are the loader's slot memory, not copies: a slot returns to the loader only
when the images over it are freed, the GIL is free while a batch is awaited, and a trainer
holding every slot's images gets an error instead of a hang. Labels and indices are copies of
their own: keeping them, as trainers keep a DataLoader's, holds nothing of the loader."""
import gc
import threading
import time

import numpy as np
import pytest
import torch

import h5feed
from conftest import SAMPLES, keep_indices_of_every_batch, read_rows

EPOCHS = 3


def test_held_tensors_stall_the_loader_until_they_are_freed(small_file):
    # slots=2 is 3 buffers (one for the batch a for loop holds while awaiting the next), all
    # held by the tensors of the first three batches: the fourth has no buffer to be assembled
    # in. If the tensors were copies, it would arrive at once.
    loader = h5feed.Loader(small_file, 16, slots=2, dtype=None, sampler="sequential")
    iterator = iter(loader)
    held = [next(iterator) for _ in range(3)]
    assert loader._native.held_batches == 3

    arrived = []
    waiter = threading.Thread(target=lambda: arrived.append(next(iterator)))
    waiter.start()  # runs while this thread keeps the GIL only because next() releases it
    waiter.join(timeout=1.0)
    assert waiter.is_alive() and not arrived  # stalled: no free slot

    first_images_address = held[0][0].data_ptr()
    del held[0]
    gc.collect()
    waiter.join(timeout=30)
    assert not waiter.is_alive() and len(arrived) == 1
    # The fourth batch was assembled in the buffer the first one gave back.
    assert arrived[0][0].data_ptr() == first_images_address


def test_only_the_images_hold_the_batch_buffer(small_file):
    loader = h5feed.Loader(small_file, 16, slots=2, dtype=None, with_indices=True,
                           sampler="sequential")
    images, labels, indices = next(iter(loader))
    assert loader._native.held_batches == 1
    del images
    gc.collect()
    assert loader._native.held_batches == 0  # the labels and indices kept hold no slot
    assert indices.tolist() == list(range(16))
    _, expected_labels = read_rows(small_file, indices.numpy())
    np.testing.assert_array_equal(labels.numpy(), expected_labels)


@pytest.mark.parametrize("dtype", [None, torch.float32])
def test_keeping_the_indices_of_every_batch_does_not_stop_the_loader(small_file, dtype):
    # slots=1 is two buffers; the indices of 19 batches an epoch outlive them many times over.
    # Were they views of the slots, the third batch would wait for a buffer (and the iteration
    # raise); were they views without the slot's ownership, the kept values would be
    # overwritten by later batches and no longer cover every row.
    loader = h5feed.Loader(small_file, 16, slots=1, dtype=dtype, with_indices=True,
                           sampler="random")
    kept = keep_indices_of_every_batch(loader, EPOCHS)
    assert not np.array_equal(np.concatenate(kept[0]), np.concatenate(kept[1]))


@pytest.mark.parametrize("echo", [1, 2])
def test_an_evaluation_loop_keeping_every_batchs_labels_completes(small_file, echo):
    loader = h5feed.Loader(small_file, 16, slots=max(1, echo), dtype=None, with_indices=True,
                           sampler="chunks:2", echo=echo)
    targets, rows = [], []
    for epoch in range(EPOCHS):
        loader.set_epoch(epoch)
        for images, labels, indices in loader:
            # The indices are this batch's rows: its images are h5py's read of them.
            expected_images, _ = read_rows(small_file, indices.numpy())
            np.testing.assert_array_equal(images.numpy(), expected_images)
            targets.append(labels)
            rows.append(indices)
    assert len(targets) == EPOCHS * len(loader)
    # Read back after every epoch: no later batch changed what was kept.
    _, expected_labels = read_rows(small_file, torch.cat(rows).numpy())
    np.testing.assert_array_equal(torch.cat(targets).numpy(), expected_labels)
    assert np.bincount(torch.cat(rows).numpy()).tolist() == [EPOCHS * echo] * SAMPLES


# slots=3, echo=1: 4 buffers, all held by 4 batches' images (slots + the one a loop holds).
# slots=2, echo=2: 3 buffers, and each step takes 2 at once: the images of one step's 2 copies
# leave it 1, too few for the next step.
@pytest.mark.parametrize("slots, echo, starving", [(3, 1, 4), (2, 2, 2)])
def test_holding_every_slot_is_an_error_not_a_hang(small_file, slots, echo, starving):
    loader = h5feed.Loader(small_file, 16, slots=slots, echo=echo, dtype=None)
    kept = []
    started = time.monotonic()
    targets = []
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=rf"image tensors of {starving} earlier batches.*clone"):
        for images, labels in loader:
            kept.append(images)  # the mistake: keeping the loader's buffers
            targets.append(labels)  # fine on its own
    assert len(kept) == starving
    assert time.monotonic() - started < 60
    kept.clear()
    del images, labels  # the last batch the failed loop bound
    gc.collect()
    # The loader is still usable once the images are let go (the labels kept hold nothing).
    assert len(targets) == starving
    assert sum(1 for _ in loader) == len(loader)


def test_clones_do_not_hold_slots(small_file):
    loader = h5feed.Loader(small_file, 16, slots=2, dtype=None)
    kept = [images.clone() for images, _ in loader]
    assert len(kept) == len(loader)
