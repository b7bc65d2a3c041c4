"""Several readers on one node, reading from the disk (docs/reader.md, "Reading from the disk").

Four processes (one per GPU of a node) read one file dropped from the page cache, each its
shard (rank r of 4), through the page cache and with O_DIRECT. Each reads ahead as many bytes
as the device gives it (its bandwidth x response time), within a quarter of its cache, so
none takes the device for itself: every process must deliver exactly its shard, and must have
delivered an eighth of it before the first of them finished (a process whose reads waited
behind the others' would still be at its start; this virtual disk alone serves processes
unevenly over a fraction of a second, up to 3x, hence not half). epoch_probe starts the four
epochs together (--together) and reports when each reached an eighth and its end, on the
machine's one steady clock. Rates are not asserted here (a shared machine's disk is too noisy for that):
bench/cold_read_bench.py measures them against parallel dd."""
import os
import subprocess

import pytest

from test_many_readers import expected_digest

PROBE = os.environ.get("EPOCH_PROBE", "epoch_probe")
SAMPLES, SHAPE, CHUNK = 16384, (64, 64, 3), 32  # 200 MB in 512 chunks of 384 KiB
RANKS = 4


@pytest.fixture(scope="module")
def train(tmp_path_factory):
    path = tmp_path_factory.mktemp("disk") / "train.h5"
    subprocess.run([PROBE, "write", str(path), str(SAMPLES), "x".join(map(str, SHAPE)),
                    str(CHUNK), "none"], check=True, timeout=120)
    return path


def drop_from_page_cache(path):
    """Asks the kernel to drop `path` from the page cache (tmpfs keeps it: the test then reads
    from memory, and still checks what it checks)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def reads_direct(path):
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_DIRECT))
        return True
    except OSError:
        return False


@pytest.mark.parametrize("direct", ["off", "on"])
def test_four_processes_reading_their_shards_cold_all_progress_together(train, direct):
    if direct == "on" and not reads_direct(train):
        pytest.skip("the file system refuses O_DIRECT")
    drop_from_page_cache(train)
    processes = [subprocess.Popen(
        [PROBE, "read", str(train), "--rank", str(rank), "--world-size", str(RANKS),
         "--direct", direct, "--cache-mb", "16", "--threads", "1", "--together", "on"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for rank in range(RANKS)]
    try:
        for process in processes:  # every Loader open before any epoch starts
            assert process.stdout.readline().strip() == "ready", process.stderr.read()
        for process in processes:
            process.stdin.write("go\n")
            process.stdin.flush()
        outputs = [process.communicate(timeout=300) for process in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
    digests, times = [], []
    for process, (out, err) in zip(processes, outputs):
        assert process.returncode == 0, out + err
        ok, timing = out.strip().splitlines()[-2:]
        fields = dict(field.split("=") for field in ok.split()[1:])
        assert int(fields["rows"]) == SAMPLES // RANKS, ok
        digests.append(int(fields["digest"]))
        start, eighth, end, read = timing.split()[1:]
        times.append((float(start), float(eighth), float(end), int(read)))
    # The shards are disjoint and cover the file: their digests add up to the whole file's.
    assert sum(digests) % (1 << 64) == expected_digest(train), digests
    # Each read its own share of the file's chunks, and no other's: its 128, two it may share
    # with a neighbour, and the next epoch's first window of 8 (read while this one ends).
    chunk_bytes = CHUNK * SHAPE[0] * SHAPE[1] * SHAPE[2]
    for _, _, _, read in times:
        assert read <= (SAMPLES // RANKS // CHUNK + 2 + 8) * chunk_bytes, times
    first_end = min(end for _, _, end, _ in times)
    for rank, (start, eighth, end, _) in enumerate(times):
        assert eighth <= first_end, (
            f"rank {rank} reached an eighth of its shard {eighth - first_end:.3f} s after the "
            f"first rank finished: its reads waited behind the others' ({times})")
