"""h5feed.Loader: shuffled batches of an h5feed (or any uint8 image HDF5) file as torch tensors,
in place of DataLoader(H5Dataset(...), num_workers=..., pin_memory=True)."""

from __future__ import annotations

import contextlib
import numbers
import operator
import os
import warnings
from collections.abc import Mapping, Sequence
from typing import Iterator

import torch
from torch.utils.dlpack import from_dlpack

from . import _h5feed
from ._errors import InvalidArgumentError
from ._options import (IMAGENET_MEAN, IMAGENET_STD, LOADER_OPTIONS, Augment, size_pair,
                       cuda_device_and_stream, hints_for_dataloader_arguments, native_keywords,
                       view_dtype, whole_number)


def _path_argument(path) -> str:
    """The file as the library takes it: a str or os.PathLike (bytes decoded as the file
    system's names are). str() would make b"train.h5" the name "b'train.h5'", reported as a
    missing file."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path={path!r}: give the file as a str or os.PathLike (a path, or an "
                        f"http(s):// or s3:// URL), not {type(path).__name__}")
    return os.fsdecode(path)


class Loader:
    """Iterating a Loader yields one epoch of (images, labels) tensors, then each field asked
    (fields=[...]) in the order asked, then indices with with_indices=True: (images, labels,
    *fields, indices); with as_dict=True a dict of the same with keys "images", "labels",
    each field's name and "indices":

    - images: `dtype` (float32 by default), N x C x H x W, (x / 255 - mean) / std per channel
      (in torch.channels_last memory with memory_format=torch.channels_last); with dtype=None
      the stored uint8 N x H x W x C, untouched, or with augment (or views) the crops as
      uint8 N x C x H x W, not normalized (for the trainer's own GPU transforms:
      images.cuda(non_blocking=True), then normalize there); dtype=torch.uint8 asks for uint8
      views in any case.
    - labels: int64 [N], on the images' device; None for a file without labels (written for
      self-supervised training: none are invented). indices: int64 [N], the dataset row of
      every sample (host memory).
    - fields: the file's per-sample fields named in fields=['attrs', 'caption'] (h5feed.inspect
      lists them): an array field as a tensor (N, *shape) on the images' device of its dtype (bool, int8-int64,
      uint8, float16-float64; uint16 and uint32, which torch lacks, as int64, and uint64 as
      int64 of the same bits, so values from 2**63 up read negative), a view of the loader's
      buffer like the images (clone() what you keep beyond the step); a bytes field as a list
      of N `bytes`, a text field as a list of N `str`. The loader reads each field whole when
      it opens and holds it in memory, up to held_field_bytes of values (0, the default: a
      quarter of the machine's memory); beyond it, array fields are streamed instead: read
      chunk by chunk with the images, kept in the cache beside them (counted in cache_bytes),
      delivered the same.
    - masks and boxes (docs/augment.md, "Masks and boxes follow the image's geometry") move
      with each view's crop, resize and flip: a mask field as (N, H, W) of its dtype (uint8,
      or uint16 as int64), aligned pixel for pixel with the images; fields=['boxes'] gives
      "boxes" (N, Kmax, 4) float32 xyxy in the delivered image's pixels (rows past a sample's
      count zero), "boxes_count" int64 (N), and, when the file has them, "box_labels" int64
      (N, Kmax) and each per-box field (COCO's "iscrowd", "area": box_values) (N, Kmax) of its
      dtype, the kept boxes' values in step with them, 0 past a sample's count (in the tuple
      form boxes, boxes_count then box_labels and values in the file's order); with views, a
      tuple of one tensor per view for each. mask_dtype=torch.int64 converts the masks (the
      targets CrossEntropyLoss takes; a value a narrower dtype cannot hold raises
      InvalidArgumentError); boxes_as_list=True gives boxes, box labels and values as lists of
      each sample's (K_i, 4) and (K_i,) tensors, as torchvision's detection models take them.
      With device="cuda" a mask is cropped on the device and is a device tensor; boxes, their
      counts and labels are host tensors. A mask's padding (random_crop_padding's border) is
      mask_fill: 0 by default, 255 for VOC's and Cityscapes' "ignore" (CrossEntropyLoss(
      ignore_index=255) then leaves it out); the images' padding stays a 0 pixel. Without a
      mask field it changes nothing.

    augment=h5feed.Augment(...) crops, resizes and flips each sample as it is normalized
    (torchvision's RandomResizedCrop + RandomHorizontalFlip for training, Resize + CenterCrop
    for validation; docs/python.md). views=[Augment(...), ...] makes several views of each
    sample from the one copy read (SimCLR, DINO multi-crop): images is then a tuple of tensors,
    one per view (a spec's `count` views in a row), with the labels given once.
    set_output_size((h, w)) changes a view's size from the next epoch on (progressive
    resizing) within the max_size its Augment declared.

    The images are the loader's own buffers (no copy, through DLPack): a batch's buffer goes
    back to the loader when its images are freed. `slots` batches are prefetched (the loader
    has one buffer more, for the batch a for loop's variables hold while the next is awaited);
    holding the images of slots + 1 batches leaves it no buffer to fill, so after 5 s of
    waiting the iteration raises InvalidArgumentError instead of hanging. Copy (`.clone()`)
    the images you keep beyond the step. Labels and indices are copies of their own (8 bytes a
    sample) and hold nothing of the loader: keep them as long as you like.

    The arguments that decide speed and memory (docs/python.md has every argument):

    - sampler: the order within an epoch. "sequential" (file order), "random" (a global
      permutation, as DataLoader(shuffle=True); reads each chunk many times unless the whole
      file fits cache_bytes), "chunks:W" (the default, chunks:8: W chunks at a time shuffled
      together; each chunk read once with a cache of W chunks) or "quasi:W" (FFCV's
      quasi-random order, the same cost).
    - cache_bytes: bytes of decompressed chunks kept between batches (512 MiB by default). For
      chunks:W and quasi:W it should hold about 2 x W chunks; the loader warns when it holds
      too few, with the size that fits. Resident memory is about cache_bytes plus
      (slots + 1) x one batch.
    - slots: batches prepared ahead of the trainer (the prefetch depth, 4 by default), each a
      batch of memory.
    - echo: deliver each loaded batch this many times, reshuffled (batch echoing): worth it only
      when loading, not the step, is the bottleneck; needs slots >= echo.
    - threads: the loader's worker threads (None: every core), in place of num_workers.

    A file of fewer rows than batch_size gives one short batch per epoch (as DataLoader does),
    unless drop_last, which refuses it.

    The order is a pure function of (seed, epoch, rank, world_size): call set_epoch(e) before
    each epoch (as with DistributedSampler) or every epoch repeats epoch 0's order.
    state_dict() / load_state_dict() resume mid-epoch to exactly the batches the uninterrupted
    run would have delivered; on another world_size, to this rank's share of the rest of the
    epoch (docs/reader.md, "Resuming on another number of ranks"). rank and world_size default to torch.distributed's when it is
    initialised; each rank then reads a disjoint share of equal size.

    The reading happens on the loader's own threads, in C++, without the GIL; Ctrl-C while
    waiting for a batch raises KeyboardInterrupt. Errors (a corrupt chunk, a missing file)
    raise h5feed.Error subclasses naming the file, dataset and chunk.

    open_probe (on by default) opens the file first in a separate process: HDF5 1.10.8 crashes
    or hangs on some damaged files, which then raises h5feed.CorruptDataError naming the file
    (after open_probe_stall_seconds for a hang) instead of ending the interpreter. It costs
    about 10-20 ms per open.

    map_file (on by default) reads chunks through a mapping of the file: uncompressed chunks
    are used where they lie in the page cache, copied once into the batch (docs/reader.md).
    map_file=False reads with pread only, for files that another process may truncate while
    they are read (a mapped page that vanishes ends the process with SIGBUS).

    direct=True reads the file with O_DIRECT, every chunk from the disk into the loader's own
    buffers and none through the page cache: for a data set larger than memory, where caching
    the file only evicts what the training process needs (DALI's file reader has the same
    switch). Chunks are still read ahead of their batches, as many at once as the disk needs.
    A local file only, on a file system that supports O_DIRECT (not tmpfs before Linux 6.6).

    jpeg_region_decode (on by default), for files of images stored as JPEG: decode only what
    each crop reads (rows and columns outside it skipped, DCT scaling when it shrinks by 2, 4
    or 8). False decodes every JPEG whole first, as FFCV does: the reference for the gain.

    `path` may be an http:// or https:// URL (a web server or CDN that answers Range requests,
    or a pre-signed object-store URL) or s3://bucket/key (credentials from the AWS environment
    variables or ~/.aws). Chunks are fetched ahead of the batches that need them, as many at
    once as the link's bandwidth x round trip asks for; `remote` tunes it with the fields of
    RemoteOptions (docs/remote.md): connections, retries, connect_timeout_seconds,
    stall_seconds, and spill_dir / spill_bytes, a folder on a local disk where the fetched
    chunks are kept so that later epochs read them there. Every chunk is checked against its
    checksum; a remote file replaced while it is read raises h5feed.IoError saying it changed.

    The loader's warnings (a cache too small for the sampler, a skipped corrupt chunk, ...)
    are issued with warnings.warn (UserWarning, "h5feed: ..."). Under chunks:W and quasi:W the
    loader measures at open how many classes its batches mix against a random order's, and
    warns when a file stored sorted by label meets a window too small to mix it, naming
    `h5feed rechunk ... --seed 0` and the window that would (docs/python.md, "Label mixing");
    check_label_mixing=False skips that check.
    """

    # The signature is written out so that help(), inspect.signature and editors show every
    # argument with its default; it is _options.LOADER_OPTIONS' names, order and defaults (the
    # C++ ones), which tests/python/test_loader_options.py checks it against. A new argument
    # is a line here and one in LOADER_OPTIONS. (The decorator keeps this signature: see
    # hints_for_dataloader_arguments.)
    @hints_for_dataloader_arguments
    def __init__(self, path: str | os.PathLike, batch_size: int, sampler: str = "chunks:8",
                 seed: int = 0, rank: int | None = None, world_size: int | None = None,
                 drop_last: bool = False, cache_bytes: int = 512 << 20,
                 threads: int | None = None, device: str | torch.device = "cpu",
                 dtype: torch.dtype | None = torch.float32,
                 mean: float | Sequence[float] = IMAGENET_MEAN,
                 std: float | Sequence[float] = IMAGENET_STD,
                 augment: Augment | Mapping | None = None, echo: int = 1,
                 with_indices: bool = False, slots: int = 4, verify_checksums: bool = True,
                 memory_format: torch.memory_format = torch.contiguous_format,
                 shard_drop_last: bool | None = None, skip_corrupt_chunks: bool = False,
                 file_locking: str = "auto", images: str | None = None,
                 labels: str | None = None, map_file: bool = True, direct: bool = False,
                 jpeg_region_decode: bool = True, open_probe: bool = True,
                 open_probe_stall_seconds: int = 60, check_label_mixing: bool = True,
                 views: Sequence[Augment | Mapping] | None = None,
                 remote: Mapping | None = None, fields: Sequence[str] | None = None,
                 as_dict: bool = False, mask_dtype: torch.dtype | None = None,
                 boxes_as_list: bool = False, held_field_bytes: int = 0,
                 mask_fill: int = 0):
        given = locals()  # first, so that it holds the arguments only
        arguments = {option.name: given[option.name] for option in LOADER_OPTIONS}
        # The stream the library makes wait for each batch (native_keywords passes the same
        # one, torch's current stream on the device now): device labels are copied on it.
        _, self._stream = cuda_device_and_stream(arguments["device"])
        self._geometric = _GeometricOutput(arguments["mask_dtype"], arguments["boxes_as_list"])
        self._native = _h5feed.NativeLoader(_path_argument(path), **native_keywords(arguments))
        # 4: _issue_warnings, __init__, hints_for_dataloader_arguments' wrapper, the caller.
        self._issue_warnings(stacklevel=4)
        self.batch_size = arguments["batch_size"]
        self.with_indices = arguments["with_indices"]
        self.as_dict = arguments["as_dict"]
        # (name, kind, type, shape) of each field a batch carries, in the order asked.
        self._fields = self._native.fields
        # The library delivers NHWC as an N x H x W x C array; torch's channels_last is the
        # same memory seen as N x C x H x W, which a permuted view gives without a copy.
        self._channels_last = (view_dtype(arguments) is not None and
                               arguments["memory_format"] == torch.channels_last)
        self._epoch = 0
        self._restored = False  # load_state_dict set a position the next iteration starts at
        # set_epoch named an epoch the next iteration starts (at step 0); the native loader
        # still stands where the last one left it.
        self._epoch_pending = False
        self._iteration = 0     # bumped by every __iter__: an older iterator stops

    def _issue_warnings(self, stacklevel: int) -> None:
        """The native loader's warnings since the last call, as Python warnings; stacklevel
        points them at the trainer's line (the Loader(...) call, or its for loop)."""
        for message in self._native.take_warnings():
            warnings.warn(f"h5feed: {message}", stacklevel=stacklevel)

    def __len__(self) -> int:
        """Batches per epoch on this rank (echo copies counted, the short last one unless
        drop_last)."""
        return self._native.batches_per_epoch

    def __getitem__(self, index):
        # What torch.utils.data.DataLoader(loader) does first: without this, Python's bare
        # "'Loader' object is not subscriptable" would leave the mistake unnamed.
        raise TypeError(
            "h5feed.Loader is not a map-style Dataset to index or to wrap in a torch DataLoader: "
            "it replaces the DataLoader, batching, shuffling and reading on threads of its own. "
            "Iterate it: for images, labels in loader")

    def __reduce_ex__(self, protocol):
        # Pickling and copy.copy/deepcopy come here. A copy would share the native loader, and
        # two loops over the two objects would then take each other's batches unnoticed.
        raise TypeError(
            "h5feed.Loader cannot be pickled or copied (a DataLoader worker started by 'spawn' "
            "or 'forkserver', multiprocessing, torch.save, copy.copy): it is an open file and "
            "its reading threads. Open a Loader in the process that iterates it, and carry its "
            "position with state_dict() / load_state_dict()")

    def set_output_size(self, size, view: int = 0) -> None:
        """Progressive resizing: from the next epoch on (the next iteration, or the position
        load_state_dict restores), view spec `view` (its index in views; 0 for augment)
        delivers size = (height, width) or one side: its random resized crop's or center
        crop's size. At most the Augment's max_size (its buffers are sized for that)."""
        height, width = size_pair("set_output_size(size)", size)
        view = whole_number("set_output_size(view=...)", view)
        self._native.set_output_size(height, width, view)

    def set_epoch(self, epoch: int) -> None:
        """The epoch the next iteration delivers (its order depends on it). After
        load_state_dict, setting the restored epoch keeps the restored position."""
        # Checked here, at the trainer's set_epoch line, not at the next for loop, which is
        # where the native loader would first see it.
        if isinstance(epoch, bool) or not hasattr(epoch, "__index__"):
            raise TypeError(f"set_epoch({epoch!r}): an epoch is an int, not "
                            f"{type(epoch).__name__}")
        epoch = operator.index(epoch)
        if not 0 <= epoch < 2**63:
            raise ValueError(f"set_epoch({epoch}): an epoch is a count from 0 (the first epoch "
                             f"is 0) below 2**63; pass the epoch about to be read")
        if self._restored and epoch == self._epoch:
            return
        self._epoch = epoch
        self._restored = False
        self._epoch_pending = True

    def __iter__(self) -> Iterator[tuple[torch.Tensor, ...]]:
        self._iteration += 1
        self._epoch_pending = False
        if self._restored:
            self._restored = False  # the native loader already stands at the restored step
        else:
            self._native.set_epoch(self._epoch)
        return self._batches(self._iteration)

    def _batches(self, iteration: int) -> Iterator[tuple | dict]:
        native, with_indices = self._native, self.with_indices
        while iteration == self._iteration:
            delivered = native.next(with_indices)
            self._issue_warnings(stacklevel=3)
            if delivered is None:
                return
            images, labels, fields, indices = delivered
            if isinstance(images, tuple):  # views: one tensor per view
                images = tuple(self._images(capsule) for capsule in images)
            else:
                images = self._images(images)
            if labels is not None:  # None: the file has no labels
                labels = from_dlpack(labels)
                if labels.is_cuda:
                    labels = _copied_on(self._stream, labels)
            named = self._geometric.named(self._fields, fields, self._stream)
            if with_indices:
                indices = from_dlpack(indices)
            if self.as_dict:
                batch = {"images": images, "labels": labels}
                batch.update(named)
                if with_indices:
                    batch["indices"] = indices
                yield batch
            else:
                yield (images, labels, *(value for _, value in named),
                       *((indices,) if with_indices else ()))
        raise RuntimeError("h5feed.Loader: another iteration over this loader started; an "
                           "epoch is iterated by one loop at a time")

    def _images(self, capsule) -> torch.Tensor:
        images = from_dlpack(capsule)
        return images.permute(0, 3, 1, 2) if self._channels_last else images

    def state_dict(self) -> dict:
        """Where this loader stands, as plain values (torch.save-able): epoch, step (batches
        delivered in the epoch), seed, fingerprint (of the file and the order options),
        world_size, stretches (the epoch's earlier stretches on other world sizes, as
        [world_size, steps] pairs) and order_key (the fingerprinted values, readable). Every
        rank's is the same, so rank 0's checkpoint resumes the job, on any number of ranks."""
        epoch, step, seed, fingerprint, world_size, stretches, order_key = self._native.state()
        if self._epoch_pending:  # a checkpoint between set_epoch and the loop resumes there
            epoch, step, stretches = self._epoch, 0, []
        return {"epoch": epoch, "step": step, "seed": seed, "fingerprint": fingerprint,
                "world_size": world_size, "stretches": [list(s) for s in stretches],
                "order_key": order_key}

    def load_state_dict(self, state: dict) -> None:
        """Resume at `state` (a state_dict of a loader on the same file with the same seed,
        batch_size, drop_last, sampler and echo; any rank's state resumes every rank). The next
        iteration delivers the batches that followed it; with another world_size than the
        state's, this rank's share of the rest of the epoch, which the ranks deliver once
        between them (docs/reader.md). Raises h5feed.InvalidArgumentError, saying what
        differs, when the state does not fit this loader or is damaged. States saved before
        elastic resume (epoch, step, seed, fingerprint only) restore on their world_size."""
        epoch, step, seed, fingerprint, world_size, stretches, order_key = _state_fields(state)
        self._native.restore(epoch, step, seed, fingerprint, world_size, stretches, order_key)
        self._epoch = epoch
        self._restored = True
        self._epoch_pending = False

    @property
    def epoch(self) -> int:
        """The epoch set_epoch set (or load_state_dict restored): the one the next iteration
        delivers, or the one being delivered."""
        return self._epoch

    @property
    def dataset(self) -> dict:
        """The file: path, samples, image_shape [H, W, C], chunk_samples, chunks, own_size,
        chunk_first_rows (chunk c holds rows [rows[c], rows[c + 1])), classes."""
        return self._native.dataset

    @property
    def streamed_fields(self) -> list[str]:
        """The array fields asked that are read chunk by chunk with the images rather than held
        whole (held_field_bytes); empty when every field is held."""
        return self._native.streamed_fields

    @property
    def samples_per_epoch(self) -> int:
        """This rank's share of an epoch (before drop_last)."""
        return self._native.samples_per_epoch

    def stats(self) -> dict:
        """Counters since opening: batches, samples, chunk_reads (chunk_reads_ahead of them
        for the next epoch's start, read while an epoch ends), cache_hits, cache_misses,
        bytes_read, bytes_decoded, corrupt_chunks_skipped, samples_skipped, wait_seconds,
        slot_bytes (host memory of the batch slots, held beside the cache)."""
        return self._native.stats()


INT64 = (-2**63, 2**63 - 1)
UINT64 = (0, 2**64 - 1)
INT32 = (-2**31, 2**31 - 1)


def _state_fields(state) -> tuple:
    """The native restore's arguments from a state_dict, checked for shape and type (the
    values themselves are checked by the library)."""
    def refuse(what: str):
        raise InvalidArgumentError(
            f"load_state_dict: {what}; pass a dict saved by h5feed.Loader.state_dict()")

    if not isinstance(state, Mapping):
        refuse(f"the state is a {type(state).__name__}, not a dict")

    def integer(key: str, default=None, bounds=INT64) -> int:
        if key not in state and default is not None:
            return default
        if key not in state:
            refuse(f"the state has no {key!r}")
        value = state[key]
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            refuse(f"state[{key!r}] is {value!r}, not an integer")
        if not bounds[0] <= value <= bounds[1]:
            refuse(f"state[{key!r}] is {value}, out of range (the state is damaged)")
        return int(value)

    # States from before elastic resume have neither world_size nor stretches nor order_key.
    stretches = state.get("stretches", [])
    if not isinstance(stretches, (list, tuple)) or not all(
            isinstance(s, (list, tuple)) and len(s) == 2 and
            all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in s)
            for s in stretches):
        refuse(f"state['stretches'] is {stretches!r}, not a list of [world_size, steps] pairs")
    if not all(INT32[0] <= w <= INT32[1] and INT64[0] <= n <= INT64[1] for w, n in stretches):
        refuse(f"state['stretches'] is {stretches!r}, out of range (the state is damaged)")
    order_key = state.get("order_key", "")
    if not isinstance(order_key, str):
        refuse(f"state['order_key'] is {order_key!r}, not a string")
    seed, fingerprint = integer("seed", bounds=UINT64), integer("fingerprint", bounds=UINT64)
    return (integer("epoch"), integer("step"), seed, fingerprint,
            integer("world_size", 0, bounds=INT32),
            [(int(w), int(n)) for w, n in stretches], order_key)


class _GeometricOutput:
    """How a batch's fields are yielded: (key, value) pairs, a boxes field giving its boxes and
    NAME_count; masks converted to mask_dtype when one is given, boxes and box labels split
    into per-sample tensors with boxes_as_list (the lists torchvision's detection models
    take)."""

    def __init__(self, mask_dtype, boxes_as_list: bool):
        if mask_dtype is not None and (not isinstance(mask_dtype, torch.dtype) or
                                       mask_dtype.is_floating_point or mask_dtype.is_complex
                                       or mask_dtype == torch.bool):
            raise TypeError(f"mask_dtype is an integer torch.dtype (torch.int64, as "
                            f"CrossEntropyLoss wants its targets) or None, not {mask_dtype!r}")
        self.mask_dtype, self.boxes_as_list = mask_dtype, bool(boxes_as_list)

    def named(self, specs, values, stream=None) -> list:
        """`stream`: the loader's, where a device batch is ready (_widened)."""
        # A boxes field's name -> its per-sample counts, first: fields may ask for the box
        # labels before their boxes, and the labels are split by those counts.
        counts = {spec[0]: _per_view(value[1]) for spec, value in zip(specs, values)
                  if spec[1] == "boxes"}
        named = []
        for spec, value in zip(specs, values):
            name, kind = spec[0], spec[1]
            if kind == "boxes":
                named += [(name, self._listed(_per_view(value[0]), counts[name])),
                          (name + "_count", counts[name])]
            elif kind in ("box_labels", "box_values"):
                values = _each_view(_per_view(value, spec[2], stream), _as_bool(spec[2]))
                named.append((name, self._listed(values, counts[spec[4]])))
            elif kind == "mask" and self.mask_dtype is not None:
                masks = _per_view(value, spec[2], stream)
                _check_mask_fits(masks, spec, self.mask_dtype, stream)
                named.append((name, _each_view(masks, lambda mask: _converted(
                    mask, self.mask_dtype, stream))))
            else:
                named.append((name, _field_value(spec, value, stream)))
        return named

    def _listed(self, padded, counts):
        """A padded (N, Kmax, ...) tensor as N tensors of each sample's own rows (views), with
        boxes_as_list; per view with views."""
        if not self.boxes_as_list:
            return padded
        if isinstance(padded, tuple):
            return tuple(self._listed(p, c) for p, c in zip(padded, counts))
        return [padded[i, :count] for i, count in enumerate(counts.tolist())]


def _as_bool(dtype):
    """How a field's tensor of `dtype` is yielded: a bool one, which arrives as uint8 (torch
    1.13's DLPack reader takes no bool), seen as bool without a copy; any other as it is."""
    return (lambda tensor: tensor.view(torch.bool)) if dtype == "bool" else (lambda t: t)


def _each_view(value, convert):
    return tuple(convert(v) for v in value) if isinstance(value, tuple) else convert(value)


def _check_mask_fits(masks, spec: tuple, dtype: torch.dtype, stream) -> None:
    """Refuses a batch whose mask values mask_dtype cannot hold: converted, they would wrap
    (class 300 as uint8 is class 44, VOC's ignore label 255 as int8 is -1) and train on wrong
    targets without a sign. Only a mask_dtype narrower than the stored (unsigned) type is
    checked, with one max per view (on the loader's stream for a device batch)."""
    largest_held = torch.iinfo(dtype).max
    if largest_held >= _UNSIGNED_LARGEST.get(spec[2], 0):
        return
    for mask in masks if isinstance(masks, tuple) else (masks,):
        if mask.numel() == 0:
            continue
        with _on_loader_stream(mask, stream):
            largest = int(mask.max())
        if largest > largest_held:
            raise InvalidArgumentError(
                f"mask_dtype={dtype} cannot hold the value {largest} of mask field {spec[0]!r} "
                f"(stored as {spec[2]}): converted it would wrap to another class. Give a "
                f"mask_dtype that holds 0 to {largest} (torch.int64, what CrossEntropyLoss "
                f"takes), or None for the stored type")


def _converted(tensor: torch.Tensor, dtype: torch.dtype, stream) -> torch.Tensor:
    """`tensor` as `dtype`; a device tensor converted on the loader's stream, where its batch
    is ready (as _widened widens there)."""
    with _on_loader_stream(tensor, stream):
        return tensor.to(dtype)


def _on_loader_stream(tensor: torch.Tensor, stream):
    """Where work on a batch's tensor runs: a device tensor's on the loader's stream, where its
    batch is ready; a host tensor's anywhere."""
    return torch.cuda.stream(stream) if tensor.is_cuda else contextlib.nullcontext()


def _field_value(spec: tuple, value, stream=None):
    """A field of a batch as yielded: an array's capsule as a tensor (a bool array comes as
    uint8, which torch 1.13's DLPack reader takes, and is seen as bool without a copy), a bytes
    or text field's list as it is."""
    kind, dtype = spec[1], spec[2]
    if kind in ("mask", "box_labels", "box_values"):
        return _each_view(_per_view(value, dtype, stream), _as_bool(dtype))
    if kind != "array":
        return value
    return _as_bool(dtype)(_widened(from_dlpack(value), dtype, stream))


def _per_view(value, dtype=None, stream=None):
    """A mask's, boxes' or box labels' capsule as a tensor, or with views a tuple of one per
    view."""
    if isinstance(value, tuple):
        return tuple(_widened(from_dlpack(capsule), dtype, stream) for capsule in value)
    return _widened(from_dlpack(value), dtype, stream)


# A stored unsigned type's largest value: the bits a widened field keeps, and what a narrower
# mask_dtype must hold (_check_mask_fits).
_UNSIGNED_LARGEST = {"uint8": 0xFF, "uint16": 0xFFFF, "uint32": 0xFFFFFFFF}


def _widened(tensor: torch.Tensor, dtype, stream) -> torch.Tensor:
    """A device field of uint16 or uint32, which torch lacks, arrives as int16 or int32 of the
    same bits (host ones arrive widened): widened to int64 on the loader's stream, where the
    batch is ready (as _copied_on copies the labels). The view of the loader's buffer is
    dropped after the widening is enqueued there, so its release comes after it."""
    if not tensor.is_cuda or dtype not in ("uint16", "uint32"):
        return tensor
    with torch.cuda.stream(stream):
        return tensor.to(torch.int64) & _UNSIGNED_LARGEST[dtype]


def _copied_on(stream: torch.cuda.Stream, labels: torch.Tensor) -> torch.Tensor:
    """A device batch's labels as a tensor of their own, so that keeping them holds no device
    buffer of the loader (host labels arrive as copies already). The copy is made on the
    loader's stream, where the batch is ready: `next` made that stream wait for the batch
    before returning, so the copy reads the labels after the kernel wrote them. The view is
    freed after the copy is enqueued, and the buffer is rewritten only after that stream
    passes its release (recorded there when the batch's images are freed too), so after the
    copy. The copy is torch's memory, allocated on that stream: used on another stream it
    needs record_stream, as any tensor does. No host synchronisation."""
    with torch.cuda.stream(stream):
        return labels.clone()

