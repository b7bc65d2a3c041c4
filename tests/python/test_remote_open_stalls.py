"""The open probe (docs/reliability.md, "Open probe") gives an open up as HDF5 spinning on a
damaged file when the probe says nothing for open_probe_stall_seconds. A remote open that
waits for a stalling server is not that: each of its requests is bounded by the remote
options' stall limit and retries (docs/remote.md, "Faults"), so the probe says it is waiting,
and the open ends as the remote options decide: opened when a retry is answered, else an
IoError naming the server, never a CorruptDataError calling the file damaged. `h5feed verify`,
which gives up its checking process when that says nothing for --stall-seconds, does the same.
The servers are Debian's nginx behind the fault proxy (tests/support/http_servers.py)."""
import os
import subprocess
import sys

import pytest

import h5feed
from conftest import H5FEED, write_h5feed_file

sys.path.insert(0, os.path.join(os.environ["H5FEED_SOURCE_DIR"], "tests", "support"))
from http_servers import FaultProxy, Nginx  # noqa: E402

# Each stalled attempt takes STALL_SECONDS; two of them outlast the probe's limit.
STALL_SECONDS = 1
PROBE_STALL_SECONDS = 1


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("served")
    write_h5feed_file(folder, "train.h5", chunk=32, samples=600, shape=(24, 20, 3))
    with Nginx(folder) as server:
        yield server


def test_an_open_whose_requests_stall_longer_than_the_probes_limit_opens(served):
    with FaultProxy(served.port, faults="stall", limit=2) as proxy:
        loader = h5feed.Loader(proxy.url("train.h5"), batch_size=64, dtype=None,
                               open_probe=True, open_probe_stall_seconds=PROBE_STALL_SECONDS,
                               remote={"stall_seconds": STALL_SECONDS, "retries": 3})
        assert proxy.stats()["faults"]["stall"] == 2
        assert sum(len(labels) for _, labels in loader) == 600


def test_a_server_that_always_stalls_at_open_is_an_io_error_not_a_damaged_file(served):
    with FaultProxy(served.port, faults="stall") as proxy:
        with pytest.raises(h5feed.IoError, match="nothing received") as caught:
            h5feed.Loader(proxy.url("train.h5"), batch_size=64, open_probe=True,
                          open_probe_stall_seconds=PROBE_STALL_SECONDS,
                          remote={"stall_seconds": STALL_SECONDS, "retries": 1})
        assert proxy.url("train.h5") in str(caught.value)
        assert "damaged" not in str(caught.value)


def verify(url, retries):
    return subprocess.run([H5FEED, "verify", url, "--stall-seconds", str(PROBE_STALL_SECONDS),
                           "--request-stall-seconds", str(STALL_SECONDS), "--retries",
                           str(retries)], capture_output=True, text=True, timeout=60)


def test_verify_of_a_server_that_stalls_longer_than_its_stall_limit_checks_the_file(served):
    with FaultProxy(served.port, faults="stall", limit=2) as proxy:
        result = verify(proxy.url("train.h5"), retries=3)
        assert proxy.stats()["faults"]["stall"] == 2
    assert result.returncode == 0, result.stdout + result.stderr
    assert "OK" in result.stdout


def test_verify_of_a_server_that_always_stalls_is_an_error_not_damage(served):
    with FaultProxy(served.port, faults="stall") as proxy:
        result = verify(proxy.url("train.h5"), retries=1)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "nothing received" in result.stderr and "DAMAGED" not in result.stderr
