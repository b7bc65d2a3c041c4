"""`h5feed convert imagefolder` end to end: every pixel, label, class name and skipped file
checked against PIL and torchvision's rules; the output read by h5py and h5dump."""
import io
import json
import os
import re
import struct
import subprocess
import time
import zlib

import h5py
import numpy as np
import pytest
from PIL import Image

from conftest import H5FEED, PLUGIN_DIR, python_with_plugin, run_h5feed
from image_zoo import HEIGHT, WIDTH, make_zoo, stored_order, torchvision_order

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SKIPPED = 0, 1, 2, 3


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    root = tmp_path_factory.mktemp("zoo") / "train"
    broken = make_zoo(str(root))
    return str(root), broken


@pytest.fixture(scope="module")
def converted(zoo, tmp_path_factory):
    root, _ = zoo
    out = tmp_path_factory.mktemp("out") / "train.h5"
    result = run_h5feed("convert", "imagefolder", root, out, "--chunk", "4", check=EXIT_SKIPPED)
    return str(out), result


def strings(dataset):
    return [s.decode() if isinstance(s, bytes) else s for s in dataset[()]]


def test_every_pixel_equals_pil_and_every_label_follows_imagefolder(zoo, converted):
    root, broken = zoo
    out, _ = converted
    classes, samples = torchvision_order(root)
    valid = [(path, label) for path, label in samples if path not in broken]
    with h5py.File(out, "r") as f:
        assert strings(f["classes"]) == classes == ["bird", "cat", "dog"]
        images = f["images"][()]
        assert images.dtype == np.uint8 and images.shape == (len(valid), HEIGHT, WIDTH, 3)
        assert f["images"].chunks == (4, HEIGHT, WIDTH, 3)
        sources = strings(f["sources"])
        labels = f["labels"][()]
        assert labels.dtype == np.int64
    assert sorted(sources) == sorted(path for path, _ in valid)
    expected_label = dict(valid)
    for row, source in enumerate(sources):
        reference = np.asarray(Image.open(os.path.join(root, source)).convert("RGB"))
        assert np.array_equal(images[row], reference), f"pixels of {source} differ from PIL"
        assert labels[row] == expected_label[source], source


def test_stored_order_is_the_documented_seeded_shuffle(zoo, converted):
    root, broken = zoo
    out, _ = converted
    _, samples = torchvision_order(root)
    order = stored_order(len(samples), 0)  # default seed 0
    expected = [samples[i][0] for i in order if samples[i][0] not in broken]
    with h5py.File(out, "r") as f:
        assert strings(f["sources"]) == expected
        assert f.attrs["shuffled"] == 1 and f.attrs["shuffle_seed"] == 0


def test_no_shuffle_keeps_torchvision_order(zoo, tmp_path):
    root, broken = zoo
    out = tmp_path / "ordered.h5"
    run_h5feed("convert", "imagefolder", root, out, "--no-shuffle", check=EXIT_SKIPPED)
    _, samples = torchvision_order(root)
    with h5py.File(out, "r") as f:
        assert strings(f["sources"]) == [p for p, _ in samples if p not in broken]
        assert list(f["labels"][()]) == [l for p, l in samples if p not in broken]
        assert f.attrs["shuffled"] == 0


def test_broken_files_are_skipped_named_counted_and_recorded(zoo, converted):
    _, broken = zoo
    out, result = converted
    for path in broken:
        assert re.search(rf"warning: skipped {re.escape(path)}: ", result.stderr), result.stderr
    assert "3 skipped" in result.stdout
    for path in broken:
        assert path in result.stdout  # listed in the final summary
    with h5py.File(out, "r") as f:
        assert set(strings(f["skipped_sources"])) == broken
        reasons = strings(f["skipped_reasons"])
        assert len(reasons) == 3 and all(reasons)
        assert f.attrs["num_skipped"] == 3
        assert f.attrs["num_images"] == f["images"].shape[0]
    assert "\r" not in result.stderr  # no progress bar when stderr is not a terminal


def test_format_attributes_and_chunk_index(converted):
    out, _ = converted
    with h5py.File(out, "r") as f:
        assert f.attrs["h5feed_format"] in (b"h5feed", "h5feed")
        assert f.attrs["h5feed_format_version"] == 1
        assert f.attrs["compression"] in (b"zstd:3", "zstd:3")
        n = f["images"].shape[0]
        index = f["chunk_index"][()]
        assert len(index) == (n + 3) // 4
        assert set(index.dtype.names) >= {"address", "stored_bytes", "filter_mask", "checksum"}
        for i, record in enumerate(index):
            info = f["images"].id.get_chunk_info_by_coord((4 * i, 0, 0, 0))
            assert (record["address"], record["stored_bytes"]) == (info.byte_offset, info.size)


def test_h5py_reads_zstd_only_through_the_plugin(converted):
    out, _ = converted
    code = f"import h5py; print(int(h5py.File({out!r})['images'][0].sum()))"
    with_plugin = python_with_plugin(code, plugin=True)
    assert with_plugin.returncode == 0, with_plugin.stderr
    with h5py.File(out, "r") as f:
        assert int(with_plugin.stdout) == int(f["images"][0].astype(np.int64).sum())
    without = python_with_plugin(code, plugin=False)
    assert without.returncode != 0
    assert "filter" in without.stderr.lower() or "plugin" in without.stderr.lower()


def test_h5dump_reads_the_zstd_file_with_the_plugin(converted):
    out, _ = converted
    h5dump = os.environ.get("H5DUMP") or "h5dump"
    env = dict(os.environ, HDF5_PLUGIN_PATH=PLUGIN_DIR)
    result = subprocess.run([h5dump, "-d", "/images", "-s", "1,2,3,0", "-c", "1,1,4,3", out],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    data = result.stdout.split("DATA {", 1)[1].split("}", 1)[0]
    data = re.sub(r"\([\d,]+\):", "", data)  # drop the "(i,j,k,l):" coordinates
    values = [int(v) for v in re.findall(r"\d+", data)]
    with h5py.File(out, "r") as f:
        assert values == list(f["images"][1, 2, 3:7, :].reshape(-1))


def test_gzip_files_need_no_plugin(zoo, tmp_path):
    root, _ = zoo
    out = tmp_path / "gzip.h5"
    run_h5feed("convert", "imagefolder", root, out, "--compression", "gzip:6", check=EXIT_SKIPPED)
    code = (f"import h5py, numpy; f = h5py.File({str(out)!r}); "
            f"print(f['images'].compression, int(f['images'][()].astype(numpy.int64).sum()))")
    result = python_with_plugin(code, plugin=False)
    assert result.returncode == 0, result.stderr
    compression, total = result.stdout.split()
    assert compression == "gzip"
    with h5py.File(out, "r") as f:
        assert int(total) == int(f["images"][()].astype(np.int64).sum())


def test_uncompressed_files_hold_the_same_pixels(zoo, converted, tmp_path):
    root, _ = zoo
    out = tmp_path / "none.h5"
    run_h5feed("convert", "imagefolder", root, out, "--compression", "none", "--chunk", "4",
               check=EXIT_SKIPPED)
    with h5py.File(out, "r") as plain, h5py.File(converted[0], "r") as zstd:
        assert plain["images"].compression is None
        assert np.array_equal(plain["images"][()], zstd["images"][()])


def test_the_same_seed_gives_the_same_file_and_another_seed_another_order(zoo, tmp_path):
    root, _ = zoo
    paths = [tmp_path / f"{name}.h5" for name in ("a", "b", "c")]
    run_h5feed("convert", "imagefolder", root, paths[0], "--seed", "5", check=EXIT_SKIPPED)
    # Over a second later and with another thread count: HDF5 would stamp each object with the
    # second it was written, but h5feed leaves the stamps out, so the bytes are the same.
    time.sleep(1.1)
    run_h5feed("convert", "imagefolder", root, paths[1], "--seed", "5", "--threads", "1",
               check=EXIT_SKIPPED)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    run_h5feed("convert", "imagefolder", root, paths[2], "--seed", "6", check=EXIT_SKIPPED)
    with h5py.File(paths[0]) as a, h5py.File(paths[1]) as b, h5py.File(paths[2]) as c:
        assert np.array_equal(a["images"][()], b["images"][()])
        assert strings(a["sources"]) == strings(b["sources"])
        assert strings(a["sources"]) != strings(c["sources"])


def test_size_crop_and_pad_fit_every_image(zoo, tmp_path):
    root, _ = zoo
    crop, pad = tmp_path / "crop.h5", tmp_path / "pad.h5"
    run_h5feed("convert", "imagefolder", root, crop, "--size", "16x16", check=EXIT_SKIPPED)
    run_h5feed("convert", "imagefolder", root, pad, "--size", "16x16", "--resize", "pad",
               check=EXIT_SKIPPED)
    with h5py.File(crop) as c, h5py.File(pad) as p:
        assert c["images"].shape[1:] == (16, 16, 3) and p["images"].shape[1:] == (16, 16, 3)
        padded = p["images"][()]
        # 24x32 scaled by 1/2 is 12x16: two zero rows above and below, content between.
        assert not padded[:, :2].any() and not padded[:, 14:].any()
        assert padded[:, 2:14].mean() > 20
        # Crop keeps the centre 24x24 of each 24x32 image, scaled by 2/3. PIL's box filter on
        # the same crop is a different area filter, so compare 4x4 block means: they agree
        # to a few levels when the geometry (which part, what scale) is the same.
        images, sources = c["images"][()], strings(c["sources"])
    for row, source in enumerate(sources):
        reference = Image.open(os.path.join(root, source)).convert("RGB").crop((4, 0, 28, 24))
        reference = np.asarray(reference.resize((16, 16), Image.BOX), dtype=np.float64)
        ours = images[row].astype(np.float64)
        blocks = lambda a: a.reshape(4, 4, 4, 4, 3).mean(axis=(1, 3))
        assert np.abs(blocks(ours) - blocks(reference)).mean() < 3, source


def test_mixed_sizes_without_size_store_each_image_at_its_own_size(tmp_path):
    # Before format version 2 this was an error naming the odd file; now each image keeps its
    # size (test_convert_own_size.py checks such files in full).
    root = tmp_path / "mixed"
    for name, size in (("a", (10, 10)), ("b", (10, 10)), ("odd", (7, 9))):
        (root / "c").mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (size[1], size[0]), (1, 2, 3)).save(root / "c" / f"{name}.png")
    out = tmp_path / "mixed.h5"
    run_h5feed("convert", "imagefolder", root, out)
    with h5py.File(out, "r") as f:
        assert f.attrs["h5feed_format_version"] == 2
        assert sorted(tuple(s) for s in f["image_shapes"][:]) == [(7, 9, 3), (10, 10, 3),
                                                                 (10, 10, 3)]


def png_declaring_rows(png, rows):
    """`png` with its IHDR (CRC fixed up) declaring `rows` rows."""
    data = bytearray(png)
    struct.pack_into(">I", data, 20, rows)
    struct.pack_into(">I", data, 29, zlib.crc32(bytes(data[12:29])))
    return bytes(data)


def encoded(image, fmt, **options):
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def test_broken_files_are_never_evidence_of_the_size_they_are_skipped(tmp_path):
    # 64x64 photos, and as many broken files whose headers say other sizes: the first 700 bytes
    # of a 120x120 JPEG (an interrupted download), a truncated 32x32 JPEG (a smaller header),
    # a 64x64 PNG whose header promises 200 rows. Without --size, none of them may decide the
    # size, nor stop the conversion.
    root = tmp_path / "photos"
    rng = np.random.default_rng(17)
    photo = lambda h, w: Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
    good = []
    for label in ("cat", "dog"):
        (root / label).mkdir(parents=True)
        for i in range(3):
            photo(64, 64).save(root / label / f"{i}.jpg", quality=90)
            good.append(f"{label}/{i}.jpg")
    download = encoded(photo(120, 120), "JPEG", quality=90)
    broken = {}
    for name in ("cat/t1.jpg", "cat/t2.jpg", "dog/t3.jpg", "dog/t4.jpg"):
        (root / name).write_bytes(download[:700])
        broken[name] = "Premature end of JPEG file"
    small = encoded(photo(32, 32), "JPEG", quality=90)
    (root / "dog/small.jpg").write_bytes(small[:len(small) // 2])
    broken["dog/small.jpg"] = "Premature end of JPEG file"
    (root / "cat/tall.png").write_bytes(png_declaring_rows(encoded(photo(64, 64), "PNG"), 200))
    broken["cat/tall.png"] = "truncated"
    for name in broken:  # each header is readable and says another size
        assert Image.open(root / name).size != (64, 64)

    out = tmp_path / "photos.h5"
    result = run_h5feed("convert", "imagefolder", root, out, check=EXIT_SKIPPED)
    assert "different sizes" not in result.stderr
    for name, reason in broken.items():
        line = next(l for l in result.stdout.splitlines() if l.strip().startswith(name + ":"))
        assert reason in line and "changed size" not in line, line
    with h5py.File(out) as f:
        assert f["images"].shape == (len(good), 64, 64, 3)
        assert set(strings(f["skipped_sources"])) == set(broken)
        for row, source in enumerate(strings(f["sources"])):
            reference = np.asarray(Image.open(root / source).convert("RGB"))
            assert np.array_equal(f["images"][row], reference), source


@pytest.mark.parametrize("size", [["--size", "8"], []], ids=["size", "own-size"])
def test_a_fifo_or_a_device_named_like_an_image_is_skipped_never_waited_on(tmp_path, size):
    # A FIFO with no writer blocks open() for ever: a folder holding one under an image's name
    # (a leftover of a download script) hung the conversion. It is skipped as a broken file is.
    root = tmp_path / "photos"
    (root / "cat").mkdir(parents=True)
    for i in range(3):
        Image.new("RGB", (8, 8), (i, 2 * i, 3 * i)).save(root / "cat" / f"{i}.png")
    os.mkfifo(root / "cat" / "pipe.jpg")
    os.symlink("/dev/zero", root / "cat" / "zero.png")  # a character device
    out = tmp_path / "photos.h5"
    result = subprocess.run([H5FEED, "convert", "imagefolder", root,
                             out, *size], capture_output=True, text=True, timeout=60)
    assert result.returncode == EXIT_SKIPPED, result.stderr
    assert "cat/pipe.jpg is a FIFO (named pipe), not an image file" in result.stderr
    assert "cat/zero.png is a character device, not an image file" in result.stderr
    with h5py.File(out) as f:
        assert sorted(strings(f["skipped_sources"])) == ["cat/pipe.jpg", "cat/zero.png"]
        assert f["labels"].shape == (3,)


def test_names_that_are_not_utf8_are_stored_escaped_as_valid_utf8(tmp_path):
    # A Latin-1 folder name and file name (an old archive unpacked): stored as they were, the
    # UTF-8 datasets /classes and /sources held bytes h5py's asstr() could not decode.
    root = tmp_path / "photos"
    latin1 = os.fsencode(root) + b"/cl\xe9s"
    os.makedirs(latin1)
    os.makedirs(root / "dog")
    Image.new("RGB", (8, 8), (1, 2, 3)).save(root / "dog" / "a.png")
    with open(latin1 + b"/caf\xe9.png", "wb") as f:
        Image.new("RGB", (8, 8), (4, 5, 6)).save(f, "PNG")
    with open(latin1 + b"/broken\xff.png", "wb") as f:
        f.write(b"not a png")
    out = tmp_path / "photos.h5"
    # The summary names the files as they are (bytes, as ls prints them).
    result = subprocess.run([H5FEED, "convert", "imagefolder", root, out, "--no-shuffle"],
                            capture_output=True, timeout=120)
    assert result.returncode == EXIT_SKIPPED, result.stderr
    with h5py.File(out) as f:
        assert list(f["classes"].asstr()[()]) == ["cl\\xe9s", "dog"]
        assert list(f["sources"].asstr()[()]) == ["cl\\xe9s/caf\\xe9.png", "dog/a.png"]
        assert list(f["skipped_sources"].asstr()[()]) == ["cl\\xe9s/broken\\xff.png"]
        assert "broken\\xff.png" in f["skipped_reasons"].asstr()[0]
    run_h5feed("verify", out, check=EXIT_OK)


def test_a_fifo_given_as_the_npy_input_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "images.npy"
    os.mkfifo(fifo)
    result = subprocess.run([H5FEED, "convert", "npy", fifo,
                             tmp_path / "out.h5"], capture_output=True, text=True, timeout=60)
    assert result.returncode != EXIT_OK
    assert "is not a regular file" in result.stderr and "give the path of the file" in result.stderr
    assert not (tmp_path / "out.h5").exists()


def test_an_empty_class_is_an_error_unless_allowed(tmp_path):
    root = tmp_path / "classes"
    for name in ("a", "b_empty", "c"):
        (root / name).mkdir(parents=True)
    Image.new("RGB", (8, 8), (9, 9, 9)).save(root / "a" / "x.png")
    Image.new("RGB", (8, 8), (7, 7, 7)).save(root / "c" / "y.png")
    (root / "b_empty" / "notes.txt").write_text("no images here")
    out = tmp_path / "classes.h5"
    result = run_h5feed("convert", "imagefolder", root, out, check=EXIT_FAILED)
    assert "b_empty" in result.stderr and "--allow-empty" in result.stderr
    assert not out.exists()
    run_h5feed("convert", "imagefolder", root, out, "--allow-empty", "--no-shuffle", check=EXIT_OK)
    with h5py.File(out) as f:
        assert strings(f["classes"]) == ["a", "b_empty", "c"]
        assert list(f["labels"][()]) == [0, 2]


def test_an_existing_output_is_never_replaced_without_force(zoo, tmp_path):
    root, _ = zoo
    out = tmp_path / "exists.h5"
    out.write_bytes(b"precious")
    # The command line must change (--force, or another OUT): a usage error, nothing done.
    result = run_h5feed("convert", "imagefolder", root, out, check=EXIT_USAGE)
    assert "exists" in result.stderr and "--force" in result.stderr
    assert out.read_bytes() == b"precious"
    run_h5feed("convert", "imagefolder", root, out, "--force", check=EXIT_SKIPPED)
    with h5py.File(out) as f:
        assert f["images"].shape[0] > 0
    assert [p.name for p in tmp_path.iterdir()] == ["exists.h5"]  # no temporary file left


def test_strict_fails_on_a_broken_file_and_leaves_nothing(zoo, tmp_path):
    root, _ = zoo
    out = tmp_path / "strict.h5"
    result = run_h5feed("convert", "imagefolder", root, out, "--strict", check=EXIT_FAILED)
    assert "--strict" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_thousands_of_broken_files_are_warned_of_twenty_then_counted(tmp_path):
    root = tmp_path / "train" / "cat"
    root.mkdir(parents=True)
    Image.new("RGB", (WIDTH, HEIGHT), (9, 8, 7)).save(root / "good.png")
    for i in range(300):
        (root / f"broken_{i:03}.jpg").write_bytes(b"not a jpeg")
    out = tmp_path / "train.h5"
    result = run_h5feed("convert", "imagefolder", tmp_path / "train", out, "--size",
                        f"{HEIGHT}x{WIDTH}", check=EXIT_SKIPPED)
    assert result.stderr.count("warning: skipped ") == 20, result.stderr
    assert result.stderr.count("further skipped inputs are not shown") == 1
    assert "300 skipped" in result.stdout
    assert len(re.findall(r"^    .*broken_\d+\.jpg: ", result.stdout, re.M)) == 20
    assert "... 280 more (--json lists all)" in result.stdout
    with h5py.File(out, "r") as f:
        assert len(f["skipped_sources"]) == 300


def test_quiet_prints_nothing_and_the_exit_code_still_tells_of_skips(zoo, tmp_path):
    root, _ = zoo
    result = run_h5feed("convert", "imagefolder", root, tmp_path / "q.h5", "--quiet",
                        check=EXIT_SKIPPED)
    assert result.stdout == "" and result.stderr == ""


def test_wrong_options_are_usage_errors(zoo, tmp_path):
    root, _ = zoo
    for args in (["--size", "224by224"], ["--compression", "brotli"], ["--resize", "zoom"],
                 ["--chunk", "-3"], ["--bogus"]):
        result = run_h5feed("convert", "imagefolder", root, tmp_path / "x.h5", *args,
                            check=EXIT_USAGE)
        assert result.stderr.strip(), args
    assert list(tmp_path.iterdir()) == []
    missing = run_h5feed("convert", "imagefolder", tmp_path / "nope", tmp_path / "x.h5")
    assert missing.returncode in (EXIT_FAILED, EXIT_USAGE) and "nope" in missing.stderr


def test_help_describes_every_option():
    result = run_h5feed("convert", "imagefolder", "--help", check=EXIT_OK)
    for option in ("--size", "--resize", "--chunk", "--compression", "--seed", "--no-shuffle",
                   "--threads", "--force", "--quiet", "--strict", "--allow-empty",
                   "--memory-limit", "--max-pixels"):
        assert option in result.stdout, option


def test_inspect_reports_the_classes_and_counts(converted):
    out, _ = converted
    result = run_h5feed("inspect", out, "--json", check=EXIT_OK)
    summary = json.loads(result.stdout)
    text = json.dumps(summary)
    with h5py.File(out) as f:
        n = f["images"].shape[0]
    assert str(n) in text and "bird" in text and "dog/truncated.jpg" in text


def test_inspect_says_whether_the_stored_order_is_sorted_by_label(zoo, converted, tmp_path):
    # The default conversion shuffles at write: the labels are mixed. --no-shuffle keeps the
    # folder walk's order: class after class, one run each.
    out, _ = converted
    mixed = json.loads(run_h5feed("inspect", out, "--json", check=EXIT_OK).stdout)
    classes = len(mixed["classes"])
    assert mixed["label_order"]["order"] == "mixed"
    assert mixed["label_order"]["runs"] > classes
    assert not any("sorted by label" in note for note in mixed["notes"])
    walked = tmp_path / "walked.h5"
    run_h5feed("convert", "imagefolder", zoo[0], walked, "--no-shuffle", check=EXIT_SKIPPED)
    summary = json.loads(run_h5feed("inspect", walked, "--json", check=EXIT_OK).stdout)
    assert summary["label_order"]["order"] == "sorted"
    assert summary["label_order"]["runs"] == summary["label_order"]["classes"] == classes
    assert summary["label_order"]["random_runs"] > classes
    text = run_h5feed("inspect", walked, check=EXIT_OK).stdout
    assert re.search(rf"^label order  sorted by label: {classes} runs of one label for "
                     rf"{classes} classes \(a random order has about \d+\)$", text, re.M), text
    assert f"h5feed rechunk {walked} OUT.h5 --seed 0 writes a shuffled copy" in text


def test_symbolic_links_are_followed_once_in_name_order_and_loops_never(tmp_path):
    # os.walk(followlinks=True) follows links to files and folders; h5feed does too, but walks
    # a folder reached by several links once and never follows a loop (os.walk would list
    # its files again at every level until the path grows too long). Which name such a folder
    # is listed under is the first in name order: it was the first the file system listed,
    # so two copies of one dataset could store different sources in a different order.
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "birds").mkdir(parents=True)
    Image.new("RGB", (8, 8), (1, 1, 1)).save(elsewhere / "birds" / "b.png")
    Image.new("RGB", (8, 8), (2, 2, 2)).save(elsewhere / "linked.png")
    root = tmp_path / "photos"
    (root / "cat" / "real").mkdir(parents=True)
    Image.new("RGB", (8, 8), (3, 3, 3)).save(root / "cat" / "real" / "x.png")
    # Made in name order: a file system that lists the newest entry first (tmpfs) or in hash
    # order (ext4) lists another alias before "alias0".
    for i in range(8):
        os.symlink("real", root / "cat" / f"alias{i}")
    os.symlink("..", root / "cat" / "real" / "up")  # a loop: back to the class folder
    os.symlink(elsewhere / "linked.png", root / "cat" / "file_link.png")
    os.symlink(elsewhere / "moved.png", root / "cat" / "dangling.png")
    os.symlink(elsewhere / "birds", root / "bird")  # a class folder that is a link
    out = tmp_path / "photos.h5"
    result = run_h5feed("convert", "imagefolder", root, out, "--no-shuffle", check=EXIT_SKIPPED)
    with h5py.File(out) as f:
        assert strings(f["classes"]) == ["bird", "cat"]
        assert strings(f["sources"]) == ["bird/b.png", "cat/file_link.png", "cat/alias0/x.png"]
        assert list(f["labels"][()]) == [0, 1, 1]
        assert strings(f["skipped_sources"]) == ["cat/dangling.png"]
    assert (f"cat/dangling.png is a symbolic link to {elsewhere / 'moved.png'}, which cannot be "
            "read (No such file or directory); fix or remove the link") in result.stderr
