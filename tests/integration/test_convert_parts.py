"""A conversion in parts under a real launcher (Debian's openmpi-bin `mpirun`), then `h5feed
merge`: the merged file holds exactly the images, labels and skipped inputs of a one-process
conversion (read back with h5py), verifies, and the Loader reads it; parts that do not belong
together, a missing part and a part given twice are refused with a message naming them; an
interrupted or failed merge leaves no file that looks valid (docs/format.md, "Conversion in
parts")."""
import os
import resource
import shutil
import signal
import subprocess

import h5py
import numpy as np
import pytest

from conftest import H5FEED, make_image_folder, run_h5feed

PARTS = 3
# Version 1 (one size; K = 5 leaves every part a short last chunk) and version 2 (each image at
# its own size, raw and JPEG, in chunks of 16 KiB).
LAYOUTS = {
    "v1": ["--size", "24x24", "--chunk", "5"],
    "v2-raw": ["--max-side", "48", "--chunk-bytes", "16K"],
    "v2-jpeg": ["--max-side", "48", "--chunk-bytes", "16K", "--encoding", "jpeg:85"],
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = make_image_folder(tmp_path_factory.mktemp("parts") / "images", 40, 20, 70)
    # A broken input: skipped by the part that converts it, carried by merge.
    (root / sorted(os.listdir(root))[0] / "broken.jpg").write_bytes(b"\xff\xd8 not a jpeg")
    return root


def mpirun(*args, env=None):
    launcher = ["mpirun", "--oversubscribe", "-n", str(PARTS)]
    if os.geteuid() == 0:
        launcher.insert(1, "--allow-run-as-root")
    return subprocess.run([*launcher, H5FEED, *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=300)


def part_paths(out, count=PARTS):
    stem, suffix = os.path.splitext(str(out))
    return [f"{stem}-{k:05d}-of-{count:05d}{suffix}" for k in range(count)]


def rows_by_source(path):
    """{source: (stored bytes, shape, label)} of every row, and the skipped sources."""
    with h5py.File(path, "r") as f:
        sources = f["sources"].asstr()[:]
        labels = f["labels"][:]
        if "image_offsets" in f:  # version 2: a flat byte array and a table
            flat = f["images"][:]
            stored = [flat[o:o + n].tobytes()
                      for o, n in zip(f["image_offsets"][:], f["image_bytes"][:])]
            shapes = [tuple(s) for s in f["image_shapes"][:]]
        else:
            images = f["images"][:]
            stored = [image.tobytes() for image in images]
            shapes = [image.shape for image in images]
        rows = {s: (b, sh, int(l)) for s, b, sh, l in zip(sources, stored, shapes, labels)}
        assert len(rows) == len(sources)
        return rows, sorted(f["skipped_sources"].asstr()[:])


@pytest.fixture(scope="module", params=sorted(LAYOUTS))
def converted(request, folder, tmp_path_factory):
    """One conversion under mpirun in 3 parts, merged; and the same conversion in one process."""
    options = LAYOUTS[request.param]
    work = tmp_path_factory.mktemp(request.param)
    out = work / "train.h5"
    result = mpirun("convert", "imagefolder", folder, out, *options, "--part", "auto", "-q")
    # 0 although a part skipped the broken input: mpirun ends every other part of the job
    # when one exits non-zero, so a part leaves the skip to merge's exit status.
    assert result.returncode == 0, result.stdout + result.stderr
    merged = work / "merged.h5"
    run_h5feed("merge", *part_paths(out), merged, "--seed", "7", check=3)
    single = work / "single.h5"
    run_h5feed("convert", "imagefolder", folder, single, *options, "-q", check=3)
    return {"out": out, "merged": merged, "single": single, "layout": request.param}


def test_parts_are_named_and_record_which_part_they_are(converted):
    total = 0
    for k, path in enumerate(part_paths(converted["out"])):
        with h5py.File(path, "r") as f:
            assert f.attrs["part_index"] == k and f.attrs["part_count"] == PARTS
            assert f.attrs["conversion_inputs"] == 41  # 40 images and the broken one
            assert len(f.attrs["part_fingerprint"]) == 16
            total += f.attrs["num_images"] + f.attrs["num_skipped"]
    assert total == 41
    assert not converted["out"].exists()  # only the parts are written


def test_merged_file_equals_a_one_process_conversion_as_a_set(converted):
    merged_rows, merged_skipped = rows_by_source(converted["merged"])
    single_rows, single_skipped = rows_by_source(converted["single"])
    assert len(merged_rows) == 40
    assert merged_rows == single_rows  # same pixels (or JPEG bytes), shapes and labels
    assert merged_skipped == single_skipped and len(merged_skipped) == 1
    with h5py.File(converted["merged"], "r") as f, h5py.File(converted["single"], "r") as g:
        assert list(f["classes"].asstr()[:]) == list(g["classes"].asstr()[:])
        assert f.attrs["merged_parts"] == PARTS and f.attrs["merge_seed"] == 7
        assert "part_index" not in f.attrs
        for name in ("h5feed_format_version", "layout", "compression", "shuffle_seed"):
            assert f.attrs[name] == g.attrs[name]


def test_merged_chunks_are_the_parts_chunks_interleaved(converted):
    """Each copied chunk is byte for byte one of a part's, and the first chunks come from more
    than one part."""
    def stored_chunks(path):
        with h5py.File(path, "r") as f:
            images = f["images"]
            step = images.chunks[0]
            return [images.id.read_direct_chunk((i * step,) + (0,) * (images.ndim - 1))[1]
                    for i in range(len(f["chunk_index"]))]
    part_chunks = [stored_chunks(p) for p in part_paths(converted["out"])]
    owner = {chunk: k for k, chunks in enumerate(part_chunks) for chunk in chunks}
    merged = stored_chunks(converted["merged"])
    copied = [owner[c] for c in merged if c in owner]
    assert all(c in owner for c in merged[:len(copied)])  # copies first
    if converted["layout"] == "v1":  # the rows of the parts' short last chunks come last
        short = []
        for path in part_paths(converted["out"]):
            with h5py.File(path, "r") as f:
                short.append(f.attrs["num_images"] % 5)
        assert sum(short) > 0
        assert len(merged) - len(copied) == -(-sum(short) // 5)
        assert len(copied) == sum(map(len, part_chunks)) - sum(1 for n in short if n)
    else:
        assert len(copied) == len(merged) == sum(map(len, part_chunks))
    assert len(set(copied[:6])) > 1
    for k in range(PARTS):  # each part's chunks keep their order
        mine = [c for c in merged if owner.get(c) == k]
        assert mine == part_chunks[k][:len(mine)]


def test_merged_file_verifies_and_the_loader_reads_every_row_once(converted):
    result = run_h5feed("verify", converted["merged"], check=0)
    assert "sound" in result.stdout.lower() or "ok" in result.stdout.lower(), result.stdout
    h5feed = pytest.importorskip("h5feed")
    with h5py.File(converted["merged"], "r") as f:
        labels = f["labels"][:]
    if converted["layout"] == "v1":  # uint8 batches as stored
        options = {"dtype": None}
    else:  # images at their own size: resized and normalized to one shape
        options = {"augment": h5feed.Augment(resize=24, center_crop=24)}
    loader = h5feed.Loader(str(converted["merged"]), 8, with_indices=True, **options)
    seen = []
    for images, batch_labels, indices in loader:
        assert images.shape[0] == len(indices) and 24 in images.shape[1:]
        np.testing.assert_array_equal(batch_labels.numpy(), labels[indices.numpy()])
        seen.extend(indices.tolist())
    assert sorted(seen) == list(range(40))


def test_same_seed_same_file_other_seed_other_order(converted, tmp_path):
    again = tmp_path / "again.h5"
    other = tmp_path / "other.h5"
    parts = part_paths(converted["out"])
    run_h5feed("merge", *reversed(parts), again, "--seed", "7", "-q", check=3)
    run_h5feed("merge", *parts, other, "--seed", "8", "-q", check=3)
    with h5py.File(converted["merged"], "r") as f, h5py.File(again, "r") as g, \
            h5py.File(other, "r") as h:
        assert list(f["sources"].asstr()[:]) == list(g["sources"].asstr()[:])
        assert list(f["sources"].asstr()[:]) != list(h["sources"].asstr()[:])


def refused(*args, contains):
    result = run_h5feed("merge", *args, check=1)
    for text in contains:
        assert text in result.stderr, result.stderr
    return result


def test_missing_duplicated_and_foreign_parts_are_refused(converted, folder, tmp_path):
    if converted["layout"] != "v1":
        pytest.skip("the checks do not depend on the layout")
    p0, p1, p2 = part_paths(converted["out"])
    out = tmp_path / "out.h5"
    refused(p0, p2, out, contains=["1 of the 3 parts are missing: part 1"])
    refused(p0, p1, p1, p2, out, contains=["part 1 of 3 is given twice", p1])
    # Part 1 of the same folder but another seed, and of other options.
    foreign = tmp_path / "foreign.h5"
    run_h5feed("convert", "imagefolder", folder, foreign, *LAYOUTS["v1"], "--part", "1/3",
               "--seed", "5", "-q", check=None)
    foreign_part = part_paths(foreign)[1]
    refused(p0, foreign_part, p2, out, contains=["shuffle_seed", "'5'", "'0'", foreign_part])
    other = tmp_path / "other.h5"
    run_h5feed("convert", "imagefolder", folder, other, "--size", "24x24", "--chunk", "6",
               "--part", "1/3", "-q", check=None)
    refused(p0, part_paths(other)[1], p2, out, contains=["chunk_images", "'5'", "'6'"])
    # A part of a conversion of another folder: only the fingerprint tells.
    smaller = tmp_path / "smaller"
    shutil.copytree(folder, smaller)
    victim = sorted((smaller / sorted(os.listdir(smaller))[1]).iterdir())[0]
    victim.rename(victim.with_name("renamed_" + victim.name))
    moved = tmp_path / "moved.h5"
    run_h5feed("convert", "imagefolder", smaller, moved, *LAYOUTS["v1"], "--part", "1/3", "-q",
               check=None)
    refused(p0, part_paths(moved)[1], p2, out, contains=["part_fingerprint", "different inputs"])
    # A file converted whole, and the merged file itself.
    refused(converted["single"], p1, p2, out, contains=["not a part", "without --part"])
    refused(converted["merged"], p1, p2, out, contains=["not a part", "merged already"])
    assert not out.exists() and not [n for n in os.listdir(tmp_path) if ".partial" in n]


def test_part_options_are_checked(folder, tmp_path):
    out = tmp_path / "train.h5"
    base = ["convert", "imagefolder", folder, out, "--size", "16"]
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "WORLD_SIZE", "SLURM_PROCID", "SLURM_NTASKS")
           and not k.startswith("OMPI_")}
    result = run_h5feed(*base, "--part", "auto", env=env, check=2)
    assert "no launcher's rank and size" in result.stderr and "OMPI_COMM_WORLD_RANK" in result.stderr
    result = run_h5feed(*base, "--part", "auto", env={**env, "RANK": "3", "WORLD_SIZE": "2"},
                        check=2)
    assert "RANK=3 and WORLD_SIZE=2" in result.stderr
    result = run_h5feed(*base, "--part", "auto", env={**env, "SLURM_PROCID": "1"}, check=2)
    assert "SLURM_NTASKS=(unset)" in result.stderr
    for bad in ("3/3", "1", "a/b", "-1/2"):
        assert "--part" in run_h5feed(*base, "--part", bad, check=2).stderr
    # srun's variables, and a name without a suffix.
    run_h5feed("convert", "imagefolder", folder, tmp_path / "plain", "--size", "16", "--part",
               "auto", "-q", env={**env, "SLURM_PROCID": "1", "SLURM_NTASKS": "2"}, check=None)
    assert os.path.exists(tmp_path / "plain-00001-of-00002")
    result = run_h5feed(*base, "--part", "0/50", check=1)
    assert "part 0 of 50 has no input: 41 inputs make at most 41 parts" in result.stderr


def test_npy_and_rechunk_parts_merge_to_the_one_process_file(tmp_path):
    rng = np.random.default_rng(3)
    np.save(tmp_path / "images.npy", rng.integers(0, 256, (53, 8, 6, 3), dtype=np.uint8))
    np.save(tmp_path / "labels.npy", rng.integers(0, 4, 53))
    for source, extra in (("npy", ["convert", "npy", tmp_path / "images.npy",
                                   tmp_path / "labels.npy"]),
                          ("rechunk", ["rechunk", tmp_path / "whole_npy.h5"])):
        out = tmp_path / f"{source}.h5"
        for k in range(4):
            run_h5feed(*extra, out, "--chunk", "4", "--part", f"{k}/4", "-q", check=0)
        run_h5feed("merge", *part_paths(out, 4), tmp_path / f"merged_{source}.h5", "-q", check=0)
        run_h5feed(*extra, tmp_path / f"whole_{source}.h5", "--chunk", "4", "-q", check=0)
        merged, _ = rows_by_source(tmp_path / f"merged_{source}.h5")
        whole, _ = rows_by_source(tmp_path / f"whole_{source}.h5")
        assert merged == whole and len(merged) == 53


def _limit_file_size():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))


@pytest.fixture(scope="module")
def big_parts(tmp_path_factory):
    """4 parts of 24 MiB of uncompressed 64x64 images in chunks of one: slow enough to stop."""
    work = tmp_path_factory.mktemp("big")
    rng = np.random.default_rng(5)
    np.save(work / "images.npy", rng.integers(0, 256, (2048, 64, 64, 3), dtype=np.uint8))
    out = work / "big.h5"
    for k in range(4):
        run_h5feed("convert", "npy", work / "images.npy", out, "--chunk", "1", "--compression",
                   "none", "--part", f"{k}/4", "-q", check=0)
    return part_paths(out, 4)


def test_a_merge_that_fails_for_a_full_disk_leaves_nothing(big_parts, tmp_path):
    out = tmp_path / "merged.h5"
    result = subprocess.run([H5FEED, "merge", *big_parts, out], capture_output=True, text=True,
                            preexec_fn=_limit_file_size, timeout=300)
    assert result.returncode == 1, result.stderr
    # EFBIG, as the disk-full path (ENOSPC) takes it, says which limit was reached.
    assert "largest size allowed" in result.stderr and "ulimit -f" in result.stderr, result.stderr
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGKILL])
def test_an_interrupted_merge_leaves_no_file_that_looks_valid(big_parts, tmp_path,
                                                              signal_number):
    out = tmp_path / "merged.h5"
    process = subprocess.Popen([H5FEED, "merge", *big_parts, out], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    while not [n for n in os.listdir(tmp_path) if ".partial" in n]:
        assert process.poll() is None, process.communicate()
    process.send_signal(signal_number)
    _, stderr = process.communicate(timeout=60)
    if signal_number == signal.SIGINT:
        assert process.returncode == 130 and "merge interrupted" in stderr, stderr
        assert os.listdir(tmp_path) == []
        return
    assert not out.exists()
    for name in os.listdir(tmp_path):
        assert name.startswith(".merged.h5.partial")
        try:
            with h5py.File(tmp_path / name, "r") as f:
                assert "h5feed_format" not in f.attrs
        except (OSError, KeyError):
            pass  # not even readable as HDF5, or its root group not yet written
    run_h5feed("merge", *big_parts, out, "-q", check=0)  # removes the dead merge's leftover
    assert os.listdir(tmp_path) == ["merged.h5"]
