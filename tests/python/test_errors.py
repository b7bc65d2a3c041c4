"""C++ h5feed::Error arrives as the h5feed.Error subclass for its code, also catchable as the
matching built-in exception, with the library's message naming the file (and the chunk)."""
import warnings

import h5py
import numpy as np
import pytest

import h5feed
from conftest import write_h5feed_file


def test_a_missing_file_is_a_file_not_found_error_naming_it(tmp_path):
    missing = tmp_path / "missing.h5"
    with pytest.raises(FileNotFoundError) as caught:
        h5feed.Loader(missing, 16)
    assert isinstance(caught.value, h5feed.NotFoundError)
    assert caught.value.code is h5feed.ErrorCode.NOT_FOUND
    assert str(missing) in str(caught.value)


@pytest.mark.parametrize("url", ["gs://bucket/train.h5", "hf://datasets/me/train.h5"])
def test_a_url_of_a_scheme_h5feed_does_not_read_says_which_it_reads(url):
    scheme = url.split("://")[0]
    with pytest.raises(h5feed.NotFoundError,
                       match=f"not {scheme}://: give the object's https:// URL"):
        h5feed.Loader(url, 16)
    with pytest.raises(h5feed.NotFoundError, match="http://, https:// and s3:// URLs"):
        h5feed.inspect(url)


def test_a_bad_option_is_a_value_error_naming_it(small_file):
    with pytest.raises(ValueError, match="batch_size is 0") as caught:
        h5feed.Loader(small_file, 0)
    assert isinstance(caught.value, h5feed.InvalidArgumentError)
    with pytest.raises(h5feed.InvalidArgumentError, match="sampler"):
        h5feed.Loader(small_file, 16, sampler="shuffled")
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"small\.h5 has 300 rows, fewer than one batch of 400"):
        h5feed.Loader(small_file, 400, drop_last=True)


def test_a_file_of_no_images_is_refused_naming_it(tmp_path):
    empty = tmp_path / "empty.h5"
    with h5py.File(empty, "w") as f:  # a script that wrote nothing before it failed
        f.create_dataset("images", shape=(0, 8, 8, 3), dtype=np.uint8, chunks=(1, 8, 8, 3),
                         maxshape=(None, 8, 8, 3))
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=rf"{empty} holds no images: there is nothing to read"):
        h5feed.Loader(empty, 4)


def test_chunks_a_script_never_wrote_are_warned_of_at_open(tmp_path):
    # A script that failed after 9 of 20 images still closed its file: chunks 2 and 3 have no
    # storage and read as zeros, which the Loader delivered as images without a word.
    half = tmp_path / "half.h5"
    with h5py.File(half, "w") as f:
        d = f.create_dataset("images", shape=(20, 4, 4, 3), dtype=np.uint8, chunks=(5, 4, 4, 3))
        for i in range(9):
            d[i] = i + 1
    with pytest.warns(UserWarning, match=rf"2 of the 4 chunks of /images in {half} were never "
                                         r"written: their rows read as HDF5's fill value"):
        h5feed.Loader(half, 4)
    with h5py.File(half, "r+") as f:
        f["images"][10:] = 7
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a complete file opens without a warning
        h5feed.Loader(half, 4)


def test_a_corrupt_chunk_raises_while_iterating_naming_file_and_chunk(tmp_path):
    path = write_h5feed_file(tmp_path, chunk=16)
    with h5py.File(path, "r") as f:
        offset = f["images"].id.get_chunk_info(3).byte_offset
    with open(path, "r+b") as f:  # damage chunk 3 in place
        f.seek(offset + 8)
        f.write(bytes(64))
    loader = h5feed.Loader(path, 16, sampler="sequential", dtype=None)
    delivered = 0
    with pytest.raises(h5feed.CorruptDataError) as caught:
        for _ in loader:
            delivered += 1
    assert delivered == 3  # every batch before the damaged chunk's
    message = str(caught.value)
    assert str(path) in message and "chunk 3" in message


def test_a_file_that_is_not_hdf5_is_corrupt_data(tmp_path):
    path = tmp_path / "not.h5"
    path.write_bytes(b"plain text, not HDF5\n" * 10)
    with pytest.raises(h5feed.Error, match="not.h5"):
        h5feed.Loader(path, 4)
    with pytest.raises(h5feed.Error, match="not.h5"):
        h5feed.inspect(path)


def test_converting_onto_an_existing_file_is_a_file_exists_error(tmp_path, small_file):
    np.save(tmp_path / "images.npy", np.zeros((4, 2, 2, 3), np.uint8))
    with pytest.raises(FileExistsError) as caught:
        h5feed.convert_npy(tmp_path / "images.npy", small_file)
    assert isinstance(caught.value, h5feed.AlreadyExistsError)
    assert str(small_file) in str(caught.value)


def test_every_error_class_is_an_h5feed_error_with_its_code():
    for code in h5feed.ErrorCode:
        cls = h5feed._errors.error_class(code.value)
        assert issubclass(cls, h5feed.Error) and cls.code is code


def test_skipped_corrupt_chunks_leave_the_same_rows_out_in_every_run_and_resume(tmp_path):
    """A flipped byte inside one row of an uncompressed chunk still reads; only that row fails
    its checksum. With skip_corrupt_chunks the whole chunk is left out, decided from its bytes
    before any of its rows is delivered: every run, whichever of the threads' steps reaches the
    chunk first, and a loader resumed at epoch 1, deliver the same rows in the same batches."""
    rng = np.random.default_rng(5)
    np.save(tmp_path / "images.npy", rng.integers(0, 256, (200, 8, 6, 3), dtype=np.uint8))
    np.save(tmp_path / "labels.npy", rng.integers(0, 5, 200).astype(np.int64))
    path = tmp_path / "damaged.h5"
    h5feed.convert_npy(tmp_path / "images.npy", path, labels=tmp_path / "labels.npy", chunk=8,
                       compression="none")
    with h5py.File(path, "r") as f:
        offset = f["images"].id.get_chunk_info(5).byte_offset  # rows 40-47
    with open(path, "r+b") as f:  # one byte of row 43 (144 bytes a row), still readable
        f.seek(offset + 3 * 144 + 10)
        byte = f.read(1)[0]
        f.seek(offset + 3 * 144 + 10)
        f.write(bytes([byte ^ 0xFF]))

    def epochs(first_epoch=0):
        loader = h5feed.Loader(path, 10, sampler="random", seed=7, threads=4, dtype=None,
                               with_indices=True, skip_corrupt_chunks=True)
        delivered = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for epoch in range(first_epoch, 2):
                loader.set_epoch(epoch)
                delivered.append([indices.tolist() for _, _, indices in loader])
        warned = [w for w in caught if "corrupt chunk 5" in str(w.message)]
        stats = loader.stats()
        return delivered, (len(warned), stats["corrupt_chunks_skipped"], stats["samples_skipped"])

    first, counted = epochs()
    runs = [epochs() for _ in range(19)]
    assert [delivered for delivered, _ in runs].count(first) == 19
    assert epochs(first_epoch=1) == (first[1:], (1, 1, 8))
    for epoch_batches in first:
        rows = sorted(row for batch in epoch_batches for row in batch)
        assert rows == [row for row in range(200) if not 40 <= row < 48]
    assert counted == (1, 1, 16)  # one warning, one chunk, its 8 rows left out of 2 epochs
    assert all(run_counted == counted for _, run_counted in runs)
