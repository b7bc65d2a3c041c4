"""`h5feed bench sweep` end to end on a tiny generated file: a 2 chunk sizes x 2 compressions x
1 cache x 2 samplers grid with the reference loaders, checked for the documented CSV columns
(docs/bench.md), a report, a valid PNG and the cleanup of its temporary files; Ctrl-C keeping
the finished rows; and its errors (bad grid, missing reference script, disk budget)."""
import csv
import os
import re
import signal
import struct
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import H5FEED, run_h5feed

DOCS = Path(__file__).resolve().parents[2] / "docs" / "bench.md"
SAMPLES = 400
GRID = ["--chunks", "8,32", "--compression", "none,zstd:1", "--cache-mb", "1",
        "--sampler", "random,chunks:4", "--batch", "32", "--threads", "2"]


def documented_columns():
    """The column names of docs/bench.md's results.csv table, in order."""
    text = DOCS.read_text()
    section = text[text.index("### `results.csv` columns"):]
    return re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """400 images 12x10x3 (smooth gradients plus noise, so zstd has something to do), zstd:3."""
    folder = tmp_path_factory.mktemp("sweep")
    rng = np.random.default_rng(5)
    base = np.linspace(0, 200, 12 * 10 * 3).reshape(12, 10, 3)
    images = (base[None] + rng.integers(0, 40, (SAMPLES, 12, 10, 3))).astype(np.uint8)
    np.save(folder / "images.npy", images)
    np.save(folder / "labels.npy", rng.integers(0, 4, SAMPLES).astype(np.int64))
    out = folder / "small.h5"
    run_h5feed("convert", "npy", folder / "images.npy", folder / "labels.npy", out, "--quiet",
               check=0)
    return out


@pytest.fixture(scope="module")
def swept(small, tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep-out") / "results"
    result = run_h5feed("bench", "sweep", small, "--out", out, *GRID, "--max-seconds", 20,
                        "--compare-h5py", check=0)
    return out, result


def read_rows(path):
    with open(path, newline="") as file:
        reader = csv.DictReader(file)
        return reader.fieldnames, list(reader)


def test_csv_has_the_documented_columns_and_one_row_per_run(swept):
    out, _ = swept
    columns, rows = read_rows(out / "results.csv")
    assert columns == documented_columns()
    grid = [r for r in rows if r["kind"] == "grid"]
    assert len(grid) == 2 * 2 * 1 * 2
    combos = {(r["chunk_samples"], r["compression"], r["cache_mb"], r["sampler"]) for r in grid}
    assert combos == {(c, z, "1", s) for c in ("8", "32") for z in ("none", "zstd:1")
                      for s in ("random", "chunks:4")}
    # h5feed's defaults are not in this grid, so they are run once more.
    defaults = [r for r in rows if r["kind"] == "defaults"]
    assert len(defaults) == 1 and defaults[0]["is_default"] == "1"
    assert defaults[0]["compression"] == "zstd:3" and defaults[0]["sampler"] == "chunks:8"
    references = [r for r in rows if r["kind"] == "reference"]
    assert [r["sampler"] for r in references] == ["h5py random", "h5py random_rdcc",
                                                  "h5py chunked"]
    assert len(rows) == 8 + 1 + 3


def test_every_run_has_its_figures_and_its_ceiling(swept):
    out, _ = swept
    _, rows = read_rows(out / "results.csv")
    for r in rows:
        assert r["status"] == "ok", r
        assert float(r["images_per_s"]) > 0 and int(r["images"]) > 0
        ceiling = float(r["ceiling_mb_per_s"])
        assert ceiling > 0 and r["ceiling"] in ("page cache", "zstd x 2")
        assert float(r["fraction_of_ceiling"]) == pytest.approx(
            float(r["mb_per_s"]) / ceiling, rel=1e-3)
        if r["kind"] == "reference":
            assert r["shuffle_quality"] == "" and r["cache_hit_rate"] == ""
            assert r["classes_per_batch"] == "" and r["few_classes"] == "0"
            continue
        # Whole epochs, until the default --min-seconds (0.5) was timed: no time limit was
        # reached, and no run of this small file is too short to compare.
        assert int(r["images"]) % SAMPLES == 0 and float(r["seconds"]) >= 0.5
        assert float(r["random_shuffle_quality"]) == pytest.approx(1, abs=0.1)
        assert 0 <= float(r["wait_share"]) <= 1
        assert (r["zstd_mb_per_s"] == "") == (r["compression"] == "none")
        # The file is stored shuffled: every sampler's batches mix its 4 classes.
        assert 3 < float(r["classes_per_batch"]) <= 4
        assert float(r["random_classes_per_batch"]) > 3
        assert float(r["label_entropy_bits"]) == pytest.approx(
            float(r["random_label_entropy_bits"]), rel=0.1)
        assert r["few_classes"] == "0"
    for r in rows:  # the random sampler measured on itself matches the baseline figure
        if r["sampler"] == "random":
            assert float(r["shuffle_quality"]) == pytest.approx(float(r["random_shuffle_quality"]))


def test_report_tables_every_run_best_first_and_recommends(swept):
    out, result = swept
    report = (out / "report.md").read_text()
    _, rows = read_rows(out / "results.csv")
    table = [line for line in report.splitlines() if re.match(r"^\| \d+ \|", line)]
    assert len(table) == len(rows)
    rates = [int(line.split("|")[6].strip().replace(",", "")) for line in table]
    assert rates == sorted(rates, reverse=True)
    assert sum("**recommended**" in line for line in table) == 1
    assert "## Recommendation" in report and "Recommended: --chunk" in report
    assert "![images/s against chunk size](throughput.png)" in report
    # The printed recommendation is the report's.
    assert result.stdout.startswith("Recommended: --chunk")
    assert result.stdout.splitlines()[0] in report
    # Beside the defaults ("1.20x the speed of" or, where a rule such as fitting the page cache
    # chose a slower run, "0.95x (slower than)"), unless the defaults won (a slow machine or a
    # sanitizer build can make the file's own settings the fastest).
    assert (re.search(r"[0-9.]+x (the speed of|\(slower than\)) the defaults \(", result.stdout)
            or "These are h5feed's defaults." in result.stdout)
    assert "DataLoader + h5py loader" in result.stdout
    # Progress went to stderr, one line per run.
    assert len(re.findall(r"^\[\d+/9, ", result.stderr, flags=re.MULTILINE)) == 9


def test_plot_is_a_valid_png(swept):
    out, _ = swept
    data = (out / "throughput.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", data[16:24])
    assert width >= 600 and height >= 400  # two panels side by side
    assert "compression zstd:1" in (out / "throughput.gp").read_text()


def test_the_variant_stored_like_the_input_is_measured_on_the_input_itself(swept):
    # `small` was converted with h5feed's defaults, which the sweep always runs: that variant
    # is the input file, not a rewritten copy of it; the grid's variants are rechunked.
    _, result = swept
    output = result.stdout + result.stderr
    assert re.search(r"chunk \d+, zstd:3 is how the input is stored: measured as it is", output)
    assert output.count("rechunking to") == 4  # chunks 8, 32 x none, zstd:1


def test_chunks_past_the_image_count_are_one_variant_and_short_runs_are_called_out(small,
                                                                                    tmp_path):
    out = tmp_path / "clamped"
    result = run_h5feed("bench", "sweep", small, "--out", out, "--chunks", "500,1000,8",
                        "--compression", "none", "--cache-mb", "1", "--sampler", "random",
                        "--batch", "32", "--threads", "2", "--min-seconds", "0", check=0)
    _, rows = read_rows(out / "results.csv")
    grid = [r for r in rows if r["kind"] == "grid"]
    assert sorted(int(r["chunk_samples"]) for r in grid) == [8, SAMPLES]
    report = (out / "report.md").read_text()
    assert (f"Chunks of 500, 1000 images hold more than the file's {SAMPLES}: each is one "
            f"chunk of {SAMPLES} images, a variant measured once.") in report
    # One epoch of 400 tiny images is milliseconds: the report says the rates are noise.
    assert re.search(r"\d of \d runs were timed over less than 0.25 s", report)
    assert "--min-seconds 0" in report  # the command that reproduces it
    assert "were timed over less than" in result.stderr


def test_a_cold_sweep_whose_drops_take_no_effect_says_its_runs_were_warm(small, tmp_path):
    # tmpfs keeps every page whatever posix_fadvise asks: the runs read memory. The csv's
    # `cold` column said 0, and nothing else did.
    kind = subprocess.run(["stat", "-f", "-c", "%T", "/dev/shm"], capture_output=True,
                          text=True).stdout.strip()
    if kind != "tmpfs":
        pytest.skip(f"/dev/shm is {kind or 'absent'}, not tmpfs")
    work = Path("/dev/shm") / f"h5feed-sweep-{os.getpid()}"
    out = tmp_path / "out"
    try:
        result = run_h5feed("bench", "sweep", small, "--out", out, "--work-dir", work,
                            "--chunks", "32", "--compression", "none", "--cache-mb", "1",
                            "--sampler", "chunks:4", "--batch", "32", "--min-seconds", "0",
                            "--cold", check=0)
    finally:
        subprocess.run(["rm", "-rf", str(work)])
    _, rows = read_rows(out / "results.csv")
    # The variants in /dev/shm stay cached; the one stored like the input is the input itself,
    # on the disk, and cold.
    warm = sum(row["cold"] == "0" for row in rows)
    assert warm >= 1 and len(rows) == 3
    said = f"--cold asked for cold runs, but {warm} of {len(rows)} started with their file " \
        "still in the page cache"
    assert said in " ".join(result.stderr.split())
    report = " ".join((out / "report.md").read_text().split())
    assert said in report and f"--work-dir {work}" in report


def test_temporary_files_are_removed(swept):
    out, _ = swept
    assert not [p for p in os.listdir(out) if p.startswith(".h5feed-sweep")]


def test_ctrl_c_keeps_the_finished_rows_and_removes_the_temporary_files(small, tmp_path):
    out = tmp_path / "interrupted"
    # A slow simulated trainer makes every run last about a second.
    process = subprocess.Popen(
        [H5FEED, "bench", "sweep", str(small), "--out", str(out), *GRID, "--step-ms", "80"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    csv_path = out / "results.csv"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if csv_path.exists() and len(csv_path.read_text().splitlines()) >= 3:
            break
        time.sleep(0.1)
    # As a terminal does: the signal reaches the sweep and the run it started.
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted; the finished rows are kept" in stderr
    columns, rows = read_rows(csv_path)
    assert columns == documented_columns()
    assert 2 <= len(rows) < 9
    assert all(r["status"] == "ok" for r in rows)
    report = (out / "report.md").read_text()
    assert "Interrupted:" in report
    assert not [p for p in os.listdir(out) if p.startswith(".h5feed-sweep")]


def test_a_sweep_stopped_before_any_run_finished_says_by_what_and_how_far(small, tmp_path):
    # SIGTERM while the first run reads (a slow trainer makes it last seconds): no run
    # finished, so there are no errors above to point at; stderr says what happened instead.
    out = tmp_path / "stopped"
    process = subprocess.Popen(
        [H5FEED, "bench", "sweep", str(small), "--out", str(out), *GRID, "--step-ms", "300"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen = ""
    while "measuring the ceilings" not in seen:
        line = process.stderr.readline()
        assert line, seen
        seen += line
    time.sleep(0.5)  # into the first run
    os.killpg(process.pid, signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert "see the errors above" not in stdout + stderr
    assert "interrupted; the finished rows are kept: SIGTERM (signal 15) came after 0 of " \
        in stderr
    assert f"{out}/results.csv holds their rows" in stderr
    assert "Interrupted:" in (out / "report.md").read_text()


def test_a_file_of_several_image_datasets_is_swept_from_the_one_images_names(tmp_path):
    # h5py-made: two 4-D uint8 datasets, neither named images. Without --images the sweep
    # names them and the way to choose; with it, the variants are rewritten from that one.
    import h5py
    path = tmp_path / "two.h5"
    with h5py.File(path, "w") as f:
        f["train_x"] = np.zeros((64, 8, 8, 3), np.uint8)
        f["test_x"] = np.zeros((20, 6, 6, 3), np.uint8)
    grid = ["--chunks", "16", "--compression", "none", "--cache-mb", "1", "--sampler", "random",
            "--batch", "16", "--threads", "2"]
    result = run_h5feed("bench", "sweep", path, "--out", tmp_path / "no", *grid, check=1)
    assert "(/test_x, /train_x)" in result.stderr and "--images NAME" in result.stderr
    out = tmp_path / "yes"
    result = run_h5feed("bench", "sweep", path, "--out", out, "--images", "train_x", *grid,
                        check=0)
    _, rows = read_rows(out / "results.csv")
    assert rows and all(r["status"] == "ok" for r in rows), result.stderr
    assert all(int(r["images"]) > 0 and int(r["images"]) % 64 == 0 for r in rows)


@pytest.mark.parametrize("args,words", [
    (["--chunks", "8,0"], "--chunks: '0'"),
    (["--compression", "lz4"], "--compression: 'lz4'"),
    (["--sampler", "random,shuffle"], "--sampler: 'shuffle'"),
    (["--augment", "rrc=0"], "rrc=0"),
])
def test_a_bad_grid_is_a_usage_error_before_any_work(small, tmp_path, args, words):
    result = run_h5feed("bench", "sweep", small, "--out", tmp_path / "o", *args, check=2)
    assert words in result.stderr
    assert not (tmp_path / "o").exists()


def test_a_missing_reference_script_fails_at_once_saying_where_it_looked(small, tmp_path):
    result = run_h5feed("bench", "sweep", small, "--out", tmp_path / "o", "--compare-h5py",
                        "--reference-loaders", tmp_path / "nope.py", check=1)
    assert "nope.py" in result.stderr and "reference_loaders.py" in result.stderr
    assert not (tmp_path / "o").exists()


def test_the_disk_budget_is_checked_before_anything_is_written(small, tmp_path):
    result = run_h5feed("bench", "sweep", small, "--out", tmp_path / "o", *GRID,
                        "--disk-budget-mb", 1, check=1)
    assert "--disk-budget-mb" in result.stderr
    assert not [p for p in os.listdir(tmp_path / "o") if p.startswith(".h5feed-sweep")]
    assert not (tmp_path / "o" / "results.csv").exists()


def test_sweep_needs_a_file_and_an_out_folder(small):
    assert run_h5feed("bench", "sweep", small).returncode == 2
    assert run_h5feed("bench", "sweep", "--out", "x").returncode == 2


@pytest.mark.parametrize("before", [["--batch", "7"], ["--cache-mb", "64"], ["--cold"]])
def test_a_bench_option_before_sweep_is_refused_not_dropped(small, tmp_path, before):
    result = run_h5feed("bench", *before, "sweep", small, "--out", tmp_path / "o", *GRID,
                        check=2)
    option = before[0]
    assert f"{option} must follow sweep: h5feed bench sweep FILE --out DIR {option} ..." in (
        result.stderr)
    assert not (tmp_path / "o").exists()


def test_an_out_that_is_a_file_is_a_usage_error_even_with_force(small, tmp_path):
    out = tmp_path / "results.txt"
    out.write_text("not a folder\n")
    for force in ([], ["--force"]):
        result = run_h5feed("bench", "sweep", small, "--out", out, *force, check=2)
        assert f"--out {out} is a file, not a folder" in result.stderr
        assert out.read_text() == "not a folder\n"


def test_an_out_folder_that_holds_files_is_refused_unless_force(small, tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "results.csv").write_text("another sweep's results\n")
    args = ["bench", "sweep", small, "--out", out, "--chunks", "8", "--compression", "none",
            "--cache-mb", "1", "--sampler", "chunks:4", "--batch", "32", "--threads", "2",
            "--max-seconds", "2"]
    result = run_h5feed(*args, check=2)
    assert f"--out {out} holds files already" in result.stderr and "--force" in result.stderr
    assert (out / "results.csv").read_text() == "another sweep's results\n"
    assert sorted(p.name for p in out.iterdir()) == ["results.csv"]
    run_h5feed(*args, "--force", check=0)
    columns, rows = read_rows(out / "results.csv")
    assert columns == documented_columns() and rows
    assert "--force" in (out / "report.md").read_text()  # the command line as it was typed


def test_every_run_of_a_sweep_with_augment_augments_and_the_report_says_so(small, tmp_path):
    out = tmp_path / "augmented"
    run_h5feed("bench", "sweep", small, "--out", out, "--chunks", "32", "--compression", "none",
               "--cache-mb", "1", "--sampler", "chunks:4", "--batch", "32", "--threads", "2",
               "--max-seconds", "5", "--augment", "rrc=8,flip", check=0)
    _, rows = read_rows(out / "results.csv")
    assert rows and all(row["status"] in ("ok", "time limit") for row in rows)
    report = (out / "report.md").read_text()
    assert "Every run augments (--augment rrc=8,flip, float32 8x8)" in report


# Files of images at their own size (format version 2): the variants are encodings x chunk bytes.
OWN_SIZE_GRID = ["--encodings", "raw,jpeg:90", "--cache-mb", "64", "--sampler", "chunks:4",
                 "--max-seconds", "1", "--augment", "rrc=32", "--batch", "8", "--threads", "2"]


@pytest.fixture(scope="module")
def own_size(tmp_path_factory):
    """40 photo-like PNGs of five aspect ratios in four classes, converted without --size into
    64 KiB chunks (so a JPEG file is not mostly one chunk's zero tail), raw, zstd:3."""
    from PIL import Image
    folder = tmp_path_factory.mktemp("own-size")
    rng = np.random.default_rng(3)
    sizes = [(60, 80), (80, 60), (45, 80), (64, 64), (50, 75)]
    for i in range(40):
        h, w = sizes[i % 5]
        y, x = np.mgrid[0:h, 0:w]
        smooth = np.stack([(x * 3 + i * 5) % 256, (y * 2 + x) % 256,
                           128 + 40 * np.sin(x / 7.0 + y / 9.0)], -1)
        image = np.clip(smooth + rng.normal(0, 6, (h, w, 3)), 0, 255).astype(np.uint8)
        (folder / "images" / f"c{i % 4}").mkdir(parents=True, exist_ok=True)
        Image.fromarray(image).save(folder / "images" / f"c{i % 4}" / f"{i}.png")
    out = folder / "own.h5"
    run_h5feed("convert", "imagefolder", folder / "images", out, "--chunk-bytes", "64K",
               "--quiet", check=0)
    return out


@pytest.fixture(scope="module")
def own_size_swept(own_size, tmp_path_factory):
    out = tmp_path_factory.mktemp("own-size-out") / "results"
    result = run_h5feed("bench", "sweep", own_size, "--out", out, *OWN_SIZE_GRID,
                        "--compare-h5py", check=0)
    return out, result


def test_an_own_size_file_is_swept_over_encodings_with_their_file_sizes(own_size, own_size_swept):
    out, result = own_size_swept
    columns, rows = read_rows(out / "results.csv")
    assert columns == documented_columns()
    grid = [r for r in rows if r["kind"] == "grid"]
    assert {(r["encoding"], r["compression"], r["sampler"]) for r in grid} == {
        (e, z, s) for e, z in (("raw", "zstd:3"), ("jpeg:90", "none"))
        for s in ("chunks:4", "random")}
    assert all(r["chunk_bytes"] == str(64 << 10) for r in grid)
    assert all(r["status"] in ("ok", "time limit") and float(r["images_per_s"]) > 0 for r in rows)
    size = {r["encoding"]: float(r["file_mib"]) for r in grid}
    # The raw variant is how the input is stored: measured on the input itself.
    assert size["raw"] == pytest.approx(own_size.stat().st_size / 2**20, rel=1e-3)
    assert 0 < size["jpeg:90"] < size["raw"]
    assert all(r["fits_page_cache"] == "yes" for r in rows)
    # No reference loader for a file of images at their own size, and a note says why.
    assert not [r for r in rows if r["kind"] == "reference"]
    report = (out / "report.md").read_text()
    assert "No reference loaders (--compare-h5py)" in report
    assert "| encoding | file MiB | fits page cache |" in report
    assert "| 64.0 KiB |" in report
    assert "second generation" in report
    assert "the input's" in result.stdout and "fits the page cache" in result.stdout
    assert not [p for p in out.iterdir() if p.name.startswith(".h5feed-sweep-")]


def test_files_of_one_size_have_raw_rows_that_fit_the_page_cache(swept):
    out, _ = swept
    _, rows = read_rows(out / "results.csv")
    assert {r["encoding"] for r in rows} == {"raw"}
    assert all(r["chunk_bytes"] == "0" for r in rows)
    assert all(r["fits_page_cache"] == "yes" and float(r["file_mib"]) > 0 for r in rows)


def test_an_own_size_file_needs_augment_to_be_swept(own_size, tmp_path):
    grid = [a for a in OWN_SIZE_GRID if a not in ("--augment", "rrc=32")]
    result = run_h5feed("bench", "sweep", own_size, "--out", tmp_path / "o", *grid, check=2)
    assert "--augment" in result.stderr and "rrc=224,flip" in result.stderr
    assert not (tmp_path / "o").exists()


def test_an_own_size_file_of_one_image_size_is_swept_without_augment(tmp_path):
    # Read as it is, as `h5feed bench FILE` reads it: 30 images of 24 x 20 converted as JPEG are
    # images at their own size (format version 2) that all have one.
    from PIL import Image
    rng = np.random.default_rng(4)
    y, x = np.mgrid[0:24, 0:20]
    for i in range(30):
        (tmp_path / "images" / f"c{i % 3}").mkdir(parents=True, exist_ok=True)
        image = np.stack([x * 10 + i, y * 9, (x + y) * 5], -1) + rng.integers(0, 8, (24, 20, 3))
        Image.fromarray(image.astype(np.uint8)).save(tmp_path / "images" / f"c{i % 3}" / f"{i}.png")
    one = tmp_path / "one.h5"
    run_h5feed("convert", "imagefolder", tmp_path / "images", one, "--encoding", "jpeg:90",
               "--chunk-bytes", "16K", "--quiet", check=0)
    summary = run_h5feed("inspect", one, "--json", check=0).stdout
    assert '"format_version": 2' in summary and '"layout": "flat"' in summary
    run_h5feed("bench", one, "--batch", "8", "--max-seconds", "1", check=0)
    out = tmp_path / "o"
    grid = [a for a in OWN_SIZE_GRID if a not in ("--augment", "rrc=32")]
    run_h5feed("bench", "sweep", one, "--out", out, *grid, check=0)
    _, rows = read_rows(out / "results.csv")
    assert {r["encoding"] for r in rows if r["kind"] == "grid"} == {"raw", "jpeg:90"}
    assert all(r["status"] in ("ok", "time limit") and float(r["images_per_s"]) > 0
               for r in rows), rows
    assert "Every run augments" not in (out / "report.md").read_text()


@pytest.mark.parametrize("args", [["--chunks", "16"], ["--compression", "none"]])
def test_an_own_size_file_is_swept_over_encodings_not_images_per_chunk(own_size, tmp_path, args):
    result = run_h5feed("bench", "sweep", own_size, "--out", tmp_path / "o", "--augment",
                        "rrc=32", *args, check=2)
    assert "--encodings" in result.stderr


def test_encodings_are_refused_for_a_file_of_one_size(small, tmp_path):
    result = run_h5feed("bench", "sweep", small, "--out", tmp_path / "o", "--encodings", "raw",
                        check=2)
    assert "--encodings" in result.stderr
    result = run_h5feed("bench", "sweep", small, "--out", tmp_path / "o", "--encodings", "png",
                        check=2)
    assert "png" in result.stderr
