"""h5feed.Loader(..., fields=[...]): the file's per-sample fields in every batch, after the
labels in the order asked (then the indices), or by name with as_dict=True; arrays as tensors
of their dtype and shape (B, *shape), bytes as lists of bytes, text as lists of str; a file
without labels yields None in their place. Every field of every delivered row equals the
file's row at its index, in a plain epoch, under 2 ranks, after a resume mid-epoch on another
world size, with echo 2, with a corrupt chunk skipped and with progressive resizing.

Files are written by the C++ Writer (tests/lib/format/write_field_test_file, whose values are
tests/lib/format/field_test_columns.h's: the same functions as below)."""
import os
import re
import subprocess
import warnings

import h5py
import numpy as np
import pytest
import torch

import h5feed

WRITE = os.environ["WRITE_FIELD_TEST_FILE"]
IMAGES, CHUNK = 157, 16  # 10 chunks, the last one short

ARRAYS = {  # field name: numpy dtype, shape (field_test_columns.h's ArrayFieldCases)
    "a_bool": ("bool", (5,)), "a_int8": ("int8", (2, 3)), "a_int16": ("int16", (3,)),
    "a_int32": ("int32", ()), "a_int64": ("int64", (2,)), "a_uint8": ("uint8", (40,)),
    "a_uint16": ("uint16", (2, 2)), "a_uint32": ("uint32", (1,)), "a_uint64": ("uint64", (3,)),
    "a_float16": ("float16", (4,)), "a_float32": ("float32", (5, 2)),
    "a_float64": ("float64", (2,)),
}
ALL = list(ARRAYS) + ["blob", "caption"]
# The torch dtype each array field is delivered as (docs/python.md, "Fields").
TORCH_TYPES = {"bool": torch.bool, "int8": torch.int8, "int16": torch.int16,
               "int32": torch.int32, "int64": torch.int64, "uint8": torch.uint8,
               "uint16": torch.int64, "uint32": torch.int64, "uint64": torch.int64,
               "float16": torch.float16, "float32": torch.float32, "float64": torch.float64}


def expected_array(dtype, shape, rows):
    elements = int(np.prod(shape, dtype=np.int64))
    n = np.asarray(rows, dtype=np.int64).reshape(-1, 1)
    e = np.arange(elements, dtype=np.int64).reshape(1, -1)
    v = (31 * n + 7 * e + 3) % 97
    if dtype == "bool":
        values = (v % 2).astype(bool)
    elif dtype.startswith("float"):
        values = ((v - 48) / 4).astype(dtype)
    elif dtype.startswith("int"):
        values = ((v - 48) * (0x0101010101010101 if dtype == "int64" else 1)).astype(dtype)
    else:
        values = v.astype(np.uint64) * np.uint64(0x0101010101010101 if dtype == "uint64" else 1)
        values = values.astype(dtype)
    return values.reshape((len(rows),) + shape)


def expected(name, rows):
    if name == "blob":
        return [bytes((n + i) % 256 for i in range(n % 7)) for n in rows]
    if name == "caption":
        return ["" if n % 5 == 0 else f"caption {n} é✓" for n in rows]
    return expected_array(*ARRAYS[name], rows)


def check_field(name, value, rows):
    """`value` (as yielded) is field `name` of dataset rows `rows`."""
    want = expected(name, rows)
    if name in ("blob", "caption"):
        assert isinstance(value, list) and value == want
        return
    dtype = ARRAYS[name][0]
    assert isinstance(value, torch.Tensor) and not value.is_cuda
    assert value.dtype == TORCH_TYPES[dtype]
    assert tuple(value.shape) == want.shape
    got = value.numpy()
    if dtype == "uint64":  # int64 of the same bits
        got = got.view(np.uint64)
    assert np.array_equal(got, want)


def write(path, *extra):
    subprocess.run([WRITE, str(path), "--images", str(IMAGES), "--chunk", str(CHUNK),
                    "--compression", "zstd:3", *extra], check=True)
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fields")
    return {"labelled": write(folder / "labelled.h5"),
            "unlabelled": write(folder / "unlabelled.h5", "--unlabelled")}


def loader(path, fields, **kwargs):
    kwargs.setdefault("sampler", "chunks:2")
    kwargs.setdefault("dtype", None)
    return h5feed.Loader(path, 12, fields=fields, with_indices=True, threads=2, open_probe=False,
                         **kwargs)


def read_checked(batches, fields, rows=None):
    """Every batch's fields checked against the file at its indices; the rows counted."""
    rows = {} if rows is None else rows
    for batch in batches:
        indices = batch[-1].tolist()
        assert len(batch) == 2 + len(fields) + 1
        for name, value in zip(fields, batch[2:-1]):
            check_field(name, value, indices)
        for row in indices:
            rows[row] = rows.get(row, 0) + 1
    return rows


@pytest.mark.parametrize("labelled", ["labelled", "unlabelled"])
@pytest.mark.parametrize("sampler", ["sequential", "chunks:2", "random"])
def test_every_field_of_every_row_is_the_files_row_at_its_index(files, labelled, sampler):
    rows = {}
    for images, labels, *fields, indices in loader(files[labelled], ALL, sampler=sampler):
        assert images.shape[1:] == (2, 2, 3)
        if labelled == "labelled":
            assert torch.equal(labels, indices % 3)
        else:
            assert labels is None
        read_checked([(images, labels, *fields, indices)], ALL, rows)
    assert sorted(rows) == list(range(IMAGES))


def test_the_tuple_is_images_labels_the_fields_as_asked_then_the_indices(files):
    asked = ["caption", "a_float16", "blob"]
    plain = h5feed.Loader(files["labelled"], 12, dtype=None, fields=asked, open_probe=False)
    batch = next(iter(plain))
    assert len(batch) == 5
    assert [type(v) for v in batch[2:]] == [list, torch.Tensor, list]
    with_indices = next(iter(loader(files["labelled"], asked)))
    assert len(with_indices) == 6 and with_indices[-1].dtype == torch.int64
    read_checked([with_indices], asked)
    # No fields: the pairs (and triples) of before.
    assert len(next(iter(h5feed.Loader(files["labelled"], 12, dtype=None,
                                       open_probe=False)))) == 2


def test_as_dict_names_every_value(files):
    asked = ["a_uint8", "caption"]
    for path, has_labels in ((files["labelled"], True), (files["unlabelled"], False)):
        batches = loader(path, asked, as_dict=True)
        for batch in batches:
            assert list(batch) == ["images", "labels", "a_uint8", "caption", "indices"]
            assert (batch["labels"] is not None) == has_labels
            read_checked([(batch["images"], batch["labels"], batch["a_uint8"],
                           batch["caption"], batch["indices"])], asked)
    plain = h5feed.Loader(files["labelled"], 12, dtype=None, as_dict=True, open_probe=False)
    assert list(next(iter(plain))) == ["images", "labels"]


def test_a_file_without_labels_yields_none_and_no_mixing_warning(files, recwarn):
    batches = h5feed.Loader(files["unlabelled"], 12, dtype=None, sampler="chunks:1",
                            open_probe=False)
    count = 0
    for images, labels in batches:
        assert labels is None
        count += images.shape[0]
    assert count == IMAGES
    assert not [w for w in recwarn if "mix" in str(w.message)]


def test_two_ranks_deliver_every_row_with_its_fields(files):
    rows = {}
    for rank in range(2):
        read_checked(loader(files["unlabelled"], ALL, rank=rank, world_size=2), ALL, rows)
    assert sorted(rows) == list(range(IMAGES))


def test_a_resume_mid_epoch_on_another_world_size_keeps_fields_with_their_rows(files):
    asked = ["a_uint64", "a_bool", "blob"]
    rows = {}
    old = [loader(files["labelled"], asked, rank=rank, world_size=2) for rank in range(2)]
    for job in old:
        job.set_epoch(1)
        iterator = iter(job)
        read_checked([next(iterator) for _ in range(3)], asked, rows)
    state = old[0].state_dict()
    for rank in range(3):
        resumed = loader(files["labelled"], asked, rank=rank, world_size=3)
        resumed.load_state_dict(state)
        resumed.set_epoch(1)
        read_checked(resumed, asked, rows)
    assert sorted(rows) == list(range(IMAGES))


def test_echo_copies_carry_their_rows_fields(files):
    rows = read_checked(loader(files["labelled"], ALL, echo=2, slots=4), ALL)
    assert sorted(rows) == list(range(IMAGES))
    assert set(rows.values()) == {2}


def test_rows_of_a_skipped_corrupt_chunk_take_their_fields_along(tmp_path):
    path = write(tmp_path / "damaged.h5")
    with h5py.File(path, "r") as f:
        info = f["images"].id.get_chunk_info(3)  # rows 48-63
    with open(path, "r+b") as out:
        out.seek(info.byte_offset + info.size // 2)
        out.write(bytes(range(100, 116)))
    asked = ["a_int32", "caption", "a_float64"]
    with pytest.warns(UserWarning, match="corrupt chunk 3"):
        rows = read_checked(loader(path, asked, sampler="sequential",
                                   skip_corrupt_chunks=True), asked)
    assert set(rows) == set(range(IMAGES)) - set(range(48, 64))


def corrupt_chunk_warnings(caught):
    return [str(w.message) for w in caught if "corrupt chunk" in str(w.message)]


def test_a_damaged_row_of_a_held_field_leaves_its_chunk_out_with_skip_corrupt_chunks(tmp_path):
    """A held field is read and checked whole when the loader opens. A row that fails its
    checksum fails the open; with skip_corrupt_chunks it is warned of there (its row, field,
    chunk and file) and its image chunk's rows are left out of every epoch, as a damaged
    image's are: the batches are those of a loader streaming the array field, which finds its
    damaged row as it reads the chunk."""
    path = write(tmp_path / "damaged.h5", "--compression", "none")
    with h5py.File(path, "r+") as f:  # written over in place: their checksums no longer match
        f["a_float32"][52] = np.full((5, 2), 1000, dtype=np.float32)  # chunk 3: rows 48-63
        f["caption"][100] = "not the caption written"  # chunk 6: rows 96-111
    asked = ["a_float32", "caption", "blob"]
    with pytest.raises(h5feed.CorruptDataError,
                       match=r"row 52 \(chunk 3\) of field a_float32 in .*checksum mismatch") as plain:
        loader(path, asked)
    assert "skip_corrupt_chunks" not in str(plain.value)  # without the option: as it was

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        held = loader(path, asked, sampler="random", skip_corrupt_chunks=True)
    warned = corrupt_chunk_warnings(caught)
    assert len(warned) == 2, warned
    assert re.search(r"corrupt chunk 3 \(row 52 \(chunk 3\) of field a_float32 in .*damaged\.h5: "
                     r"checksum mismatch", warned[0])
    assert re.search(r"corrupt chunk 6 \(row 100 \(chunk 6\) of field caption in .*damaged\.h5: "
                     r"checksum mismatch", warned[1])
    streamed = loader(path, asked, sampler="random", skip_corrupt_chunks=True, held_field_bytes=1)
    assert held.streamed_fields == [] and streamed.streamed_fields == ["a_float32"]
    left_out = set(range(48, 64)) | set(range(96, 112))
    for epoch in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            indices = []
            for job in (held, streamed):
                job.set_epoch(epoch)
                rows, batches = {}, []
                for batch in job:
                    read_checked([batch], asked, rows)  # every delivered value the file's own
                    batches.append(batch[-1].tolist())
                indices.append(batches)
                assert set(rows) == set(range(IMAGES)) - left_out
                assert set(rows.values()) == {1}
        assert len(corrupt_chunk_warnings(caught)) == (1 if epoch == 0 else 0)  # the streamed's
        assert indices[0] == indices[1]  # the same batches, row for row
    assert held.stats()["corrupt_chunks_skipped"] == 2
    assert held.stats()["samples_skipped"] == 2 * 32


def test_resized_views_carry_the_same_fields(files):
    asked = ["a_int16", "caption"]
    resized = loader(files["unlabelled"], asked, dtype=torch.float32,
                     augment=h5feed.Augment(random_resized_crop=2, max_size=3, random_flip=True))
    for epoch, side in ((0, 2), (1, 3)):
        resized.set_output_size(side)
        resized.set_epoch(epoch)
        rows = {}
        for batch in resized:
            assert batch[0].shape[2:] == (side, side)
            read_checked([batch], asked, rows)
        assert sorted(rows) == list(range(IMAGES))


def test_fields_asked_wrongly_are_refused_naming_those_there_are(files):
    with pytest.raises(h5feed.NotFoundError, match=r"attrs.*a_uint8 \(uint8\[40\]\).*caption"):
        loader(files["labelled"], ["a_uint8", "attrs"])
    with pytest.raises(h5feed.InvalidArgumentError, match="blob twice"):
        loader(files["labelled"], ["blob", "blob"])
    with pytest.raises(TypeError, match="list of field names"):
        loader(files["labelled"], "caption")


def test_lists_and_widened_copies_hold_nothing_of_the_loader(files):
    """Bytes and text lists and uint16/uint32 tensors (widened to int64) are copies: keeping
    every batch's, as an evaluation loop keeps its targets, never stalls the loader."""
    asked = ["caption", "blob", "a_uint16", "a_uint32"]
    kept = [fields for _, _, *fields, _ in loader(files["labelled"], asked, slots=1)]
    assert len(kept) == (IMAGES + 11) // 12


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no usable CUDA device in torch")
def test_with_the_gpu_stage_fields_are_host_values_of_their_rows(files):
    """device="cuda": images and labels on the device, every field on the host (docs/gpu.md),
    each echo copy's rows the file's at its indices."""
    rows = {}
    for images, labels, *fields, indices in loader(files["labelled"], ALL, device="cuda",
                                                   dtype=torch.float32, echo=2, slots=4):
        assert images.is_cuda and labels.is_cuda
        assert torch.equal(labels.cpu(), indices % 3)
        read_checked([(images, labels, *fields, indices)], ALL, rows)
    assert sorted(rows) == list(range(IMAGES))
    assert set(rows.values()) == {2}


def test_streamed_array_fields_yield_what_held_ones_do(files):
    """held_field_bytes=1 leaves no room: every array field is read chunk by chunk with the
    images (bytes and text stay held), and the batches equal those of a loader that holds
    them, over two epochs with a cache of three chunks."""
    chunk_bytes = CHUNK * (2 * 2 * 3 + sum(
        int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        for dtype, shape in ARRAYS.values()))
    held = loader(files["labelled"], ALL, cache_bytes=3 * chunk_bytes)
    streamed = loader(files["labelled"], ALL, cache_bytes=3 * chunk_bytes, held_field_bytes=1)
    assert held.streamed_fields == []
    assert sorted(streamed.streamed_fields) == sorted(ARRAYS)
    for epoch in range(2):
        held.set_epoch(epoch)
        streamed.set_epoch(epoch)
        rows = {}
        for h, s in zip(held, streamed, strict=True):
            read_checked([s], ALL, rows)
            for a, b in zip(h, s, strict=True):
                if isinstance(a, torch.Tensor):
                    assert torch.equal(a, b)
                else:
                    assert a == b
        assert sorted(rows) == list(range(IMAGES))


def test_a_file_of_images_at_their_own_size_streams_its_fields_too(tmp_path):
    """Its fields are chunked by about 1 MiB of rows, not with its images: each chunk of images
    takes its rows out of the field's chunks that hold them. A batch's embeddings are its rows'
    whether held or streamed, and the two loaders deliver the same batches."""
    rng = np.random.default_rng(3)
    samples = [{"image": rng.integers(0, 256, (8 + i % 5, 9, 3), dtype=np.uint8),
                "label": i % 3, "embedding": np.arange(300, dtype=np.float32) + i}
               for i in range(900)]  # 874 rows in a field chunk: some chunks of images straddle
    h5feed.write(samples, tmp_path / "own.h5", max_side=16, workers=0, progress=False)
    with h5py.File(tmp_path / "own.h5") as f:
        source = np.array([int(s) for s in f["sources"][:]])  # each row's sample (shuffled)
        assert f["embedding"].chunks[0] < 900

    def own(**kwargs):
        return h5feed.Loader(tmp_path / "own.h5", 64, fields=["embedding"], with_indices=True,
                             threads=2, open_probe=False, dtype=torch.uint8, cache_bytes=1 << 16,
                             augment=h5feed.Augment(resize=8, center_crop=8), **kwargs)

    held, streamed = own(), own(held_field_bytes=1)
    assert held.streamed_fields == [] and streamed.streamed_fields == ["embedding"]
    seen = 0
    for h, s in zip(held, streamed, strict=True):
        for a, b in zip(h, s, strict=True):
            assert torch.equal(a, b)
        _, _, embedding, indices = s
        want = np.arange(300, dtype=np.float32)[None, :] + source[indices.numpy()][:, None]
        assert np.array_equal(embedding.numpy(), want)
        seen += len(indices)
    assert seen == 900


def test_a_damaged_held_row_of_a_file_of_images_at_their_own_size_leaves_its_chunk_out(tmp_path):
    """Chunks of images at their own size hold varying numbers of rows: a held field's damaged
    row leaves out the rows of the image chunk that holds it, in every epoch, the batches of a
    loader that streams the field and finds the row damaged as it reads the chunk."""
    rng = np.random.default_rng(4)
    samples = [{"image": rng.integers(0, 256, (8 + i % 5, 9, 3), dtype=np.uint8),
                "label": i % 3, "embedding": np.arange(30, dtype=np.float32) + i}
               for i in range(300)]
    path = tmp_path / "own.h5"
    h5feed.write(samples, path, max_side=16, workers=0, progress=False, compression="none",
                 chunk_bytes=4096)  # a dozen images or so a chunk
    with h5py.File(path, "r+") as f:
        source = np.array([int(s) for s in f["sources"][:]])  # each row's sample (shuffled)
        f["embedding"][150] = np.zeros(30, dtype=np.float32)  # its checksum no longer matches

    def own(**kwargs):
        return h5feed.Loader(path, 32, fields=["embedding"], with_indices=True, threads=2,
                             open_probe=False, dtype=torch.uint8, sampler="random",
                             skip_corrupt_chunks=True,
                             augment=h5feed.Augment(resize=8, center_crop=8), **kwargs)

    def epoch_batches(job, epoch):
        """Each batch's rows in `epoch`, every delivered embedding its sample's."""
        job.set_epoch(epoch)
        batches = []
        for _, _, embedding, indices in job:
            want = np.arange(30, dtype=np.float32)[None, :] + source[indices.numpy()][:, None]
            assert np.array_equal(embedding.numpy(), want)
            batches.append(indices.tolist())
        return batches

    with pytest.warns(UserWarning, match=r"corrupt chunk \d+ \(row 150 \(chunk \d+\) of field "
                                         r"embedding in .*own\.h5: checksum mismatch"):
        held = own()
    streamed = own(held_field_bytes=1)
    missing = []
    for epoch in range(2):
        # One loader after the other: two loaders taken from in turns in one process can stall
        # each other on a machine of 2 cores, which is not what this test is about.
        batches = epoch_batches(held, epoch)
        assert batches == epoch_batches(streamed, epoch)  # the same batches, row for row
        missing.append(sorted(set(range(300)) - {row for batch in batches for row in batch}))
    assert missing[0] == missing[1] and 150 in missing[0] and len(missing[0]) < 100
    assert missing[0] == list(range(missing[0][0], missing[0][-1] + 1))  # one chunk's rows


def test_held_field_bytes_below_zero_is_refused(files):
    with pytest.raises(ValueError, match="held_field_bytes"):
        loader(files["labelled"], ALL, held_field_bytes=-1)
