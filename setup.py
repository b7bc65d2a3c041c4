"""The wheel's build (pyproject.toml names setuptools as the backend): setuptools packages
python/h5feed/*.py; build_ext below builds the native parts with the CMake project and copies
them into the package folder, laid out as python/CMakeLists.txt's wheel_files.txt says.

Environment:
  H5FEED_CMAKE_BUILD_DIR  an existing, configured build tree to build in and copy from (its
                          Python must be the one running pip); unset: a tree of its own in
                          setuptools' build_temp, configured Release, CUDA when nvcc is found,
                          without tests, benchmarks or examples, for this Python.
  H5FEED_CMAKE_ARGS       more arguments for that configure (e.g. -DH5FEED_WITH_CUDA=OFF).
  CMAKE_BUILD_PARALLEL_LEVEL  the build's jobs (CMake's own variable).
"""

from __future__ import annotations

import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = pathlib.Path(__file__).resolve().parent
# setuptools' intermediate files, in the gitignored build*/ pattern and apart from the CMake
# trees developers keep in build/ (setuptools' default folder is build/).
BUILD_BASE = SOURCE / "build-python"
MANIFEST = pathlib.Path("python") / "wheel_files.txt"  # in the CMake tree


def project_version() -> str:
    """CMakeLists.txt's project(h5feed VERSION x.y.z): one version for the library and wheel."""
    text = (SOURCE / "CMakeLists.txt").read_text()
    match = re.search(r"project\(h5feed\s+VERSION\s+([0-9.]+)", text)
    if not match:
        sys.exit("setup.py: no `project(h5feed VERSION x.y.z` in CMakeLists.txt")
    return match.group(1)


def cmake_cache_value(tree: pathlib.Path, name: str) -> str | None:
    for line in (tree / "CMakeCache.txt").read_text().splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    return None


class CMakeExtension(Extension):
    """h5feed._h5feed, built by CMake (no sources of setuptools' own)."""

    def __init__(self):
        super().__init__("h5feed._h5feed", sources=[])


class BuildWithCMake(build_ext):
    def build_extension(self, ext):
        tree = self._configured_tree()
        subprocess.run(["cmake", "--build", str(tree), "--target", "h5feed_wheel_files"],
                       check=True)
        package = pathlib.Path(self.get_ext_fullpath(ext.name)).parent
        expected = pathlib.Path(self.get_ext_fullpath(ext.name)).name
        copied = []
        for line in (tree / MANIFEST).read_text().splitlines():
            destination, built = line.split("\t")
            target = package / destination
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(built, target)  # keeps the programs' executable bits
            copied.append(destination)
        if expected not in copied:
            sys.exit(f"setup.py: the build tree {tree} built {copied[0]}, an extension for "
                     f"another Python than this one ({sys.executable}, which loads {expected}). "
                     "Unset H5FEED_CMAKE_BUILD_DIR, or name a tree configured with "
                     f"-DH5FEED_PYTHON_EXECUTABLE={sys.executable}")

    def _configured_tree(self) -> pathlib.Path:
        named = os.environ.get("H5FEED_CMAKE_BUILD_DIR")
        if named:
            tree = pathlib.Path(named).resolve()
            if not (tree / "CMakeCache.txt").is_file():
                sys.exit(f"setup.py: H5FEED_CMAKE_BUILD_DIR={named} is not a configured CMake "
                         "build tree (no CMakeCache.txt); configure it first, or unset the "
                         "variable to build in a tree of the wheel's own")
            self._check_has_module(tree)
            return tree
        tree = pathlib.Path(self.build_temp).resolve() / "cmake"
        arguments = [
            "cmake", "-S", str(SOURCE), "-B", str(tree), "-DCMAKE_BUILD_TYPE=Release",
            f"-DH5FEED_PYTHON_EXECUTABLE={sys.executable}", "-DH5FEED_BUILD_PYTHON=ON",
            "-DH5FEED_BUILD_TOOLS=ON", "-DH5FEED_BUILD_TESTS=OFF", "-DH5FEED_BUILD_BENCH=OFF",
            "-DH5FEED_BUILD_EXAMPLES=OFF"]
        if shutil.which("ninja") and not (tree / "CMakeCache.txt").exists():
            arguments += ["-G", "Ninja"]
        try:  # pybind11 from PyPI, under pip's build isolation; else CMake finds pybind11-dev
            import pybind11
            arguments.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass
        arguments += shlex.split(os.environ.get("H5FEED_CMAKE_ARGS", ""))
        subprocess.run(arguments, check=True)
        self._check_has_module(tree)
        return tree

    @staticmethod
    def _check_has_module(tree: pathlib.Path) -> None:
        if cmake_cache_value(tree, "H5FEED_BUILD_PYTHON") == "OFF" or \
                not (tree / MANIFEST).is_file():
            sys.exit(f"setup.py: the CMake tree {tree} does not build the Python module; its "
                     "configure output says why ('h5feed: Python module skipped'): it needs "
                     "this Python's development files (python3-dev or python3.X-dev), pybind11 "
                     "(pybind11-dev) and the converters (H5FEED_BUILD_TOOLS=ON)")


BUILD_BASE.mkdir(exist_ok=True)
setup(
    version=project_version(),
    packages=["h5feed"],
    package_dir={"h5feed": "python/h5feed"},
    ext_modules=[CMakeExtension()],
    cmdclass={"build_ext": BuildWithCMake},
    options={"build": {"build_base": str(BUILD_BASE)}, "egg_info": {"egg_base": str(BUILD_BASE)}},
    zip_safe=False,
)
