"""A CelebA-shaped h5py file (images, labels, 40 binary attributes, 5 landmark points as 10
floats, a caption per image) through h5feed.rechunk, read back by h5feed.Loader(fields=...):
every field of every delivered row equals the source file's row it came from, under 2 ranks,
after a resume mid-epoch on another world size, and with echo 2 (issue 38's check of the
conversion side; tests/python/test_fields.py checks the Loader on Writer-made files)."""
import h5py
import numpy as np
import pytest
import torch

import h5feed

N, CHUNK = 61, 8
FIELDS = ["attrs", "landmarks", "caption"]


@pytest.fixture(scope="module")
def celeba(tmp_path_factory):
    folder = tmp_path_factory.mktemp("celeba")
    rng = np.random.default_rng(11)
    values = {"attrs": rng.integers(0, 2, (N, 40)).astype(bool),
              "landmarks": rng.normal(size=(N, 10)).astype(np.float32),
              "caption": [f"person {i}: " + "\u00e9" * (i % 4) for i in range(N)]}
    with h5py.File(folder / "celeba.h5", "w") as f:
        f["images"] = rng.integers(0, 256, (N, 6, 5, 3), dtype=np.uint8)
        f["labels"] = rng.integers(0, 3, N)
        f["attrs"], f["landmarks"] = values["attrs"], values["landmarks"]
        f.create_dataset("caption", data=values["caption"], dtype=h5py.string_dtype())
    out = folder / "train.h5"
    h5feed.rechunk(folder / "celeba.h5", out, chunk=CHUNK, shuffle=True, seed=4)
    with h5py.File(out) as f:  # the source row of each stored row ("celeba.h5#i")
        source = [int(s.decode().rsplit("#", 1)[1]) for s in f["sources"][()]]
    return out, values, source


def loader(path, **kwargs):
    return h5feed.Loader(path, 7, fields=FIELDS, with_indices=True, dtype=None, threads=2,
                         sampler="chunks:2", open_probe=False, **kwargs)


def read_checked(batches, values, source, rows):
    for images, labels, attrs, landmarks, caption, indices in batches:
        origin = [source[i] for i in indices.tolist()]
        assert attrs.dtype == torch.bool and tuple(attrs.shape) == (len(origin), 40)
        assert np.array_equal(attrs.numpy(), values["attrs"][origin])
        assert np.array_equal(landmarks.numpy(), values["landmarks"][origin])
        assert caption == [values["caption"][o] for o in origin]
        for index in indices.tolist():
            rows[index] = rows.get(index, 0) + 1
    return rows


def test_two_ranks_deliver_every_rechunked_row_with_its_source_fields(celeba):
    path, values, source = celeba
    rows = {}
    for rank in range(2):
        read_checked(loader(path, rank=rank, world_size=2), values, source, rows)
    assert sorted(rows) == list(range(N))


def test_a_resume_on_another_world_size_and_echo_keep_the_fields_with_their_rows(celeba):
    path, values, source = celeba
    rows = {}
    old = [loader(path, rank=rank, world_size=2) for rank in range(2)]
    for job in old:
        job.set_epoch(1)
        iterator = iter(job)
        read_checked([next(iterator) for _ in range(2)], values, source, rows)
    state = old[0].state_dict()
    for rank in range(3):
        resumed = loader(path, rank=rank, world_size=3)
        resumed.load_state_dict(state)
        resumed.set_epoch(1)
        read_checked(resumed, values, source, rows)
    assert sorted(rows) == list(range(N))

    echoed = read_checked(loader(path, echo=2), values, source, {})
    assert sorted(echoed) == list(range(N)) and set(echoed.values()) == {2}
