"""`cmake --install BUILD --prefix P` puts the package in P/lib/python3/dist-packages (Debian's
layout), and `import h5feed` works from there alone, reading a file."""
import os
import subprocess
import sys

from PIL import Image

from conftest import run_python

sys.path.insert(0, os.path.join(os.environ["H5FEED_SOURCE_DIR"], "tests", "support"))
from marking_probe import marking_probe  # noqa: E402


def test_the_installed_package_imports_and_reads(tmp_path, small_file):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", os.environ["H5FEED_BUILD_DIR"], "--prefix", prefix],
                   check=True, capture_output=True, timeout=300)
    package = prefix / "lib" / "python3" / "dist-packages" / "h5feed"
    assert (package / "__init__.py").exists()
    assert list(package.glob("_h5feed*.so"))
    env = dict(os.environ, PYTHONPATH=str(package.parent))
    result = run_python(
        "import h5feed\n"
        f"loader = h5feed.Loader({str(small_file)!r}, 32)\n"
        "print(h5feed.__file__)\n"
        "print(sum(labels.shape[0] for _, labels in loader))\n", env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    where, samples = result.stdout.split()
    assert where.startswith(str(package)) and samples == "300"


def test_the_installed_package_finds_the_installed_open_probe(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", os.environ["H5FEED_BUILD_DIR"], "--prefix", prefix],
                   check=True, capture_output=True, timeout=300)
    # The module must find the probe four folders above it (PREFIX/libexec/h5feed), not the
    # build tree's.
    mark = tmp_path / "probe-ran"
    crash = os.path.join(os.environ["H5FEED_SOURCE_DIR"], "tests", "fuzz", "hdf5_findings",
                         "open_file", "segv_H5VM_memcpyvv_contiguous_read")
    env = dict(os.environ, PYTHONPATH=str(prefix / "lib" / "python3" / "dist-packages"))
    with marking_probe(prefix / "libexec" / "h5feed" / "h5feed-open-probe", mark):
        result = run_python(
            "import sys, h5feed\n"
            "try:\n"
            f"    h5feed.Loader({crash!r}, 4)\n"
            "except h5feed.CorruptDataError as e:\n"
            "    print('refused')\n", env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "refused"
    assert mark.exists()


def test_the_installed_package_loads_the_installed_opencv_module(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", os.environ["H5FEED_BUILD_DIR"], "--prefix", prefix],
                   check=True, capture_output=True, timeout=300)
    module = prefix / "libexec" / "h5feed" / "h5feed-opencv-codecs.so"
    assert module.is_file()
    folder = tmp_path / "bitmaps" / "class"
    folder.mkdir(parents=True)
    Image.new("RGB", (12, 10), (200, 30, 60)).save(folder / "red.bmp")
    env = dict(os.environ, PYTHONPATH=str(prefix / "lib" / "python3" / "dist-packages"))
    code = ("import sys, h5feed\n"
            "h5feed.convert_imagefolder(sys.argv[1], sys.argv[2])\n"
            "print([l.split()[-1] for l in open('/proc/self/maps') if 'opencv-codecs' in l][0])\n")
    result = run_python(["-c", code, folder.parent, tmp_path / "out.h5"], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(module.resolve())


def test_installed_binaries_use_the_installed_probe_and_never_the_build_trees(tmp_path,
                                                                               small_file):
    # The build tree's probe stays where it is (other tests use it); an installed binary must
    # not fall back to it: the build tree may be gone, or rebuilt from other sources.
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", os.environ["H5FEED_BUILD_DIR"], "--prefix", prefix],
                   check=True, capture_output=True, timeout=300)
    build_probe = os.path.join(os.environ["H5FEED_BUILD_DIR"], "libexec", "h5feed",
                               "h5feed-open-probe")
    assert os.access(build_probe, os.X_OK)
    command = prefix / "bin" / "h5feed"
    probe = prefix / "libexec" / "h5feed" / "h5feed-open-probe"
    mark = tmp_path / "probe-ran"
    env = dict(os.environ, PYTHONPATH=str(prefix / "lib" / "python3" / "dist-packages"))
    env.pop("H5FEED_OPEN_PROBE", None)
    with marking_probe(probe, mark) as real:
        result = subprocess.run([command, "inspect", small_file], capture_output=True,
                                text=True, env=env, timeout=120)
        assert result.returncode == 0, result.stderr
        assert mark.exists()
        # Without the installed probe, the command and the module warn where they looked (the
        # install, not the build tree) and read the file unprotected.
        probe.unlink()
        real.unlink()
    result = subprocess.run([command, "inspect", small_file], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "the open probe (h5feed-open-probe) was not found (looked: " in result.stderr
    assert f"above {command}" in result.stderr
    assert os.environ["H5FEED_BUILD_DIR"] not in result.stderr
    result = run_python(
        "import warnings, h5feed\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        f"    loader = h5feed.Loader({str(small_file)!r}, 32)\n"
        "print('\\n'.join(str(w.message) for w in caught))\n", env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "was not found (looked: " in result.stdout
    assert str(prefix / "lib" / "python3" / "dist-packages" / "h5feed") in result.stdout
    assert os.environ["H5FEED_BUILD_DIR"] not in result.stdout
