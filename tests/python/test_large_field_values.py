"""What a bytes field of large values (small images kept as `bytes`, 1 MiB each) costs, said
and bounded: inspect counts the values HDF5 keeps in its global heap, not only the 16-byte
descriptors in the field's chunks; verify checks the field a block of rows at a time; a Loader
holds the field once (not a second copy while reading it) and warns when it takes more than
held_field_bytes. Memory is measured in processes of their own (VmHWM), on a file of 300
values of 1 MiB: held whole and copied on their way, verify's peak rose by 600 MB."""
import json
import os
import re
import subprocess
import sys
import textwrap
import warnings

import h5py
import numpy as np
import pytest

import h5feed
from conftest import H5FEED

# The images are 8 x 8, stored at their own size: a batch needs them made one size.
SAME_SIZE = h5feed.Augment(resize=8, center_crop=8)
ROWS = 300
VALUE_BYTES = 1 << 20
MiB = 1 << 20


def write_values(out, rows, value_bytes):
    image = np.zeros((8, 8, 3), np.uint8)

    class Dataset:
        def __len__(self):
            return rows

        def __getitem__(self, i):
            return {"image": image, "value": bytes([i % 256]) * (value_bytes + i % 7)}

    h5feed.write(Dataset(), out, max_side=16, memory_limit="256M", workers=0, progress=False,
                 shuffle=False)
    return out


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    return write_values(tmp_path_factory.mktemp("large") / "large.h5", ROWS, VALUE_BYTES)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    return write_values(tmp_path_factory.mktemp("small") / "small.h5", 40, 64 << 10)


# Runs `action` on the file in a fresh interpreter and prints how far its resident memory rose
# above what it held just before (VmHWM after, VmRSS before).
CHILD = textwrap.dedent("""
    import sys, warnings
    import h5feed
    SAME_SIZE = h5feed.Augment(resize=8, center_crop=8)

    def status(key):
        with open("/proc/self/status") as f:
            return int([line for line in f if line.startswith(key)][0].split()[1]) * 1024

    path, action = sys.argv[1], sys.argv[2]
    before = status("VmRSS")
    if action == "verify":
        report = h5feed.verify(path, threads=2)
        assert report["ok"], report
    else:  # a small cache, so that what reading the field holds is not hidden under it
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            h5feed.Loader(path, 8, fields=["value"] if action == "loader" else [],
                          held_field_bytes=1 << 20, cache_bytes=16 << 20, slots=2,
                          augment=SAME_SIZE)
    print(status("VmHWM") - before)
""")


def rise_in_memory(path, action):
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), action], capture_output=True,
                          text=True, timeout=120, env=os.environ)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


def heap_object_bytes(length):
    """A global heap object: 8 bytes of index, count and reserved, 8 of size, the value padded
    to 8 bytes (the HDF5 file format specification, "Global Heap")."""
    return 16 + (length + 7) // 8 * 8


def test_inspect_counts_the_values_in_the_global_heap_not_only_their_descriptors(small):
    with h5py.File(small) as f:
        lengths = [len(v) for v in f["value"][...]]
    summary = json.loads(subprocess.run([H5FEED, "inspect", small, "--json"], check=True,
                                        capture_output=True, text=True, timeout=60).stdout)
    field = summary["fields"][0]
    assert (field["name"], field["kind"], field["storage"]) == ("value", "bytes", "global heap")
    assert field["value_bytes"] == sum(lengths)
    assert field["heap_bytes"] == sum(heap_object_bytes(n) for n in lengths)
    dataset = [d for d in summary["datasets"] if d["name"] == "value"][0]
    # The chunks hold 16 bytes a row; the field's bytes in the file are those and the heap's.
    assert dataset["stored_bytes"] < 64 * 40
    assert dataset["heap_bytes"] == field["heap_bytes"]
    assert field["stored_bytes"] == dataset["stored_bytes"] + field["heap_bytes"]
    assert field["stored_bytes"] <= summary["file_bytes"]
    assert h5feed.inspect(small)["fields"][0] == field

    text = subprocess.run([H5FEED, "inspect", small], check=True, capture_output=True,
                          text=True, timeout=60).stdout
    assert re.search(r"\n  value  bytes: 2\.[56] MiB of values, 2\.[56] MiB stored \(values in "
                     r"HDF5's global heap, unfiltered\)\n", text), text
    assert re.search(r"\n  value vlen \(40,\) chunks \(40,\), 640 B stored \+ 2\.[56] MiB of "
                     r"values in HDF5's global heap\n", text), text


@pytest.mark.measures_memory
def test_verify_checks_a_large_bytes_field_in_the_memory_of_a_block(large):
    # 300 MiB of values: read whole, and copied out of HDF5's buffers, they raised the peak by
    # 600 MB; a block at a time, by what the images' check and a few blocks take.
    rise = rise_in_memory(large, "verify")
    assert rise < 120 * MiB, f"verify's peak rose by {rise // MiB} MiB"


@pytest.mark.measures_memory
def test_a_loader_holds_a_large_bytes_field_once_not_twice_while_reading_it(large):
    # The column is 300 MiB; read in one block, HDF5's copy of every value stood beside it
    # (the field raised the peak by 614 MiB).
    rise = rise_in_memory(large, "loader") - rise_in_memory(large, "loader without fields")
    assert rise < 300 * MiB + 60 * MiB, f"the field raised the loader's peak by {rise // MiB} MiB"


def test_a_loader_warns_when_held_bytes_fields_exceed_held_field_bytes(small):
    with pytest.warns(UserWarning) as caught:
        loader = h5feed.Loader(small, 8, fields=["value"], held_field_bytes=1 << 20,
                               augment=SAME_SIZE, as_dict=True)
    messages = [str(w.message) for w in caught]
    warning = [m for m in messages if "held_field_bytes" in m]
    assert len(warning) == 1, messages
    assert re.search(r"the fields held in memory take 2\.[56] MiB, more than held_field_bytes "
                     r"\(1\.0 MiB\): value \(bytes, 2\.[56] MiB\) is held whole", warning[0])
    assert "leave it out of fields" in warning[0]
    assert len(next(iter(loader))["value"]) == 8  # still delivered as asked

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # within the bound: no warning
        h5feed.Loader(small, 8, fields=["value"], held_field_bytes=64 << 20, augment=SAME_SIZE)
