"""`h5feed convert cifar`, `h5feed convert npy` and `h5feed rechunk` end to end, every pixel
and label checked with numpy and h5py."""
import json

import h5py
import numpy as np
import pytest

from conftest import run_h5feed


def strings(dataset):
    return [s.decode() if isinstance(s, bytes) else s for s in dataset[()]]


def rows_by_source(f, prefix_to_index):
    """Maps each stored row back to its source index through /sources ('name#i')."""
    out = []
    for source in strings(f["sources"]):
        name, index = source.rsplit("#", 1)
        out.append(prefix_to_index(name, int(index)))
    return np.array(out)


def test_cifar10_binary_batches(tmp_path):
    rng = np.random.default_rng(0)
    src = tmp_path / "cifar-10-batches-bin"
    src.mkdir()
    batches = []
    for b in range(1, 6):
        labels = rng.integers(0, 10, 7, dtype=np.uint8)
        planes = rng.integers(0, 256, (7, 3, 32, 32), dtype=np.uint8)
        records = np.concatenate([labels[:, None], planes.reshape(7, -1)], axis=1)
        (src / f"data_batch_{b}.bin").write_bytes(records.tobytes())
        batches.append((labels, planes))
    (src / "test_batch.bin").write_bytes(np.zeros((2, 3073), np.uint8).tobytes())
    names = [f"class{i}" for i in range(10)]
    (src / "batches.meta.txt").write_text("\n".join(names) + "\n\n")
    out = tmp_path / "cifar.h5"
    run_h5feed("convert", "cifar", src, out, "--chunk", "8", check=0)
    with h5py.File(out) as f:
        assert strings(f["classes"]) == names
        assert f["images"].shape == (35, 32, 32, 3)
        rows = rows_by_source(f, lambda name, i: (int(name[len("data_batch_"):-4]), i))
        for row, (batch, index) in enumerate(rows):
            labels, planes = batches[batch - 1]
            assert np.array_equal(f["images"][row], planes[index].transpose(1, 2, 0))
            assert f["labels"][row] == labels[index]
    test_out = tmp_path / "test.h5"
    run_h5feed("convert", "cifar", src, test_out, "--split", "test", check=0)
    with h5py.File(test_out) as f:
        assert f["images"].shape[0] == 2


def test_cifar100_fine_and_coarse_labels(tmp_path):
    rng = np.random.default_rng(1)
    records = np.concatenate([rng.integers(0, 20, (9, 1), dtype=np.uint8),
                              rng.integers(0, 100, (9, 1), dtype=np.uint8),
                              rng.integers(0, 256, (9, 3072), dtype=np.uint8)], axis=1)
    src = tmp_path / "cifar-100-binary"
    src.mkdir()
    (src / "train.bin").write_bytes(records.tobytes())
    (src / "test.bin").write_bytes(records[:1].tobytes())
    for kind, column in (("fine", 1), ("coarse", 0)):
        out = tmp_path / f"{kind}.h5"
        run_h5feed("convert", "cifar", src, out, "--labels", kind, "--no-shuffle", check=0)
        with h5py.File(out) as f:
            assert list(f["labels"][()]) == list(records[:, column])
            assert len(strings(f["classes"])) == (100 if kind == "fine" else 20)


def test_npy_images_and_labels_of_any_integer_type(tmp_path):
    rng = np.random.default_rng(2)
    images = rng.integers(0, 256, (50, 12, 10, 3), dtype=np.uint8)
    labels = rng.integers(0, 5, 50).astype(">i2")  # big-endian int16 labels
    np.save(tmp_path / "images.npy", images)
    np.save(tmp_path / "labels.npy", labels)
    out = tmp_path / "npy.h5"
    run_h5feed("convert", "npy", tmp_path / "images.npy", tmp_path / "labels.npy", out,
               "--chunk", "16", "--compression", "gzip:4", check=0)
    with h5py.File(out) as f:
        rows = rows_by_source(f, lambda name, i: i)
        assert sorted(rows) == list(range(50))
        assert np.array_equal(f["images"][()], images[rows])
        assert np.array_equal(f["labels"][()], labels[rows].astype(np.int64))


def test_the_default_chunk_holds_no_more_images_than_the_source(tmp_path):
    """Without --chunk, a chunk is about 4 MiB, but never larger than the whole dataset."""
    images = np.random.default_rng(4).integers(0, 256, (100, 8, 8, 3), dtype=np.uint8)
    np.save(tmp_path / "small.npy", images)
    np.save(tmp_path / "big.npy", np.zeros((3000, 32, 32, 3), np.uint8))
    run_h5feed("convert", "npy", tmp_path / "small.npy", tmp_path / "small.h5",
               "--compression", "none", check=0)
    run_h5feed("convert", "npy", tmp_path / "big.npy", tmp_path / "big.h5", check=0)
    with h5py.File(tmp_path / "small.h5") as f:
        assert f["images"].chunks == (100, 8, 8, 3)
        assert f.attrs["chunk_images"] == 100
        assert f["images"].id.get_storage_size() == images.nbytes  # no padding stored
    with h5py.File(tmp_path / "big.h5") as f:
        assert f["images"].chunks == (1365, 32, 32, 3)  # 4 MiB: more images than one chunk


def test_npy_without_labels(tmp_path):
    images = np.arange(4 * 5 * 6, dtype=np.uint8).reshape(4, 5, 6)
    np.save(tmp_path / "gray.npy", images)
    out = tmp_path / "gray.h5"
    run_h5feed("convert", "npy", tmp_path / "gray.npy", out, "--no-shuffle", check=0)
    with h5py.File(out) as f:
        assert np.array_equal(f["images"][()].reshape(4, 5, 6), images)
        assert not f["labels"][()].any()


@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
def test_rechunk_an_h5py_file(tmp_path, layout):
    rng = np.random.default_rng(3)
    nhwc = rng.integers(0, 256, (40, 9, 11, 3), dtype=np.uint8)
    data = nhwc if layout == "NHWC" else nhwc.transpose(0, 3, 1, 2)
    labels = rng.integers(0, 4, 40)
    src = tmp_path / "mine.h5"
    with h5py.File(src, "w") as f:
        f.create_dataset("x", data=data, chunks=(7,) + data.shape[1:], compression="gzip",
                         shuffle=True, fletcher32=True)
        f.create_dataset("y", data=labels)
    out = tmp_path / "rechunked.h5"
    run_h5feed("rechunk", src, out, "--images", "x", "--labels", "y", "--chunk", "16", check=0)
    with h5py.File(out) as f:
        assert f["images"].chunks == (16, 9, 11, 3)
        assert np.array_equal(f["images"][()], nhwc)  # source order kept by default
        assert np.array_equal(f["labels"][()], labels)
        assert f.attrs["shuffled"] == 0


def test_rechunk_errors_name_what_was_found(tmp_path):
    src = tmp_path / "odd.h5"
    with h5py.File(src, "w") as f:
        f.create_dataset("floats", data=np.zeros((2, 3, 4, 3), np.float32))
    result = run_h5feed("rechunk", src, tmp_path / "out.h5", check=1)
    assert "floats" in result.stderr
    not_hdf5 = tmp_path / "text.h5"
    not_hdf5.write_text("hello")
    result = run_h5feed("rechunk", not_hdf5, tmp_path / "out.h5", check=1)
    assert "not an HDF5 file" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["odd.h5", "text.h5"]


def test_rechunk_skips_the_rows_an_h5py_script_never_wrote(tmp_path):
    # A script that failed after 10 of its 20 images closed its file cleanly: chunks 2 and 3
    # (rows 10-19) have no storage and HDF5 reads them as zeros. rechunk stored those zeros as
    # images, with checksums that then vouched for them; they are skipped and recorded instead.
    rng = np.random.default_rng(5)
    images = rng.integers(1, 256, (10, 4, 6, 3), dtype=np.uint8)
    src = tmp_path / "half.h5"
    with h5py.File(src, "w") as f:
        d = f.create_dataset("images", shape=(20, 4, 6, 3), dtype=np.uint8, chunks=(5, 4, 6, 3))
        f.create_dataset("labels", data=np.arange(20) % 3)
        for i in range(10):
            d[i] = images[i]
    out = tmp_path / "out.h5"
    result = run_h5feed("rechunk", src, out, check=3)
    assert "row 10 of /images in" in result.stdout and "was never written" in result.stdout
    with h5py.File(out) as f:
        assert np.array_equal(f["images"][()], images)
        assert np.array_equal(f["labels"][()], np.arange(10) % 3)
        assert sorted(s.decode() for s in f["skipped_sources"][()]) == sorted(
            f"half.h5#{i}" for i in range(10, 20))
    run_h5feed("verify", out, check=0)


def test_rechunk_skips_an_image_that_fails_its_checksum_instead_of_vouching_for_it(tmp_path):
    # A byte of image 7 changed on disk (a flipped bit; zstd still decodes it): rechunk copied
    # it into the new file under a fresh checksum, and verify then passed the damaged pixels.
    rng = np.random.default_rng(8)
    images = rng.integers(0, 256, (40, 6, 5, 3), dtype=np.uint8)
    np.save(tmp_path / "images.npy", images)
    src = tmp_path / "train.h5"
    run_h5feed("convert", "npy", tmp_path / "images.npy", src, "--chunk", 8,
               "--compression", "none", "--no-shuffle", "--quiet", check=0)
    with h5py.File(src, "r+") as f:
        f["images"][7, 1, 2, 0] ^= 0x10
    out = tmp_path / "rechunked.h5"
    result = run_h5feed("rechunk", src, out, "--chunk", 16, check=3)
    assert f"row 7 of /images in {src} fails its checksum" in result.stdout + result.stderr
    with h5py.File(out) as f:
        assert np.array_equal(f["images"][()], np.delete(images, 7, axis=0))
        assert [s.decode() for s in f["skipped_sources"][()]] == ["images.npy#7"]
    run_h5feed("verify", out, check=0)
    strict = run_h5feed("rechunk", src, tmp_path / "strict.h5", "--strict", check=1)
    assert "fails its checksum" in strict.stderr
    assert not (tmp_path / "strict.h5").exists()


def test_rechunk_keeps_the_skipped_lists_of_an_h5feed_input_but_a_part_does_not(tmp_path):
    # Rechunking an h5feed file lost the record of what its own conversion skipped: the new
    # file then looked complete. The lists are carried, before rechunk's own, and count as
    # skipped by the first conversion only: the rechunk exits 0 and its report says so.
    images = np.random.default_rng(9).integers(0, 256, (12, 4, 5, 3), dtype=np.uint8)
    np.save(tmp_path / "images.npy", images)
    src = tmp_path / "train.h5"
    run_h5feed("convert", "npy", tmp_path / "images.npy", src, "--chunk", 4,
               "--compression", "none", "--no-shuffle", "--quiet", check=0)
    with h5py.File(src, "r+") as f:
        f["images"][3, 0, 0, 0] ^= 0x01
    once = tmp_path / "once.h5"
    run_h5feed("rechunk", src, once, "--chunk", 8, "--quiet", check=3)
    twice = tmp_path / "twice.h5"
    result = run_h5feed("rechunk", once, twice, "--chunk", 2, "--json", check=0)
    report = json.loads(result.stdout)
    assert report["skipped"] == [] and report["images"] == 11
    assert any("skipped 1: they are recorded" in note for note in report["notes"]), report
    with h5py.File(once) as before, h5py.File(twice) as after:
        assert strings(after["skipped_sources"]) == ["images.npy#3"]
        assert strings(after["skipped_reasons"]) == strings(before["skipped_reasons"])
        assert after.attrs["num_skipped"] == 1
    run_h5feed("verify", twice, check=0)
    inspected = run_h5feed("inspect", twice, check=0)
    assert "images.npy#3" in inspected.stdout, inspected.stdout

    result = run_h5feed("rechunk", once, tmp_path / "part.h5", "--part", "0/2", check=0)
    assert "a part does not record them" in result.stdout, result.stdout
    with h5py.File(tmp_path / "part-00000-of-00002.h5") as f:
        assert strings(f["skipped_sources"]) == []
