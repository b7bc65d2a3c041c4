"""Conversions, merging, inspection and verification for scripts: what `h5feed convert`,
`h5feed rechunk`, `h5feed merge`, `h5feed inspect` and `h5feed verify` do, with the same
options, through the same library functions (no subprocess). Each returns its report as a
dict with the keys the command's `--json` prints (docs/python.md, "Reports"). A conversion's
report: path, format_version, images, inputs, image_shape [H, W, C], chunks, chunk_images,
compression, shuffled, seed, raw_bytes, stored_bytes, compression_ratio, seconds,
inputs_per_s, own_size, and skipped, a list of {"source", "reason"} for the inputs left out as
broken (each also warned about). Ctrl-C stops a conversion or a merge at the next image or
chunk and leaves nothing at `out` (KeyboardInterrupt)."""

from __future__ import annotations

import numbers
import os
import warnings
from collections.abc import Mapping

from . import _h5feed


def _whole(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _size_in_bytes(name: str, value, example: str) -> str:
    """A memory or chunk size as the library parses it: bytes (any whole number: a numpy int
    too) or a size with a unit, or a TypeError naming `name`."""
    if _whole(value) or isinstance(value, str):
        return str(int(value)) if _whole(value) else value
    raise TypeError(f"{name} {value!r}: give bytes (an int) or a size such as {example}")


def _flag(name: str, value) -> bool:
    """A switch (shuffle, overwrite, strict): True or False (a numpy bool, 0 or 1 too), or a
    TypeError naming it rather than pybind11's 'Unable to cast Python instance'."""
    if isinstance(value, bool) or type(value).__name__ == "bool_" or value in (0, 1):
        return bool(value)
    raise TypeError(f"{name}={value!r}: give True or False")


def seed_argument(seed) -> int:
    """A seed as the library takes it (uint64), or a ValueError naming `seed`."""
    if not _whole(seed) or not 0 <= seed < 2**64:
        raise ValueError(f"seed={seed!r}: a seed is a whole number from 0 to 2**64 - 1")
    return int(seed)


def threads_argument(threads) -> int:
    """None (every core) or a count of threads, as the library takes it (0: every core), or a
    ValueError naming `threads`."""
    if threads is None:
        return 0
    if not _whole(threads) or threads < 1:
        raise ValueError(f"threads={threads!r}: give a number of threads, at least 1, or None "
                         "for every core")
    return int(threads)


def remote_argument(remote) -> dict:
    """remote= (None, or a dict of RemoteOptions' fields: docs/remote.md, "Options") as the
    library takes it; spill_dir may be a Path. Anything but a mapping is a TypeError saying
    what remote= takes."""
    if remote is None:
        return {}
    if not isinstance(remote, Mapping):
        raise TypeError(f"remote takes a dict of the remote options (connections, retries, "
                        f"connect_timeout_seconds, stall_seconds, spill_dir, spill_bytes, "
                        f"s3_region, s3_endpoint; docs/remote.md), not {remote!r}")
    remote = dict(remote)
    if remote.get("spill_dir") is not None:
        remote["spill_dir"] = os.fspath(remote["spill_dir"])
    return remote


def _common(chunk, compression, shuffle, seed, threads, overwrite, strict,
            memory_limit) -> dict:
    """The options every conversion takes (`--chunk`, `--compression`, `--seed`,
    `--no-shuffle`, `--threads`, `--force`, `--strict`, `--memory-limit`)."""
    memory_limit = _size_in_bytes("memory_limit", memory_limit, "'512M' or '2G'")
    if chunk is not None and (not _whole(chunk) or chunk < 1):
        raise ValueError(f"chunk={chunk!r}: give the images per chunk, at least 1, or leave "
                         "chunk out (None) for chunks of about 4 MiB")
    shuffle, seed = _flag("shuffle", shuffle), seed_argument(seed)
    if not shuffle and seed != 0:
        # As `--seed S --no-shuffle` is refused: the seed would shuffle nothing, without a word
        # (rechunk's shuffle is False by default, where `h5feed rechunk --seed S` shuffles).
        raise ValueError(f"seed={seed} with shuffle=False: the seed orders nothing; give "
                         "shuffle=True to store a seeded shuffle, or leave seed out")
    return dict(chunk=0 if chunk is None else int(chunk), compression=compression,
                shuffle=shuffle, seed=seed,
                threads=threads_argument(threads), overwrite=_flag("overwrite", overwrite),
                strict=_flag("strict", strict), memory_limit=memory_limit)


# Skipped inputs warned of one by one, as the command line warns of them: a folder of
# thousands of broken files would otherwise print thousands of warnings. The report's
# "skipped" lists all.
_SKIPS_WARNED = 20


def warn_skipped(report: dict, stacklevel: int) -> None:
    """Warns of the first skipped inputs of `report`, then of how many more there are;
    `stacklevel` as for warnings.warn called where this is."""
    skipped = report["skipped"]
    for s in skipped[:_SKIPS_WARNED]:
        warnings.warn(f"h5feed: skipped {s['source']}: {s['reason']}", stacklevel=stacklevel + 1)
    if len(skipped) > _SKIPS_WARNED:
        warnings.warn(f"h5feed: {len(skipped) - _SKIPS_WARNED} more inputs were skipped; the "
                      "report's 'skipped' lists all", stacklevel=stacklevel + 1)


def _reported(report: dict) -> dict:
    warn_skipped(report, stacklevel=3)
    return report


def _size(size) -> tuple[int, int] | None:
    """None, an int (square), (height, width), or "HxW" as on the command line; anything else
    (a float, a pair of floats, three numbers) a TypeError or ValueError naming `size`, rather
    than Python's own unpacking error."""
    if size is None:
        return None
    if _whole(size):
        return int(size), int(size)
    if isinstance(size, str):
        parts = size.lower().split("x")
        if len(parts) in (1, 2) and all(p.isdigit() for p in parts):
            return int(parts[0]), int(parts[-1])
        raise ValueError(f"size {size!r}: give HxW (height first), e.g. '224x224', or one number")
    if not isinstance(size, (tuple, list)) or not all(_whole(side) for side in size):
        raise TypeError(f"size={size!r}: give one whole number of pixels (a square), "
                        "(height, width) or 'HxW'")
    if len(size) != 2:
        raise ValueError(f"size={size!r}: give (height, width), two numbers, or one number for "
                         "a square")
    return int(size[0]), int(size[1])


def count_argument(name: str, value) -> int | None:
    """None or a whole number, as the library takes `max_side`, `max_pixels` and
    `smart_threshold` (their ranges are its to check), or a TypeError naming the argument
    rather than pybind11's list of signatures."""
    if value is None or _whole(value):
        return None if value is None else int(value)
    raise TypeError(f"{name}={value!r}: {name} takes a whole number (an int), not "
                    f"{type(value).__name__}")


def mask_fill_argument(value) -> int:
    """mask_fill, the class id a mask's padding gets under resize="pad": an int 0-255, or a
    TypeError / ValueError naming it rather than pybind11's list of signatures."""
    if not _whole(value):
        raise TypeError(f"mask_fill={value!r}: mask_fill takes an int from 0 to 255 (the class "
                        f"id of a mask's padding; 255: VOC's ignore), not {type(value).__name__}")
    if not 0 <= value <= 255:
        raise ValueError(f"mask_fill={value!r} is out of range: mask_fill takes an int from 0 to "
                         "255 (the class id of a mask's padding; 255: VOC's ignore)")
    return int(value)


def _own_size_common(common: dict, compression, encoding: str, smart_threshold,
                     chunk_bytes) -> dict:
    """`common` with the options of images at their own size: the encoding, its default
    compression (zstd:3, or none for JPEG), the smart threshold and the chunk bytes."""
    if smart_threshold is not None and not encoding.startswith("smart"):
        raise ValueError("smart_threshold applies to encoding 'smart' only")
    if compression is None:
        compression = "none" if encoding.startswith("jpeg") else "zstd:3"
    common.update(compression=compression, encoding=encoding,
                  chunk_bytes=("0" if chunk_bytes is None
                               else _size_in_bytes("chunk_bytes", chunk_bytes, "'4M'")),
                  smart_threshold=(_h5feed.DEFAULT_SMART_THRESHOLD if smart_threshold is None
                                   else count_argument("smart_threshold", smart_threshold)))
    return common


def convert_imagefolder(src, out, size=None, resize: str = "crop", allow_empty: bool = False,
                        chunk: int | None = None, compression: str | None = None,
                        shuffle: bool = True, seed: int = 0, threads: int | None = None,
                        overwrite: bool = False, strict: bool = False,
                        memory_limit: int | str = "2G",
                        max_pixels: int = _h5feed.DEFAULT_MAX_PIXELS,
                        max_side: int | None = None, encoding: str = "raw",
                        smart_threshold: int | None = None,
                        chunk_bytes: int | str | None = None) -> dict:
    """`h5feed convert imagefolder SRC OUT`: a torchvision-style ImageFolder (one subfolder per
    class, sorted; labels are their indices) to one h5feed file.

    size: every image stored at (height, width) (an int: square; "HxW" also taken); None: each
    image at its own size, its longer side capped at max_side (below), in a version 1 file
    when they all share one size and the encoding is raw. resize: crop | stretch | pad. chunk:
    images per chunk (None: about 4 MiB). compression: none | zstd[:L] | gzip[:L].
    shuffle/seed: the stored order is a seeded shuffle unless shuffle=False. threads: None =
    all cores. overwrite: replace `out`. strict: a broken image is an error instead of a skip.
    memory_limit: bytes, or "512M", "2G", ...: the memory for images in flight, whatever their
    dimensions and the thread count (large PNGs are decoded row by row, large JPEGs at a
    reduced DCT scale, the rest one at a time; an image needing more is skipped). max_pixels:
    images with more pixels are skipped as decompression bombs (default: where PIL refuses
    them, 178,956,970; 0: no limit).

    Images at their own size (size=None): max_side caps an image's longer side (None: 512,
    the top of FFCV's ImageNet configurations; 0: no cap; larger images are shrunk by area
    averaging, aspect kept, never enlarged). encoding: "raw" (pixels), "jpeg[:Q]" (every image
    a JPEG file of quality Q, default 90, 4:2:0) or "smart[:Q]" (JPEG only for images of more
    than smart_threshold bytes of pixels, default 196,608 = 256x256x3). chunk_bytes: bytes of a
    chunk before compression (int, or "4M"; None: 4 MiB), raised to the largest image. When the
    images do not all have one (capped) size, or the encoding is not raw, the file is version
    2 (docs/format.md, "Images at their own size") and chunk must be None; otherwise version 1,
    as before. compression: None = zstd:3, or none with encoding "jpeg". The report of a
    version 2 file also has chunk_bytes, max_side, encoding, smart_threshold, encodings (the
    images by how each is stored: {"raw": n, "jpeg": m}), images_per_chunk, payload_bytes and
    chunk_fill. size together with max_side or a non-raw encoding is a ValueError."""
    check_resize(size, resize)
    common = _own_size_common(_common(chunk, None, shuffle, seed, threads, overwrite, strict,
                                      memory_limit), compression, encoding, smart_threshold,
                              chunk_bytes)
    return _reported(_h5feed.convert_imagefolder(
        os.fspath(src), os.fspath(out), size=_size(size), resize=resize,
        allow_empty=allow_empty, max_pixels=count_argument("max_pixels", max_pixels),
        max_side=count_argument("max_side", max_side), common=common))


def convert_cifar(src, out, split: str = "train", labels: str = "fine",
                  chunk: int | None = None, compression: str = "zstd:3", shuffle: bool = True,
                  seed: int = 0, threads: int | None = None, overwrite: bool = False,
                  strict: bool = False, memory_limit: int | str = "2G") -> dict:
    """`h5feed convert cifar SRC OUT`: the CIFAR-10 / CIFAR-100 binary version (split: train |
    test; labels: fine | coarse, CIFAR-100 only). Other options as convert_imagefolder."""
    return _reported(_h5feed.convert_cifar(
        os.fspath(src), os.fspath(out), split=split, labels=labels,
        common=_common(chunk, compression, shuffle, seed, threads, overwrite, strict,
                       memory_limit)))


def convert_npy(images, out, *, labels=None, chunk: int | None = None,
                compression: str = "zstd:3", shuffle: bool = True, seed: int = 0,
                threads: int | None = None, overwrite: bool = False, strict: bool = False,
                memory_limit: int | str = "2G", fields: dict | None = None) -> dict:
    """`h5feed convert npy IMAGES.npy [LABELS.npy] OUT`: a uint8 (N, H, W, C) or (N, H, W)
    .npy file (memory-mapped), with optional integer labels (N). fields: {name: path of an
    .npy file}, each carried as a field, row i image i's value (`--field NAME=FILE.npy`): a
    numeric array (N, ...), or (N,) byte strings (bytes) or str (text). Other options as
    convert_imagefolder.

    The labels are a keyword (labels="labels.npy"), so that the command's order,
    convert_npy(images, labels, out), is a TypeError rather than a conversion to the labels'
    path; an `out` ending in .npy is refused (InvalidArgumentError) and left as it is."""
    return _reported(_h5feed.convert_npy(
        os.fspath(images), "" if labels is None else os.fspath(labels), os.fspath(out),
        fields=[(str(name), os.fspath(path)) for name, path in (fields or {}).items()],
        common=_common(chunk, compression, shuffle, seed, threads, overwrite, strict,
                       memory_limit)))


def check_resize(size, resize) -> None:
    """resize fits images to size: without size (each image stored at its own size) another
    resize than the default would fit nothing, without a word. A ValueError, as the command's
    --resize without --size is a usage error."""
    if size is None and resize != "crop":
        raise ValueError(f"resize={resize!r} fits images to size, and size is None: each image "
                         "is stored at its own size and none is fitted; give size, or leave "
                         "resize out")


def _fitted_common(size, max_side, chunk, compression, shuffle, seed, threads, overwrite,
                   strict, memory_limit, encoding, smart_threshold, chunk_bytes) -> dict:
    """The options of a conversion whose images are fitted to `size`, or stored each at its
    own size (convert_segmentation, convert_coco)."""
    if size is not None and (max_side is not None or encoding != "raw"):
        raise ValueError("size stores every image at one size, which leaves nothing for "
                         f"{'max_side' if max_side is not None else 'encoding ' + encoding} to "
                         "do: give size, or max_side and encoding")
    return _own_size_common(_common(chunk, None, shuffle, seed, threads, overwrite, strict,
                                    memory_limit), compression, encoding, smart_threshold,
                            chunk_bytes)


def convert_segmentation(images, masks, out, size=None, resize: str = "crop",
                         image_suffix: str = "", mask_suffix: str = "", image_list=None,
                         chunk: int | None = None, compression: str | None = None,
                         shuffle: bool = True, seed: int = 0, threads: int | None = None,
                         overwrite: bool = False, strict: bool = False,
                         memory_limit: int | str = "2G",
                         max_pixels: int = _h5feed.DEFAULT_MAX_PIXELS,
                         max_side: int | None = None, encoding: str = "raw",
                         smart_threshold: int | None = None,
                         chunk_bytes: int | str | None = None, mask_fill: int = 0) -> dict:
    """`h5feed convert segmentation IMAGES_DIR MASKS_DIR OUT`: images with their PNG masks,
    paired by name stem (Pascal VOC's JPEGImages/ and SegmentationClass/, ADE20K, Cityscapes),
    into a file whose field "mask" holds each image's class ids (palette indices or gray
    values, uint16 for 16-bit masks; VOC's 255 kept). image_suffix / mask_suffix: removed from
    the stems before pairing (Cityscapes: "_leftImg8bit", "_gtFine_labelIds"). image_list: a
    text file of the stems to convert (VOC's ImageSets/Segmentation/train.txt). size: every
    image (and its mask, by nearest neighbour) fitted to (height, width) by resize; None: each
    at its own size, capped at max_side (a version 2 file). mask_fill: the class id of a
    mask's border under resize="pad" (0-255; 255 is VOC's and Cityscapes' "ignore"; the
    image's border stays black). An image without a mask, or with a mask of another size, is
    skipped (warned about, in the report's "skipped"). Other options as convert_imagefolder
    (docs/command.md, "Segmentation masks and detection boxes")."""
    check_resize(size, resize)
    common = _fitted_common(size, max_side, chunk, compression, shuffle, seed, threads,
                            overwrite, strict, memory_limit, encoding, smart_threshold,
                            chunk_bytes)
    return _reported(_h5feed.convert_segmentation(
        os.fspath(images), os.fspath(masks), os.fspath(out), size=_size(size), resize=resize,
        image_suffix=image_suffix, mask_suffix=mask_suffix,
        image_list="" if image_list is None else os.fspath(image_list),
        mask_fill=mask_fill_argument(mask_fill),
        max_pixels=count_argument("max_pixels", max_pixels),
        max_side=count_argument("max_side", max_side), common=common))


def convert_coco(annotations, images, out, size=None, resize: str = "crop",
                 keep_crowd: bool = False, chunk: int | None = None,
                 compression: str | None = None, shuffle: bool = True, seed: int = 0,
                 threads: int | None = None, overwrite: bool = False, strict: bool = False,
                 memory_limit: int | str = "2G", max_pixels: int = _h5feed.DEFAULT_MAX_PIXELS,
                 max_side: int | None = None, encoding: str = "raw",
                 smart_threshold: int | None = None,
                 chunk_bytes: int | str | None = None) -> dict:
    """`h5feed convert coco ANNOTATIONS.json IMAGES_DIR OUT`: COCO's instances JSON and its
    images into a file whose fields "boxes" (K x 4 float32 xyxy pixels) and "box_labels" (K
    int64: category ids mapped to 0..C-1 in id order; the table in /box_classes and
    /box_class_ids) hold each image's boxes, scaled with it, and the box values "iscrowd" (K
    int64) and "area" (K float64, COCO's as the JSON gives it) their own. keep_crowd: keep crowd
    annotations' boxes (dropped by default, as torchvision's detection references drop them).
    Images without annotations are kept with no box; a missing image, or one whose size is not
    the JSON's, is skipped. size, resize, max_side and the other options as
    convert_segmentation."""
    check_resize(size, resize)
    common = _fitted_common(size, max_side, chunk, compression, shuffle, seed, threads,
                            overwrite, strict, memory_limit, encoding, smart_threshold,
                            chunk_bytes)
    return _reported(_h5feed.convert_coco(
        os.fspath(annotations), os.fspath(images), os.fspath(out), size=_size(size),
        resize=resize, keep_crowd=keep_crowd,
        max_pixels=count_argument("max_pixels", max_pixels),
        max_side=count_argument("max_side", max_side),
        common=common))


def rechunk(src, out, images: str | None = None, labels: str | None = None,
            chunk: int | None = None, compression: str | None = None, shuffle: bool = False,
            seed: int = 0, threads: int | None = None, overwrite: bool = False,
            strict: bool = False, memory_limit: int | str = "2G",
            max_pixels: int = _h5feed.DEFAULT_MAX_PIXELS, max_side: int | None = None,
            encoding: str = "raw", smart_threshold: int | None = None,
            chunk_bytes: int | str | None = None, fields: list[str] | None = None) -> dict:
    """`h5feed rechunk SRC OUT`: any HDF5 file with a uint8 image dataset (h5py-made, NHWC,
    NCHW or N x H x W grayscale, any chunking and filters) to an h5feed file. Keeps the source
    order unless shuffle=True. images / labels: dataset paths (None: found as the Loader and
    inspect find them). fields: the datasets carried as fields, in this order (`--field`); None:
    every dataset of one value per image but the images, labels and h5feed's own (the report's
    "notes" list the datasets left out); []: none (`--no-fields`).

    A file whose images are encoded files (a 1-D dataset of h5py.vlen_dtype(np.uint8), each
    element a JPEG, PNG, ... file's bytes) is decoded as convert_imagefolder decodes files,
    each image stored at its own size (a version 2 file): max_side, max_pixels, encoding,
    smart_threshold and chunk_bytes as convert_imagefolder takes them; elements that do not
    decode are skipped and reported as "images[i]". max_side with an array of pixels is a
    ValueError. compression: None = zstd:3, or none with encoding "jpeg"."""
    if isinstance(fields, (str, bytes)):
        raise TypeError(f"fields is a list of dataset names, e.g. fields=[{fields!r}], not "
                        f"{fields!r}: a str would be read as its letters")
    common = _own_size_common(_common(chunk, None, shuffle, seed, threads, overwrite, strict,
                                      memory_limit), compression, encoding, smart_threshold,
                              chunk_bytes)
    return _reported(_h5feed.rechunk(
        os.fspath(src), os.fspath(out), images=images or "", labels=labels or "",
        fields=None if fields is None else [str(name) for name in fields],
        max_side=count_argument("max_side", max_side),
        max_pixels=count_argument("max_pixels", max_pixels), common=common))


def inspect(path, open_probe: bool = True, open_probe_stall_seconds: int = 60,
            remote: Mapping | None = None) -> dict:
    """What `h5feed inspect --json PATH` prints, as a dict: shape, layout, chunking,
    compression ratio, classes with counts, format version, skipped sources, datasets, notes.
    Works on any HDF5 file, a path or an http://, https:// or s3:// URL; reads metadata and
    labels only.

    open_probe: first open the file in a separate process (as h5feed.Loader does), so that
    HDF5 crashing or hanging (more than open_probe_stall_seconds) on a damaged file raises
    h5feed.CorruptDataError instead of ending the interpreter.
    remote: for a URL, a dict of RemoteOptions' fields, as h5feed.Loader's remote= takes it
    (docs/remote.md, "Options"); the open probe reads with them too."""
    if not _whole(open_probe_stall_seconds):
        raise TypeError(f"open_probe_stall_seconds={open_probe_stall_seconds!r}: give whole "
                        "seconds (an int)")
    if open_probe_stall_seconds < 1:
        raise ValueError(f"open_probe_stall_seconds is {open_probe_stall_seconds}; it must be "
                         ">= 1")
    if not open_probe and open_probe_stall_seconds != 60:
        raise ValueError(f"open_probe_stall_seconds is {open_probe_stall_seconds}, and "
                         "open_probe=False turns the open probe off: the stall limit is the "
                         "probe's, and an open hung in this process cannot be given up. Keep the "
                         "probe on, or leave open_probe_stall_seconds at its default (60)")
    remote = remote_argument(remote)
    summary, notes = _h5feed.inspect(os.fspath(path), open_probe=open_probe,
                                     open_probe_stall_seconds=open_probe_stall_seconds,
                                     remote=remote)
    for note in notes:
        warnings.warn(f"h5feed: {note}", stacklevel=2)
    return summary


def merge(parts, out, seed: int = 0, overwrite: bool = False) -> dict:
    """`h5feed merge PART... OUT`: the parts of a conversion in parts (convert_* or rechunk of
    the command with --part K/N) joined into one h5feed file, their compressed chunks copied
    without decompressing, interleaved in an order seeded by `seed`. parts: every part once, in
    any order. overwrite: replace `out`. Returns what `h5feed merge --json` prints: path, parts,
    images, skipped, chunks, copied_chunks, repacked_rows, copied_bytes, stored_bytes, seconds,
    bytes_per_s."""
    if isinstance(parts, (str, bytes, os.PathLike)):
        raise TypeError(f"parts is a list of the part files, e.g. [{os.fspath(parts)!r}, ...], "
                        "not one path: a str would be read as its letters")
    return _h5feed.merge([os.fspath(part) for part in parts], os.fspath(out),
                         seed=seed_argument(seed), overwrite=overwrite)


def verify(path, threads: int | None = None, file_locking: str = "auto",
           remote: Mapping | None = None, images: str | None = None) -> dict:
    """What `h5feed verify --json PATH` prints, as a dict: whether the file is sound ("ok"),
    every bad chunk with its rows, every bad image with its row, the problems of the file as a
    whole, and what was and was not checked. Damage is reported, never raised; a file that
    cannot be judged raises (h5feed.NotFoundError, h5feed.IoError, ...), as the command exits 1.

    threads: None = all cores. file_locking: "auto" | "on" | "off", as the Loader takes it.
    remote: for a URL, a dict of RemoteOptions' fields, as inspect takes it.
    images: the image dataset of a file that holds several, as the Loader's `images` names it.

    Unlike the command, which checks in a child process, this checks in the calling process: a
    file whose damage crashes HDF5 itself (docs/reliability.md) ends the interpreter. For files
    from sources you do not trust, run `h5feed verify` instead."""
    remote = remote_argument(remote)
    if images is not None and not isinstance(images, str):
        raise TypeError(f"images={images!r}: give the image dataset's name (a str)")
    return _h5feed.verify(os.fspath(path), threads=threads_argument(threads),
                          file_locking=file_locking, remote=remote, images=images or "")
