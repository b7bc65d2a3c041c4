"""`h5feed bench` end to end: its JSON keys and their consistency on a tiny file, the text
report, and its errors (usage errors exit 2, a missing or broken file exits 1)."""
import json

import numpy as np
import pytest

from conftest import run_h5feed

SAMPLES, CHUNK = 300, 16  # 19 chunks, the last one short
DOCUMENTED_KEYS = {"images_per_s", "mb_per_s", "chunk_reads", "chunks", "cache_hits",
                   "cache_misses", "peak_rss_mb", "epochs", "images", "seconds", "sampler",
                   "batch", "threads", "cache_mb"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A 300-image 8x6x3 h5feed file (zstd:3, chunks of 16) converted from .npy."""
    folder = tmp_path_factory.mktemp("bench")
    rng = np.random.default_rng(3)
    np.save(folder / "images.npy", rng.integers(0, 256, (SAMPLES, 8, 6, 3), dtype=np.uint8))
    np.save(folder / "labels.npy", rng.integers(0, 5, SAMPLES).astype(np.int64))
    out = folder / "tiny.h5"
    run_h5feed("convert", "npy", folder / "images.npy", folder / "labels.npy", out,
               "--chunk", CHUNK, "--quiet", check=0)
    return out


def bench_json(path, *args):
    result = run_h5feed("bench", path, "--json", *args, check=0)
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def test_json_has_the_documented_keys_and_consistent_values(tiny):
    report = bench_json(tiny, "--batch", 32, "--epochs", 3, "--threads", 2)
    assert DOCUMENTED_KEYS <= report.keys()
    chunks = (SAMPLES + CHUNK - 1) // CHUNK
    assert report["chunks"] == chunks
    assert report["epochs"] == 3
    assert report["images"] == 3 * SAMPLES
    assert report["batch"] == 32 and report["threads"] == 2 and report["cache_mb"] == 512
    assert report["sampler"] == "chunks:8"
    assert report["seconds"] > 0 and report["images_per_s"] > 0
    assert report["images_per_s"] == pytest.approx(report["images"] / report["seconds"], rel=1e-6)
    assert report["mb_per_s"] == pytest.approx(
        report["images"] * 8 * 6 * 3 / 1e6 / report["seconds"], rel=1e-6)
    # The default cache holds the whole file: each chunk is read once, in the first epoch, and
    # served from the cache in the next two.
    assert report["chunk_reads"] == chunks
    assert report["chunk_reads_per_chunk"] == pytest.approx(report["chunk_reads"] / (3 * chunks))
    assert report["cache_hits"] + report["cache_misses"] > 0
    assert report["cache_hit_rate"] == pytest.approx(
        report["cache_hits"] / (report["cache_hits"] + report["cache_misses"]))
    assert report["bytes_decoded"] >= report["chunk_reads"] * 8 * 6 * 3
    assert report["bytes_read"] > 0
    assert 0 <= report["wait_share"] <= 1
    assert report["peak_rss_mb"] > 1
    assert report["slot_mb"] > 0
    assert 0 < report["shuffle_quality"] <= 1.2
    assert report["interrupted"] is False


def test_one_epoch_reads_every_chunk_at_least_once_with_every_sampler(tiny):
    for sampler in ("sequential", "random", "chunks:2", "quasi:4"):
        report = bench_json(tiny, "--sampler", sampler, "--batch", 50, "--cache-mb", 0)
        assert report["sampler"] == sampler
        assert report["images"] == SAMPLES and report["epochs"] == 1
        assert report["chunk_reads"] >= report["chunks"]


def test_without_a_cache_every_epoch_reads_every_chunk_again(tiny):
    report = bench_json(tiny, "--sampler", "chunks:1", "--cache-mb", 0, "--epochs", 2)
    assert report["images"] == 2 * SAMPLES
    assert report["chunk_reads"] >= 2 * report["chunks"]


def test_random_without_cache_reads_chunks_more_often_than_chunks_sampler(tiny):
    random = bench_json(tiny, "--sampler", "random", "--cache-mb", 0, "--batch", 32)
    chunked = bench_json(tiny, "--sampler", "chunks:1", "--cache-mb", 0, "--batch", 32)
    assert random["chunk_reads"] > chunked["chunk_reads"]
    assert random["shuffle_quality"] > chunked["shuffle_quality"]


def test_normalize_and_no_verify_are_reported(tiny):
    report = bench_json(tiny, "--normalize", "--no-verify", "--slots", 2, "--seed", 7)
    assert report["normalize"] is True and report["verify_checksums"] is False
    assert report["slots"] == 2 and report["seed"] == 7
    assert report["images"] == SAMPLES


def test_text_report_names_the_figures(tiny):
    out = run_h5feed("bench", tiny, "--batch", 64, check=0).stdout
    for words in ("images/s", "MB/s", "chunk reads", "hit rate", "decoded", "waited",
                  "peak RSS", "shuffle quality"):
        assert words in out, out


@pytest.mark.parametrize("args", [
    ["--sampler", "bogus"], ["--sampler", "chunks:0"], ["--batch", "0"], ["--batch", "x"],
    ["--threads", "-1"], ["--cache-mb", "-5"], ["--slots", "0"], ["--epochs", "0"],
    ["--no-such-option"],
])
def test_bad_options_are_usage_errors(tiny, args):
    result = run_h5feed("bench", tiny, *args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" or "--help" in result.stdout + result.stderr


def test_missing_file_argument_is_a_usage_error():
    assert run_h5feed("bench").returncode == 2


def test_missing_file_is_a_clear_error(tmp_path):
    missing = tmp_path / "nope.h5"
    result = run_h5feed("bench", missing, "--json", check=1)
    assert result.stdout == ""
    assert result.stderr.startswith("h5feed bench: error:")
    assert "nope.h5" in result.stderr


def test_not_hdf5_and_too_large_batch_are_clear_errors(tiny, tmp_path):
    junk = tmp_path / "junk.h5"
    junk.write_bytes(b"not an HDF5 file" * 100)
    result = run_h5feed("bench", junk, check=1)
    assert result.stderr.startswith("h5feed bench: error:") and "junk.h5" in result.stderr
    result = run_h5feed("bench", tiny, "--batch", SAMPLES + 1, check=1)
    assert "batch" in result.stderr
    assert "Traceback" not in result.stderr and "terminate" not in result.stderr
