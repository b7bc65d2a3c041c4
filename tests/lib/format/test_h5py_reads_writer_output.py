"""Other HDF5 readers see what h5feed's Writer wrote.

zstd files read with h5py and h5dump once HDF5_PLUGIN_PATH names the folder of h5feed's
plugin (and fail to read without it); gzip and uncompressed files read with nothing extra.
A full disk is reported as such and leaves no file behind.

Run by ctest with WRITE_TEST_FILE (the write_test_file program), H5FEED_PLUGIN_DIR and H5DUMP
in the environment.
"""

import os
import resource
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

WRITE_TEST_FILE = os.environ["WRITE_TEST_FILE"]
PLUGIN_DIR = os.environ["H5FEED_PLUGIN_DIR"]
H5DUMP = os.environ.get("H5DUMP") or "/usr/bin/h5dump"


def expected_pixels(images, height=4, width=5, channels=3):
    """The pattern write_test_file writes: (31 i + 7 y + 3 x + 101 c) mod 256."""
    i = np.arange(images).reshape(-1, 1, 1, 1)
    y = np.arange(height).reshape(1, -1, 1, 1)
    x = np.arange(width).reshape(1, 1, -1, 1)
    c = np.arange(channels).reshape(1, 1, 1, -1)
    return ((31 * i + 7 * y + 3 * x + 101 * c) % 256).astype(np.uint8)


def write(path, compression, *extra):
    subprocess.run([WRITE_TEST_FILE, str(path), "--compression", compression, *extra],
                   check=True)


def environment(with_plugin):
    env = dict(os.environ)
    env.pop("HDF5_PLUGIN_PATH", None)
    if with_plugin:
        env["HDF5_PLUGIN_PATH"] = PLUGIN_DIR
    else:
        # An empty folder, so HDF5 does not find a zstd plugin installed elsewhere either.
        env["HDF5_PLUGIN_PATH"] = "/nonexistent-h5feed-plugin-dir"
    return env


# h5py runs in a child process: HDF5 reads HDF5_PLUGIN_PATH once, when it first needs a plugin.
READER = textwrap.dedent("""
    import json, sys
    import h5py, numpy as np
    with h5py.File(sys.argv[1], "r") as f:
        images = f["images"]
        out = {
            "shape": list(images.shape),
            "dtype": str(images.dtype),
            "chunks": list(images.chunks),
            "compression": images.compression,
            "filters": [list(map(int, images.id.get_create_plist().get_filter(i)[0:1])) +
                        list(images.id.get_create_plist().get_filter(i)[2])
                        for i in range(images.id.get_create_plist().get_nfilters())],
            "pixels": images[...].tobytes().hex(),
            "labels": f["labels"][...].tolist(),
            "labels_dtype": str(f["labels"].dtype),
            "classes": [s for s in f["classes"].asstr()[...]],
            "sources": [s for s in f["sources"].asstr()[...]],
            "skipped_sources": [s for s in f["skipped_sources"].asstr()[...]],
            "skipped_reasons": [s for s in f["skipped_reasons"].asstr()[...]],
            "chunk_index_dtype": str(f["chunk_index"].dtype),
            "chunk_index": f["chunk_index"][...].tolist(),
            "checksum": f["chunk_index"].attrs["checksum"],
            "attrs": {k: (v if isinstance(v, str) else int(v)) for k, v in f.attrs.items()},
        }
    print(json.dumps(out))
""")


def read_with_h5py(path, with_plugin):
    return subprocess.run([sys.executable, "-c", READER, str(path)], env=environment(with_plugin),
                          capture_output=True, text=True)


@pytest.fixture(scope="module", autouse=True)
def plugin_is_built():
    assert os.path.exists(os.path.join(PLUGIN_DIR, "libh5feed_zstd.so")), (
        "build the plugin first: cmake --build <build> --target h5feed_zstd_plugin")


@pytest.mark.parametrize("compression,with_plugin", [
    ("zstd:3", True), ("gzip:6", False), ("none", False)])
def test_h5py_reads_every_dataset_and_attribute(tmp_path, compression, with_plugin):
    import json
    path = tmp_path / "out.h5"
    write(path, compression)
    result = read_with_h5py(path, with_plugin)
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)
    assert got["shape"] == [10, 4, 5, 3]
    assert got["dtype"] == "uint8"
    assert got["chunks"] == [4, 4, 5, 3]
    if compression.startswith("zstd"):
        assert got["filters"] == [[32015, 3]]  # id, cd_values[0] = level
    elif compression.startswith("gzip"):
        assert got["compression"] == "gzip"
        assert got["filters"] == [[1, 6]]  # H5Z_FILTER_DEFLATE, level
    else:
        assert got["filters"] == []
    pixels = np.frombuffer(bytes.fromhex(got["pixels"]), dtype=np.uint8).reshape(10, 4, 5, 3)
    np.testing.assert_array_equal(pixels, expected_pixels(10))
    assert got["labels"] == [i % 3 for i in range(10)]
    assert got["labels_dtype"] == "int64"
    assert got["classes"] == ["cat", "dog", "émeu"]
    assert got["sources"] == [f"img{i}.png" for i in range(10)]
    assert got["skipped_sources"] == ["broken.jpg"]
    assert got["skipped_reasons"] == ["truncated file"]
    assert got["checksum"] == "xxh3-64"
    assert len(got["chunk_index"]) == 3
    assert all(row[2] == 0 for row in got["chunk_index"])  # filter_mask
    attrs = got["attrs"]
    assert attrs["h5feed_format"] == "h5feed"
    assert attrs["h5feed_format_version"] == 1
    assert attrs["layout"] == "NHWC"
    assert attrs["num_images"] == 10
    assert attrs["num_classes"] == 3
    assert attrs["num_skipped"] == 1
    assert attrs["chunk_images"] == 4
    assert attrs["compression"] == compression
    assert attrs["shuffled"] == 1
    assert attrs["shuffle_seed"] == 42
    assert attrs["source_kind"] == "npy"
    assert attrs["created_by"].startswith("h5feed ")


def test_chunk_index_is_the_packed_dtype_the_format_specifies(tmp_path):
    import h5py
    path = tmp_path / "out.h5"
    write(path, "none")
    with h5py.File(path, "r") as f:
        dtype = f["chunk_index"].dtype
        assert dtype == np.dtype([("address", "<u8"), ("stored_bytes", "<u8"),
                                  ("filter_mask", "<u4"), ("checksum", "<u8")])
        assert dtype.itemsize == 28
        table = f["chunk_index"][...]
        raw = open(path, "rb").read()
        # Uncompressed chunks: the bytes at each address are the chunk, padding included.
        for i, row in enumerate(table):
            chunk = raw[row["address"]:row["address"] + row["stored_bytes"]]
            assert len(chunk) == 4 * 60
            start = i * 4
            rows = min(4, 10 - start)
            expected = expected_pixels(10)[start:start + rows].tobytes()
            assert chunk[:len(expected)] == expected
            assert chunk[len(expected):] == bytes(4 * 60 - len(expected))


@pytest.mark.parametrize("compression", ["none", "gzip:6"])
def test_checksums_are_xxh3_64_of_each_image_and_each_padded_chunk(tmp_path, compression):
    """An independent XXH3 (the xxhash package) agrees with both checksum tables."""
    import h5py
    import xxhash
    path = tmp_path / "out.h5"
    write(path, compression)
    with h5py.File(path, "r") as f:
        rows = f["row_checksums"]
        assert rows.dtype == np.dtype("<u8")
        assert rows.shape == (10,)
        assert rows.attrs["checksum"] == "xxh3-64"
        images = f["images"][...]
        assert [int(v) for v in rows[...]] == [xxhash.xxh3_64_intdigest(image.tobytes())
                                               for image in images]
        padded = np.zeros((12, 4, 5, 3), np.uint8)  # 3 chunks of 4, the last zero-padded
        padded[:10] = images
        assert [int(row["checksum"]) for row in f["chunk_index"][...]] == [
            xxhash.xxh3_64_intdigest(padded[c * 4:c * 4 + 4].tobytes()) for c in range(3)]


def test_labels_and_string_lists_carry_the_xxh3_64_of_their_values(tmp_path):
    """An independent XXH3 agrees with the xxh3_64 attributes, over the bytes docs/format.md
    names: int64 little-endian labels; each string's UTF-8 bytes and a zero byte."""
    import h5py
    import xxhash
    path = tmp_path / "out.h5"
    write(path, "none")
    with h5py.File(path, "r") as f:
        labels = f["labels"][...].astype("<i8")
        assert f["labels"].attrs["xxh3_64"] == xxhash.xxh3_64_intdigest(labels.tobytes())
        for name in ("classes", "sources", "skipped_sources", "skipped_reasons"):
            strings = f[name].asstr()[...] if len(f[name]) else []
            expected = b"".join(s.encode("utf-8") + b"\0" for s in strings)
            assert f[name].attrs["xxh3_64"] == xxhash.xxh3_64_intdigest(expected), name
        assert [c.decode() for c in f["classes"][...]] == ["cat", "dog", "émeu"]


def test_zstd_files_do_not_read_without_the_plugin(tmp_path):
    path = tmp_path / "out.h5"
    write(path, "zstd:3")
    result = read_with_h5py(path, with_plugin=False)
    assert result.returncode != 0
    assert "filter" in result.stderr.lower() or "can't" in result.stderr.lower(), result.stderr


def h5dump(path, with_plugin):
    return subprocess.run([H5DUMP, "-d", "/images", str(path)], env=environment(with_plugin),
                          capture_output=True, text=True)


def dumped_values(text):
    data = text.split("DATA {", 1)[1]
    values = []
    for line in data.splitlines():
        if ":" not in line:
            continue
        values += [int(v) for v in line.split(":", 1)[1].replace(",", " ").split()]
    return values


def test_h5dump_reads_zstd_files_with_the_plugin_path(tmp_path):
    path = tmp_path / "out.h5"
    write(path, "zstd:3")
    result = h5dump(path, with_plugin=True)
    assert result.returncode == 0, result.stderr
    assert dumped_values(result.stdout) == expected_pixels(10).ravel().tolist()
    without = h5dump(path, with_plugin=False)
    assert without.returncode != 0 or "DATA {" not in without.stdout


def test_h5dump_reads_gzip_files_with_nothing_extra(tmp_path):
    path = tmp_path / "out.h5"
    write(path, "gzip:6")
    result = h5dump(path, with_plugin=False)
    assert result.returncode == 0, result.stderr
    assert dumped_values(result.stdout) == expected_pixels(10).ravel().tolist()


def limit_file_size():
    # Ignored, SIGXFSZ stays ignored across exec; write() then fails with EFBIG, which the
    # writer must handle exactly like a full disk's ENOSPC.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, resource.RLIM_INFINITY))


def test_a_full_disk_is_reported_and_leaves_no_file(tmp_path):
    path = tmp_path / "out.h5"
    result = subprocess.run(
        [WRITE_TEST_FILE, str(path), "--compression", "none", "--images", "400",
         "--height", "64", "--width", "64", "--chunk", "16"],
        preexec_fn=limit_file_size, capture_output=True, text=True)
    assert result.returncode == 1, result.stderr
    assert "no space left" in result.stderr
    assert "largest size" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_full_file_system_is_reported_and_leaves_no_file(tmp_path):
    """A real ENOSPC: a 2 MiB tmpfs mounted in a private mount namespace (needs unprivileged
    user namespaces or root; skipped where neither is available)."""
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    script = textwrap.dedent(f"""
        mount -t tmpfs -o size=2m h5feed-test {mount_point} || exit 77
        "$0" {mount_point}/out.h5 --compression none --images 800 --height 64 --width 64 \\
            --chunk 16
        status=$?
        echo "left: $(ls -A {mount_point})"
        exit $status
    """)
    try:
        result = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
                                 script, WRITE_TEST_FILE], capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip("unshare is not installed")
    if result.returncode == 77 or "unshare:" in result.stderr:
        pytest.skip("cannot mount a tmpfs here: " + result.stderr.strip())
    assert result.returncode == 1, result.stderr
    assert "no space left" in result.stderr
    assert "the disk is full" in result.stderr
    assert "left: \n" in result.stdout or result.stdout.strip() == "left:"
