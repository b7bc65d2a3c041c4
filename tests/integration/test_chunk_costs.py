"""bench/chunk_costs: each step of the reader's per-chunk work, timed with the library's own
calls, on real h5feed files (its checksums compared with the file's)."""
import os
import re
import subprocess

import h5py
import numpy as np
import pytest

from conftest import run_h5feed

CHUNK_COSTS = os.environ.get("CHUNK_COSTS", "chunk_costs")


def chunk_costs(path, *args):
    return subprocess.run([CHUNK_COSTS, str(path), "--rounds", "1", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def timed_steps(path, kind, chunks, *args):
    """{step: (MB/s, fraction of the first step)} from a successful report on `chunks` chunks
    of `kind` (zstd, uncompressed)."""
    result = chunk_costs(path, *args)
    assert result.returncode == 0, result.stderr
    assert f"{chunks} chunks of" in result.stdout and f"({kind})" in result.stdout
    found = {}
    for line in result.stdout.splitlines():
        match = re.match(r"\s+(.+?)\s+(\d+) MB/s\s+([\d.]+)$", line)
        if match:
            found[match[1]] = (int(match[2]), float(match[3]))
    return found


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chunk_costs")
    rng = np.random.default_rng(0)
    np.save(folder / "i.npy", rng.integers(0, 256, (600, 24, 24, 3), dtype=np.uint8))
    made = {}
    for compression in ("zstd:3", "none", "gzip:1"):
        out = folder / f"{compression.replace(':', '')}.h5"
        run_h5feed("convert", "npy", folder / "i.npy", out, "--chunk", "64", "--compression",
                   compression, "--quiet", check=0)
        out.read_bytes()  # into the page cache, so the mapped steps map
        made[compression] = out
    return made


def test_a_zstd_file_is_timed_step_by_step_against_decompression_alone(files):
    found = timed_steps(files["zstd:3"], "zstd", 5, "--chunks", "5")
    assert list(found)[:4] == ["decompress, frames in memory (the ceiling)", "pread + decompress",
                               "pread + decompress + checksum (files without row checksums)",
                               "map + decompress + checksum"]
    assert found["decompress, frames in memory (the ceiling)"][1] == 1.0
    for step in ("gather, ordinary stores", "gather, streaming stores",
                 "gather, each row checked first (the loader)", "memcpy of whole chunks"):
        assert found[step][0] > 0


def test_an_uncompressed_file_is_timed_against_pread(files):
    found = timed_steps(files["none"], "uncompressed", 10)
    assert list(found)[:4] == ["pread", "pread + checksum (--no-map)",
                               "map: residency check, populate, unmap",
                               "map + checksum (files without row checksums)"]
    assert all(rate > 0 for rate, _ in found.values())


def test_other_filters_are_refused_and_a_damaged_chunk_is_an_error(files, tmp_path):
    refused = chunk_costs(files["gzip:1"])
    assert refused.returncode == 2
    assert "not an h5feed file with uncompressed or zstd chunks" in refused.stderr

    damaged = tmp_path / "damaged.h5"
    damaged.write_bytes(files["none"].read_bytes())
    with h5py.File(damaged, "r") as f:
        address = int(f["chunk_index"][0]["address"])
    with open(damaged, "r+b") as f:
        f.seek(address + 100)
        byte = f.read(1)[0]
        f.seek(address + 100)
        f.write(bytes([byte ^ 0xFF]))
    result = chunk_costs(damaged)
    assert result.returncode == 1
    assert f"checksum mismatch at offset {address}" in result.stderr
