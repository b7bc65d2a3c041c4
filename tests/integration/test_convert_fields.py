"""Fields through the command line (docs/format.md, "Fields"): `convert npy --field`,
`rechunk` of a CelebA-shaped h5py file (its per-row datasets carried by default, chosen with
--field, dropped with --no-fields), every row of every field read back with h5py as
docs/format.md shows, and checked against its source row."""
import json

import h5py
import numpy as np
import pytest

from conftest import run_h5feed

N = 23


def source_rows(f):
    """The source row of each stored row, from /sources ('name#i')."""
    names = [s.decode() if isinstance(s, bytes) else s for s in f["sources"][()]]
    return np.array([int(name.rsplit("#", 1)[1]) for name in names])


def write_celeba(path, extra=None):
    """A CelebA-shaped h5py file: images, labels, 40 binary attributes (h5py's bool), 5
    landmark points as 10 floats, a caption per image, and a compound dataset that no field
    holds. Returns the values written."""
    rng = np.random.default_rng(7)
    values = {
        "images": rng.integers(0, 256, (N, 9, 7, 3), dtype=np.uint8),
        "labels": rng.integers(0, 4, N),
        "attrs": rng.integers(0, 2, (N, 40)).astype(bool),
        "landmarks": rng.normal(size=(N, 10)).astype(np.float32),
        "caption": [f"person {i} \u00e9t\u00e9" * (i % 3) for i in range(N)],
    }
    with h5py.File(path, "w") as f:
        for name in ("images", "labels", "attrs", "landmarks"):
            f[name] = values[name]
        f.create_dataset("caption", data=values["caption"], dtype=h5py.string_dtype())
        f["meta"] = np.zeros(N, [("a", "i4"), ("b", "f4")])
        for name, data in (extra or {}).items():
            f[name] = data
    return values


def check_fields(out, values, names):
    """Every row of each field of `out` (read as docs/format.md shows) is its source row's."""
    with h5py.File(out) as f:
        assert list(f.attrs.get("fields", [])) == names
        rows = source_rows(f)
        for name in names:
            assert f[name].attrs["h5feed_field"] in ("array", "bytes", "text")
            assert "xxh3-64" == f["field_checksums"][name].attrs["checksum"]
            if name == "caption":
                assert list(f[name].asstr()[...]) == [values[name][r] for r in rows]
            else:
                assert f[name].dtype == values[name].dtype
                assert np.array_equal(f[name][...], values[name][rows])


def test_rechunk_carries_every_per_row_dataset_and_notes_the_rest(tmp_path):
    values = write_celeba(tmp_path / "celeba.h5")
    out = tmp_path / "out.h5"
    result = run_h5feed("rechunk", tmp_path / "celeba.h5", out, "--chunk", "5", "--seed", "3",
                        check=0)
    assert "fields: attrs (bool[40]), caption (text), landmarks (float32[10])" in result.stdout
    assert "note: meta (compound (23,)) is not carried as a field: a compound type" \
        in result.stdout
    check_fields(out, values, ["attrs", "caption", "landmarks"])
    with h5py.File(out) as f:
        assert f["attrs"].chunks == (5, 40)  # in step with the images' chunks
        assert np.array_equal(f["labels"][...], values["labels"][source_rows(f)])
    run_h5feed("verify", out, check=0)


def test_rechunk_field_chooses_and_orders_and_no_fields_drops_them(tmp_path):
    values = write_celeba(tmp_path / "celeba.h5")
    chosen = tmp_path / "chosen.h5"
    result = run_h5feed("rechunk", tmp_path / "celeba.h5", chosen, "--field", "landmarks",
                        "--field", "caption", "--json", check=0)
    report = json.loads(result.stdout)
    assert [f["name"] for f in report["fields"]] == ["landmarks", "caption"]
    assert report["notes"] == []
    check_fields(chosen, values, ["landmarks", "caption"])

    bare = tmp_path / "bare.h5"
    run_h5feed("rechunk", tmp_path / "celeba.h5", bare, "--no-fields", check=0)
    with h5py.File(bare) as f:
        assert "fields" not in f.attrs and "attrs" not in f and "field_checksums" not in f

    refused = run_h5feed("rechunk", tmp_path / "celeba.h5", tmp_path / "x.h5", "--field", "meta",
                         check=1)
    assert "meta of" in refused.stderr and "a compound type" in refused.stderr
    both = run_h5feed("rechunk", tmp_path / "celeba.h5", tmp_path / "x.h5", "--field", "attrs",
                      "--no-fields")
    assert both.returncode != 0 and "excludes" in both.stderr
    assert not (tmp_path / "x.h5").exists()


def test_rechunk_refuses_a_per_row_dataset_with_a_reserved_name_unless_chosen(tmp_path):
    values = write_celeba(tmp_path / "celeba.h5", {"indices": np.arange(N)})
    result = run_h5feed("rechunk", tmp_path / "celeba.h5", tmp_path / "out.h5", check=1)
    assert 'a field cannot be named "indices"' in result.stderr
    assert "--field NAME" in result.stderr and "--no-fields" in result.stderr
    run_h5feed("rechunk", tmp_path / "celeba.h5", tmp_path / "out.h5", "--field", "attrs",
               check=0)
    check_fields(tmp_path / "out.h5", values, ["attrs"])


def test_a_rechunked_h5feed_file_keeps_its_fields_in_its_order(tmp_path):
    values = write_celeba(tmp_path / "celeba.h5")
    first = tmp_path / "first.h5"
    run_h5feed("rechunk", tmp_path / "celeba.h5", first, "--field", "landmarks", "--field",
               "attrs", "--chunk", "4", check=0)
    again = tmp_path / "again.h5"
    result = run_h5feed("rechunk", first, again, "--chunk", "7", "--json", check=0)
    assert json.loads(result.stdout)["notes"] == []
    with h5py.File(again) as f:
        assert list(f.attrs["fields"]) == ["landmarks", "attrs"]
        assert f["attrs"].chunks == (7, 40)
    check_fields(again, values, ["landmarks", "attrs"])


def test_convert_npy_carries_arrays_as_fields(tmp_path):
    rng = np.random.default_rng(3)
    images = rng.integers(0, 256, (N, 6, 5, 3), dtype=np.uint8)
    values = {
        "attrs": rng.integers(0, 2, (N, 40)).astype(bool),
        "landmarks": rng.normal(size=(N, 5, 2)).astype(">f4"),
        "score": rng.normal(size=N).astype(np.float16),
        "id": np.array([b"id-%d" % i for i in range(N)]),
        "caption": np.array([f"caption {i} \u00e9" for i in range(N)]),
    }
    np.save(tmp_path / "images.npy", images)
    flags = []
    for name, array in values.items():
        np.save(tmp_path / f"{name}.npy", array)
        flags += ["--field", f"{name}={tmp_path / f'{name}.npy'}"]
    out = tmp_path / "out.h5"
    result = run_h5feed("convert", "npy", *flags, tmp_path / "images.npy", out, "--chunk", "6",
                        check=0)
    assert "fields: attrs (bool[40]), landmarks (float32[5,2]), score (float16), id (bytes), " \
           "caption (text)" in result.stdout
    with h5py.File(out) as f:
        rows = source_rows(f)
        assert np.array_equal(f["images"][...], images[rows])
        assert list(f.attrs["fields"]) == list(values)
        assert f["attrs"].dtype == bool and np.array_equal(f["attrs"][...], values["attrs"][rows])
        assert f["landmarks"].dtype == "<f4"
        assert np.array_equal(f["landmarks"][...], values["landmarks"][rows])
        assert np.array_equal(f["score"][...], values["score"][rows])
        assert [f["id"][n].tobytes() for n in range(N)] == list(values["id"][rows])
        assert list(f["caption"].asstr()[...]) == list(values["caption"][rows])
    run_h5feed("verify", out, check=0)


@pytest.mark.parametrize("flag, message", [
    ("attrs", "is not NAME=FILE.npy"),
    ("labels={images}", "a field cannot be named \"labels\""),
    ("s={short}", "its first dimension must be 23"),
])
def test_convert_npy_refuses_a_bad_field_naming_it(tmp_path, flag, message):
    np.save(tmp_path / "images.npy", np.zeros((N, 4, 4, 3), np.uint8))
    np.save(tmp_path / "short.npy", np.zeros(N - 1, np.uint8))
    flag = flag.format(short=tmp_path / "short.npy", images=tmp_path / "images.npy")
    result = run_h5feed("convert", "npy", "--field", flag, tmp_path / "images.npy",
                        tmp_path / "out.h5")
    assert result.returncode != 0
    assert message in result.stderr
    assert not (tmp_path / "out.h5").exists()


def merge_parts(tmp_path, convert_args, out_name, parts=3):
    """Converts in `parts` parts (`--part K/N`, one process each) and merges them (--seed 5);
    returns the merged file's path."""
    out = tmp_path / out_name
    paths = []
    for k in range(parts):
        run_h5feed(*convert_args, out, "--part", f"{k}/{parts}", "-q", check=0)
        paths.append(out.with_name(f"{out.stem}-{k:05d}-of-{parts:05d}{out.suffix}"))
    merged = tmp_path / ("merged-" + out_name)
    run_h5feed("merge", *paths, merged, "--seed", "5", "-q", check=0)
    return merged


def test_merged_parts_carry_every_field_row_with_its_image(tmp_path):
    rng = np.random.default_rng(4)
    images = rng.integers(0, 256, (N, 5, 4, 3), dtype=np.uint8)
    attrs = rng.integers(0, 2, (N, 40)).astype(bool)
    captions = np.array(["x" * (i % 7) + f" {i}" for i in range(N)])
    np.save(tmp_path / "images.npy", images)
    np.save(tmp_path / "attrs.npy", attrs)
    np.save(tmp_path / "captions.npy", captions)
    # Chunks of 3 leave each part a short last chunk, which the merge packs again.
    merged = merge_parts(tmp_path, ["convert", "npy", "--field", f"attrs={tmp_path / 'attrs.npy'}",
                                    "--field", f"caption={tmp_path / 'captions.npy'}",
                                    tmp_path / "images.npy", "--chunk", "3"], "npy.h5")
    with h5py.File(merged) as f:
        rows = source_rows(f)
        assert sorted(rows) == list(range(N))
        assert list(f.attrs["fields"]) == ["attrs", "caption"]
        assert np.array_equal(f["images"][...], images[rows])
        assert np.array_equal(f["attrs"][...], attrs[rows])
        assert list(f["caption"].asstr()[...]) == list(captions[rows])
        # The merge writes its own chunk table for the array field (none for the text one),
        # each row where HDF5 stored the merged file's chunk.
        assert list(f["field_chunk_index"]) == ["attrs"]
        table = f["field_chunk_index/attrs"][...]
        assert len(table) == -(-N // 3)
        for c, row in enumerate(table):
            info = f["attrs"].id.get_chunk_info_by_coord((3 * c, 0))
            assert (row["address"], row["stored_bytes"]) == (info.byte_offset, info.size)
    report = json.loads(run_h5feed("verify", merged, "--json", check=0).stdout)
    assert f"field chunk tables of attrs: {-(-N // 3)} rows against HDF5's own chunk index" in \
        report["checked"]


def test_a_file_without_labels_keeps_none_through_rechunk_parts_and_merge(tmp_path):
    values = write_celeba(tmp_path / "celeba.h5")
    labelled = tmp_path / "labelled.h5"
    run_h5feed("rechunk", tmp_path / "celeba.h5", labelled, "--chunk", "4", check=0)
    with h5py.File(labelled, "a") as f:  # as a writer of self-supervised data leaves it
        del f["labels"], f["classes"]
        f.attrs["labelled"] = 0
        f.attrs["num_classes"] = 0
    merged = merge_parts(tmp_path, ["rechunk", labelled, "--chunk", "3"], "unlabelled.h5")
    with h5py.File(merged) as f:
        assert f.attrs["labelled"] == 0 and "labels" not in f and len(f["classes"]) == 0
    check_fields(merged, values, ["attrs", "caption", "landmarks"])
    run_h5feed("verify", merged, check=0)


def test_parts_with_other_fields_are_not_merged(tmp_path):
    np.save(tmp_path / "images.npy", np.zeros((N, 4, 4, 3), np.uint8))
    np.save(tmp_path / "a.npy", np.zeros(N, np.int32))
    out = tmp_path / "out.h5"
    for k, fields in ((0, ["--field", f"a={tmp_path / 'a.npy'}"]), (1, [])):
        run_h5feed("convert", "npy", *fields, tmp_path / "images.npy", out, "--part", f"{k}/2",
                   "-q", check=0)
    result = run_h5feed("merge", out.with_name("out-00000-of-00002.h5"),
                        out.with_name("out-00001-of-00002.h5"), tmp_path / "merged.h5", check=1)
    assert "the parts are not of one conversion" in result.stderr
    assert "fields none" in result.stderr and "a (int32)" in result.stderr


def test_inspect_lists_each_field_and_verify_finds_a_damaged_row(tmp_path):
    values = write_celeba(tmp_path / "celeba.h5")
    out = tmp_path / "out.h5"
    run_h5feed("rechunk", tmp_path / "celeba.h5", out, "--chunk", "5", check=0)
    text = run_h5feed("inspect", out, check=0).stdout
    assert "fields       3\n" in text
    assert "  attrs      array of bool, shape (40,): 920 B of values, " in text
    assert "  caption    text: " in text
    assert "  landmarks  array of float32, shape (10,): 920 B of values, " in text
    summary = json.loads(run_h5feed("inspect", out, "--json", check=0).stdout)
    assert summary["labelled"] is True
    attrs = summary["fields"][0]
    assert (attrs["name"], attrs["kind"], attrs["dtype"], attrs["shape"], attrs["type"]) == \
        ("attrs", "array", "bool", [40], "bool[40]")
    caption = summary["fields"][1]
    assert caption["dtype"] is None and caption["kind"] == "text"
    assert caption["value_bytes"] == sum(len(c.encode()) for c in values["caption"])

    report = json.loads(run_h5feed("verify", out, "--json", check=0).stdout)
    assert any(line.startswith("fields: every row of attrs (bool[40]), caption (text), "
                               "landmarks (float32[10])") for line in report["checked"])
    # The arrays' chunk tables (23 rows in chunks of 5: 5 chunks each), every row against HDF5.
    assert "field chunk tables of attrs, landmarks: 10 rows against HDF5's own chunk index" in \
        report["checked"]
    with h5py.File(out, "a") as f:  # a value changed behind the checksums' back
        landmarks = f["landmarks"][...]
        landmarks[7, 3] += 1
        f["landmarks"][...] = landmarks
    result = run_h5feed("verify", out)
    assert result.returncode != 0
    assert "row 7 (chunk 1) of field landmarks in" in result.stdout + result.stderr
    assert "checksum mismatch" in result.stdout + result.stderr

    with h5py.File(out, "a") as f:  # a chunk table that no longer says where a chunk lies
        table = f["field_chunk_index/attrs"]
        rows = table[...]
        rows["address"][2] += 8
        table[...] = rows
    result = run_h5feed("verify", out)
    assert result.returncode != 0
    assert "field attrs: the chunk table of /attrs in " in result.stdout
    assert "does not match the file: chunk 2 is at byte " in result.stdout


def test_rechunk_of_encoded_images_carries_fields_into_a_version_2_file(tmp_path):
    import io

    from PIL import Image
    rng = np.random.default_rng(5)
    encoded = []
    for i in range(N):
        buffer = io.BytesIO()
        Image.fromarray(rng.integers(0, 256, (6 + i % 4, 5, 3), dtype=np.uint8)).save(buffer, "PNG")
        encoded.append(np.frombuffer(buffer.getvalue(), np.uint8))
    attrs = rng.integers(0, 2, (N, 40)).astype(bool)
    with h5py.File(tmp_path / "encoded.h5", "w") as f:
        f.create_dataset("images", (N,), dtype=h5py.vlen_dtype(np.uint8))[...] = encoded
        f["labels"] = np.arange(N) % 3
        f["attrs"] = attrs
    out = tmp_path / "out.h5"
    result = run_h5feed("rechunk", tmp_path / "encoded.h5", out, "--seed", "2", check=0)
    assert "fields: attrs (bool[40])" in result.stdout
    with h5py.File(out) as f:
        assert f.attrs["h5feed_format_version"] == 2
        names = [s.decode() if isinstance(s, bytes) else s for s in f["sources"][()]]
        rows = np.array([int(name[len("images["):-1]) for name in names])
        assert sorted(rows) == list(range(N))
        assert np.array_equal(f["attrs"][...], attrs[rows])
    run_h5feed("verify", out, check=0)
