"""Crash-safe conversion, beside test_convert_interrupted.py (Ctrl-C, SIGTERM, one SIGKILL,
a file-size limit): re-conversions with --force killed with SIGKILL at ten seeded random
moments leave under the output name either the previous file, byte for byte, or (when the
kill came after the rename) a complete new one that verifies; never a partial file. Leftover
'.partial' files are refused by the Loader and by verify, unless the kill came once the file
was complete: then they hold the whole new file's content (every dataset and attribute). And a
real full disk: a 2 MiB tmpfs (mounted in a user namespace with `unshare -rm`) gives a clear
error and no file."""
import hashlib
import os
import random
import signal
import subprocess
import time

import pytest

from conftest import H5FEED, make_image_folder, python_with_plugin, run_h5feed

PROBE = os.environ.get("EPOCH_PROBE", "epoch_probe")
KILLS = 10


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return make_image_folder(tmp_path_factory.mktemp("killed") / "images", 200, 100, 150)


def convert_command(folder, out):
    # One thread and zstd:19 stretch the conversion to a second or two.
    return [H5FEED, "convert", "imagefolder", str(folder), str(out), "--size", "96x96",
            "--threads", "1", "--compression", "zstd:19", "--quiet", "--force"]


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


CONTENT_DIGEST = """
import hashlib, sys, h5py
digest = hashlib.sha256()
with h5py.File(sys.argv[1], "r") as f:
    for name, value in sorted(f.attrs.items()):
        digest.update(repr((name, value)).encode())
    for name in sorted(f):
        values = f[name][...]
        # Strings come back as Python objects: their text, not their addresses.
        data = repr(values.tolist()) if values.dtype.kind == "O" else values.tobytes()
        digest.update(name.encode() + (data.encode() if isinstance(data, str) else data))
print(digest.hexdigest())
"""


def content_digest(path):
    """What h5py reads from `path`: every root attribute and every dataset's values."""
    result = python_with_plugin(CONTENT_DIGEST, args=[path])
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_sigkill_at_random_moments_leaves_the_previous_output_or_a_complete_one(folder, tmp_path):
    out = tmp_path / "train.h5"
    started = time.monotonic()
    subprocess.run(convert_command(folder, out), check=True, timeout=300)
    duration = time.monotonic() - started
    previous = digest(out)
    complete_content = content_digest(out)
    complete_partials = 0
    rng = random.Random(2024)
    moments = sorted(rng.uniform(0.0, 1.1 * duration) for _ in range(KILLS))
    seen = {"previous output kept": 0, "new output complete": 0}
    partials_checked = 0
    for moment in moments:
        process = subprocess.Popen(convert_command(folder, out), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        time.sleep(moment)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        assert out.exists(), f"killed at {moment:.2f} s: the output name holds nothing"
        if digest(out) == previous:
            seen["previous output kept"] += 1
        else:  # the kill came after the rename: the new file must be whole
            seen["new output complete"] += 1
            run_h5feed("verify", "--quiet", out, check=0)
            previous = digest(out)
        for name in os.listdir(tmp_path):
            if name == "train.h5":
                continue
            assert name.startswith(".train.h5.partial"), name
            partial = tmp_path / name
            verify = run_h5feed("verify", "--quiet", partial)
            if verify.returncode == 0:
                # Killed once the new file was complete, before the rename: the temporary name
                # holds the whole new file (conversions are deterministic), never a part of it.
                # Compared by what HDF5 reads from it, which is what the guarantee is about.
                assert content_digest(partial) == complete_content, verify.stdout
                complete_partials += 1
            else:
                assert verify.returncode in (1, 4), verify.stdout
                probe = subprocess.run([PROBE, "read", str(partial)], capture_output=True,
                                       text=True, timeout=60)
                assert probe.returncode == 1, probe.stdout  # refused, never read
                assert name in probe.stdout
                partials_checked += 1
            partial.unlink()  # as the next conversion would (it removes dead processes' files)
    print(f"\n{KILLS} kills over {duration:.2f} s: {seen}; {partials_checked} partial files "
          f"refused by the loader and verify, {complete_partials} complete ones not yet renamed")
    assert sum(seen.values()) == KILLS


def test_a_full_tmpfs_is_reported_and_leaves_no_file(folder, tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    probe = subprocess.run(["unshare", "-rm", "sh", "-c",
                            f"mount -t tmpfs -o size=2m tmpfs {mount}"],
                           capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs in a user namespace here: {probe.stderr.strip()}")
    out = mount / "train.h5"
    # Inside one namespace: mount, convert (about 5 MiB uncompressed), then list what is left.
    script = (f"mount -t tmpfs -o size=2m tmpfs {mount} && "
              f"{H5FEED} convert imagefolder {folder} {out} --size 96x96 --compression none "
              f"--quiet; echo exit=$?; ls -A {mount}")
    result = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True,
                            text=True, timeout=300)
    lines = result.stdout.strip().splitlines()
    assert lines[0] == "exit=1", result.stdout + result.stderr
    assert lines[1:] == [], f"left on the full disk: {lines[1:]}"
    message = result.stderr.lower()
    assert "no space" in message or "full" in message, result.stderr
    assert "train.h5" in result.stderr
