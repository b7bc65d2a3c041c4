"""`pip install` of the repository (pyproject.toml, setup.py) into fresh venvs, used from a
folder outside the source tree with no PYTHONPATH or HDF5_PLUGIN_PATH: one venv reaching
Debian's torch (--system-site-packages) and one without (no torch, numpy or h5py).

The wheels are built with --no-build-isolation (no PyPI here) from a copy of the sources,
reusing this test's CMake build tree (H5FEED_CMAKE_BUILD_DIR): nothing is compiled when it is
up to date. A bare venv has pip and setuptools but not the wheel package, so its wheel is
built by the other venv's pip and installed as a file (docs/install.md says the same)."""
import os
import pathlib
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest
from PIL import Image

from conftest import write_h5feed_file

SOURCE = pathlib.Path(os.environ["H5FEED_SOURCE_DIR"])
BUILD = pathlib.Path(os.environ["H5FEED_BUILD_DIR"])
# What points a Python at a build tree's package, plugin or helpers: none may reach the venvs.
TREE_VARIABLES = ("PYTHONPATH", "HDF5_PLUGIN_PATH", "H5FEED_OPEN_PROBE", "H5FEED_OPENCV_CODECS")


def clean_environment(**more) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in TREE_VARIABLES}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1",
               H5FEED_CMAKE_BUILD_DIR=str(BUILD), **more)
    return env


def run(argv, cwd, check=True, timeout=300, **env):
    result = subprocess.run([str(a) for a in argv], cwd=cwd, env=clean_environment(**env),
                            capture_output=True, text=True, timeout=timeout)
    if check:
        assert result.returncode == 0, f"{argv}:\n{result.stdout}\n{result.stderr}"
    return result


def copy_sources(destination: pathlib.Path) -> pathlib.Path:
    """The repository without its build trees (a user's clone), so that pip's in-tree build
    writes nothing into the sources under test."""
    def ignored(folder, names):
        top = pathlib.Path(folder) == SOURCE
        return [n for n in names if n == "__pycache__" or
                (top and (n.startswith("build") or n in (".git", "quickstart", "gpu-bundle")))]
    shutil.copytree(SOURCE, destination, ignore=ignored)
    return destination


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A folder outside the source tree to run everything from, with a copy of the sources."""
    root = tmp_path_factory.mktemp("pip")
    copy_sources(root / "h5feed-src")
    return root


@pytest.fixture(scope="module")
def system_venv(place):
    """A --system-site-packages venv (Debian's torch, numpy, h5py) with `pip install` of the
    source folder."""
    venv = place / "system-venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", venv], place)
    run([venv / "bin" / "pip", "install", "--no-build-isolation", place / "h5feed-src"], place)
    return venv


@pytest.fixture(scope="module")
def bare_venv(place, system_venv):
    """A venv without the system's packages, given the wheel the other venv's pip builds."""
    run([system_venv / "bin" / "pip", "wheel", "--no-build-isolation", "--no-deps",
         "-w", place / "wheels", place / "h5feed-src"], place)
    [wheel] = (place / "wheels").glob("h5feed-*.whl")
    venv = place / "bare-venv"
    run([sys.executable, "-m", "venv", venv], place)
    run([venv / "bin" / "pip", "install", wheel], place)
    return venv


def python_in(venv, code, place, *args, check=True, **env):
    return run([venv / "bin" / "python", "-W", "error::UserWarning", "-c", code, *args], place,
               check=check, **env)


def test_a_loader_epoch_runs_from_the_installed_package(system_venv, place, tmp_path):
    small = write_h5feed_file(tmp_path)
    code = ("import inspect, sys, h5feed\n"
            "print(h5feed.__file__)\n"
            "loader = h5feed.Loader(sys.argv[1], 32, check_label_mixing=False)\n"
            "print(sum(labels.shape[0] for _, labels in loader))\n"
            "print(inspect.signature(h5feed.Loader))\n")
    where, samples, signature = python_in(system_venv, code, place, small).stdout.splitlines()
    assert where.startswith(str(system_venv)) and samples == "300"
    # Every option with its default, without a patched __signature__ (the open probe ran
    # without a warning, so the wheel's own probe was found: -W error).
    assert "sampler: 'str' = 'chunks:8'" in signature
    assert "cache_bytes: 'int' = 536870912" in signature
    assert "remote: 'Mapping | None' = None" in signature


def test_h5py_reads_zstd_files_after_import_h5feed(system_venv, place, tmp_path):
    small = write_h5feed_file(tmp_path)
    with h5py.File(small) as f:
        expected = int(f["images"][:].sum(dtype=np.int64))
    read = "import h5py, sys\nprint(h5py.File(sys.argv[1])['images'][:].sum(dtype='int64'))\n"
    # HDF5 searches an empty folder only (not its default one, where a system package could
    # have put a zstd plugin): without h5feed, h5py cannot decode the chunks.
    empty = tmp_path / "no-plugins"
    empty.mkdir()
    assert python_in(system_venv, read, place, small, check=False,
                     HDF5_PLUGIN_PATH=str(empty)).returncode != 0
    # h5py imported before h5feed or after: the same libhdf5 (Debian's) gets the folder.
    for code in ("import h5feed\n" + read, read.replace("h5py, sys", "h5py, sys, h5feed")):
        result = python_in(system_venv, code, place, small, HDF5_PLUGIN_PATH=str(empty))
        assert int(result.stdout) == expected
    # Programs started after `import h5feed` find the plugin through HDF5_PLUGIN_PATH.
    h5dump = os.environ.get("H5DUMP") or shutil.which("h5dump")
    code = ("import subprocess, sys, h5feed\n"
            "subprocess.run([sys.argv[2], '-d', '/images', '-s', '0,0,0,0', '-c', '1,1,1,1',"
            " sys.argv[1]], check=True)\n")
    dumped = python_in(system_venv, code, place, small, h5dump)
    assert "DATA {" in dumped.stdout and "error" not in dumped.stdout + dumped.stderr


def test_the_console_script_is_the_command(system_venv, place):
    script = system_venv / "bin" / "h5feed"
    assert "convert" in run([script, "--help"], place).stdout
    # Arguments and exit code pass through unchanged: as the build tree's own binary.
    missing = place / "missing.h5"
    ours = run([script, "inspect", missing], place, check=False)
    theirs = run([os.environ["H5FEED"], "inspect", missing], place, check=False)
    assert ours.returncode == theirs.returncode != 0
    assert "missing.h5" in ours.stderr


def test_a_venv_without_torch_converts_and_says_what_the_loader_needs(bare_venv, place, tmp_path):
    images = np.random.default_rng(0).integers(0, 256, (40, 8, 6, 3), dtype=np.uint8)
    np.save(tmp_path / "images.npy", images)
    np.save(tmp_path / "labels.npy", np.arange(40) % 4)
    folder = tmp_path / "bitmaps" / "class"
    folder.mkdir(parents=True)
    Image.new("RGB", (12, 10), (200, 30, 60)).save(folder / "red.bmp")  # the codecs module's
    code = ("import sys, h5feed\n"
            "for missing in ('numpy', 'h5py', 'torch'):\n"
            "    assert missing not in sys.modules and not __import__('importlib.util').util"
            ".find_spec(missing), missing\n"
            "d = sys.argv[1]\n"
            "h5feed.convert_npy(d + '/images.npy', d + '/a.h5', labels=d + '/labels.npy',"
            " chunk=8)\n"
            "h5feed.rechunk(d + '/a.h5', d + '/b.h5', chunk=16)\n"
            "print(h5feed.inspect(d + '/b.h5')['images']['num_images'])\n"
            "h5feed.convert_imagefolder(d + '/bitmaps', d + '/c.h5')\n"
            "print([l.split()[-1] for l in open('/proc/self/maps') if 'opencv-codecs' in l][0])\n"
            "try:\n"
            "    h5feed.Loader\n"
            "except ImportError as e:\n"
            "    print(e)\n")
    images_line, codecs, message = python_in(bare_venv, code, place, tmp_path).stdout.splitlines()
    assert images_line == "40"
    assert codecs.startswith(str(bare_venv))
    assert "h5feed.Loader needs PyTorch" in message and "convert_npy" in message


def test_the_wheel_carries_what_bench_sweep_compare_h5py_runs(system_venv, place):
    # `h5feed bench sweep --compare-h5py` runs bench/reference_loaders.py (with bench_support.py
    # beside it), found installed beside the command: ../share/h5feed/bench from bin/h5feed.
    code = ("import pathlib, h5feed\n"
            "print(pathlib.Path(h5feed.__file__).parent / 'share' / 'h5feed' / 'bench')\n")
    bench = pathlib.Path(python_in(system_venv, code, place).stdout.strip())
    assert (bench / "reference_loaders.py").is_file()
    assert (bench / "bench_support.py").is_file()
    assert (bench.parents[2] / "bin" / "h5feed").is_file()
    # It runs from there, with the venv's Python (its imports resolve beside it).
    result = run([system_venv / "bin" / "python", bench / "reference_loaders.py", "--help"],
                 place)
    assert "--loader" in result.stdout
