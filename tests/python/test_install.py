"""`cmake --install BUILD --prefix P` puts the package in P/lib/python3/dist-packages (Debian's
layout), and `import h5feed` works from there alone, reading a file."""
import os
import subprocess

from PIL import Image

from conftest import run_python


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
    # A wrapper in place of the installed probe leaves a mark when it runs: the module must
    # find the probe four folders above it (PREFIX/libexec/h5feed), not the build tree's.
    probe = prefix / "libexec" / "h5feed" / "h5feed-open-probe"
    real = probe.with_name("real-probe")
    probe.rename(real)
    mark = tmp_path / "probe-ran"
    probe.write_text(f'#!/bin/sh\ntouch "{mark}"\nexec "{real}" "$@"\n')
    probe.chmod(0o755)
    crash = os.path.join(os.environ["H5FEED_SOURCE_DIR"], "tests", "fuzz", "hdf5_findings",
                         "open_file", "segv_H5VM_memcpyvv_contiguous_read")
    env = dict(os.environ, PYTHONPATH=str(prefix / "lib" / "python3" / "dist-packages"))
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
