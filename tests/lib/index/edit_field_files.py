#!/usr/bin/python3
"""Edits the fields of an h5feed file with h5py, for field_index_test.cpp: adds fields the way
docs/format.md ("Fields") tells a writer of another language to, and damages them in the ways
a reader must refuse.

  edit_field_files.py add PATH                fields h_<dtype> (every dtype), h_blob, h_caption,
                                              appended to the file's `fields` (values: those of
                                              tests/lib/format/field_test_columns.h)
  edit_field_files.py claim PATH NAME         every row of bytes/text field NAME claims 2^32 - 1
                                              bytes (its chunks' descriptors rewritten)
  edit_field_files.py kind PATH NAME KIND     sets NAME's h5feed_field attribute
  edit_field_files.py rows PATH NAME ROWS     resizes NAME to ROWS rows
  edit_field_files.py matrix PATH NAME        replaces bytes field NAME by an (N, 2) one
  edit_field_files.py contiguous PATH NAME    stores text field NAME contiguous
  edit_field_files.py list PATH NAME...       sets the `fields` attribute
  edit_field_files.py checksum PATH NAME ROW  flips a bit of NAME's checksum of ROW
  edit_field_files.py moved PATH NAME CHUNK   NAME's chunk table says chunk CHUNK lies 8 bytes on
  edit_field_files.py untabled PATH           deletes the fields' chunk tables (/field_chunk_index),
                                              as in a file written before they existed
"""

import struct
import sys

import h5py
import numpy as np
import xxhash

ARRAYS = [("bool", (5,)), ("int8", (2, 3)), ("int16", (3,)), ("int32", ()), ("int64", (2,)),
          ("uint8", (40,)), ("uint16", (2, 2)), ("uint32", (1,)), ("uint64", (3,)),
          ("float16", (4,)), ("float32", (5, 2)), ("float64", (2,))]


def array_values(dtype, shape, rows):
    n = np.arange(rows, dtype=np.int64).reshape(-1, 1)
    e = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(1, -1)
    v = (31 * n + 7 * e + 3) % 97
    if dtype == "bool":
        values = (v % 2).astype(bool)
    elif dtype.startswith("float"):
        values = ((v - 48) / 4).astype(dtype)
    elif dtype.startswith("int"):
        values = ((v - 48) * (0x0101010101010101 if dtype == "int64" else 1)).astype(dtype)
    else:
        values = (v.astype(np.uint64) *
                  np.uint64(0x0101010101010101 if dtype == "uint64" else 1)).astype(dtype)
    return values.reshape((rows,) + shape)


def set_fields(f, names):
    f.attrs.create("fields", np.array(names, dtype=h5py.string_dtype()))


def add(f):
    rows, k = int(f.attrs["num_images"]), int(f.attrs["chunk_images"])
    compression = f.attrs["compression"]
    options = {} if compression == "none" else {"compression": "gzip",
                                                "compression_opts": int(compression[5:])}
    checksums = f.require_group("field_checksums")
    names = list(f.attrs["fields"]) if "fields" in f.attrs else []

    def checksummed(name, values):
        checksums.create_dataset(name, data=np.array(
            [xxhash.xxh3_64_intdigest(v) for v in values], dtype="<u8"))
        checksums[name].attrs["checksum"] = "xxh3-64"
        names.append(name)

    for dtype, shape in ARRAYS:
        name, values = "h_" + dtype, array_values(dtype, shape, rows)
        ds = f.create_dataset(name, data=values, chunks=(k,) + shape, maxshape=(None,) + shape,
                              **options)
        ds.attrs["h5feed_field"] = "array"
        checksummed(name, [row.tobytes() for row in values])
    blobs = [bytes((n + i) % 256 for i in range(n % 7)) for n in range(rows)]
    ds = f.create_dataset("h_blob", (rows,), dtype=h5py.vlen_dtype(np.uint8), chunks=(k,),
                          maxshape=(None,))
    for n, blob in enumerate(blobs):
        ds[n] = np.frombuffer(blob, dtype=np.uint8)
    ds.attrs["h5feed_field"] = "bytes"
    checksummed("h_blob", blobs)
    captions = ["" if n % 5 == 0 else f"caption {n} é✓" for n in range(rows)]
    ds = f.create_dataset("h_caption", data=captions, dtype=h5py.string_dtype(), chunks=(k,),
                          maxshape=(None,))
    ds.attrs["h5feed_field"] = "text"
    checksummed("h_caption", [c.encode() for c in captions])
    set_fields(f, names)


def claim(f, name):
    ds = f[name]
    chunk = ds.chunks[0]
    descriptor = 4 + f.id.get_create_plist().get_sizes()[0] + 4
    for first in range(0, ds.shape[0], chunk):
        mask, raw = ds.id.read_direct_chunk((first,))
        raw = bytearray(raw)
        for r in range(chunk):
            struct.pack_into("<I", raw, r * descriptor, 0xFFFFFFFF)
        ds.id.write_direct_chunk((first,), bytes(raw), mask)


def main(command, path, *args):
    with h5py.File(path, "a") as f:
        if command == "add":
            add(f)
        elif command == "claim":
            claim(f, args[0])
        elif command == "kind":
            f[args[0]].attrs["h5feed_field"] = args[1]
        elif command == "rows":
            f[args[0]].resize(int(args[1]), axis=0)
        elif command == "matrix":
            rows = f[args[0]].shape[0]
            del f[args[0]]
            ds = f.create_dataset(args[0], (rows, 2), dtype=h5py.vlen_dtype(np.uint8),
                                  chunks=(8, 2))
            ds.attrs["h5feed_field"] = "bytes"
        elif command == "contiguous":
            values = f[args[0]][...]
            del f[args[0]]
            ds = f.create_dataset(args[0], data=values, dtype=h5py.string_dtype())
            ds.attrs["h5feed_field"] = "text"
        elif command == "list":
            set_fields(f, list(args))
        elif command == "checksum":
            checksums = f["field_checksums"][args[0]]
            values = checksums[...]
            values[int(args[1])] ^= np.uint64(1)
            checksums[...] = values
        elif command == "moved":
            table = f["field_chunk_index"][args[0]]
            rows = table[...]
            rows["address"][int(args[1])] += 8
            table[...] = rows
        elif command == "untabled":
            del f["field_chunk_index"]
        else:
            sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main(*sys.argv[1:])
