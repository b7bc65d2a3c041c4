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
    """Per-sample augmentation applied while normalizing (AugmentOptions). Each sample's draws
    depend only on (seed, epoch, dataset row, echo copy): a run repeats exactly."""
    random_flip: bool = False      # mirror left-right with probability 1/2
    random_crop_padding: int = 0   # > 0: pad P zeros on every side, crop H x W at random
    center_crop: tuple[int, int] | None = None  # (height, width): deliver the central crop


def _augment(augment) -> Augment:
    if augment is None:
        return Augment()
    if isinstance(augment, Augment):
        return augment
    if isinstance(augment, dict):
        unknown = set(augment) - {f.name for f in dataclasses.fields(Augment)}
        if unknown:
            raise ValueError(f"augment: unknown keys {sorted(unknown)}; use random_flip, "
                             "random_crop_padding, center_crop")
        return Augment(**augment)
    raise TypeError(f"augment must be None, a dict or h5feed.Augment, not {type(augment).__name__}")


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


def cuda_device_and_stream(device) -> tuple[int, int]:
    """(cuda_device, cuda_stream) for OutputOptions: -1 and 0 for the host; for a CUDA device its
    index and the current torch stream on it (the stream the trainer's kernels run on, which
    the loader makes wait for each batch)."""
    device = torch.device(device)
    if device.type == "cpu":
        return -1, 0
    if device.type != "cuda":
        raise ValueError(f"device {device}: h5feed delivers to 'cpu' or 'cuda[:N]'")
    if not torch.cuda.is_available():
        # The library says once that no device is usable and delivers host batches.
        return (device.index or 0), 0
    index = device.index if device.index is not None else torch.cuda.current_device()
    return index, torch.cuda.current_stream(index).cuda_stream


def native_arguments(*, batch_size: int, sampler: str, seed: int, rank: int | None,
                     world_size: int | None, drop_last: bool, shard_drop_last: bool | None,
                     cache_bytes: int, threads: int | None, slots: int, echo: int, device,
                     dtype, memory_format, mean: Sequence[float] | float,
                     std: Sequence[float] | float, augment, file_locking: str,
                     verify_checksums: bool,
                     skip_corrupt_chunks: bool, images: str | None, labels: str | None,
                     map_file: bool = True, open_probe: bool = True, open_probe_stall_seconds: int = 60,
                     remote: dict | None = None) -> dict:
    """The keyword arguments of _h5feed.NativeLoader."""
    if dtype is not None and dtype not in _OUTPUT_TYPES:
        raise ValueError(f"dtype {dtype}: use torch.float32, torch.float16, torch.bfloat16, or "
                         "None for the stored uint8 NHWC images")
    if memory_format not in _LAYOUTS:
        raise ValueError(f"memory_format {memory_format}: use torch.contiguous_format (NCHW) or "
                         "torch.channels_last (NHWC)")
    rank, world_size = _shard(rank, world_size)
    cuda_device, cuda_stream = cuda_device_and_stream(device)
    augment = _augment(augment)
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
        layout=_LAYOUTS[memory_format], random_flip=augment.random_flip,
        random_crop_padding=augment.random_crop_padding,
        center_crop=augment.center_crop or (0, 0), cuda_device=cuda_device,
        cuda_stream=cuda_stream, file_locking=file_locking, verify_checksums=verify_checksums,
        skip_corrupt_chunks=skip_corrupt_chunks, map_file=map_file, open_probe=open_probe,
        open_probe_stall_seconds=open_probe_stall_seconds, images_dataset=images or "",
        labels_dataset=labels or "", remote=dict(remote or {}))
