"""Damaged files are refused, never read wrongly: bytes flipped inside chunks (zstd, gzip and
uncompressed files), bytes flipped in the metadata between them, files truncated at many
offsets, format attributes and chunk-table rows changed with h5py. For every case both the
Loader (a full epoch in its own process: epoch_probe checks every pixel) and `h5feed verify`
run under a timeout. Nothing may crash, hang or deliver a wrong pixel; whatever damages data
must be reported, naming the file and, for a chunk, the chunk. A summary table of cases tried
and caught is printed and written to corruption_summary.txt (docs/reliability.md quotes it)."""
import json
import os
import random
import shutil
import subprocess

import h5py
import numpy as np
import pytest

from conftest import H5FEED

PROBE = os.environ.get("EPOCH_PROBE", "epoch_probe")
TIMEOUT = 30  # seconds per process: a hang fails the case, not the whole run
SAMPLES, SHAPE, CHUNK = 96, "16x16x3", 8  # 12 chunks of 6 KiB decoded
CHUNKS = SAMPLES // CHUNK
COMPRESSIONS = {"zstd": "zstd:3", "gzip": "gzip:6", "none": "none"}

# category -> list of case results (filled by the tests, printed by test_summary)
RESULTS = {}


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bases")
    paths = {}
    for name, compression in COMPRESSIONS.items():
        path = folder / f"{name}.h5"
        subprocess.run([PROBE, "write", str(path), str(SAMPLES), SHAPE, str(CHUNK), compression],
                       check=True, timeout=TIMEOUT)
        paths[name] = path
    return paths


def finish(process):
    """(exit code, output) of a started process; None for the code when it hung."""
    try:
        out, err = process.communicate(timeout=TIMEOUT)
        return process.returncode, out + err
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return None, ""


def run_case(path, expect_chunk=None):
    """Runs the loader's epoch and verify on `path` (at once: two cores); returns what each
    did."""
    started = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
               for command in ([PROBE, "read", str(path)],
                               [H5FEED, "verify", "--json", "--quiet", str(path)])]
    (probe_code, probe_out), (verify_code, verify_out) = map(finish, started)
    loader = {None: "HANG", 0: "read correctly", 1: "caught"}.get(probe_code, "WRONG DATA")
    if probe_code is not None and probe_code < 0:
        loader = f"CRASH (signal {-probe_code})"
    verify = {None: "HANG", 0: "said OK", 1: "refused", 4: "caught"}.get(
        verify_code, f"exit {verify_code}")
    if verify_code is not None and verify_code < 0:
        verify = f"CRASH (signal {-verify_code})"
    outcome = {"loader": loader, "loader_message": probe_out, "verify": verify,
               "verify_message": verify_out, "expect_chunk": expect_chunk}
    if verify == "caught":
        outcome["bad_chunks"] = [b["chunk"] for b in json.loads(verify_out)["bad_chunks"]]
    return outcome


def check_and_record(category, name, path, outcome, loader_may_read=False):
    """The rules every case obeys; returns nothing, asserts."""
    RESULTS.setdefault(category, []).append((name, outcome))
    where = f"{category} / {name}: {outcome}"
    assert outcome["loader"] in ("caught", "read correctly"), where
    assert outcome["verify"] in ("caught", "refused", "said OK"), where
    if outcome["loader"] == "caught":
        assert os.path.basename(path) in outcome["loader_message"], where
    if outcome["verify"] == "refused":
        assert os.path.basename(path) in outcome["verify_message"], where
    chunk = outcome["expect_chunk"]
    if chunk is not None:
        if outcome["loader"] == "caught" and "chunk" in outcome["loader_message"]:
            assert f"chunk {chunk} " in outcome["loader_message"], where
        if outcome["verify"] == "caught" and outcome["bad_chunks"]:
            assert chunk in outcome["bad_chunks"], where
    if not loader_may_read:
        assert outcome["loader"] == "caught", where
        assert outcome["verify"] in ("caught", "refused"), where


def chunk_table(path):
    with h5py.File(path, "r") as f:
        return f["chunk_index"][()]


def copy(base, tmp_path, name):
    path = tmp_path / f"{name}.h5"
    shutil.copyfile(base, path)
    return path


def flip(path, offset, rng):
    with open(path, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)[0]
        f.seek(offset)
        f.write(bytes([byte ^ rng.randrange(1, 256)]))


@pytest.mark.parametrize("compression", list(COMPRESSIONS))
def test_a_byte_flipped_inside_any_chunk_is_caught_naming_the_chunk(bases, tmp_path, compression):
    rng = random.Random(7)
    table = chunk_table(bases[compression])
    for c in range(CHUNKS):
        path = copy(bases[compression], tmp_path, f"flip{c}")
        row = table[c]
        flip(path, int(row["address"]) + rng.randrange(int(row["stored_bytes"])), rng)
        check_and_record(f"byte flipped in a chunk ({compression})", f"chunk {c}", path,
                         run_case(path, expect_chunk=c))


@pytest.mark.parametrize("compression", ["zstd", "none"])
def test_bytes_flipped_between_chunks_are_caught_or_harmless_never_wrong(bases, tmp_path,
                                                                          compression):
    # Metadata, the chunk table, strings, free space: some bytes matter (B-tree, table,
    # attributes), some do not (padding, the sources heap the loader never reads). The rule:
    # caught or read correctly, never wrong pixels, never a crash or a hang.
    rng = random.Random(11)
    base = bases[compression]
    table = chunk_table(base)
    inside = [(int(r["address"]), int(r["address"]) + int(r["stored_bytes"])) for r in table]
    size = os.path.getsize(base)
    offsets = []
    while len(offsets) < 14:
        offset = rng.randrange(size)
        if not any(a <= offset < b for a, b in inside):
            offsets.append(offset)
    for offset in offsets:
        path = copy(base, tmp_path, f"meta{offset}")
        flip(path, offset, rng)
        check_and_record(f"byte flipped outside chunks ({compression})", f"byte {offset}", path,
                         run_case(path), loader_may_read=True)


@pytest.mark.parametrize("compression", ["zstd", "none"])
def test_a_file_truncated_anywhere_is_refused(bases, tmp_path, compression):
    base = bases[compression]
    size = os.path.getsize(base)
    # 36 offsets spread over the file, and a few in the first and the last KiB.
    offsets = sorted({size * i // 36 for i in range(36)} |
                     {0, 1, 7, 8, 512, 1023, 1024} |
                     {size - d for d in (1, 2, 8, 512, 1023, 1024)})
    for offset in offsets:
        path = copy(base, tmp_path, f"cut{offset}")
        os.truncate(path, offset)
        check_and_record(f"truncated ({compression})", f"at byte {offset} of {size}", path,
                         run_case(path))


def set_attr(name, value):
    def change(f):
        f.attrs[name] = value
    return change


def del_attr(name):
    def change(f):
        del f.attrs[name]
    return change


def set_label(row, value):
    def change(f):
        f["labels"][row] = value
    return change


def table_field(chunk, field, value):
    def change(f):
        table = f["chunk_index"][()]
        table[field][chunk] = value(int(table[field][chunk]))
        f["chunk_index"][...] = table
    return change


def row_checksum(row):
    def change(f):
        f["row_checksums"][row] ^= np.uint64(1)
    return change


def replace_row_checksums(data):
    """/row_checksums replaced by `data`, its checksum attribute kept."""
    def change(f):
        del f["row_checksums"]
        f.create_dataset("row_checksums", data=data)
        f["row_checksums"].attrs["checksum"] = "xxh3-64"
    return change


def replace_dataset(name, data):
    def change(f):
        del f[name]
        f.create_dataset(name, data=data)
    return change


def reshape_images(f):
    del f["images"]
    f.create_dataset("images", shape=(SAMPLES, 16, 8, 3), chunks=(CHUNK, 16, 8, 3), dtype="u1")


# (name, change, the chunk that must be named or None, whether the loader may read correctly
# because it does not use what changed)
METADATA_CASES = [
    ("format version 3 (newer)", set_attr("h5feed_format_version", np.int32(3)), None, False),
    ("format version 0", set_attr("h5feed_format_version", np.int32(0)), None, False),
    ("format name changed", set_attr("h5feed_format", "h5feeb"), None, False),
    ("format name removed", del_attr("h5feed_format"), None, False),
    ("num_images 95", set_attr("num_images", np.int64(SAMPLES - 1)), None, False),
    ("num_images 10^12", set_attr("num_images", np.int64(10**12)), None, False),
    ("chunk_images 4", set_attr("chunk_images", np.int64(4)), None, False),
    ("num_classes 10^9", set_attr("num_classes", np.int64(10**9)), None, False),
    ("layout NCHW", set_attr("layout", "NCHW"), None, False),
    ("compression attribute wrong", set_attr("compression", "zstd:19"), None, True),
    ("num_skipped 5", set_attr("num_skipped", np.int64(5)), None, True),
    ("images reshaped (16x8x3)", reshape_images, None, False),
    ("label 7 of 7 classes", set_label(5, 7), None, False),
    ("label -1", set_label(50, -1), None, False),
    ("labels removed", lambda f: f.__delitem__("labels"), None, False),
    ("classes removed", lambda f: f.__delitem__("classes"), None, False),
    ("sources one short", replace_dataset("sources", np.array(["x"] * (SAMPLES - 1), dtype=object)),
     None, True),
    # Labels and string lists carry checksums (xxh3_64): a label changed to another valid class
    # is refused at open; a source path edited, which the loader never reads, verify reports.
    ("label 5 -> 6 (in range)", lambda f: f["labels"].__setitem__(5, 6), None, False),
    ("source path edited", lambda f: f["sources"].__setitem__(3, "elsewhere.png"), None, True),
    ("table: address +1 (chunk checked at open)", table_field(3, "address", lambda v: v + 1), 3,
     False),
    ("table: address +1 (chunk 5)", table_field(5, "address", lambda v: v + 1), 5, False),
    ("table: address 0", table_field(5, "address", lambda v: 0), 5, False),
    ("table: stored_bytes -1", table_field(5, "stored_bytes", lambda v: v - 1), 5, False),
    ("table: stored_bytes 10^12", table_field(5, "stored_bytes", lambda v: 10**12), 5, False),
    # The loader checks each image against /row_checksums as it copies it, not chunks: the
    # intact pixels read correctly. verify compares both and names the chunk.
    ("table: checksum ^ 1", table_field(5, "checksum", lambda v: v ^ 1), 5, True),
    ("row checksum of row 41 ^ 1", row_checksum(41), 5, False),
    ("row checksums one short", replace_row_checksums(np.zeros(SAMPLES - 1, dtype="<u8")), None,
     False),
    ("row checksums as int32", replace_row_checksums(np.zeros(SAMPLES, dtype="<i4")), None,
     False),
    ("row checksums without their attribute", replace_dataset("row_checksums", np.zeros(
        SAMPLES, dtype="<u8")), None, False),
    ("table: filter mask 1", table_field(5, "filter_mask", lambda v: 1), 5, False),
    ("table: a row missing", replace_dataset("chunk_index", None), None, False),
]


@pytest.mark.parametrize("compression", ["zstd", "none"])
def test_changed_attributes_and_chunk_table_are_caught(bases, tmp_path, compression):
    for i, (name, change, chunk, loader_may_read) in enumerate(METADATA_CASES):
        if compression == "none" and name == "table: filter mask 1":
            continue  # no filter to skip: the mask means nothing for an unfiltered file
        path = copy(bases[compression], tmp_path, f"meta{i}")
        with h5py.File(path, "r+") as f:
            if name == "table: a row missing":
                table = f["chunk_index"][()][:-1]
                checksum = f["chunk_index"].attrs["checksum"]
                del f["chunk_index"]
                f.create_dataset("chunk_index", data=table)
                f["chunk_index"].attrs["checksum"] = checksum
            else:
                change(f)
        outcome = run_case(path, expect_chunk=chunk)
        check_and_record(f"metadata changed ({compression})", name, path, outcome,
                         loader_may_read=loader_may_read)
        # What the loader does not use, verify must still catch.
        assert outcome["verify"] in ("caught", "refused"), (name, outcome)


def test_summary(capsys):
    """Prints the table the closing note quotes (and writes it beside the test's build dir)."""
    lines = [f"{'corruption':44} {'tried':>5} {'loader caught':>13} {'loader read ok':>14} "
             f"{'verify caught':>13} {'uncaught':>8}"]
    totals = [0, 0, 0, 0, 0]
    for category, cases in RESULTS.items():
        tried = len(cases)
        loader = sum(o["loader"] == "caught" for _, o in cases)
        harmless = sum(o["loader"] == "read correctly" for _, o in cases)
        verify = sum(o["verify"] in ("caught", "refused") for _, o in cases)
        # Uncaught: data changed and neither reported it. A harmless byte (the loader read
        # every pixel correctly and verify said OK) is not counted: nothing was damaged.
        uncaught = sum(o["loader"] not in ("caught", "read correctly") or
                       (o["loader"] != "caught" and o["verify"] == "said OK" and
                        "outside chunks" not in category) for _, o in cases)
        for i, value in enumerate((tried, loader, harmless, verify, uncaught)):
            totals[i] += value
        lines.append(f"{category:44} {tried:5} {loader:13} {harmless:14} {verify:13} "
                     f"{uncaught:8}")
    lines.append(f"{'total':44} {totals[0]:5} {totals[1]:13} {totals[2]:14} {totals[3]:13} "
                 f"{totals[4]:8}")
    table = "\n".join(lines)
    with open("corruption_summary.txt", "w") as out:
        out.write(table + "\n")
    with capsys.disabled():
        print("\n" + table)
    assert totals[0] > 0
    assert totals[4] == 0, table
