"""Batches are the loader's slot memory, not copies: a slot returns to the loader only when the
tensors over it are freed, the GIL is free while a batch is awaited, and a trainer holding every
slot gets an error instead of a hang."""
import gc
import threading
import time

import pytest

import h5feed


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


def test_labels_and_indices_live_in_the_same_slot_as_their_images(small_file):
    loader = h5feed.Loader(small_file, 16, slots=2, dtype=None, with_indices=True)
    images, labels, indices = next(iter(loader))
    del images, indices
    gc.collect()
    assert loader._native.held_batches == 1  # the labels tensor alone keeps the batch
    del labels
    gc.collect()
    assert loader._native.held_batches == 0


def test_holding_every_slot_is_an_error_not_a_hang(small_file):
    loader = h5feed.Loader(small_file, 16, slots=3, dtype=None)
    kept = []
    started = time.monotonic()
    with pytest.raises(h5feed.InvalidArgumentError, match=r"tensors of 4 earlier batches.*clone"):
        for images, labels in loader:
            kept.append(images)  # the mistake: keeping the loader's buffers
    assert len(kept) == 4  # slots + the one a loop holds
    assert time.monotonic() - started < 60
    kept.clear()
    gc.collect()
    # The loader is still usable once the tensors are let go.
    assert sum(1 for _ in loader) == len(loader)


def test_clones_do_not_hold_slots(small_file):
    loader = h5feed.Loader(small_file, 16, slots=2, dtype=None)
    kept = [images.clone() for images, _ in loader]
    assert len(kept) == len(loader)
