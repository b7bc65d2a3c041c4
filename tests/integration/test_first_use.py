"""What a new user meets first on the command line (issue 27): a file smaller than one batch,
a sweep whose every run fails, a folder with a few broken images, and the errors of a wrong
command line, each printed as `h5feed COMMAND: error: MESSAGE` and agreeing with --help."""
import json
import os
import re
import stat

import h5py
import numpy as np
import pytest
from PIL import Image

from conftest import run_h5feed

ROWS = 200  # fewer than the default batch of 256


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A 200-image 8x6x3 h5feed file, fewer rows than one default batch."""
    folder = tmp_path_factory.mktemp("first_use")
    rng = np.random.default_rng(5)
    np.save(folder / "images.npy", rng.integers(0, 256, (ROWS, 8, 6, 3), dtype=np.uint8))
    out = folder / "small.h5"
    run_h5feed("convert", "npy", folder / "images.npy", out, "--chunk", 16, "--quiet", check=0)
    return out


def test_bench_reads_a_file_smaller_than_one_batch_as_one_short_batch(small):
    result = run_h5feed("bench", small, "--json", "--epochs", 2, "--no-ceilings", check=0)
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["batch"] == 256
    assert report["images"] == 2 * ROWS
    assert report["batches"] == 2  # one short batch per epoch
    assert report["images_per_s"] == pytest.approx(report["images"] / report["seconds"],
                                                   rel=1e-6)


def test_a_sweep_of_a_file_smaller_than_one_batch_succeeds(small, tmp_path):
    result = run_h5feed("bench", "sweep", small, "--out", tmp_path / "sweep", "--chunks", 16,
                        "--compression", "none", "--cache-mb", 64, "--sampler", "chunks:4",
                        "--max-seconds", 5, check=0)
    assert "Recommended:" in result.stdout


def test_a_sweep_whose_every_run_fails_exits_1_saying_why(small, tmp_path):
    # Every run needs more memory than any machine has (1024 slots of large crops): each fails
    # at Open.
    result = run_h5feed("bench", "sweep", small, "--out", tmp_path / "sweep", "--chunks", 16,
                        "--compression", "none", "--cache-mb", 64, "--sampler", "chunks:4",
                        "--slots", 1024, "--augment", "rrc=2048", "--max-seconds", 5)
    assert result.returncode == 1, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("h5feed bench sweep: error: all ")
    assert "runs failed" in last and "--batch" in last  # the runs' own reason, in CLI names
    assert "No run succeeded" in result.stdout


def test_a_broken_image_is_not_counted_in_the_chunk_it_never_joined(tmp_path):
    root = tmp_path / "folder"
    for i in range(ROWS):
        (root / f"class{i % 2}").mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (8, 8), (i, i, i)).save(root / f"class{i % 2}" / f"{i}.png")
    for i in range(3):
        (root / "class0" / f"broken{i}.jpg").write_bytes(b"\xff\xd8\xff\xe0 not a jpeg")
    result = run_h5feed("convert", "imagefolder", root, tmp_path / "out.h5", "--size", "8x8",
                        check=3)
    assert f"converted {ROWS} of {ROWS + 3} images" in result.stdout
    assert f"1 chunk of {ROWS} images" in result.stdout
    # The file holds what the report says: its chunk shape counts the images stored.
    with h5py.File(tmp_path / "out.h5") as f:
        assert f["images"].chunks == (ROWS, 8, 8, 3)


def test_a_number_out_of_range_says_the_range_in_words(small):
    result = run_h5feed("bench", small, "--batch", 0, check=2)
    line = result.stderr.strip()
    assert line.startswith("h5feed bench: error: --batch: must be at least 1, not 0")
    assert len(line) < 200  # no limits of a double spelled out


def test_a_number_beyond_what_h5feed_counts_is_a_usage_error_not_clamped(small):
    result = run_h5feed("bench", small, "--batch", "99999999999999999999999", check=2)
    assert result.stderr.startswith("h5feed bench: error: --batch: must be at most "
                                    "9223372036854775807, not 99999999999999999999999")
    report = json.loads(run_h5feed("bench", small, "--batch", 2**63 - 1, "--json",
                                   "--no-ceilings", check=0).stdout.strip().splitlines()[-1])
    assert report["images"] == ROWS  # the whole file, one batch


def test_a_bad_augment_item_is_named_once_with_the_valid_items(small):
    result = run_h5feed("bench", small, "--augment", "rrc=224,flop", check=2)
    line = result.stderr.strip()
    assert line.startswith("h5feed bench: error: --augment: 'flop' is not an augmentation item")
    assert line.count("--augment:") == 1
    assert "flip" in line and "rrc=H[xW]" in line


@pytest.mark.parametrize("command, args", [
    ("bench", ("bench", "--batch", "x")),
    ("convert imagefolder", ("convert", "imagefolder", "/nonexistent", "out.h5")),
    ("convert npy", ("convert", "npy", "a.npy", "b.h5", "--resize", "crop")),
    ("convert imagefolder", ("convert", "imagefolder", ".", "out.h5", "--resize", "squash")),
    ("convert imagefolder", ("convert", "imagefolder", ".", "out.h5", "--smart-threshold", "9")),
    ("bench sweep", ("bench", "sweep", "--out", "x")),
])
def test_every_command_line_error_has_the_one_prefix(command, args, tmp_path):
    result = run_h5feed(*args, check=2, cwd=tmp_path)
    assert result.stderr.startswith(f"h5feed {command}: error: "), result.stderr


@pytest.mark.parametrize("args, words", [
    (["convert", "npy", "{images}", "{out}", "--field", "a={images}", "--field", "a={images}"],
     "--field a is given twice"),
    (["convert", "npy", "{images}", "{out}", "--field", "a/b={images}"],
     "--field: field name \"a/b\" holds '/'"),
    (["rechunk", "{small}", "{out}", "--field", "x", "--field", "x"], "--field x is given twice"),
    (["rechunk", "{small}", "{out}", "--chunk-bytes", "5G"],
     "--chunk-bytes 5G is 4 GiB or more, and HDF5 cannot store chunks that large"),
    (["bench", "{small}", "--rank", "1"], "--rank is 1; it must be in [0, --world-size = 1)"),
    (["bench", "{small}", "--augment", "rrc=4,scale=0.9:0.1"],
     "--augment: 'scale=0.9:0.1' needs 0 < MIN <= MAX"),
    (["bench", "sweep", "{small}", "--out", "{out}", "--augment", "rrc=4,ratio=2:1"],
     "--augment: 'ratio=2:1' needs 0 < MIN <= MAX"),
    # CLI11 read -1 into the uint64_t seed as 2^64 - 1, without a word.
    (["convert", "npy", "{images}", "{out}", "--seed", "-1"],
     "--seed: must be a whole number from 0 to 18446744073709551615, not -1"),
    (["bench", "{small}", "--seed", "-1"], "--seed: must be a whole number from 0 to "),
    (["merge", "{small}", "{small}", "{out}", "--seed", "18446744073709551616"],
     "not 18446744073709551616"),
    # CLI11's "Could not convert: --batch = 1.5" before.
    (["bench", "{small}", "--batch", "1.5"], "--batch: must be a whole number, not 1.5"),
    (["convert", "npy", "{images}", "{out}", "--chunk", "2.5"],
     "--chunk: must be a whole number, not 2.5"),
])
def test_an_option_mistake_is_a_usage_error_before_any_work(small, tmp_path, args, words):
    np.save(tmp_path / "images.npy", np.zeros((4, 2, 2, 3), np.uint8))
    out = tmp_path / "out.h5"
    argv = [a.format(images=tmp_path / "images.npy", out=out, small=small) for a in args]
    result = run_h5feed(*argv, check=2)
    assert words in result.stderr
    assert not out.exists()


def test_zero_images_per_chunk_is_refused_not_taken_for_the_default(small, tmp_path):
    result = run_h5feed("convert", "npy", tmp_path / "images.npy", tmp_path / "out.h5",
                        "--chunk", 0, check=2)
    assert "--chunk: must be at least 1, not 0" in result.stderr
    assert "leave --chunk out for the default" in result.stderr


@pytest.mark.parametrize("size", ["0", "0x5", "70000"])
def test_a_size_of_no_pixels_says_the_sides_range(tmp_path, size):
    result = run_h5feed("convert", "imagefolder", tmp_path, tmp_path / "out.h5", "--size", size,
                        check=2)
    assert f"--size {size}: each side must be from 1 to 65535 pixels" in result.stderr
    assert "is not a size" not in result.stderr


def test_the_compression_levels_of_help_and_error_agree_with_what_is_accepted(tmp_path):
    help_text = " ".join(run_h5feed("convert", "npy", "--help", check=0).stdout.split())
    assert "zstd[:LEVEL] (1-22" in help_text and "gzip[:LEVEL] (1-9" in help_text
    assert "deflate" in help_text
    images = tmp_path / "images.npy"
    np.save(images, np.zeros((4, 2, 2, 3), np.uint8))
    run_h5feed("convert", "npy", images, tmp_path / "z22.h5", "--compression", "zstd:22",
               "--quiet", check=0)
    run_h5feed("convert", "npy", images, tmp_path / "d.h5", "--compression", "deflate:1",
               "--quiet", check=0)
    refused = run_h5feed("convert", "npy", images, tmp_path / "z23.h5", "--compression",
                         "zstd:23", check=2)
    assert "zstd:LEVEL (1-22)" in refused.stderr


def test_an_existing_output_names_the_flag_that_replaces_it(small, tmp_path):
    images = tmp_path / "images.npy"
    np.save(images, np.zeros((4, 2, 2, 3), np.uint8))
    run_h5feed("convert", "npy", images, tmp_path / "out.h5", "--quiet", check=0)
    result = run_h5feed("convert", "npy", images, tmp_path / "out.h5", check=2)
    assert "allow overwriting (--force)" in result.stderr


def test_an_output_that_is_a_fifo_is_never_replaced_even_with_force(tmp_path):
    images = tmp_path / "images.npy"
    np.save(images, np.zeros((4, 2, 2, 3), np.uint8))
    fifo = tmp_path / "fifo"  # as /dev/null would be: never a test's output
    os.mkfifo(fifo)
    for force in ([], ["--force"]):
        result = run_h5feed("convert", "npy", images, fifo, *force, check=2)
        assert f"output {fifo} is a FIFO (named pipe), not a regular file" in result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "images.npy"]


def existing_output_cases(tmp_path):
    """Each command that writes a file, with its OUT an existing file to keep ("part": the
    second part's file, written already)."""
    np.save(tmp_path / "images.npy", np.zeros((6, 2, 2, 3), np.uint8))
    for k in range(2):
        run_h5feed("convert", "npy", tmp_path / "images.npy", tmp_path / "p.h5", "--part",
                   f"{k}/2", "--quiet", check=0)
    parts = [tmp_path / f"p-0000{k}-of-00002.h5" for k in range(2)]
    (tmp_path / "src" / "c").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(tmp_path / "src" / "c" / "000.png")
    out = tmp_path / "kept.h5"
    out.write_bytes(b"precious")
    return out, {
        "npy": ["convert", "npy", tmp_path / "images.npy", out],
        "imagefolder": ["convert", "imagefolder", tmp_path / "src", out],
        "rechunk": ["rechunk", parts[0], out],
        "merge": ["merge", *parts, out],
        "part": ["convert", "npy", tmp_path / "images.npy", tmp_path / "p.h5", "--part", "1/2"],
    }


@pytest.mark.parametrize("command", ["npy", "imagefolder", "rechunk", "merge", "part"])
def test_an_existing_output_without_force_is_a_usage_error_and_is_kept(tmp_path, command):
    out, cases = existing_output_cases(tmp_path)
    if command == "part":
        out = tmp_path / "p-00001-of-00002.h5"
    before = out.read_bytes()
    names = sorted(p.name for p in tmp_path.iterdir())
    result = run_h5feed(*cases[command], check=2)
    assert f"output {out} already exists and is left as it is; remove it or allow " \
           "overwriting (--force)" in result.stderr, result.stderr
    assert result.stdout == ""
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == names  # no partial file either
    run_h5feed(*cases[command], "--force", "--quiet", check=0)
    with h5py.File(out) as f:
        assert f["images"].shape[0] > 0


def test_an_output_no_file_can_be_written_at_is_a_usage_error(tmp_path):
    images = tmp_path / "images.npy"
    np.save(images, np.zeros((4, 2, 2, 3), np.uint8))
    (tmp_path / "a_folder").mkdir()
    result = run_h5feed("convert", "npy", images, tmp_path / "a_folder", "--force", check=2)
    assert f"the output {tmp_path / 'a_folder'} is a folder" in result.stderr
    missing = tmp_path / "missing" / "out.h5"
    result = run_h5feed("convert", "npy", images, missing, check=2)
    assert f"the folder {tmp_path / 'missing'} of the output {missing} does not exist" \
        in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_folder", "images.npy"]


def test_bench_errors_name_its_flags_not_the_library_fields(small):
    result = run_h5feed("bench", small, "--slots", 1024, "--augment", "rrc=2048",
                        "--no-ceilings", check=1)
    assert result.stderr.startswith("h5feed bench: error: ")
    assert "--slots, --batch or --cache-mb" in result.stderr
    assert "cache_bytes" not in result.stderr and "LoaderOptions" not in result.stderr


@pytest.fixture(scope="module")
def own_size(tmp_path_factory):
    """A file of 6 images at their own sizes (format version 2)."""
    root = tmp_path_factory.mktemp("own_size") / "folder"
    (root / "class").mkdir(parents=True)
    for i, (height, width) in enumerate([(20, 30), (28, 18)] * 3):
        Image.new("RGB", (width, height), (40 * i, 90, 10)).save(root / "class" / f"{i}.png")
    out = root.parent / "own_size.h5"
    run_h5feed("convert", "imagefolder", root, out, "--quiet", check=0)
    return out


def test_bench_of_images_at_their_own_size_names_its_flags(own_size):
    result = run_h5feed("bench", own_size, "--no-ceilings", check=1)
    message = result.stderr
    assert "--normalize" in message and "--augment rrc" in message
    assert "--augment resize" in message and "--augment center" in message
    for cpp in ("normalize = true", "output.augment", "resize_shorter", "Python"):
        assert cpp not in message, cpp


def test_an_output_ending_in_npy_is_refused_and_left_alone(tmp_path):
    np.save(tmp_path / "images.npy", np.zeros((4, 2, 2, 3), np.uint8))
    np.save(tmp_path / "labels.npy", np.arange(4))
    before = (tmp_path / "labels.npy").read_bytes()
    # LABELS given, OUT forgotten: the labels file is taken for the output.
    result = run_h5feed("convert", "npy", tmp_path / "images.npy", tmp_path / "labels.npy",
                        "--force", check=2)
    assert "labels.npy ends in .npy" in result.stderr
    assert (tmp_path / "labels.npy").read_bytes() == before


def output_is_input_cases(tmp_path):
    """Each command with its output naming one of its inputs (or a path in an input folder),
    and the input that must be left alone."""
    np.save(tmp_path / "images.npy", np.zeros((6, 2, 2, 3), np.uint8))
    for k in range(3):
        run_h5feed("convert", "npy", tmp_path / "images.npy", tmp_path / "p.h5", "--part",
                   f"{k}/3", "--quiet", check=0)
    parts = [tmp_path / f"p-0000{k}-of-00003.h5" for k in range(3)]
    (tmp_path / "src" / "c").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(tmp_path / "src" / "c" / "000.png")
    (tmp_path / "ann.json").write_text('{"images": [], "annotations": [], "categories": []}')
    np.save(tmp_path / "labels.npy", np.arange(6))
    (tmp_path / "labels.npy").rename(tmp_path / "labels")  # not ending in .npy
    return {
        "merge": (["merge", *parts, parts[2]], parts[2]),
        "coco": (["convert", "coco", tmp_path / "ann.json", tmp_path / "src",
                  tmp_path / "ann.json"], tmp_path / "ann.json"),
        "imagefolder": (["convert", "imagefolder", tmp_path / "src",
                         tmp_path / "src" / "c" / "000.png"], tmp_path / "src" / "c" / "000.png"),
        # Another spelling of the same file: paths are compared as the file system resolves them.
        "rechunk": (["rechunk", parts[0], tmp_path / "src" / ".." / parts[0].name], parts[0]),
        "npy": (["convert", "npy", tmp_path / "images.npy", tmp_path / "labels",
                 tmp_path / "labels"], tmp_path / "labels"),
    }


@pytest.mark.parametrize("command", ["merge", "coco", "imagefolder", "rechunk", "npy"])
def test_an_output_that_is_an_input_is_refused_and_left_alone(tmp_path, command):
    args, kept = output_is_input_cases(tmp_path)[command]
    before = kept.read_bytes()
    result = run_h5feed(*args, "--force", check=2)
    assert " is the input " in result.stderr or " is in the input folder " in result.stderr
    assert kept.read_bytes() == before


def test_an_output_in_an_input_folder_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "src" / "c").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(tmp_path / "src" / "c" / "000.png")
    result = run_h5feed("convert", "imagefolder", tmp_path / "src", tmp_path / "src" / "out.h5",
                        check=2)
    assert f"the output {tmp_path / 'src' / 'out.h5'} is in the input folder " in result.stderr
    assert sorted(p.name for p in (tmp_path / "src").iterdir()) == ["c"]


def test_a_missing_labels_file_is_named_as_the_labels(tmp_path):
    np.save(tmp_path / "images.npy", np.zeros((4, 2, 2, 3), np.uint8))
    result = run_h5feed("convert", "npy", tmp_path / "images.npy", tmp_path / "small.h5",
                        tmp_path / "out.h5")
    assert result.returncode != 0
    assert "labels file " in result.stderr and "small.h5" in result.stderr


def test_inspect_and_verify_errors_have_the_one_prefix(tmp_path):
    (tmp_path / "text.h5").write_text("not hdf5\n")
    for command in ("inspect", "verify"):
        result = run_h5feed(command, tmp_path / "text.h5", check=1)
        assert result.stderr.startswith(f"h5feed {command}: error: "), result.stderr


def test_skip_warnings_and_part_errors_name_the_command_and_the_flag_once(tmp_path):
    root = tmp_path / "folder" / "class"
    root.mkdir(parents=True)
    for i in range(3):
        Image.new("RGB", (8, 8), (i, i, i)).save(root / f"{i}.png")
    (root / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0 not a jpeg")
    result = run_h5feed("convert", "imagefolder", root.parent, tmp_path / "out.h5", "--size", 8,
                        check=3)
    [warning] = [line for line in result.stderr.splitlines() if "broken.jpg" in line]
    assert warning.startswith("h5feed convert imagefolder: warning: skipped ")
    result = run_h5feed("convert", "imagefolder", root.parent, tmp_path / "part.h5", "--size", 8,
                        "--part", "2/2", check=2)
    assert result.stderr.count("--part") == 1, result.stderr
    assert "--part: 2/2 is not a part K of N" in result.stderr


@pytest.mark.parametrize("command", ["inspect", "verify"])
def test_json_of_a_file_that_cannot_be_read_is_an_error_object(command, tmp_path):
    (tmp_path / "text.h5").write_text("not hdf5\n")
    for path, code, exit_code in ((tmp_path / "text.h5", "corrupt data", 1),
                                  (tmp_path / "missing.h5", "not found", 2)):
        result = run_h5feed(command, path, "--json", check=exit_code)
        report = json.loads(result.stdout)  # one JSON object, not empty input
        assert report["path"] == str(path)
        assert report["error"]["code"] == code
        assert str(path) in report["error"]["message"]
        if command == "verify":
            assert report["ok"] is False


def test_merge_names_the_missing_part_and_its_usage_reads_part_out(tmp_path):
    np.save(tmp_path / "images.npy", np.zeros((6, 2, 2, 3), np.uint8))
    for k in range(3):
        run_h5feed("convert", "npy", tmp_path / "images.npy", tmp_path / "photos.h5", "--part",
                   f"{k}/3", "--quiet", check=0)
    result = run_h5feed("merge", tmp_path / "photos-00000-of-00003.h5", tmp_path / "merged.h5",
                        check=1)
    assert "2 of the 3 parts are missing: part 1 (" in result.stderr
    assert str(tmp_path / "photos-00001-of-00003.h5") in result.stderr
    assert str(tmp_path / "photos-00002-of-00003.h5") in result.stderr
    assert "-00000-of-00003-" not in result.stderr
    usage = run_h5feed("merge", "--help", check=0).stdout
    assert "Usage: h5feed merge [OPTIONS] PART... OUT\n" in usage


@pytest.mark.parametrize("args, usage", [
    (("bench", "{missing}", "--help"), "Usage: h5feed bench [OPTIONS] [FILE]"),
    (("bench", "sweep", "{missing}", "--out", "{out}", "--help"),
     "Usage: h5feed bench sweep [OPTIONS] FILE"),
    (("convert", "imagefolder", "{missing}", "{out}", "-h"),
     "Usage: h5feed convert imagefolder [OPTIONS] SRC_DIR OUT"),
    (("convert", "npy", "{missing}", "--help"), "Usage: h5feed convert npy [OPTIONS]"),
    (("verify", "--threads", "-1", "{missing}", "--help"), "Usage: h5feed verify [OPTIONS] FILE"),
])
def test_help_at_the_end_of_a_wrong_command_line_prints_the_help(tmp_path, args, usage):
    # `--help` added to a command line that failed is how people look up the options; CLI11
    # checked the values it had read first and printed their error (exit 2) instead.
    missing, out = tmp_path / "missing", tmp_path / "out.h5"
    result = run_h5feed(*[a.format(missing=missing, out=out) for a in args], check=0)
    assert usage in result.stdout, result.stdout
    assert result.stderr == ""


@pytest.mark.parametrize("args, complaint", [
    (("inspect", "{small}", "--connections", "0"), "--connections: must be from 1 to 1024, not 0"),
    (("inspect", "{small}", "--connections", "1.5"), "--connections: must be a whole number"),
    (("bench", "{small}", "--retries", "101"), "--retries: must be from 0 to 100, not 101"),
    (("verify", "{small}", "--request-stall-seconds", "0"),
     "--request-stall-seconds: must be from 1 to 86400, not 0"),
    (("verify", "{small}", "--spill-mb", "-1"),
     "--spill-mb: must be from 0 to 1099511627776, not -1"),
    (("verify", "{small}", "--threads", "5000"), "--threads: must be from 0 to 1024, not 5000"),
    (("inspect", "{small}", "--stall-seconds", "0"), "--stall-seconds: must be from 1 to 86400"),
    # The probe's limit: without the probe it was accepted and did nothing.
    (("inspect", "{small}", "--no-open-probe", "--stall-seconds", "5"),
     "--no-open-probe excludes --stall-seconds"),
])
def test_the_remote_and_stall_flags_say_their_range_in_words(small, args, complaint):
    # They said CLI11's "Value 1.5 not in range 1 to 1024", of a number within the range, where
    # every other flag says "must be ..." (docs/command.md, "Exit codes and messages").
    result = run_h5feed(*[a.format(small=small) for a in args], check=2)
    assert complaint in result.stderr, result.stderr
    assert "Value" not in result.stderr
    help_text = run_h5feed(args[0], "--help", check=0).stdout
    assert "--connections INT:INT in [1 - 1024]=16" in help_text


@pytest.mark.parametrize("command", [("convert", "npy", "{images}"), ("rechunk", "{small}")])
def test_a_seed_with_no_shuffle_is_refused_not_ignored(small, tmp_path, command):
    # --no-shuffle won and the seed shuffled nothing, without a word.
    images = tmp_path / "images.npy"
    np.save(images, np.zeros((4, 2, 2, 3), np.uint8))
    argv = [a.format(images=images, small=small) for a in command]
    result = run_h5feed(*argv, tmp_path / "out.h5", "--seed", "3", "--no-shuffle", check=2)
    assert "--seed excludes --no-shuffle" in result.stderr, result.stderr
    assert not (tmp_path / "out.h5").exists()


@pytest.mark.parametrize("source", ["imagefolder", "segmentation"])
def test_resize_without_size_is_refused_not_ignored(tmp_path, source):
    # Without --size every image is stored at its own size: --resize pad fitted nothing, and
    # the conversion went on without a word.
    (tmp_path / "images" / "a").mkdir(parents=True)
    Image.fromarray(np.zeros((4, 6, 3), np.uint8)).save(tmp_path / "images" / "a" / "x.png")
    folders = [tmp_path / "images"] + ([tmp_path / "images"] if source == "segmentation" else [])
    result = run_h5feed("convert", source, *folders, tmp_path / "out.h5", "--resize", "pad",
                        check=2)
    assert "--resize fits images to --size" in result.stderr, result.stderr
    assert not (tmp_path / "out.h5").exists()
    run_h5feed("convert", source, *folders, tmp_path / "out.h5", "--resize", "pad", "--size",
               "4", "--quiet", check=None)


@pytest.mark.parametrize("url", ["https://host/x.h5", "s3://bucket/x.h5?X-Amz-Signature=s"])
def test_an_output_given_as_a_url_is_refused_as_not_a_local_path(small, tmp_path, url):
    # It said "the folder https://host of the output ... does not exist; create it first".
    np.save(tmp_path / "images.npy", np.zeros((4, 2, 2, 3), np.uint8))
    for command in (("rechunk", small), ("convert", "npy", tmp_path / "images.npy")):
        result = run_h5feed(*command, url, check=2)  # refused before any input is read
        assert "is a URL, and h5feed writes to a local path only" in result.stderr, \
            result.stderr
        assert "does not exist" not in result.stderr
    assert list(tmp_path.iterdir()) == [tmp_path / "images.npy"]


def test_the_usage_of_convert_npy_names_its_paths_as_they_are_given():
    help_text = run_h5feed("convert", "npy", "--help", check=0).stdout
    assert "Usage: h5feed convert npy [OPTIONS] IMAGES.npy [LABELS.npy] OUT\n" in help_text
    assert "IMAGES.npy [LABELS.npy] OUT TEXT x 2 or 3 REQUIRED" in help_text
    assert "(2x)" not in help_text


@pytest.mark.parametrize("args", [
    ("convert", "imagefolder", "{missing}", "{out}"),
    ("convert", "cifar", "{missing}", "{out}"),
    ("convert", "npy", "{missing}", "{out}"),
    ("rechunk", "{missing}", "{out}"),
    ("merge", "{missing}", "{missing}", "{out}"),
    ("inspect", "{missing}"),
    ("verify", "{missing}"),
    ("bench", "{missing}"),
    ("bench", "sweep", "{missing}", "--out", "{out}"),
])
def test_a_missing_input_is_a_usage_error_in_every_command(tmp_path, args):
    missing, out = tmp_path / "missing", tmp_path / "out.h5"
    argv = [a.format(missing=missing, out=out) for a in args]
    result = run_h5feed(*argv, check=2)
    assert f"{missing} does not exist" in result.stderr, result.stderr


@pytest.mark.parametrize("args", [
    ("convert", "imagefolder", "", "{out}"),
    ("convert", "npy", "", "{out}"),
    ("convert", "npy", "{images}", "", "{out}"),
    ("rechunk", "", "{out}"),
    ("merge", "", "", "{out}"),
    ("inspect", ""),
    ("verify", ""),
    ("bench", ""),
    ("bench", "sweep", "", "--out", "{out}"),
])
def test_an_empty_input_path_is_a_usage_error_saying_so_in_every_command(tmp_path, args):
    # An unset shell variable ("$DATA/train.h5" is not this; "$FILE" is): the message said
    # " does not exist", and convert npy exited 1 for empty images.
    np.save(tmp_path / "images.npy", np.zeros((4, 2, 2, 3), np.uint8))
    argv = [a.format(images=tmp_path / "images.npy", out=tmp_path / "out.h5") for a in args]
    result = run_h5feed(*argv, check=2)
    assert "'' (an empty path) does not exist" in result.stderr, result.stderr
    assert not (tmp_path / "out.h5").exists()


def test_a_missing_field_file_is_a_usage_error_naming_the_field(tmp_path):
    np.save(tmp_path / "images.npy", np.zeros((4, 2, 2, 3), np.uint8))
    result = run_h5feed("convert", "npy", tmp_path / "images.npy", tmp_path / "out.h5",
                        "--field", f"attrs={tmp_path / 'gone.npy'}", check=2)
    assert f"field attrs's file {tmp_path / 'gone.npy'} does not exist" in result.stderr


def test_a_source_convert_does_not_know_is_named_with_the_sources_there_are(tmp_path):
    result = run_h5feed("convert", "voc", tmp_path, tmp_path / "out.h5", check=2)
    assert result.stderr.startswith("h5feed convert: error: ")
    assert "'voc'" in result.stderr
    assert "imagefolder, cifar, npy, segmentation, coco" in result.stderr
    assert "A subcommand is required" not in result.stderr
    result = run_h5feed("convert", check=2)
    assert "imagefolder, cifar, npy, segmentation, coco" in result.stderr


@pytest.mark.parametrize("before, words", [
    (["--size", "3"], "--size must follow the source: h5feed convert imagefolder --size ..."),
    (["--size=3"], "--size must follow the source: h5feed convert imagefolder --size ..."),
    (["--force"], "--force must follow the source: h5feed convert imagefolder --force ..."),
    (["--no-such-option"], "--no-such-option is not an option of h5feed convert imagefolder"),
])
def test_an_option_before_the_source_is_refused_not_dropped(tmp_path, before, words):
    root = tmp_path / "folder" / "class"
    root.mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(root / "0.png")
    result = run_h5feed("convert", *before, "imagefolder", root.parent, tmp_path / "out.h5",
                        check=2)
    assert result.stderr.startswith("h5feed convert imagefolder: error: "), result.stderr
    assert words in result.stderr
    assert not (tmp_path / "out.h5").exists()
    result = run_h5feed("convert", *before, check=2)  # no source at all
    assert "before the source: give the source first" in result.stderr


@pytest.mark.parametrize("args, words", [
    (["bogus"], "unknown command 'bogus'; commands: convert, rechunk, merge, inspect, verify, bench"),
    (["--bogus"], "--bogus comes before the command: give the command first"),
    ([], "give a command; commands: convert, rechunk, merge, inspect, verify, bench"),
])
def test_an_unknown_command_is_named_with_the_commands_there_are(args, words):
    result = run_h5feed(*args, check=2)
    assert result.stderr.startswith("h5feed: error: "), result.stderr
    assert words in result.stderr
    assert "A subcommand is required" not in result.stderr


def test_one_chunk_is_counted_in_the_singular_by_inspect_verify_and_bench(small, tmp_path):
    images = tmp_path / "images.npy"
    np.save(images, np.zeros((5, 2, 2, 3), np.uint8))
    run_h5feed("convert", "npy", images, tmp_path / "one.h5", "--quiet", check=0)
    assert "1 chunk of 5 images" in run_h5feed("inspect", tmp_path / "one.h5", check=0).stdout
    verified = run_h5feed("verify", tmp_path / "one.h5", check=0).stdout
    assert "nothing wrong found in 1 chunk (5 images)" in verified
    assert "chunk table: 1 row against" in verified and "all 1 " not in verified
    bench = run_h5feed("bench", tmp_path / "one.h5", "--no-ceilings", check=0).stdout
    assert "5 images 2x2x3 in 1 chunk of 5" in bench
    cold = run_h5feed("bench", tmp_path / "one.h5", "--no-ceilings", "--epochs", 2,
                      "--cold-each-epoch", check=0).stdout
    assert "dropped again before the later epoch (" in cold and "1 later epochs" not in cold
    # The grid is the file as stored (h5feed's defaults for it): one file variant.
    sweep = run_h5feed("bench", "sweep", tmp_path / "one.h5", "--out", tmp_path / "sweep",
                       "--chunks", 5, "--compression", "zstd:3", "--cache-mb", 512, "--sampler",
                       "chunks:8", "--max-seconds", 2, check=0)
    assert ": 2 runs over 1 file variant;" in sweep.stderr


def test_a_sweep_refusal_names_the_file_not_the_word_file(own_size, tmp_path):
    result = run_h5feed("bench", "sweep", own_size, "--out", tmp_path / "sweep", check=2)
    assert f"{own_size} stores its images at their own sizes" in result.stderr
    assert "FILE stores" not in result.stderr


def test_without_step_ms_bench_says_the_reader_set_the_pace_not_a_wait_share(small):
    text = run_h5feed("bench", small, "--no-ceilings", check=0).stdout
    assert "Next() waited" not in text
    assert "batches taken as they came (no --step-ms), so the reader set the pace" in text
    paced = run_h5feed("bench", small, "--no-ceilings", "--step-ms", 1, check=0).stdout
    assert "Next() waited" in paced and "simulated trainer: 1.0 ms per batch" in paced


DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs")


@pytest.mark.parametrize("command, page", [
    ("convert imagefolder", "command.md"), ("convert cifar", "command.md"),
    ("convert npy", "command.md"), ("convert segmentation", "command.md"),
    ("convert coco", "command.md"), ("rechunk", "command.md"), ("merge", "command.md"),
    ("inspect", "command.md"), ("verify", "command.md"), ("bench", "bench.md"),
    ("bench sweep", "bench.md")])
def test_every_option_of_help_is_on_the_commands_page(command, page):
    # docs/command.md says "this page says what each does, with every option"; bench's
    # --full-jpeg-decode was missing from docs/bench.md. The remote options are remote.md's.
    own = run_h5feed(*command.split(), "--help", check=0).stdout.split("Remote files")[0]
    options = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", own.split("\nOptions:\n")[1]))
    with open(os.path.join(DOCS, page)) as f:
        text = f.read()
    said = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+(?![\w-])", text))
    assert sorted(options - said - {"--help"}) == []
