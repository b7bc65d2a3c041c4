"""Label mixing through Python: a class-sorted file written by h5py, read by chunks:8, gets
one UserWarning at h5feed.Loader(...) (pointing at that line) naming `h5feed rechunk` and a
window; the shuffled copies the advice makes (h5feed.rechunk with shuffle=True, or a
conversion, which shuffles at write) read without one; check_label_mixing=False silences it.
Warnings from the loader's worker threads (a skipped corrupt chunk) arrive as Python warnings
too; h5feed.inspect says whether the stored order is sorted by label."""
import re
import warnings

import h5py
import numpy as np
import pytest

import h5feed

ROWS, CLASSES, CHUNK, BATCH = 2000, 20, 20, 32


def arrays():
    rng = np.random.default_rng(8)
    images = rng.integers(0, 256, size=(ROWS, 4, 4, 3), dtype=np.uint8)
    return images, np.repeat(np.arange(CLASSES, dtype=np.int64), ROWS // CLASSES)


@pytest.fixture(scope="module")
def sorted_file(tmp_path_factory):
    """Class after class, as a walk of class folders writes them, in chunks of 20 rows."""
    path = tmp_path_factory.mktemp("sorted") / "sorted.h5"
    images, labels = arrays()
    with h5py.File(path, "w") as f:
        f.create_dataset("images", data=images, chunks=(CHUNK, 4, 4, 3))
        f.create_dataset("labels", data=labels)
    return path


def open_loader(path, **options):
    loader = h5feed.Loader(path, BATCH, sampler=options.pop("sampler", "chunks:8"),
                           dtype=None, cache_bytes=1 << 20, **options)
    return loader


def test_a_class_sorted_file_warns_at_the_loader_line_naming_rechunk_and_a_window(sorted_file):
    with pytest.warns(UserWarning, match="mix few classes") as caught:
        open_loader(sorted_file)
    messages = [str(w.message) for w in caught if "mix few classes" in str(w.message)]
    assert len(messages) == 1, messages
    message = messages[0]
    assert message.startswith(f"h5feed: batches of {sorted_file} mix few classes")
    assert f"h5feed rechunk {sorted_file} " in message and "--seed 0" in message
    window = re.search(r"sampler chunks:(\d+) reaches the bar", message)
    assert window and int(window.group(1)) > 8, message
    assert "check_label_mixing = false" in message
    assert caught[0].filename == __file__  # stacklevel: the trainer's line, not h5feed's


def test_the_window_it_names_reads_without_a_warning(sorted_file):
    with pytest.warns(UserWarning) as caught:
        open_loader(sorted_file)
    window = re.search(r"sampler (chunks:\d+) reaches", str(caught[0].message)).group(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        open_loader(sorted_file, sampler=window)


def test_the_shuffled_copies_read_without_a_warning(sorted_file, tmp_path):
    images, labels = arrays()
    np.save(tmp_path / "images.npy", images)
    np.save(tmp_path / "labels.npy", labels)
    converted = tmp_path / "converted.h5"  # convert shuffles at write (seed 0)
    h5feed.convert_npy(tmp_path / "images.npy", converted, labels=tmp_path / "labels.npy",
                       chunk=CHUNK)
    rechunked = tmp_path / "rechunked.h5"  # what the warning advises
    h5feed.rechunk(sorted_file, rechunked, chunk=CHUNK, shuffle=True, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for path in (converted, rechunked):
            for sampler in ("chunks:8", "quasi:8"):
                loader = open_loader(path, sampler=sampler)
                assert sum(len(labels) for _, labels in loader) == ROWS


def test_random_sampler_and_the_option_off_do_not_warn(sorted_file):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        open_loader(sorted_file, sampler="random")
        open_loader(sorted_file, check_label_mixing=False)


def test_a_skipped_corrupt_chunk_is_a_python_warning_while_iterating(tmp_path):
    path = tmp_path / "damaged.h5"
    images, labels = arrays()
    with h5py.File(path, "w") as f:
        f.create_dataset("images", data=images, chunks=(CHUNK, 4, 4, 3), compression="gzip")
        f.create_dataset("labels", data=np.random.default_rng(1).permutation(labels))
    with h5py.File(path, "r") as f:
        chunk = f["images"].id.get_chunk_info(3)
    with open(path, "r+b") as out:
        out.seek(chunk.byte_offset + chunk.size // 2)
        out.write(bytes(range(100, 116)))
    loader = open_loader(path, sampler="sequential", skip_corrupt_chunks=True)
    with pytest.warns(UserWarning, match="chunk 3") as caught:
        rows = sum(len(labels) for _, labels in loader)
    assert rows == ROWS - CHUNK
    assert all(w.filename == __file__ for w in caught)
    # The module says "h5feed: " once, before the library's message.
    assert all(str(w.message).startswith("h5feed: skipping corrupt chunk") for w in caught)


def test_inspect_reports_the_stored_order_by_label(sorted_file, tmp_path):
    order = h5feed.inspect(sorted_file)["label_order"]
    assert order == {"order": "sorted", "runs": CLASSES, "classes": CLASSES,
                     "random_runs": pytest.approx(ROWS - CLASSES * 100 * 99 / ROWS)}
    shuffled = tmp_path / "shuffled.h5"
    h5feed.rechunk(sorted_file, shuffled, chunk=CHUNK, shuffle=True, seed=0)
    assert h5feed.inspect(shuffled)["label_order"]["order"] == "mixed"
