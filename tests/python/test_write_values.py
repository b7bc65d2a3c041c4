"""h5feed.write refuses a value it could only store changed, naming the row, before any file is
left: a label or box label beyond int64 (which /labels and box labels are), a target that is not one
int (saying how to give a dict without boxes or several values; a label of one element is its
number, a whole float its int; 2.5 is refused), a value of another number type than its field's that
it would change (naming the type that holds both; one kept exactly is converted), a float beyond the
range of the narrower float fields= gives, a field named "." (HDF5's name of the root group), a
class name with a NUL or a lone surrogate, a bytes or text value over the 2 GiB a row holds; classes
for a dataset without labels are dropped with a warning. A message about a sample that differs from
the first names the first sample written, which with a shuffle is not dataset[0]. An iterable kept
beside the output on a disk that fills is a NoSpaceError naming that file."""
import os
import re
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest
import torch

import h5feed

IMAGE = np.zeros((8, 8, 3), np.uint8)


def write(samples, out, **options):
    return h5feed.write(samples, out, max_side=16, workers=0, progress=False, shuffle=False,
                        **options)


@pytest.mark.parametrize("label", [np.uint64(2**63 + 5), 2**63, -2**63 - 1])
def test_a_label_beyond_int64_is_refused_naming_the_row(tmp_path, label):
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=rf"dataset\[1\]'s label is {int(label)}, beyond int64"):
        write([(IMAGE, 0), (IMAGE, label)], tmp_path / "out.h5")
    assert not os.listdir(tmp_path)


def test_labels_at_the_ends_of_int64_are_stored_as_given(tmp_path):
    write([(IMAGE, -2**63), (IMAGE, np.uint64(2**63 - 1))], tmp_path / "out.h5")
    with h5py.File(tmp_path / "out.h5") as f:
        assert f["labels"][:].tolist() == [-2**63, 2**63 - 1]


def test_a_label_of_one_element_is_its_number(tmp_path):
    # SVHN's labels are arrays of shape (1,), PCam's (1, 1, 1); torch.tensor([3]) is common.
    write([(IMAGE, np.array([4], np.uint8)), (IMAGE, np.ones((1, 1, 1), np.int64)),
           (IMAGE, torch.tensor([3]))], tmp_path / "out.h5")
    with h5py.File(tmp_path / "out.h5") as f:
        assert f["labels"][:].tolist() == [4, 1, 3] and "mask" not in f


def test_a_label_of_a_whole_float_is_its_int(tmp_path):
    # Classes read from a float column (pandas of a CSV) or kept in a float tensor.
    write([(IMAGE, 2.0), (IMAGE, np.float32(3)), (IMAGE, torch.tensor(1.0)),
           (IMAGE, np.array([5.0])), (IMAGE, -0.0)], tmp_path / "out.h5")
    with h5py.File(tmp_path / "out.h5") as f:
        assert f["labels"].dtype == np.int64
        assert f["labels"][:].tolist() == [2, 3, 1, 5, 0]


@pytest.mark.parametrize("label, said", [
    (2.5, r"2\.5 \(float\)"), (np.float32(0.25), r"0\.25 \(float32\)"),
    (float("nan"), r"nan \(float\)"), (float("inf"), r"inf \(float\)"),
    (1e30, r"1000000000000000019884624838656, beyond int64")])
def test_a_label_of_a_float_that_is_no_whole_number_is_refused_naming_the_row(tmp_path, label,
                                                                              said):
    with pytest.raises(h5feed.InvalidArgumentError, match=rf"dataset\[1\]'s label is {said}"):
        write([(IMAGE, 0.0), (IMAGE, label)], tmp_path / "out.h5")
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("target, said", [
    ({"bbox": torch.zeros(0, 4), "labels": torch.zeros(0)},  # a detection target has 'boxes'
     r"label is a dict \(keys 'bbox', 'labels'\); a label is an int\. A detection target "
     r".*'box_labels': target\['labels'\]"),
    (torch.zeros(40, dtype=torch.long),
     r"label is a Tensor of shape \(40,\); a label is one int\. A target of several values "
     r"\(multi-label attributes, as CelebA's\) is a field of a dict sample"),
    (torch.tensor([1.5]), r"label is 1\.5 \(Tensor\); a label is an int")])
def test_a_target_that_is_no_label_is_refused_saying_how_to_give_it(tmp_path, target, said):
    with pytest.raises(h5feed.InvalidArgumentError, match=rf"dataset\[1\]'s {said}"):
        write([(IMAGE, 0), (IMAGE, target)], tmp_path / "out.h5")
    assert not os.listdir(tmp_path)


def test_box_labels_beyond_int64_are_refused_rather_than_stored_negative(tmp_path):
    samples = [{"image": IMAGE, "boxes": [[1, 2, 3, 4]], "box_labels": np.array([3], np.uint64)},
               {"image": IMAGE, "boxes": [[1, 2, 3, 4]],
                "box_labels": np.array([2**64 - 1], np.uint64)}]
    with pytest.raises(h5feed.InvalidArgumentError, match=r"dataset\[1\]: box labels "
                       r"'box_labels' hold 18446744073709551615, beyond int64"):
        write(samples, tmp_path / "out.h5")
    assert not os.listdir(tmp_path)
    write(samples[:1], tmp_path / "out.h5")
    with h5py.File(tmp_path / "out.h5") as f:
        assert np.frombuffer(f["box_labels"][0].tobytes(), "<i8").tolist() == [3]


@pytest.mark.parametrize("spec, value, shown", [
    ("float16", 1e10, r"10000000000\.0, beyond the range of float16 \(at most 65504"),
    ("float32[3]", [1.0, 2.0, -1e300], r"-1e\+300, beyond the range of float32"),
])
def test_a_float_beyond_the_range_of_the_field_given_is_refused_not_made_infinite(
        tmp_path, spec, value, shown):
    samples = [{"image": IMAGE, "x": np.asarray(value) * 0}, {"image": IMAGE, "x": value}]
    with pytest.raises(h5feed.InvalidArgumentError, match=r"dataset\[1\]: field 'x' holds "
                       + shown):
        write(samples, tmp_path / "out.h5", fields={"x": spec})
    assert not os.listdir(tmp_path)


def test_a_float_made_narrower_keeps_its_rounding_infinities_and_nans(tmp_path):
    value = np.array([1 / 3, np.inf, -np.inf, np.nan, 70000.0])
    write([{"image": IMAGE, "x": value}], tmp_path / "out.h5", fields={"x": "float32[5]"})
    with h5py.File(tmp_path / "out.h5") as f:
        assert f["x"][0].tobytes() == value.astype(np.float32).tobytes()


@pytest.mark.parametrize("values, dtype, stored", [
    ([[1.0, 2.5], [3, 4]], "float64", [[1.0, 2.5], [3.0, 4.0]]),  # Python ints among floats
    ([np.float64(0.5), np.float32(1.5)], "float64", [0.5, 1.5]),
    ([np.int64(7), np.int32(-3)], "int64", [7, -3]),
    ([np.int32(7), np.int64(-3)], "int32", [7, -3]),
    ([np.uint8(7), 200], "uint8", [7, 200])])
def test_a_value_of_another_number_type_that_keeps_its_values_is_converted(tmp_path, values,
                                                                            dtype, stored):
    write([{"image": IMAGE, "v": v} for v in values], tmp_path / "out.h5")
    with h5py.File(tmp_path / "out.h5") as f:
        assert f["v"].dtype == dtype and f["v"][:].tolist() == stored


@pytest.mark.parametrize("values, said", [
    ([1, 0.5], "field 'v' is float64, but the field is int64 .* give fields={'v': 'float64'}"),
    ([np.float32(1.5), 0.1],
     "field 'v' is float64, but the field is float32 .* give fields={'v': 'float64'}"),
    ([np.uint8(1), -1],
     "field 'v' is int64, but the field is uint8 .* give fields={'v': 'int64'}")])
def test_a_value_the_first_samples_type_cannot_hold_is_refused_naming_a_type_that_can(
        tmp_path, values, said):
    with pytest.raises(h5feed.InvalidArgumentError, match=r"dataset\[1\]: " + ".* ".join(
            re.escape(part) for part in said.split(".* "))):
        write([{"image": IMAGE, "v": v} for v in values], tmp_path / "out.h5")
    assert not os.listdir(tmp_path)


def test_an_int_in_a_float_field_fields_gives_is_converted(tmp_path):
    write([{"image": IMAGE, "score": 0}, {"image": IMAGE, "score": 1.5}], tmp_path / "out.h5",
          fields={"score": "float32"})
    with h5py.File(tmp_path / "out.h5") as f:
        assert f["score"].dtype == np.float32 and f["score"][:].tolist() == [0.0, 1.5]


def test_a_field_named_dot_is_refused_before_any_file_is_made(tmp_path):
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[0\], the first sample written: a field cannot be named "
                       r'"\."'):
        write([{"image": IMAGE, ".": 1}], tmp_path / "out.h5")
    assert not os.listdir(tmp_path)
    write([{"image": IMAGE, "..": 1, ".x": 2}], tmp_path / "out.h5")  # names HDF5 keeps
    with h5py.File(tmp_path / "out.h5") as f:
        assert list(f.attrs["fields"]) == ["..", ".x"] and f[".."][0] == 1


class ChangesAt:
    """dataset[i] has field x of float32 below row 50, float64 from there to 79, none after."""

    def __len__(self):
        return 100

    def __getitem__(self, i):
        if i >= 80:
            return {"image": IMAGE}
        # i + 0.1 in float64: a value float32 cannot hold, which is refused, not rounded.
        return {"image": IMAGE, "x": np.float32(i) if i < 50 else np.float64(i + 0.1)}


def test_a_sample_unlike_the_first_names_the_first_written_which_a_shuffle_picks(tmp_path):
    out = tmp_path / "out.h5"
    order = np.frombuffer(h5feed._h5feed.stored_order(100, True, 0), np.int64)
    assert order[:2].tolist() == [20, 59]  # seed 0's: a float32 row first, not dataset[0]
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[59\]: field 'x' is float64, but the field is float32 "
                       r"\(that of dataset\[20\], the first sample written\)"):
        h5feed.write(ChangesAt(), out, max_side=16, workers=0, progress=False)
    with pytest.raises(h5feed.InvalidArgumentError, match=r"dataset\[1\] has no value of field "
                       r"'x' \(as dataset\[0\], the first written, has\)"):
        write([ChangesAt()[i] for i in (3, 90)], out)
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[0\]: field 'x' is an empty array of shape \(0,\)"):
        write([{"image": IMAGE, "x": []}], out)
    assert not os.listdir(tmp_path)


def test_an_iterable_kept_on_a_full_disk_is_a_no_space_error_naming_the_file(tmp_path):
    # A file size limit (RLIMIT_FSIZE, SIGXFSZ ignored) makes a write fail with EFBIG, as a
    # full disk's makes one fail with ENOSPC: the spool of the iterable meets it first.
    script = textwrap.dedent(f"""
        import resource, signal, numpy as np, h5feed
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
        samples = ({{"image": np.zeros((64, 64, 3), np.uint8), "pad": bytes(20000)}}
                   for _ in range(200))
        try:
            h5feed.write(samples, {str(tmp_path / "out.h5")!r}, max_side=64, progress=False)
        except h5feed.NoSpaceError as error:
            print("NoSpaceError:", error)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert "NoSpaceError: the disk is full: keeping the iterable's samples in " in run.stdout
    assert ".out.h5.spool-" in run.stdout and "map-style dataset" in run.stdout
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("name, wrong", [("a\0b", "holds a NUL character"),
                                         ("caf\udce9", "is a str that UTF-8 cannot encode")])
def test_a_class_name_hdf5_would_cut_or_cannot_hold_is_refused_before_any_sample(tmp_path, name,
                                                                                  wrong):
    def never_read():
        raise AssertionError("the iterable is read before the classes are checked")
        yield

    with pytest.raises(h5feed.InvalidArgumentError, match=rf"classes\[1\] = .* {wrong}"):
        write(never_read(), tmp_path / "out.h5", classes=["ok", name])
    assert not os.listdir(tmp_path)


def test_classes_for_a_dataset_without_labels_are_dropped_with_a_warning(tmp_path):
    with pytest.warns(UserWarning, match=r"classes= names 2 classes, but dataset\[0\], the "
                      r"first sample written, has no label"):
        write([IMAGE, IMAGE], tmp_path / "out.h5", classes=["cat", "dog"])
    with h5py.File(tmp_path / "out.h5") as f:
        assert f.attrs["labelled"] == 0 and len(f["classes"]) == 0


def test_a_bytes_value_over_the_2_gib_a_row_holds_is_refused_naming_the_row(tmp_path):
    # bytes(n) is zeros the system maps lazily: the test touches none of its 2 GiB.
    huge = bytes(h5feed._h5feed.MAX_FIELD_ROW_BYTES + 1)
    with pytest.raises(h5feed.InvalidArgumentError, match=r"dataset\[1\]: field 'blob' is bytes "
                       r"of 2,147,483,649 bytes, more than a row of a field holds"):
        write([{"image": IMAGE, "blob": b"x"}, {"image": IMAGE, "blob": huge}],
              tmp_path / "out.h5")
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("samples,refusal", [
    ([{"image": IMAGE, "caption": "a"}, {"image": IMAGE, "caption": None}],
     r"dataset\[1\]: field 'caption' is None; a file stores a value of each field for every "
     r"sample, none marked missing: give a value that says so \(an empty str or bytes"),
    ([{"image": IMAGE, "caption": "a"}, {"image": IMAGE}],
     r"dataset\[1\] has no value of field 'caption' .*: give a sample without one a value that "
     r"says so \(an empty str or bytes"),
    ([{"image": IMAGE}, {"image": IMAGE, "caption": "a"}],
     r"dataset\[1\] has 'caption', which the file has not as fields .*every sample has the "
     r"same fields: give a sample without one a value that says so")])
def test_a_field_some_samples_lack_is_refused_saying_what_to_give_instead(tmp_path, samples,
                                                                         refusal):
    with pytest.raises(h5feed.InvalidArgumentError, match=refusal):
        write(samples, tmp_path / "out.h5")
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("spec,refusal", [
    ("string", r"fields\['caption'\] = 'string': 'string' is no field type; give 'text' \(str "
               r"values\), 'bytes'"),
    ("str", r"'str' is no field type; give 'text'"),
    ("text[40]", r"fields\['caption'\] = 'text\[40\]': a text value has a length of its own in "
                 r"every row; give 'text' alone")])
def test_a_field_spec_of_no_type_is_refused_naming_the_field_and_the_types(tmp_path, spec,
                                                                          refusal):
    with pytest.raises(ValueError, match=refusal):
        write([{"image": IMAGE, "caption": "a"}], tmp_path / "out.h5", fields={"caption": spec})
    assert not os.listdir(tmp_path)


def test_a_field_spec_may_name_its_element_type_as_numpy_does(tmp_path):
    write([{"image": IMAGE, "x": np.float32(1.5), "y": [1.0, 2.0]}], tmp_path / "out.h5",
          fields={"x": "f4", "y": "float[2]"})
    with h5py.File(tmp_path / "out.h5") as f:
        assert f["x"].dtype == np.float32 and f["y"].dtype == np.float64


def test_arrays_of_varying_length_are_refused_saying_to_store_them_as_bytes(tmp_path):
    samples = [{"image": IMAGE, "points": np.zeros(n, np.float32)} for n in (3, 5)]
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[1\]: field 'points' is float32\[5\], but the field is "
                       r"float32\[3\] .* \(arrays whose shape varies from sample to sample: store "
                       r"each as bytes, fields=\{'points': 'bytes'\} \(or value.tobytes\(\)\), "
                       r"which np.frombuffer\(row, 'float32'\) reads back, or pad them to one "
                       r"shape\)"):
        write(samples, tmp_path / "out.h5")
    write([{"image": IMAGE, "points": s["points"].tobytes()} for s in samples],
          tmp_path / "out.h5")
    with h5py.File(tmp_path / "out.h5") as f:
        assert [len(np.frombuffer(row, "float32")) for row in f["points"]] == [3, 5]


@pytest.mark.parametrize("workers", [0, pytest.param(2, marks=pytest.mark.forks_workers)])
def test_arrays_in_a_field_fields_makes_bytes_are_stored_as_their_bytes(tmp_path, workers):
    # Arrays, tensors and lists of varying length (a detection target's per-box values): their
    # little-endian bytes, row-major; bytes as they are.
    values = [np.arange(3, dtype=">f4"), torch.arange(5, dtype=torch.int16).reshape(5, 1),
              [7.0, 8.0], b"\x00\x00\x80\x3f"]
    h5feed.write([{"image": IMAGE, "points": v} for v in values], tmp_path / "out.h5",
                 max_side=16, workers=workers, progress=False, shuffle=False,
                 fields={"points": "bytes"})
    with h5py.File(tmp_path / "out.h5") as f:
        rows = [row.tobytes() for row in f["points"]]
    assert [np.frombuffer(row, dtype).tolist() for row, dtype in
            zip(rows, ["<f4", "<i2", "<f8", "<f4"])] == [[0, 1, 2], [0, 1, 2, 3, 4], [7, 8], [1]]
