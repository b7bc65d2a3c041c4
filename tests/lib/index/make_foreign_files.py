"""Writes the HDF5 files the index and chunk reader tests read, as users make them with h5py.

Usage: make_foreign_files.py FOLDER

For every case NAME it writes FOLDER/NAME.h5 and, for cases that hold readable images,
FOLDER/NAME.h5.nhwc: h5py's own read of the image dataset, in NHWC order (NCHW transposed),
as raw uint8 bytes, and FOLDER/NAME.h5.labels: the labels as int64 (zeros when the file has
none). The tests compare every row h5feed reads with these dumps. Needs HDF5_PLUGIN_PATH to
name h5feed's plugin folder for the zstd case.
"""

import os
import sys

import h5py
import numpy as np

ZSTD = 32015


def pixels(shape, seed):
    return np.random.default_rng(seed).integers(0, 256, size=shape, dtype=np.uint8)


def write(folder, name, images, dataset="images", labels=None, nchw=False, libver=None,
          make=None, **create):
    path = os.path.join(folder, name + ".h5")
    with h5py.File(path, "w", libver=libver) as f:
        if make is not None:
            make(f)
        else:
            f.create_dataset(dataset, data=images, **create)
        if labels is not None:
            f.create_dataset("labels", data=labels)
    if images is None:
        return
    with h5py.File(path, "r") as f:
        read = f[dataset][()]
    if read.ndim == 4 and nchw:
        read = read.transpose(0, 2, 3, 1)
    with open(path + ".nhwc", "wb") as out:
        out.write(np.ascontiguousarray(read).tobytes())
    n = read.shape[0]
    stored = np.zeros(n, dtype=np.int64) if labels is None else np.asarray(labels, np.int64)
    with open(path + ".labels", "wb") as out:
        out.write(stored.reshape(n).tobytes())


def main(folder):
    n = 50
    nhwc = pixels((n, 6, 5, 3), 1)
    nchw = pixels((37, 3, 6, 5), 2)
    labels16 = (np.arange(n) % 7).astype(np.int16)

    # Chunks that hold whole samples and filters h5feed undoes: read with H5Dread_chunk.
    write(folder, "nhwc_gzip_shuffle", nhwc, labels=labels16, chunks=(7, 6, 5, 3),
          compression="gzip", shuffle=True)
    write(folder, "nchw_gzip", nchw, nchw=True, chunks=(8, 3, 6, 5), compression="gzip",
          compression_opts=4)
    write(folder, "nchw_fletcher32", nchw, nchw=True, chunks=(5, 3, 6, 5), compression="gzip",
          shuffle=True, fletcher32=True)
    write(folder, "nhwc_fletcher32_only", nhwc, chunks=(10, 6, 5, 3), fletcher32=True)
    write(folder, "nhwc_zstd", nhwc, chunks=(16, 6, 5, 3), compression=ZSTD,
          compression_opts=(5,))
    write(folder, "nchw_zstd", nchw, nchw=True, chunks=(6, 3, 6, 5), compression=ZSTD,
          compression_opts=(3,))
    write(folder, "nhwc_chunked_raw", nhwc, chunks=(9, 6, 5, 3))
    write(folder, "latest_format", nhwc, libver="latest", chunks=(6, 6, 5, 3),
          maxshape=(None, 6, 5, 3), compression="gzip")
    write(folder, "grayscale", pixels((25, 6, 5), 3), chunks=(4, 6, 5), compression="gzip")

    def unwritten(f):
        d = f.create_dataset("images", shape=(30, 6, 5, 3), dtype=np.uint8,
                             chunks=(8, 6, 5, 3), compression="gzip", fillvalue=7)
        d[0:8] = nhwc[0:8]
        d[16:21] = nhwc[16:21]
    write(folder, "unwritten_chunks", np.empty(0), make=unwritten)

    # Contiguous: pread at the dataset's offset.
    write(folder, "nhwc_contiguous", nhwc, labels=np.arange(n, dtype=np.uint32))
    write(folder, "nchw_contiguous", nchw, nchw=True)

    # Read through H5Dread: chunks that cut samples, compact storage.
    write(folder, "partial_chunks", pixels((30, 6, 5, 3), 4), chunks=(4, 3, 5, 3),
          compression="gzip")
    write(folder, "partial_chunks_nchw", nchw, nchw=True, chunks=(4, 1, 6, 5),
          compression="gzip")

    def compact(f):
        space = h5py.h5s.create_simple((4, 6, 5, 3))
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        d = h5py.h5d.create(f.id, b"images", h5py.h5t.STD_U8LE, space, dcpl=dcpl)
        d.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(nhwc[:4]))
    write(folder, "compact", nhwc[:4], make=compact)

    # A declared layout wins over the shape: (10, 4, 6, 3) looks NHWC with C=3.
    declared = pixels((10, 4, 6, 3), 5)
    def declared_nchw(f):
        d = f.create_dataset("images", data=declared, chunks=(3, 4, 6, 3))
        d.attrs["layout"] = "NCHW"
    write(folder, "declared_nchw", declared, nchw=True, make=declared_nchw)

    # Found by shape, not by name; labels named explicitly elsewhere.
    def elsewhere(f):
        f.create_dataset("data/pixels", data=nhwc, chunks=(10, 6, 5, 3))
        f.create_dataset("data/targets", data=labels16)
        f.create_dataset("mean", data=np.zeros(3, np.float32))
    write(folder, "elsewhere", nhwc, dataset="data/pixels", make=elsewhere)

    # Files the reader must refuse.
    write(folder, "lzf", nhwc, chunks=(10, 6, 5, 3), compression="lzf")
    write(folder, "float_images", None, make=lambda f: f.create_dataset(
        "images", data=np.zeros((4, 6, 5, 3), np.float32)))
    write(folder, "rank5", None, make=lambda f: f.create_dataset(
        "images", data=np.zeros((2, 2, 6, 5, 3), np.uint8)))
    def no_images(f):
        f.create_dataset("x", data=np.zeros((4, 6, 5, 3), np.float32))
        f.create_dataset("y", data=np.zeros(4, np.int64))
    write(folder, "no_images", None, make=no_images)
    def two_images(f):
        f.create_dataset("a", data=nhwc)
        f.create_dataset("b", data=nhwc)
    write(folder, "two_images", None, make=two_images)
    write(folder, "labels_wrong_length", None, make=lambda f: (
        f.create_dataset("images", data=nhwc), f.create_dataset("labels", data=labels16[:-1])))
    write(folder, "labels_float", None, make=lambda f: (
        f.create_dataset("images", data=nhwc),
        f.create_dataset("labels", data=labels16.astype(np.float32))))


if __name__ == "__main__":
    main(sys.argv[1])
