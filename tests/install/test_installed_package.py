"""`cmake --install` gives a C++ trainer what docs/install.md promises: the public headers
only, a find_package(h5feed) package whose h5feed::h5feed links as is, the h5feed command and
the zstd plugin. examples/train is built against the installed tree (never the build tree),
run, killed mid-epoch, and resumed from its checkpoint to the uninterrupted run's model."""
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BUILD_DIR = Path(os.environ["H5FEED_BUILD_DIR"])
SOURCE_DIR = Path(os.environ["H5FEED_SOURCE_DIR"])
CMAKE = os.environ["H5FEED_CMAKE"]

sys.path.insert(0, str(SOURCE_DIR / "tests" / "support"))
from marking_probe import marking_probe  # noqa: E402


def run(*args, **kwargs):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300,
                            **kwargs)
    assert result.returncode == 0, (
        f"{' '.join(map(str, args))}: exit {result.returncode}\n{result.stdout}\n{result.stderr}")
    return result.stdout


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("prefix")
    run(CMAKE, "--install", BUILD_DIR, "--prefix", prefix)
    return prefix


@pytest.fixture(scope="module")
def train(prefix, tmp_path_factory):
    """examples/train configured and built against the installed prefix; (binary, configure log)."""
    build = tmp_path_factory.mktemp("train-build")
    # Nothing of the build tree may leak in: the package is found only through the prefix.
    configure_log = run(CMAKE, "-S", SOURCE_DIR / "examples" / "train", "-B", build,
                        "-G", os.environ["H5FEED_CMAKE_GENERATOR"],
                        f"-DCMAKE_CXX_COMPILER={os.environ['H5FEED_CXX']}",
                        "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={prefix}",
                        "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF")
    run(CMAKE, "--build", build)
    return build / "train", configure_log


@pytest.fixture(scope="module")
def dataset(prefix, tmp_path_factory):
    """600 random 8x8 RGB images converted by the installed h5feed command (zstd chunks)."""
    folder = tmp_path_factory.mktemp("data")
    rng = np.random.default_rng(11)
    images = rng.integers(0, 256, (600, 8, 8, 3), dtype=np.uint8)
    np.save(folder / "images.npy", images)
    np.save(folder / "labels.npy", rng.integers(0, 10, 600))
    run(prefix / "bin" / "h5feed", "convert", "npy", folder / "images.npy",
        folder / "labels.npy", folder / "small.h5", "--chunk", "16", "--quiet")
    return folder / "small.h5", images


def test_only_the_public_headers_are_installed_and_they_include_no_dependency(prefix):
    installed = sorted(p.name for p in (prefix / "include" / "h5feed").iterdir())
    public = sorted(p.name for p in (SOURCE_DIR / "lib" / "include" / "h5feed").glob("*.h"))
    assert installed == public
    assert [p.name for p in (prefix / "include").iterdir()] == ["h5feed"]
    for header in (prefix / "include" / "h5feed").iterdir():
        for line in header.read_text().splitlines():
            match = re.match(r'\s*#\s*include\s*([<"])([^>"]+)', line)
            if not match:
                continue
            bracket, name = match.groups()
            if bracket == '"':
                assert name.startswith("h5feed/"), f"{header.name}: {line}"
            else:  # the standard library's headers only: <span>, not <hdf5.h> or <tbb/...>
                assert "." not in name and "/" not in name, f"{header.name}: {line}"


def test_the_package_files_the_command_and_the_plugin_are_installed(prefix):
    package = next(prefix.glob("lib*/cmake/h5feed"))
    for name in ("h5feedConfig.cmake", "h5feedConfigVersion.cmake", "h5feedTargets.cmake"):
        assert (package / name).is_file(), name
    assert os.access(prefix / "bin" / "h5feed", os.X_OK)
    assert next(prefix.glob("lib*/hdf5/plugins/libh5feed_zstd.so")).is_file()


def test_the_installed_command_finds_the_installed_open_probe_and_survives_hdf5_crashes(
        prefix, tmp_path):
    probe = prefix / "libexec" / "h5feed" / "h5feed-open-probe"
    assert os.access(probe, os.X_OK)
    # The command must find the probe beside it (PREFIX/libexec), not the build tree's.
    mark = tmp_path / "probe-ran"
    with marking_probe(probe, mark):
        crash = SOURCE_DIR / "tests" / "fuzz" / "hdf5_findings" / "open_file" / \
            "segv_H5VM_memcpyvv_contiguous_read"
        result = subprocess.run([str(prefix / "bin" / "h5feed"), "inspect", str(crash)],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 1, result.stderr
        assert "while opening the file's structure" in result.stderr
        assert mark.exists()


def test_a_trainer_built_with_find_package_finds_the_open_probe_of_its_tree(
        prefix, train, dataset, tmp_path):
    # The tree is installed to a temporary prefix, not the one the build was configured with:
    # the trainer found no probe (it warned and opened every file unprotected) until
    # find_package compiled the tree's prefix into it.
    binary, _ = train
    path, _ = dataset
    mark = tmp_path / "probe-ran"
    with marking_probe(prefix / "libexec" / "h5feed" / "h5feed-open-probe", mark):
        result = subprocess.run([str(binary), str(path), "--epochs", "1", "--batch", "32"],
                                capture_output=True, text=True, timeout=120,
                                env={k: v for k, v in os.environ.items()
                                     if k != "H5FEED_OPEN_PROBE"})
        assert result.returncode == 0, result.stderr
        assert "probe" not in result.stderr, result.stderr
        assert mark.exists()


def test_find_package_finds_the_installed_tree_and_reports_the_plugin_folder(prefix, train):
    _, configure_log = train
    match = re.search(r"h5feed (\S+): zstd plugin for other HDF5 programs in (\S+)",
                      configure_log)
    assert match, configure_log
    version = re.search(r"project\(h5feed VERSION (\S+)",
                        (SOURCE_DIR / "CMakeLists.txt").read_text()).group(1)
    assert match.group(1) == version
    assert Path(match.group(2)).resolve().is_relative_to(prefix.resolve())
    assert (Path(match.group(2)) / "libh5feed_zstd.so").is_file()


def test_h5py_reads_the_converted_file_through_the_installed_plugin(prefix, dataset):
    path, images = dataset
    plugins = next(prefix.glob("lib*/hdf5/plugins"))
    code = ("import h5py, sys; f = h5py.File(sys.argv[1], 'r'); a = f['images'][:]; "
            "print(a.shape, int(a.astype('int64').sum()))")
    out = run("/usr/bin/python3", "-c", code, path,
              env={**os.environ, "HDF5_PLUGIN_PATH": str(plugins)})
    assert out.strip() == f"(600, 8, 8, 3) {int(images.astype(np.int64).sum())}"


def steps(output):
    return [line for line in output.splitlines() if line.startswith("epoch ")]


def test_the_example_trains_is_killed_and_resumes_to_the_same_model(train, dataset, tmp_path):
    binary, _ = train
    path, _ = dataset
    common = [binary, path, "--epochs", "3", "--batch", "32"]
    whole = run(*common)
    assert "600 images, 19 batches per epoch" in whole
    assert len(steps(whole)) == 3 * 19
    model = re.search(r"^model (\S+)$", whole, re.M).group(1)

    checkpoint = tmp_path / "checkpoint.txt"
    # Killed at its 27th step (epoch 1, step 7); the last checkpoint was after epoch 1 step 4.
    killed = run(*common, "--checkpoint", checkpoint, "--every", "5", "--stop-after", "27")
    assert steps(killed) == steps(whole)[:27]
    assert "model" not in killed

    resumed = run(*common, "--checkpoint", checkpoint, "--every", "5")
    assert "resumed at epoch 1 step 5" in resumed
    assert steps(resumed) == steps(whole)[19 + 5:]
    assert re.search(r"^model (\S+)$", resumed, re.M).group(1) == model


def test_the_example_refuses_a_checkpoint_of_other_options(train, dataset, tmp_path):
    binary, _ = train
    path, _ = dataset
    checkpoint = tmp_path / "checkpoint.txt"
    run(binary, path, "--batch", "32", "--checkpoint", checkpoint, "--every", "3",
        "--stop-after", "4")
    result = subprocess.run([str(binary), str(path), "--batch", "16", "--checkpoint",
                             str(checkpoint)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "invalid argument" in result.stderr
