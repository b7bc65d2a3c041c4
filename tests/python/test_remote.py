"""Remote files from Python and the command: h5feed.Loader, h5feed.inspect and `h5feed
inspect | verify | bench` given an http:// URL served by Debian's nginx on the loopback
(tests/support/http_servers.py). Every batch equals the local file's; errors name the URL
and never a pre-signed URL's query."""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest
import torch

import h5feed
from conftest import H5FEED, write_h5feed_file

sys.path.insert(0, os.path.join(os.environ["H5FEED_SOURCE_DIR"], "tests", "support"))
from http_servers import Nginx  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A folder served by nginx holding train.h5: 3,000 images of 24 x 20 x 3 in 94 chunks
    (4.3 MB, most of it past the 256 KiB an open keeps), and the server."""
    folder = tmp_path_factory.mktemp("served")
    write_h5feed_file(folder, "train.h5", chunk=32, samples=3000, shape=(24, 20, 3))
    with Nginx(folder) as server:
        yield folder, server


def epochs_of(path, epochs=2, **options):
    loader = h5feed.Loader(str(path), batch_size=64, threads=2, cache_bytes=1 << 20,
                           with_indices=True, **options)
    out = []
    for epoch in range(epochs):
        loader.set_epoch(epoch)
        for images, labels, indices in loader:
            out.append((images.clone(), labels.clone(), indices.clone()))
    return out


@pytest.mark.parametrize("options", [{"dtype": None}, {"sampler": "random"}])
def test_every_batch_of_a_served_file_equals_the_local_files(served, options):
    folder, server = served
    local = epochs_of(folder / "train.h5", **options)
    remote = epochs_of(server.url("train.h5"), **options)
    assert len(remote) == len(local) == 2 * 47
    for (x, y, i), (u, v, j) in zip(local, remote):
        assert torch.equal(i, j) and torch.equal(y, v) and torch.equal(x, u)
    chunk_reads = [line for line in server.requests() if "/train.h5" in line]
    assert len(chunk_reads) > 2 * 60  # the chunks came over HTTP, in both epochs


def test_the_loader_reports_the_url_it_reads(served):
    _, server = served
    loader = h5feed.Loader(server.url("train.h5"), batch_size=64, dtype=None)
    assert loader.dataset["path"] == server.url("train.h5")
    assert loader.dataset["samples"] == 3000 and loader.dataset["chunks"] == 94


def test_a_missing_url_raises_not_found_without_the_query(served):
    _, server = served
    url = server.url("absent.h5") + "?X-Amz-Signature=0123456789abcdef"
    with pytest.raises(h5feed.NotFoundError) as caught:
        h5feed.Loader(url, batch_size=8)
    assert server.url("absent.h5") in str(caught.value)
    assert "0123456789abcdef" not in str(caught.value)


def test_inspect_of_a_url_reports_what_inspect_of_the_file_does(served):
    folder, server = served
    local, remote = h5feed.inspect(folder / "train.h5"), h5feed.inspect(server.url("train.h5"))
    assert remote["path"] == server.url("train.h5")
    for key in ("images", "labels", "classes", "file_bytes", "is_h5feed", "attributes"):
        assert remote[key] == local[key], key
    text = subprocess.run([H5FEED, "inspect", server.url("train.h5")], capture_output=True,
                          text=True, timeout=60)
    assert text.returncode == 0, text.stderr
    assert server.url("train.h5") in text.stdout and "3,000 images" in text.stdout


def test_verify_of_a_url_checks_every_chunk_and_finds_a_damaged_one(served, tmp_path):
    folder, server = served
    ok = subprocess.run([H5FEED, "verify", server.url("train.h5")], capture_output=True,
                        text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert "nothing wrong found in 94 chunks" in ok.stdout
    damaged = folder / "damaged.h5"
    shutil.copy(folder / "train.h5", damaged)
    with h5py.File(damaged, "r") as f:  # a byte in the middle of the middle chunk
        table = f["chunk_index"][()]
        middle = table[len(table) // 2]
        offset = int(middle["address"]) + int(middle["stored_bytes"]) // 2
    with open(damaged, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([byte[0] ^ 0xFF]))
    bad = subprocess.run([H5FEED, "verify", server.url("damaged.h5"), "--json"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0
    report = json.loads(bad.stdout)
    assert len(report["bad_chunks"]) == 1


def test_rechunk_reads_a_url_as_it_reads_the_local_file(served, tmp_path):
    # `h5feed rechunk URL OUT` said "IN: URL does not exist", where h5feed.rechunk of the URL
    # converted it.
    folder, server = served
    remote, local = tmp_path / "remote.h5", tmp_path / "local.h5"
    for source, out in ((server.url("train.h5"), remote), (folder / "train.h5", local)):
        result = subprocess.run([H5FEED, "rechunk", source, out, "--chunk", "100", "--quiet"],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
    with h5py.File(remote) as r, h5py.File(local) as l:
        np.testing.assert_array_equal(r["images"][:], l["images"][:])
        np.testing.assert_array_equal(r["labels"][:], l["labels"][:])
    missing = subprocess.run([H5FEED, "rechunk", server.url("absent.h5"), tmp_path / "x.h5"],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2, missing.stderr
    assert f"{server.url('absent.h5')} does not exist (HTTP 404)" in missing.stderr
    assert not os.path.exists(tmp_path / "x.h5")


# Each command that reads a URL, given INPUT (and a place for what it writes).
READING_COMMANDS = {"inspect": ["inspect", "INPUT"], "verify": ["verify", "INPUT"],
                    "bench": ["bench", "INPUT"],
                    "bench sweep": ["bench", "sweep", "INPUT", "--out", "OUT"],
                    "rechunk": ["rechunk", "INPUT", "OUT"]}


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_a_missing_url_exits_as_a_missing_local_file_does(served, tmp_path, command):
    # A URL is found or not only when it is read; a 404 exited 1 where a missing path exits 2.
    _, server = served
    url = server.url("absent.h5") + "?X-Amz-Signature=0123456789abcdef"
    shown = server.url("absent.h5") + "?..."
    ends = {}
    for name, given in (("local", str(tmp_path / "absent.h5")), ("url", url)):
        out = tmp_path / f"{name}.out"
        argv = [str(out) if a == "OUT" else given if a == "INPUT" else a
                for a in READING_COMMANDS[command]]
        ends[name] = subprocess.run([H5FEED, *argv], capture_output=True, text=True, timeout=60)
        assert not out.exists()
    assert ends["local"].returncode == ends["url"].returncode == 2, ends["url"].stderr
    stderr = ends["url"].stderr
    assert stderr.startswith(f"h5feed {command}: error: {shown} does not exist (HTTP 404)"), stderr
    assert "0123456789abcdef" not in stderr


@pytest.mark.parametrize("command", ["inspect", "verify"])
def test_the_json_error_of_a_missing_url_is_a_missing_files(served, tmp_path, command):
    _, server = served
    for given in (str(tmp_path / "absent.h5"), server.url("absent.h5")):
        result = subprocess.run([H5FEED, command, given, "--json"], capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 2, result.stderr
        error = json.loads(result.stdout)["error"]
        assert error["code"] == "not found" and given in error["message"], error


def test_a_missing_dataset_of_a_url_still_fails_as_its_work(served):
    # Only the input itself missing is a wrong command line; a dataset it lacks is not.
    _, server = served
    result = subprocess.run([H5FEED, "bench", server.url("train.h5"), "--images", "absent"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert "absent" in result.stderr


@pytest.mark.parametrize("call", ["loader", "inspect", "verify", "rechunk"])
def test_python_raises_the_same_not_found_error_for_a_missing_url_and_file(served, tmp_path,
                                                                          call):
    _, server = served
    calls = {"loader": lambda path: h5feed.Loader(path, batch_size=8),
             "inspect": h5feed.inspect, "verify": h5feed.verify,
             "rechunk": lambda path: h5feed.rechunk(path, tmp_path / "out.h5")}
    for path in (str(tmp_path / "absent.h5"), server.url("absent.h5")):
        with pytest.raises(h5feed.NotFoundError) as caught:
            calls[call](path)
        assert isinstance(caught.value, FileNotFoundError)
        assert path in str(caught.value)
    assert not (tmp_path / "out.h5").exists()


def test_bench_reads_a_url(served):
    _, server = served
    result = subprocess.run([H5FEED, "bench", server.url("train.h5"), "--json",
                             "--batch", "64", "--cache-mb", "4"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["file"] == server.url("train.h5") and report["images"] == 3000


def test_a_spill_folder_serves_later_loaders_without_the_network(served, tmp_path):
    folder, server = served
    remote = {"spill_dir": tmp_path / "spill", "spill_bytes": 64 << 20, "connections": 4}
    first = epochs_of(server.url("train.h5"), epochs=1, remote=remote)
    before = len(server.requests())
    again = epochs_of(server.url("train.h5"), epochs=1, remote=remote)
    assert len(server.requests()) - before <= 4  # the opens (probe, index, chunks) only
    for (x, y, i), (u, v, j) in zip(first, again):
        assert torch.equal(i, j) and torch.equal(x, u)
    kept = sum(f.stat().st_size for f in (tmp_path / "spill").rglob("*") if f.is_file())
    assert kept > os.path.getsize(folder / "train.h5") * 0.9


def test_an_unusable_spill_folder_names_the_option_as_each_front_end_spells_it(served,
                                                                              tmp_path):
    _, server = served
    (tmp_path / "file").write_text("x")
    spill = tmp_path / "file" / "spill"  # under a file: it cannot be made
    with pytest.raises(h5feed.IoError, match=r"as the spill folder .*\(remote\['spill_dir'\]\)"):
        h5feed.Loader(server.url("train.h5"), batch_size=8, remote={"spill_dir": spill})
    with pytest.raises(h5feed.IoError, match=r"as the spill folder .*\(remote\['spill_dir'\]\)"):
        h5feed.inspect(server.url("train.h5"), remote={"spill_dir": spill})
    for command in (["bench", "--max-seconds", "1"], ["inspect"]):
        result = subprocess.run([H5FEED, *command, server.url("train.h5"), "--spill-dir", spill],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode != 0
        assert "as the spill folder" in result.stderr and "(--spill-dir)" in result.stderr, \
            result.stderr


def test_an_unknown_remote_option_is_refused_by_name(served):
    _, server = served
    with pytest.raises(TypeError, match="spil_dir"):
        h5feed.Loader(server.url("train.h5"), batch_size=8, remote={"spil_dir": "/tmp"})


def test_bench_sweep_of_a_url_measures_caches_and_samplers_as_stored(served, tmp_path):
    _, server = served
    result = subprocess.run([H5FEED, "bench", "sweep", server.url("train.h5"), "--out",
                             tmp_path / "sweep", "--cache-mb", "8", "--sampler", "chunks:4",
                             "--max-seconds", "1", "--threads", "2", "--connections", "4"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "is remote: measured as it is stored" in result.stderr
    rows = (tmp_path / "sweep" / "results.csv").read_text().splitlines()
    header, rows = rows[0].split(","), [row.split(",") for row in rows[1:]]
    status, ceiling = header.index("status"), header.index("ceiling")
    # chunks:4, and the random sampler and h5feed's defaults it is compared with.
    assert [row[status] for row in rows] == ["ok"] * 3
    assert all(row[ceiling] == "not measured (remote)" for row in rows)
    # Every run was given the sweep's remote options (a run that refused them would fail).
    assert "--connections 4" in (tmp_path / "sweep" / "report.md").read_text()


def test_h5py_reads_a_url_through_ros3_for_the_reference_loader(served):
    """The reference that bench/remote_bench.py and `bench sweep --compare-h5py` measure:
    h5py's ROS3 driver under a DataLoader reads the served file's images."""
    folder, server = served
    sys.path.insert(0, os.path.join(os.environ["H5FEED_SOURCE_DIR"], "bench"))
    import reference_loaders
    loader = reference_loaders.make_loader("chunked", server.url("train.h5"), batch=500,
                                           workers=0, driver="ros3")
    sums = np.sort(np.concatenate([x.view(len(x), -1).sum(1).numpy() for x, _ in loader]))
    with h5py.File(folder / "train.h5", "r") as f:
        local = np.sort(f["images"][:].reshape(3000, -1).sum(1, dtype=np.int64))
    assert np.array_equal(sums, local)


def test_bench_refuses_cold_for_a_url(served):
    _, server = served
    result = subprocess.run([H5FEED, "bench", server.url("train.h5"), "--cold"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "--spill-dir" in result.stderr
    # The flag given is the one named: --cold-each-epoch implies --cold, which was not given.
    for command in (["bench"], ["bench", "sweep", "--out", "unused"]):
        each = subprocess.run([H5FEED, *command, server.url("train.h5"), "--cold-each-epoch"],
                              capture_output=True, text=True, timeout=60)
        assert each.returncode == 2, each.stderr
        assert "--cold-each-epoch applies to a local file" in each.stderr.replace(": applies",
                                                                                  " applies")
