"""h5feed: image datasets in chunked HDF5, read back as shuffled torch batches by native threads.

    import h5feed
    loader = h5feed.Loader("train.h5", batch_size=256, device="cuda")
    for epoch in range(epochs):
        loader.set_epoch(epoch)
        for images, labels in loader:
            ...

See docs/python.md for the API and for moving from DataLoader(H5Dataset, num_workers=...).
"""

from ._h5feed import __version__
from ._errors import (AlreadyExistsError, CancelledError, CorruptDataError, CudaError, Error,
                      ErrorCode, InternalError, InvalidArgumentError, IoError, NoSpaceError,
                      NotFoundError, UnsupportedError)
from ._options import Augment
from ._loader import Loader
from ._convert import convert_cifar, convert_imagefolder, convert_npy, inspect, rechunk

__all__ = [
    "Loader", "Augment", "convert_imagefolder", "convert_cifar", "convert_npy", "rechunk",
    "inspect", "Error", "ErrorCode", "InvalidArgumentError", "NotFoundError",
    "AlreadyExistsError", "IoError", "NoSpaceError", "CorruptDataError", "UnsupportedError",
    "CancelledError", "CudaError", "InternalError", "__version__",
]
