"""h5feed: image datasets in chunked HDF5, read back as shuffled torch batches by native threads.

    import h5feed
    loader = h5feed.Loader("train.h5", batch_size=256, device="cuda")
    for epoch in range(epochs):
        loader.set_epoch(epoch)
        for images, labels in loader:
            ...

See docs/python.md for the API and for moving from DataLoader(H5Dataset, num_workers=...).
"""

import importlib as _importlib

from ._h5feed import __version__
from ._hdf5_plugins import register as _register_hdf5_plugins
from ._errors import (AlreadyExistsError, CancelledError, CorruptDataError, CudaError, Error,
                      ErrorCode, InternalError, InvalidArgumentError, IoError, NoSpaceError,
                      NotFoundError, UnsupportedError)
from ._convert import (convert_cifar, convert_coco, convert_imagefolder, convert_npy,
                       convert_segmentation, inspect, merge, rechunk, verify)

# h5py (and HDF5 programs this process starts) read h5feed's zstd files from here on.
_register_hdf5_plugins()

# Only the loader needs torch (and write numpy): they are imported on first use, so that
# data-preparation scripts (convert_*, rechunk, merge, inspect, verify) run where PyTorch is
# not installed.
_NEEDS_TORCH = {"Loader": "._loader", "Augment": "._options", "write": "._write",
                "IMAGENET_MEAN": "._options", "IMAGENET_STD": "._options"}


def __getattr__(name):
    if name not in _NEEDS_TORCH:
        raise AttributeError(f"module 'h5feed' has no attribute {name!r}")
    try:
        module = _importlib.import_module(_NEEDS_TORCH[name], __name__)
    except ModuleNotFoundError as missing:
        if missing.name is None or missing.name.split(".")[0] != "torch":
            raise
        raise ImportError(
            f"h5feed.{name} needs PyTorch, which this Python cannot import ({missing}); on "
            "Debian: apt install python3-torch. h5feed.convert_imagefolder, convert_cifar, "
            "convert_npy, convert_segmentation, convert_coco, rechunk, merge, inspect and verify "
            "work without it") from missing
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    # The public API (Loader and Augment before their first use too: __getattr__ imports them)
    # and the module's own dunders, not the modules and helpers it is built from.
    return sorted(set(__all__) | {name for name in globals() if name.startswith("__")})


__all__ = [
    "Loader", "Augment", "write", "IMAGENET_MEAN", "IMAGENET_STD", "convert_imagefolder", "convert_cifar", "convert_npy",
    "convert_segmentation", "convert_coco", "rechunk", "merge", "inspect", "verify", "Error", "ErrorCode", "InvalidArgumentError", "NotFoundError",
    "AlreadyExistsError", "IoError", "NoSpaceError", "CorruptDataError", "UnsupportedError",
    "CancelledError", "CudaError", "InternalError", "__version__",
]
