"""How h5feed.Loader's Python arguments become the C++ LoaderOptions fields
(lib/include/h5feed/loader_options.h, output_options.h), in one place."""

from __future__ import annotations

import dataclasses
import numbers
from typing import Sequence

import torch

IMAGENET_MEAN = (0.485, 0.456, 0.406)  # LoaderOptions' defaults, on the 0..1 scale
IMAGENET_STD = (0.229, 0.224, 0.225)

_OUTPUT_TYPES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}
_LAYOUTS = {torch.contiguous_format: "NCHW", torch.channels_last: "NHWC"}


@dataclasses.dataclass(frozen=True)
class Augment:
    """Per-sample augmentation of one view, applied while normalizing (AugmentOptions). Each
    sample's draws depend only on (seed, epoch, dataset row, echo copy, view): a run repeats
    exactly, on any number of threads, on the CPU or the GPU.

    Training (torchvision's RandomResizedCrop(224) + RandomHorizontalFlip):
        Augment(random_resized_crop=224, random_flip=True)
    Validation (Resize(256) + CenterCrop(224)):
        Augment(resize=256, center_crop=224)
    CIFAR (RandomCrop(32, padding=4) + RandomHorizontalFlip):
        Augment(random_crop_padding=4, random_flip=True)
    """
    random_flip: bool = False      # mirror left-right with probability 1/2
    random_crop_padding: int = 0   # > 0: pad P zeros on every side, crop H x W at random
    # (height, width) or one side: deliver the central crop (of the resized image with resize)
    center_crop: tuple[int, int] | int | None = None
    # torchvision's Resize(S): the shorter side resized to S, the other in proportion
    resize: int | None = None
    # torchvision's RandomResizedCrop((height, width) or one side, scale, ratio)
    random_resized_crop: tuple[int, int] | int | None = None
    scale: tuple[float, float] = (0.08, 1.0)         # of the image's area
    ratio: tuple[float, float] = (3.0 / 4.0, 4.0 / 3.0)  # width / height, log-uniform
    antialias: bool = True  # resizing: widen the filter when shrinking (torchvision antialias)
    count: int = 1          # in Loader(views=...): how many views this spec makes
    # Loader.set_output_size may set up to this (height, width) or side (buffers sized for it)
    max_size: tuple[int, int] | int | None = None


def _pair(name: str, value) -> tuple[int, int]:
    """(height, width) from one side or a pair; (0, 0) for None."""
    if value is None:
        return (0, 0)
    if isinstance(value, numbers.Integral):
        return (int(value), int(value))
    pair = tuple(int(v) for v in value)
    if len(pair) != 2:
        raise ValueError(f"{name} is one size or (height, width), got {value!r}")
    return pair


def _augment(augment) -> Augment:
    if augment is None:
        return Augment()
    if isinstance(augment, Augment):
        return augment
    if isinstance(augment, dict):
        unknown = set(augment) - {f.name for f in dataclasses.fields(Augment)}
        if unknown:
            known = ", ".join(f.name for f in dataclasses.fields(Augment))
            raise ValueError(f"augment: unknown keys {sorted(unknown)}; use {known}")
        return Augment(**augment)
    raise TypeError(f"augment must be None, a dict or h5feed.Augment, not {type(augment).__name__}")


def _augment_spec(augment: Augment) -> dict:
    """The fields of one AugmentOptions, as the native module takes them."""
    return dict(
        random_flip=bool(augment.random_flip), random_crop_padding=int(augment.random_crop_padding),
        center_crop=_pair("center_crop", augment.center_crop),
        resize_shorter=int(augment.resize or 0),
        random_resized_crop=_pair("random_resized_crop", augment.random_resized_crop),
        scale=tuple(float(s) for s in augment.scale), ratio=tuple(float(r) for r in augment.ratio),
        antialias=bool(augment.antialias), count=int(augment.count),
        max_output=_pair("max_size", augment.max_size))


def _per_channel(name: str, value) -> list[float]:
    """A per-channel constant: one number for every channel, or three."""
    if isinstance(value, numbers.Real):
        return [float(value)] * 3
    values = [float(v) for v in value]
    if len(values) == 1:
        return values * 3
    if len(values) != 3:
        raise ValueError(f"{name} needs 1 or 3 values (one per channel), got {len(values)}")
    return values


def _shard(rank: int | None, world_size: int | None) -> tuple[int, int]:
    """rank and world_size; torch.distributed's when it is initialised and they are not given."""
    if rank is None and world_size is None:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
        return 0, 1
    if rank is None or world_size is None:
        raise ValueError("give both rank and world_size, or neither (then torch.distributed's "
                         "are used when it is initialised)")
    return rank, world_size


def cuda_device_and_stream(device) -> tuple[int, torch.cuda.Stream | None]:
    """(cuda_device, stream) for OutputOptions: -1 and None for the host; for a CUDA device its
    index and the current torch stream on it (the stream the trainer's kernels run on, which
    the loader makes wait for each batch); None without a usable CUDA."""
    device = torch.device(device)
    if device.type == "cpu":
        return -1, None
    if device.type != "cuda":
        raise ValueError(f"device {device}: h5feed delivers to 'cpu' or 'cuda[:N]'")
    if not torch.cuda.is_available():
        # The library says once that no device is usable and delivers host batches.
        return (device.index or 0), None
    index = device.index if device.index is not None else torch.cuda.current_device()
    return index, torch.cuda.current_stream(index)


def native_arguments(*, batch_size: int, sampler: str, seed: int, rank: int | None,
                     world_size: int | None, drop_last: bool, shard_drop_last: bool | None,
                     cache_bytes: int, threads: int | None, slots: int, echo: int, device,
                     dtype, memory_format, mean: Sequence[float] | float,
                     std: Sequence[float] | float, augment, file_locking: str,
                     views=None,
                     verify_checksums: bool,
                     skip_corrupt_chunks: bool, images: str | None, labels: str | None,
                     map_file: bool = True, open_probe: bool = True,
                     open_probe_stall_seconds: int = 60, check_label_mixing: bool = True,
                     remote: dict | None = None) -> dict:
    """The keyword arguments of _h5feed.NativeLoader."""
    if dtype is not None and dtype not in _OUTPUT_TYPES:
        raise ValueError(f"dtype {dtype}: use torch.float32, torch.float16, torch.bfloat16, or "
                         "None for the stored uint8 NHWC images")
    if memory_format not in _LAYOUTS:
        raise ValueError(f"memory_format {memory_format}: use torch.contiguous_format (NCHW) or "
                         "torch.channels_last (NHWC)")
    rank, world_size = _shard(rank, world_size)
    cuda_device, device_stream = cuda_device_and_stream(device)
    if views is not None and augment is not None:
        raise ValueError("give augment (one view) or views (several), not both")
    if views is not None:
        specs = [_augment_spec(_augment(view)) for view in views]
        if not specs:
            raise ValueError("views is empty; give at least one h5feed.Augment (or use augment)")
    else:
        specs = [_augment_spec(_augment(augment))]
    return dict(
        batch_size=batch_size, sampler=sampler, seed=seed, rank=rank, world_size=world_size,
        drop_last_batch=drop_last,
        shard_drop_last=drop_last if shard_drop_last is None else shard_drop_last,
        cache_bytes=cache_bytes, threads=0 if threads is None else threads,
        # A for loop's variables keep the previous batch alive while next() waits for the new
        # one (C++'s `while (auto batch = loader.Next())` does not): one slot more gives
        # Python the prefetch depth `slots` gives C++.
        slots=slots + 1,
        echo=echo, normalize=dtype is not None, mean=_per_channel("mean", mean),
        std=_per_channel("std", std), output_type=_OUTPUT_TYPES.get(dtype, "float32"),
        layout=_LAYOUTS[memory_format], augment=specs, several_views=views is not None,
        cuda_device=cuda_device,
        cuda_stream=0 if device_stream is None else device_stream.cuda_stream,
        file_locking=file_locking, verify_checksums=verify_checksums,
        skip_corrupt_chunks=skip_corrupt_chunks, map_file=map_file, open_probe=open_probe,
        open_probe_stall_seconds=open_probe_stall_seconds, images_dataset=images or "",
        labels_dataset=labels or "", check_label_mixing=check_label_mixing,
        remote=dict(remote or {}))
