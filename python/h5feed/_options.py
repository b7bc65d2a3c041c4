"""h5feed.Loader's arguments, in one table: LOADER_OPTIONS names each argument, in the order
of Loader's signature, with its default and what it sets among the C++ LoaderOptions fields
(lib/include/h5feed/loader_options.h, output_options.h), through the keywords of
_h5feed.NativeLoader (python/src/loader_option_table.cc binds each to its field). The
conversion of each value comes from here; an argument that is the C++ field under the same name
is one line, its default the C++ one. Loader.__init__ spells the same names and defaults out
as its signature, for help() and editors; a test checks that it is this table."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import numbers
import operator
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import torch

from . import _h5feed
from ._convert import remote_argument, threads_argument

if TYPE_CHECKING:  # ParamSpec is Python 3.10's; annotations are never evaluated at run time
    from typing import ParamSpec, TypeVar
    P = ParamSpec("P")
    R = TypeVar("R")

# LoaderOptions' and AugmentOptions' defaults by NativeLoader keyword, read from the library.
_CPP_DEFAULTS = _h5feed.loader_option_defaults()
_CPP_AUGMENT_DEFAULTS = _h5feed.augment_option_defaults()

IMAGENET_MEAN = (0.485, 0.456, 0.406)  # LoaderOptions' defaults, on the 0..1 scale (float32
IMAGENET_STD = (0.229, 0.224, 0.225)   # there: these are the decimals they were written as)

# dtype -> output.type: the views' element types, by torch's name, which is the library's word
# for them (h5feed::ToString(ElementType)): normalized floats, or uint8 crops not normalized.
_OUTPUT_TYPES = {dtype: str(dtype).removeprefix("torch.")
                 for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.uint8)}
# memory_format -> output.layout.
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
    random_flip: bool = _CPP_AUGMENT_DEFAULTS["random_flip"]  # mirror left-right, probability 1/2
    # > 0: pad P zeros on every side, crop H x W at random
    random_crop_padding: int = _CPP_AUGMENT_DEFAULTS["random_crop_padding"]
    # (height, width) or one side: deliver the central crop (of the resized image with resize)
    center_crop: tuple[int, int] | int | None = None
    # torchvision's Resize(S): the shorter side resized to S, the other in proportion
    resize: int | None = None
    # torchvision's RandomResizedCrop((height, width) or one side, scale, ratio)
    random_resized_crop: tuple[int, int] | int | None = None
    scale: tuple[float, float] = _CPP_AUGMENT_DEFAULTS["scale"]  # of the image's area
    ratio: tuple[float, float] = _CPP_AUGMENT_DEFAULTS["ratio"]  # width / height, log-uniform
    # resizing: widen the filter when shrinking (torchvision's antialias)
    antialias: bool = _CPP_AUGMENT_DEFAULTS["antialias"]
    count: int = _CPP_AUGMENT_DEFAULTS["count"]  # in Loader(views=...): how many views it makes
    # Loader.set_output_size may set up to this (height, width) or side (buffers sized for it)
    max_size: tuple[int, int] | int | None = None

    def __post_init__(self):
        # None leaves a size unset; 0 would mean the same natively, so a 0 given is refused
        # here rather than read as "no crop" without a word.
        for name in ("center_crop", "resize", "random_resized_crop", "max_size"):
            value = getattr(self, name)
            if value is None:
                continue
            sides = (size_pair(f"Augment({name}=...)", value) if name != "resize" else
                     (whole_number(f"Augment({name}=...)", value),))
            if min(sides) < 1:
                raise ValueError(f"Augment({name}={value!r}): a size is at least 1 pixel "
                                 f"(leave {name} out, or None, for none)")
        if whole_number("Augment(random_crop_padding=...)", self.random_crop_padding) < 0:
            raise ValueError(f"Augment(random_crop_padding={self.random_crop_padding!r}): "
                             "padding is at least 0 pixels")
        if whole_number("Augment(count=...)", self.count) < 1:
            raise ValueError(f"Augment(count={self.count!r}): a spec makes at least 1 view")


def whole_number(name: str, value) -> int:
    """An int (or numpy / torch integer) as it is; anything else a TypeError naming `name`.
    int() would take 224.7 as 224 and "22" as 22, and iterating "22" would give a 2 x 2 crop,
    without a word."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{name} takes a whole number of pixels (an int), not "
                        f"{type(value).__name__} {value!r}")
    return operator.index(value)


def size_pair(name: str, value) -> tuple[int, int]:
    """(height, width) from one side or a pair; (0, 0) for None."""
    if value is None:
        return (0, 0)
    if not isinstance(value, (tuple, list)):
        side = whole_number(name, value)
        return (side, side)
    if len(value) != 2:
        raise ValueError(f"{name} is one size or (height, width), got {value!r}")
    return whole_number(name, value[0]), whole_number(name, value[1])


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
        center_crop=size_pair("center_crop", augment.center_crop),
        resize_shorter=int(augment.resize or 0),
        random_resized_crop=size_pair("random_resized_crop", augment.random_resized_crop),
        scale=tuple(float(s) for s in augment.scale), ratio=tuple(float(r) for r in augment.ratio),
        antialias=bool(augment.antialias), count=int(augment.count),
        max_output=size_pair("max_size", augment.max_size))


def _per_channel(name: str, value) -> list[float]:
    """A per-channel constant: one number for every channel, or three."""
    if isinstance(value, numbers.Real):
        return [float(value)] * 3
    refused = TypeError(f"{name}={value!r}: {name} is one number or three, one per channel, "
                        "on the 0..1 scale")
    if isinstance(value, (str, bytes)):
        raise refused
    try:
        values = [float(v) for v in value]
    except (TypeError, ValueError):
        raise refused from None
    if len(values) == 1:
        return values * 3
    if len(values) != 3:
        raise ValueError(f"{name} needs 1 or 3 values (one per channel), got {len(values)}")
    return values


# What launchers set in each process they start: (size variable, rank variable, launcher).
LAUNCHER_SIZES = (("WORLD_SIZE", "RANK", "torchrun"),
                  ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "mpirun"))


def _warn_at_callers_line(message: str) -> None:
    """warnings.warn pointed at the first frame outside h5feed (the trainer's Loader(...))."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, stacklevel=level)


def _shard(rank: int | None, world_size: int | None) -> tuple[int, int]:
    """rank and world_size; torch.distributed's when it is initialised and they are not given.
    A process a launcher started as one of several, left without either, reads every sample:
    that is said, since each of its peers then reads every sample too."""
    if rank is None and world_size is None:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
        for size_variable, rank_variable, launcher in LAUNCHER_SIZES:
            size = os.environ.get(size_variable, "")
            if size.isdigit() and int(size) > 1:
                _warn_at_callers_line(
                    f"h5feed: {size_variable}={size} ({launcher}) says this process is one of "
                    f"{size}, but torch.distributed is not initialised and neither rank nor "
                    f"world_size was given, so this loader reads every sample, as every other "
                    f"process does: call torch.distributed.init_process_group() before making "
                    f"the Loader, or give rank=int(os.environ['{rank_variable}']) and "
                    f"world_size={size}")
                break
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


def view_dtype(arguments: Mapping[str, Any]) -> torch.dtype | None:
    """The element type of the delivered views, or None for the stored uint8 images as they
    are. dtype=None with augment or views: the crops as uint8, not normalized (for a trainer's
    own GPU transforms)."""
    dtype = arguments["dtype"]
    if dtype is not None and dtype not in _OUTPUT_TYPES:
        raise ValueError(f"dtype {dtype}: use torch.float32, torch.float16, torch.bfloat16 "
                         "(normalized), torch.uint8 (not normalized), or None for the stored "
                         "uint8 N x H x W x C images (the crops as uint8 with augment or views)")
    if dtype is None and (arguments["augment"] is not None or arguments["views"] is not None):
        return torch.uint8
    return dtype


def _dtype(arguments: Mapping[str, Any]) -> dict:
    dtype = view_dtype(arguments)
    return dict(normalize=dtype is not None,
                output_type=_OUTPUT_TYPES.get(dtype, _CPP_DEFAULTS["output_type"]))


def _memory_format(arguments: Mapping[str, Any]) -> dict:
    memory_format = arguments["memory_format"]
    if memory_format not in _LAYOUTS:
        raise ValueError(f"memory_format {memory_format}: use torch.contiguous_format (NCHW) or "
                         "torch.channels_last (NHWC)")
    return dict(layout=_LAYOUTS[memory_format])


def _device(arguments: Mapping[str, Any]) -> dict:
    cuda_device, stream = cuda_device_and_stream(arguments["device"])
    return dict(cuda_device=cuda_device, cuda_stream=0 if stream is None else stream.cuda_stream)


def _rank_and_world_size(arguments: Mapping[str, Any]) -> dict:
    rank, world_size = _shard(arguments["rank"], arguments["world_size"])
    return dict(rank=rank, world_size=world_size)


def _shard_drop_last(arguments: Mapping[str, Any]) -> dict:
    given = arguments["shard_drop_last"]
    return dict(shard_drop_last=arguments["drop_last"] if given is None else given)


def _augment_and_views(arguments: Mapping[str, Any]) -> dict:
    augment, views = arguments["augment"], arguments["views"]
    if views is not None and augment is not None:
        raise ValueError("give augment (one view) or views (several), not both")
    if views is None:
        return dict(augment=[_augment_spec(_augment(augment))], several_views=False)
    specs = [_augment_spec(_augment(view)) for view in views]
    if not specs:
        raise ValueError("views is empty; give at least one h5feed.Augment (or use augment)")
    return dict(augment=specs, several_views=True)


def _fields(arguments: Mapping[str, Any]) -> dict:
    """fields= as LoaderOptions::fields: the names, in order (one name alone is refused: a
    string is a sequence of one-letter names to Python)."""
    fields = arguments["fields"]
    if fields is None:
        return dict(fields=[])
    if isinstance(fields, (str, bytes)) or not all(isinstance(f, str) for f in fields):
        raise TypeError(f"fields is a list of field names, e.g. fields=['attrs', 'caption'], "
                        f"not {fields!r}")
    return dict(fields=list(fields))


def _remote(arguments: Mapping[str, Any]) -> dict:
    """remote= as RemoteOptions' dict (docs/remote.md, "Options"); spill_dir may be a Path."""
    return dict(remote=remote_argument(arguments["remote"]))


REQUIRED = inspect.Parameter.empty


@dataclasses.dataclass(frozen=True)
class LoaderOption:
    """One argument of h5feed.Loader.

    default: its value when not given (_cpp_default: the C++ default of the field it sets).
    sets: what it becomes natively. A str: the NativeLoader keyword (the LoaderOptions field)
    that takes the value as given; omitted: the keyword of the argument's own name. A function
    of all the arguments (by name): the keywords it makes, for an argument that is converted,
    checked, or read together with others. None: read by another argument's function, or by
    Loader itself."""
    name: str
    default: Any = None
    sets: str | Callable[[Mapping[str, Any]], dict] | None = ""
    # The NativeLoader keywords (or LoaderOptions field paths) whose errors are about this
    # argument, so that the library's messages name it (option_names.h); default: `sets` when
    # that is a keyword.
    names: tuple[str, ...] = ()

    def __post_init__(self):
        if self.sets == "":
            object.__setattr__(self, "sets", self.name)
        if not self.names and isinstance(self.sets, str):
            object.__setattr__(self, "names", (self.sets,))

    def native(self, arguments: Mapping[str, Any]) -> dict:
        if self.sets is None:
            return {}
        if isinstance(self.sets, str):
            return {self.sets: arguments[self.name]}
        return self.sets(arguments)


def _cpp_default(name: str, sets: str = "") -> LoaderOption:
    """An argument that is the LoaderOptions field `sets` (`name`'s own), with its C++ default."""
    sets = sets or name
    return LoaderOption(name, _CPP_DEFAULTS[sets], sets)


# Every argument of h5feed.Loader after `path`, in its signature's order (they may be given by
# position). A new LoaderOptions field is one line here, _cpp_default("field"), beside its line
# in python/src/loader_option_table.cc and its argument in Loader.__init__; docs/python.md lists
# each (tests/python/test_loader_options.py checks all three).
LOADER_OPTIONS = (
    LoaderOption("batch_size", REQUIRED),
    _cpp_default("sampler"),
    _cpp_default("seed"),
    LoaderOption("rank", None, _rank_and_world_size, ("rank",)),  # default: torch.distributed's
    LoaderOption("world_size", None, None, ("world_size",)),
    _cpp_default("drop_last", "drop_last_batch"),
    _cpp_default("cache_bytes"),
    LoaderOption("threads", None, lambda a: dict(threads=threads_argument(a["threads"])),
                 ("threads",)),  # None: all cores
    LoaderOption("device", "cpu", _device, ("cuda_device", "cuda_stream")),
    LoaderOption("dtype", torch.float32, _dtype, ("normalize", "output_type")),
    LoaderOption("mean", IMAGENET_MEAN, lambda a: dict(mean=_per_channel("mean", a["mean"])),
                 ("mean",)),
    LoaderOption("std", IMAGENET_STD, lambda a: dict(std=_per_channel("std", a["std"])),
                 ("std",)),
    LoaderOption("augment", None, _augment_and_views, ("output.augment",)),  # with views
    _cpp_default("echo"),
    LoaderOption("with_indices", False, None),  # Loader's own: also yield the dataset rows
    # A for loop's variables keep the previous batch alive while next() waits for the new one
    # (C++'s `while (auto batch = loader.Next())` does not): the library adds a buffer for it
    # (held_batches), so that `slots` is the prefetch depth it is in C++ and is checked as given.
    LoaderOption("slots", _CPP_DEFAULTS["slots"],
                 lambda a: dict(slots=a["slots"], held_batches=1), ("slots",)),
    _cpp_default("verify_checksums"),
    LoaderOption("memory_format", torch.contiguous_format, _memory_format, ("layout",)),
    LoaderOption("shard_drop_last", None, _shard_drop_last,  # None: drop_last
                 ("shard_drop_last",)),
    _cpp_default("skip_corrupt_chunks"),
    _cpp_default("file_locking"),
    LoaderOption("images", None, lambda a: dict(images_dataset=a["images"] or ""),
                 ("images_dataset",)),
    LoaderOption("labels", None, lambda a: dict(labels_dataset=a["labels"] or ""),
                 ("labels_dataset",)),
    _cpp_default("map_file"),
    _cpp_default("direct"),
    _cpp_default("jpeg_region_decode"),
    _cpp_default("open_probe"),
    _cpp_default("open_probe_stall_seconds"),
    _cpp_default("check_label_mixing"),
    LoaderOption("views", None, None, ("output.views",)),  # with augment
    LoaderOption("remote", None, _remote, ("remote",)),  # None: RemoteOptions' defaults
    LoaderOption("fields", None, _fields, ("fields",)),  # None: no fields
    LoaderOption("as_dict", False, None),  # Loader's own: yield dicts instead of tuples
    LoaderOption("mask_dtype", None, None),  # Loader's own: masks converted to it (int64)
    LoaderOption("boxes_as_list", False, None),  # Loader's own: per-sample box tensors
    _cpp_default("held_field_bytes"),
    _cpp_default("mask_fill"),  # output.mask_fill: 0-255, checked by the library
)

# Loader's signature after `path`, as the table has it (Loader.__init__ spells it out for
# editors and help(); tests/python/test_loader_options.py checks that the two agree).
OPTIONS_SIGNATURE = inspect.Signature(
    [inspect.Parameter(option.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                       default=option.default) for option in LOADER_OPTIONS])


# What h5feed does in place of the DataLoader arguments people bring along when they move from
# DataLoader(H5Dataset(...)): the hint a TypeError for one of them gives.
DATALOADER_ARGUMENTS = {
    "num_workers": "h5feed reads on native threads, not worker processes: use threads=N "
                   "(None, the default, uses every core)",
    "pin_memory": "host batches are the loader's own buffers and device='cuda' delivers on the "
                  "GPU: there is nothing to pin; use device='cuda'",
    "prefetch_factor": "use slots=N, the number of batches prefetched",
    "persistent_workers": "the loader's threads live as long as the Loader: leave it out",
    "shuffle": "h5feed shuffles by default (sampler='chunks:8'); use sampler='sequential' for "
               "file order or sampler='random' for a global permutation",
    "batch_sampler": "use batch_size, drop_last and sampler='sequential', 'random', 'chunks:W' "
                     "or 'quasi:W'",
    "collate_fn": "batches come collated as (images, labels) tensors; leave it out",
    "worker_init_fn": "there are no worker processes; leave it out",
    "timeout": "leave it out: a loader that cannot fill a slot raises instead of hanging",
}

# Augment's fields by the spec keys the native module takes (_augment_spec), where they differ:
# errors about a spec name the Augment field.
AUGMENT_NAMES = {"resize_shorter": "resize", "max_output": "max_size"}


def reject_dataloader_arguments(kwargs: Mapping[str, Any]) -> None:
    """A TypeError for a DataLoader argument among `kwargs`, saying what h5feed uses instead."""
    for name in kwargs:
        if name in DATALOADER_ARGUMENTS and name not in OPTIONS_SIGNATURE.parameters:
            raise TypeError(f"h5feed.Loader got an unexpected keyword argument {name!r}, a "
                            f"DataLoader argument: {DATALOADER_ARGUMENTS[name]}")


def hints_for_dataloader_arguments(init: Callable[P, R]) -> Callable[P, R]:
    """`init` (Loader.__init__), first checking its keywords for DataLoader arguments
    (num_workers=...): those are a TypeError that says what h5feed uses instead, not Python's
    bare one, which would come before `init`'s body could say anything. functools.wraps keeps
    `init`'s signature for help(), inspect.signature and, through ParamSpec, type checkers."""
    @functools.wraps(init)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        reject_dataloader_arguments(kwargs)
        return init(*args, **kwargs)
    return checked


def bind_arguments(args: Sequence[Any], kwargs: Mapping[str, Any]) -> dict:
    """Every argument by name, those not given at their defaults; a TypeError for a missing,
    unknown or doubly given one, as for any Python function (for a DataLoader argument, saying
    what h5feed uses instead)."""
    reject_dataloader_arguments(kwargs)
    bound = OPTIONS_SIGNATURE.bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def option_names() -> dict:
    """Loader's argument of each NativeLoader keyword (or LoaderOptions field path) its errors
    may be about: the names the library's messages give options (option_names.h)."""
    return {keyword: option.name for option in LOADER_OPTIONS for keyword in option.names}


def native_keywords(arguments: Mapping[str, Any]) -> dict:
    """The keywords of _h5feed.NativeLoader for Loader's `arguments` (every one, by name), and
    the names the library's messages give them (option_names, augment_names)."""
    keywords = {}
    for option in LOADER_OPTIONS:
        keywords.update(option.native(arguments))
    keywords.update(option_names=option_names(), augment_names=dict(AUGMENT_NAMES))
    return keywords


def native_arguments(**arguments) -> dict:
    """native_keywords of Loader's keyword arguments (those not given at their defaults)."""
    return native_keywords(bind_arguments((), arguments))
