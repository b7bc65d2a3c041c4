"""`h5feed bench` end to end: its JSON keys and their consistency on a tiny file, the text
report, its errors (usage errors exit 2, a missing or broken file exits 1), the simulated
trainer (--step-ms), the ceilings, cold runs, the shuffle-quality and label-mixing figures,
fields delivered with the images (--fields) (docs/bench.md). The sweep is test_bench_sweep.py."""
import json
import os
import signal
import subprocess
import time

import h5py
import numpy as np
import pytest

from conftest import H5FEED, run_h5feed

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
    # served from the cache in the next two; nothing is left to read ahead for a fourth.
    assert report["chunk_reads"] == chunks
    assert report["chunk_reads_next_epoch"] == 0
    assert report["chunk_reads_per_chunk"] == pytest.approx(
        (report["chunk_reads"] - report["chunk_reads_next_epoch"]) / (3 * chunks))
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
    for words in ("images/s", "MB/s", "chunk reads", "hit rate", "decoded", "set the pace",
                  "peak RSS", "shuffle quality"):
        assert words in out, out


@pytest.mark.parametrize("args", [
    ["--sampler", "bogus"], ["--sampler", "chunks:0"], ["--batch", "0"], ["--batch", "x"],
    ["--threads", "-1"], ["--cache-mb", "-5"], ["--slots", "0"], ["--epochs", "0"],
    ["--no-such-option"], ["--augment", "rrc=0"], ["--augment", "flop"],
    ["--augment", "scale=0.1"],
])
def test_bad_options_are_usage_errors(tiny, args):
    result = run_h5feed("bench", tiny, *args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" or "--help" in result.stdout + result.stderr


def test_missing_file_argument_is_a_usage_error():
    assert run_h5feed("bench").returncode == 2


def test_missing_file_is_a_clear_error(tmp_path):
    missing = tmp_path / "nope.h5"
    result = run_h5feed("bench", missing, "--json", check=2)  # a wrong command line
    assert result.stdout == ""
    assert result.stderr.startswith("h5feed bench: error:")
    assert "nope.h5" in result.stderr


def test_not_hdf5_and_too_large_a_batch_for_memory_are_clear_errors(tiny, tmp_path):
    junk = tmp_path / "junk.h5"
    junk.write_bytes(b"not an HDF5 file" * 100)
    result = run_h5feed("bench", junk, check=1)
    assert result.stderr.startswith("h5feed bench: error:") and "junk.h5" in result.stderr
    # A batch larger than the file is one short batch, its slots sized for the file's rows
    # (test_first_use.py); slots of batches larger than memory are refused, naming the flags.
    report = bench_json(tiny, "--batch", 10**12, "--no-ceilings")
    assert report["images"] == SAMPLES
    assert report["slot_mb"] * 2**20 < 4 * 2 * SAMPLES * 8 * 6 * 3
    result = run_h5feed("bench", tiny, "--batch", SAMPLES, "--slots", 1024, "--augment",
                        "rrc=2048", check=1)
    assert "--slots" in result.stderr and "--batch" in result.stderr
    assert "Traceback" not in result.stderr and "terminate" not in result.stderr


# --- Issue 5: the simulated trainer, ceilings, cold cache, shuffle quality beside random's ---


def test_a_slow_trainer_sets_the_pace_and_rarely_waits(tiny):
    step_ms, batch = 20, 50
    report = bench_json(tiny, "--step-ms", step_ms, "--batch", batch, "--no-ceilings")
    batches = SAMPLES // batch
    assert report["step_ms"] == step_ms
    assert report["consumer_seconds"] >= batches * step_ms / 1000 * 0.99
    # The trainer, not the reader, is the limit: at most one batch per step.
    assert report["images_per_s"] <= batch / (step_ms / 1000) * 1.02
    assert report["wait_share"] < 0.5
    assert "page_cache_mb_per_s" not in report  # --no-ceilings


def test_max_seconds_stops_a_run_and_says_so(tiny):
    report = bench_json(tiny, "--step-ms", 50, "--batch", 10, "--max-seconds", 0.1,
                        "--no-ceilings")
    assert report["complete"] is False and report["interrupted"] is False
    assert 0 < report["images"] < SAMPLES
    assert report["epochs"] == 0


def test_a_short_run_is_flagged_and_min_seconds_repeats_whole_epochs(tiny):
    # One epoch of 300 tiny images takes milliseconds: flagged, in JSON and in the text.
    short = bench_json(tiny, "--no-ceilings")
    assert short["epochs"] == 1 and short["seconds"] < 0.25 and short["short_run"] is True
    text = run_h5feed("bench", tiny, "--no-ceilings", check=0).stdout
    assert "too short for a steady rate" in text and "--min-seconds 1" in text
    # --min-seconds reads whole epochs until it has timed that long.
    steady = bench_json(tiny, "--no-ceilings", "--min-seconds", 0.3, "--epochs", 2)
    assert steady["seconds"] >= 0.3 and steady["short_run"] is False
    assert steady["epochs"] > 2 and steady["images"] == steady["epochs"] * SAMPLES
    assert steady["min_seconds"] == 0.3 and steady["complete"] is True
    assert "too short" not in run_h5feed("bench", tiny, "--no-ceilings", "--min-seconds", 0.3,
                                         check=0).stdout
    # --max-seconds still stops it.
    capped = bench_json(tiny, "--no-ceilings", "--min-seconds", 30, "--max-seconds", 0.3)
    assert capped["complete"] is False and capped["seconds"] < 5


def test_min_seconds_with_a_cold_first_epoch_only_is_a_usage_error(tiny):
    result = run_h5feed("bench", tiny, "--cold", "--min-seconds", 1)
    assert result.returncode == 2 and "--cold-each-epoch" in result.stderr
    cold = bench_json(tiny, "--cold-each-epoch", "--min-seconds", 0.2, "--no-ceilings")
    assert cold["seconds"] >= 0.2 and cold["cold_drops"] == cold["epochs"] - 1


def test_ceilings_are_measured_on_the_file_and_the_fraction_follows(tiny):
    report = bench_json(tiny, "--threads", 2)
    for key in ("page_cache_mb_per_s", "zstd_mb_per_s", "memcpy_mb_per_s", "ceiling_mb_per_s"):
        assert report[key] > 0, key
    assert report["compression_ratio"] > 0
    pixel_read_rate = report["page_cache_mb_per_s"] * report["compression_ratio"]
    assert report["ceiling_mb_per_s"] == pytest.approx(
        min(pixel_read_rate, 2 * report["zstd_mb_per_s"]))
    assert report["ceiling"] in ("page cache", "zstd x 2")
    assert report["fraction_of_ceiling"] == pytest.approx(
        report["mb_per_s"] / report["ceiling_mb_per_s"])
    assert report["fraction_of_memcpy"] == pytest.approx(
        report["mb_per_s"] / report["memcpy_mb_per_s"])


def test_an_uncompressed_file_has_no_zstd_ceiling(tmp_path):
    images = np.zeros((64, 8, 8, 3), dtype=np.uint8)
    np.save(tmp_path / "i.npy", images)
    out = tmp_path / "raw.h5"
    run_h5feed("convert", "npy", tmp_path / "i.npy", out, "--compression", "none", "--quiet", check=0)
    report = bench_json(out, "--batch", 16)
    assert report["zstd_mb_per_s"] == 0 and report["ceiling"] == "page cache"
    assert report["ceiling_mb_per_s"] == pytest.approx(
        report["page_cache_mb_per_s"] * report["compression_ratio"])


def test_cold_runs_report_whether_the_eviction_took_effect(tiny):
    report = bench_json(tiny, "--cold", "--no-ceilings")
    assert report["cold"] is True
    assert 0 <= report["resident_after_cold"] <= 1
    assert report["cold_took_effect"] == (report["resident_after_cold"] <= 0.05)
    text = run_h5feed("bench", tiny, "--cold", "--no-ceilings", check=0).stdout
    assert "after posix_fadvise(DONTNEED)" in text
    assert ("did not take effect" in text) == (not report["cold_took_effect"])
    assert bench_json(tiny, "--no-ceilings")["cold"] is False


@pytest.mark.parametrize("direct", [False, True])
def test_cold_runs_are_judged_against_the_disks_rate_for_the_file(tiny, direct):
    flags = ["--epochs", 3, "--cold-each-epoch", *(["--direct"] if direct else [])]
    report = bench_json(tiny, *flags)
    assert report["cold"] is True and report["cold_each_epoch"] is True
    assert report["direct"] is direct
    assert report["cold_drops"] == 2  # before epochs 1 and 2; epoch 0's is --cold's
    assert 0 <= report["most_resident_after_drop"] <= 1
    assert report["disk_readers"] == 4
    assert report["disk_mb_per_s"] > 0
    assert report["fraction_of_disk"] == pytest.approx(
        report["read_mb_per_s"] / report["disk_mb_per_s"], rel=1e-6)
    text = run_h5feed("bench", tiny, *flags, check=0).stdout
    assert "dropped again before each of the 2 later epochs" in text
    assert "with 4 readers at once" in text and "of stored bytes:" in text
    assert (", O_DIRECT" in text) == direct
    # Warm runs have no disk figure; a remote file cannot be read with O_DIRECT.
    assert "disk_mb_per_s" not in bench_json(tiny)
    refused = run_h5feed("bench", "http://127.0.0.1:9/x.h5", "--direct", check=2)
    assert "--direct" in refused.stderr


@pytest.fixture(scope="module")
def ordered(tmp_path_factory):
    """2,048 rows in chunks of 16, enough rows for the shuffle-quality figure to separate
    samplers."""
    folder = tmp_path_factory.mktemp("quality")
    np.save(folder / "images.npy", np.zeros((2048, 4, 4, 1), dtype=np.uint8))
    out = folder / "ordered.h5"
    run_h5feed("convert", "npy", folder / "images.npy", out, "--chunk", 16,
               "--compression", "none", "--quiet", check=0)
    return out


def test_shuffle_quality_orders_sequential_below_chunks_below_random(ordered):
    figures = {s: bench_json(ordered, "--sampler", s, "--batch", 64, "--no-ceilings")
               for s in ("sequential", "chunks:4", "random")}
    quality = {s: f["shuffle_quality"] for s, f in figures.items()}
    assert quality["sequential"] < quality["chunks:4"] < quality["random"], quality
    assert quality["sequential"] == pytest.approx(0, abs=0.01)
    assert quality["random"] == pytest.approx(1, abs=0.05)
    per_batch = {s: f["chunks_per_batch"] for s, f in figures.items()}
    # 64 rows in file order are 4 whole chunks of 16; chunks:4's windows are 4 chunks = 64 rows,
    # so each batch is one window; random's 64 rows come from ~50 of the 128 chunks.
    assert per_batch["sequential"] == 4 and per_batch["chunks:4"] == 4, per_batch
    assert per_batch["random"] > 40, per_batch
    # Every run reports the random sampler's figures for the same file and seed: equal to what
    # the random run itself measured.
    for f in figures.values():
        assert f["random_shuffle_quality"] == pytest.approx(quality["random"])
        assert f["random_chunks_per_batch"] == pytest.approx(per_batch["random"])


@pytest.fixture(scope="module")
def labelled(tmp_path_factory):
    """Foreign files as h5py writes them: 2,000 4x4x3 images in chunks of 20, 20 classes of
    100, stored class after class (sorted.h5) or shuffled (shuffled.h5)."""
    folder = tmp_path_factory.mktemp("labels")
    rng = np.random.default_rng(4)
    images = rng.integers(0, 256, (2000, 4, 4, 3), dtype=np.uint8)
    labels = np.repeat(np.arange(20, dtype=np.int64), 100)
    for name, stored in (("sorted.h5", labels), ("shuffled.h5", rng.permutation(labels))):
        with h5py.File(folder / name, "w") as f:
            f.create_dataset("images", data=images, chunks=(20, 4, 4, 3))
            f.create_dataset("labels", data=stored)
    return folder / "sorted.h5", folder / "shuffled.h5"


LABEL_KEYS = ("classes_per_batch", "random_classes_per_batch", "label_entropy_bits",
              "random_label_entropy_bits", "label_entropy_ratio", "few_classes_per_batch")


def test_label_mixing_is_reported_beside_the_random_samplers(labelled):
    sorted_file, shuffled_file = labelled
    args = ("--batch", 32, "--no-ceilings", "--cache-mb", 1)
    sorted_run = bench_json(sorted_file, *args)
    assert set(LABEL_KEYS) <= sorted_run.keys()
    # chunks:8 windows of 160 rows from 8 chunks hold at most 8 of the 20 classes; a random
    # batch of 32 holds about 16.
    assert sorted_run["classes_per_batch"] < 8 < sorted_run["random_classes_per_batch"]
    assert sorted_run["label_entropy_ratio"] == pytest.approx(
        sorted_run["label_entropy_bits"] / sorted_run["random_label_entropy_bits"])
    assert sorted_run["label_entropy_ratio"] < 0.85
    assert sorted_run["few_classes_per_batch"] is True
    for path, sampler in ((shuffled_file, "chunks:8"), (sorted_file, "random")):
        mixed = bench_json(path, *args, "--sampler", sampler)
        assert mixed["label_entropy_ratio"] == pytest.approx(1, abs=0.05), (path, sampler)
        assert mixed["few_classes_per_batch"] is False
        assert mixed["random_classes_per_batch"] == pytest.approx(
            sorted_run["random_classes_per_batch"], rel=0.05)


def test_a_class_sorted_file_is_called_out_in_the_text_and_warned_about(labelled):
    sorted_file, shuffled_file = labelled
    result = run_h5feed("bench", sorted_file, "--batch", 32, "--no-ceilings", "--cache-mb", 1,
                        check=0)
    assert "classes per batch, label entropy" in result.stdout
    assert "below the bar of 0.85: batches mix few classes" in result.stdout
    assert "mix few classes" in result.stderr and "h5feed rechunk" in result.stderr
    quiet = run_h5feed("bench", shuffled_file, "--batch", 32, "--no-ceilings", "--cache-mb", 1,
                       check=0)
    assert "classes per batch" in quiet.stdout and "below the bar" not in quiet.stdout
    assert "mix few classes" not in quiet.stderr


def test_a_file_without_labels_has_no_label_figures(ordered):
    report = bench_json(ordered, "--batch", 64, "--no-ceilings")
    assert not set(LABEL_KEYS) & report.keys()


def test_text_report_shows_the_trainer_the_ceilings_and_the_random_baseline(tiny):
    out = run_h5feed("bench", tiny, "--step-ms", 1, check=0).stdout
    for words in ("simulated trainer: 1.0 ms per batch", "the random sampler:", "ceilings:",
                  "of the ceiling", "of memcpy", "distinct chunks per batch"):
        assert words in out, out


@pytest.mark.parametrize("args", [["--step-ms", "-1"], ["--max-seconds", "-2"],
                                  ["--step-ms", "x"], ["--min-seconds", "-1"]])
def test_bad_trainer_and_time_options_are_usage_errors(tiny, args):
    assert run_h5feed("bench", tiny, *args).returncode == 2


def test_a_file_of_several_image_datasets_is_benchmarked_on_the_one_images_names(tmp_path):
    # h5py-made: two 4-D uint8 datasets, neither named images. Without --images bench names
    # them and the way to choose; with it the run, its ceilings and the augmentation's cost
    # read that one, as the Loader's images= does.
    path = tmp_path / "two.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("train_x", data=np.zeros((48, 8, 8, 3), np.uint8), chunks=(16, 8, 8, 3))
        f["test_x"] = np.zeros((20, 6, 6, 3), np.uint8)
    result = run_h5feed("bench", path, "--json", check=1)
    assert "(/test_x, /train_x)" in result.stderr and "--images NAME" in result.stderr
    report = bench_json(path, "--images", "train_x", "--batch", 16, "--augment", "center=4x4")
    assert report["images"] == 48 and report["image_shape"] == [8, 8, 3]
    assert report["page_cache_mb_per_s"] > 0 and report["compression_ratio"] == 1
    assert report["augment_images_per_s"] > 0
    result = run_h5feed("bench", path, "--images", "nope", check=1)
    assert "nope" in result.stderr


def test_an_augmentation_is_applied_and_its_cost_reported(tiny):
    report = bench_json(tiny, "--batch", 32, "--threads", 2, "--augment", "rrc=5x4,flip")
    assert report["augment"] == "rrc=5x4,flip" and report["normalize"]
    assert report["augment_output_shape"] == [3, 5, 4]
    assert report["augment_images_per_s"] > 0
    assert report["fraction_of_augment"] == pytest.approx(
        report["images_per_s"] / report["augment_images_per_s"], rel=1e-6)
    text = run_h5feed("bench", tiny, "--augment", "resize=6,center=5x5", "--batch", 32,
                      check=0).stdout
    assert "augment resize=6,center=5x5" in text
    assert "augmentation resize=6,center=5x5 alone (to 5x5x3 float32)" in text


# --- Issue 42: a file of JPEGs is judged against its decode ceiling, not the page cache ---


def test_a_jpeg_file_reports_its_fraction_of_the_decode_ceiling(tmp_path):
    from PIL import Image
    folder = tmp_path / "photos" / "class0"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(42)
    for i in range(24):
        y, x = np.mgrid[0:64, 0:96]
        picture = np.stack([(x * 2 + y + 40 * c) % 256 for c in range(3)], axis=-1)
        picture = np.clip(picture + rng.integers(0, 30, picture.shape), 0, 255)
        Image.fromarray(picture.astype(np.uint8)).save(folder / f"{i}.png")
    out = tmp_path / "photos.h5"
    run_h5feed("convert", "imagefolder", tmp_path / "photos", out, "--encoding", "jpeg:90",
               "--quiet", check=0)
    report = bench_json(out, "--augment", "rrc=32", "--threads", 2)
    assert report["ceiling"] == "jpeg decode x 2"
    assert report["jpeg_share"] == 1.0 and report["jpeg_decode_images_per_s"] > 0
    assert report["ceiling_images_per_s"] == pytest.approx(2 * report["jpeg_decode_images_per_s"])
    assert report["fraction_of_ceiling"] == pytest.approx(
        report["images_per_s"] / report["ceiling_images_per_s"])
    # Not the page cache's rate times pixels per stored byte, which called it "0.00".
    assert report["fraction_of_ceiling"] > 0.01
    text = run_h5feed("bench", out, "--augment", "rrc=32", "--threads", 2, check=0).stdout
    assert "of the JPEG decode ceiling" in text and "TurboJPEG" in text


# --- Issue 38: fields delivered with the images ---


def test_fields_are_delivered_and_reported_and_a_missing_one_named(tmp_path):
    path = tmp_path / "fields.h5"
    subprocess.run([os.environ["WRITE_FIELD_TEST_FILE"], str(path), "--images", "157",
                    "--chunk", "16"], check=True)
    report = bench_json(path, "--fields", "a_uint8,caption", "--epochs", 2, "--no-ceilings")
    assert report["fields"] == ["a_uint8", "caption"]
    assert report["images"] == 2 * 157
    assert bench_json(path, "--no-ceilings")["fields"] == []
    text = run_h5feed("bench", path, "--fields", "blob,a_float16", "--no-ceilings",
                      check=0).stdout
    assert "fields blob,a_float16" in text
    result = run_h5feed("bench", path, "--fields", "attrs", check=1)
    assert "--fields" in result.stderr and "attrs" in result.stderr
    assert "a_uint8 (uint8[40])" in result.stderr


def test_a_signal_stops_bench_with_128_plus_it_also_while_the_ceilings_are_measured(tmp_path):
    # The run is cut at 0.05 s; the ceilings measured after it take much of the time, so
    # signals spread over a run's length land in the open, the run and the ceilings. Wherever
    # one lands, bench says it was interrupted and exits 128 + the signal: a script (bench
    # sweep) must never take it for a finished run. (It exited 0 when the signal came while the
    # ceilings were measured.)
    rng = np.random.default_rng(5)
    np.save(tmp_path / "images.npy", rng.integers(0, 256, (2000, 64, 64, 3), dtype=np.uint8))
    path = tmp_path / "big.h5"
    run_h5feed("convert", "npy", tmp_path / "images.npy", path, "--chunk", 16,
               "--compression", "none", "--quiet", check=0)
    command = [H5FEED, "bench", str(path), "--json", "--max-seconds", "0.05"]
    started = time.monotonic()
    run_h5feed(*command[1:], check=0)
    whole = time.monotonic() - started
    signalled = 0
    for k in range(1, 12):
        sig = signal.SIGINT if k % 2 else signal.SIGTERM
        bench = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        time.sleep(whole * k / 12)
        if bench.poll() is not None:
            bench.communicate()
            continue  # it had finished before the signal was due
        bench.send_signal(sig)
        signalled += 1
        stdout, stderr = bench.communicate(timeout=120)
        if bench.returncode == -sig:
            continue  # it came after bench's work, as the process ended
        assert bench.returncode == 128 + sig, (k, sig, stderr)
        assert "h5feed bench: interrupted" in stderr
        json.loads(stdout)  # what was read, as one JSON object
    assert signalled > 0
