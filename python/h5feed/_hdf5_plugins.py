"""At `import h5feed`: HDF5 programs in this process, and those it starts, read h5feed's zstd
files (filter 32015) without HDF5_PLUGIN_PATH, as they do after `import hdf5plugin`.

The folder holding the filter plugin (libh5feed_zstd.so, which links no libhdf5) is registered
two ways, one per HDF5 a process may hold:
- with the libhdf5 the extension links (H5PLprepend): that is the one Debian's python3-h5py
  links, so h5py reads the files whether it was imported before h5feed or after;
- in HDF5_PLUGIN_PATH, which an HDF5 reads once, when it starts: an h5py wheel's own bundled
  HDF5 imported after h5feed, and child processes (h5dump, another Python), see it. The value
  is the extension's HDF5 search path after the change, so the folders HDF5 searched before
  (those of HDF5_PLUGIN_PATH, or HDF5's default folder) are still searched, after this one.
"""

from __future__ import annotations

import os

from . import _h5feed

# Where the plugin lies relative to this package: in a wheel (pyproject.toml, setup.py: the
# package folder is laid out as an install prefix, python/CMakeLists.txt's wheel_files.txt);
# in the build tree (build/python/h5feed -> build/plugins); in a `cmake --install` tree with
# Python in PREFIX/lib/python3/dist-packages/h5feed (-> PREFIX/lib/hdf5/plugins).
_CANDIDATES = ("lib/hdf5/plugins", "../../plugins", "../../../hdf5/plugins")
_PLUGIN = "libh5feed_zstd.so"


def plugin_folder() -> str | None:
    """The folder holding libh5feed_zstd.so beside this package, or None."""
    package = os.path.dirname(os.path.abspath(__file__))
    for candidate in _CANDIDATES:
        folder = os.path.normpath(os.path.join(package, candidate))
        if os.path.isfile(os.path.join(folder, _PLUGIN)):
            return folder
    return None


def register() -> None:
    folder = plugin_folder()
    if folder is None:
        return  # a tree without the plugin: HDF5_PLUGIN_PATH as before (docs/install.md)
    search_path = _h5feed.prepend_hdf5_plugin_path(folder)
    os.environ["HDF5_PLUGIN_PATH"] = os.pathsep.join(search_path)
