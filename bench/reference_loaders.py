#!/usr/bin/python3
"""Reference loaders: PyTorch DataLoader over h5py, the way users read HDF5 image files today.

What: three loaders over the same file, each a torch DataLoader with worker processes
(2 by default) yielding batches of uint8 image tensors (N, H, W, C) with int64 labels:

  random       a map-style Dataset whose __getitem__ reads one sample, f['images'][i], from a
               file each worker opens lazily on first use (h5py handles must not cross a
               fork); DataLoader(batch_size=256, shuffle=True). The standard pattern.
  random_rdcc  the same, with the chunk cache the articles recommend:
               h5py.File(path, 'r', rdcc_nbytes=1 GiB, rdcc_nslots=11213, rdcc_w0=1).
  chunked      chunk-aware, what a careful user writes: an IterableDataset that shuffles the
               chunk order each epoch, deals the chunks out to the workers, reads a window of
               W chunks at a time with whole-chunk slice reads f['images'][c*K:(c+1)*K] (each
               chunk read and decompressed once), shuffles the window's samples together and
               yields them as batches (DataLoader(batch_size=None)).

Why: h5feed's reader is measured against these in the same run (bench/loader_bench.py, issue 3
"Speed": several times the best of them). They are written as a careful user writes them,
not straw men: labels are read once per worker, not per sample; batches are collated or sliced
in numpy; pin_memory is off because there is no GPU.

Rates: `images_per_s` counts from the arrival of the first batch to the end, so worker start-up
(fork, opening the file) is left out, in the references' favour; `startup_seconds` reports it.

--driver ros3 opens --file, then an http(s):// URL, through HDF5's read-only S3 driver (h5py's
driver='ros3'; Debian's HDF5 is built with it): what h5py users have for remote files.

zstd files need h5feed's HDF5 filter plugin: HDF5_PLUGIN_PATH must name the build's plugins
folder before h5py is imported (HDF5 reads it once). This module sets it from --plugin-dir, or
else from the first build*/plugins folder of the checkout holding the plugin, before importing
h5py; workers inherit it.

    /usr/bin/python3 bench/reference_loaders.py --loader chunked --file train.h5 \\
        --batch 256 --workers 2 --epochs 1 --json
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import sys
import time
from pathlib import Path

from bench_support import positive_int

REPO_DIR = Path(__file__).resolve().parent.parent
PLUGIN_NAME = "libh5feed_zstd.so"
LOADERS = ("random", "random_rdcc", "chunked")
# The chunk cache of the articles the project grew from: 1 GiB, a prime number of slots well
# above the number of chunks it can hold, and w0 = 1 (evict fully read chunks first).
RDCC = {"rdcc_nbytes": 1 << 30, "rdcc_nslots": 11213, "rdcc_w0": 1.0}


def find_plugin_dir() -> str | None:
    """The newest build*/plugins folder of this checkout that holds h5feed's zstd plugin."""
    candidates = glob.glob(str(REPO_DIR / "build*" / "plugins" / PLUGIN_NAME))
    if not candidates:
        return None
    return os.path.dirname(max(candidates, key=os.path.getmtime))


def set_plugin_path(plugin_dir: str | None) -> None:
    """Point HDF5 at h5feed's zstd plugin; must run before h5py is imported."""
    if "h5py" in sys.modules:
        raise RuntimeError("set_plugin_path must run before h5py is imported")
    chosen = plugin_dir or os.environ.get("HDF5_PLUGIN_PATH") or find_plugin_dir()
    if chosen:
        os.environ["HDF5_PLUGIN_PATH"] = chosen


def _imports():
    """h5py, numpy and torch, imported late so HDF5_PLUGIN_PATH can be set first."""
    import h5py
    import numpy as np
    import torch
    return h5py, np, torch


class LoaderError(Exception):
    """A problem the user must fix (missing file, missing module); printed without a traceback."""


def make_random_dataset(path: str, images: str, labels: str, rdcc: dict | None,
                        driver: str | None = None):
    h5py, np, torch = _imports()
    opened = {"driver": driver} if driver else {}

    class RandomSampleDataset(torch.utils.data.Dataset):
        """One sample per __getitem__; the file is opened lazily in each worker."""

        def __init__(self):
            with h5py.File(path, "r", **opened) as f:
                self.length = len(f[images])
            self.file = None

        def _open(self):
            self.file = h5py.File(path, "r", **opened, **(rdcc or {}))
            self.images = self.file[images]
            self.labels = (self.file[labels][:].astype(np.int64) if labels in self.file
                           else np.zeros(self.length, np.int64))

        def __len__(self):
            return self.length

        def __getitem__(self, i):
            if self.file is None:
                self._open()
            return torch.from_numpy(self.images[i]), int(self.labels[i])

    return RandomSampleDataset()


def make_chunked_dataset(path: str, images: str, labels: str, batch: int, window: int, seed: int,
                         driver: str | None = None):
    h5py, np, torch = _imports()
    opened = {"driver": driver} if driver else {}

    class ChunkWindowDataset(torch.utils.data.IterableDataset):
        """Whole-chunk reads in a shuffled chunk order, W chunks shuffled together."""

        def __init__(self):
            with h5py.File(path, "r", **opened) as f:
                dataset = f[images]
                self.length = len(dataset)
                self.chunk = dataset.chunks[0] if dataset.chunks else 1024
            self.chunks = (self.length + self.chunk - 1) // self.chunk
            self.epoch = 0

        def set_epoch(self, epoch: int) -> None:
            self.epoch = epoch

        def __len__(self):
            return (self.length + batch - 1) // batch  # batches in an epoch, for DataLoader

        def __iter__(self):
            info = torch.utils.data.get_worker_info()
            worker, workers = (info.id, info.num_workers) if info else (0, 1)
            rng = np.random.default_rng((seed, self.epoch))
            order = rng.permutation(self.chunks)[worker::workers]  # same permutation everywhere
            mine = np.random.default_rng((seed, self.epoch, worker))
            with h5py.File(path, "r", **opened) as f:
                dataset = f[images]
                all_labels = (f[labels][:].astype(np.int64) if labels in f
                              else np.zeros(self.length, np.int64))
                carry_x = carry_y = None
                for start in range(0, len(order), window):
                    parts, rows = [], []
                    for c in order[start:start + window]:
                        lo, hi = int(c) * self.chunk, min(int(c + 1) * self.chunk, self.length)
                        parts.append(dataset[lo:hi])
                        rows.append(all_labels[lo:hi])
                    x, y = np.concatenate(parts), np.concatenate(rows)
                    if carry_x is not None:  # last window's short tail joins this window
                        x, y = np.concatenate([carry_x, x]), np.concatenate([carry_y, y])
                    perm = mine.permutation(len(x))
                    full = len(x) // batch * batch
                    for b in range(0, full, batch):
                        pick = perm[b:b + batch]
                        yield torch.from_numpy(x[pick]), torch.from_numpy(y[pick])
                    carry_x, carry_y = x[perm[full:]], y[perm[full:]]
                if carry_x is not None and len(carry_x):
                    yield torch.from_numpy(carry_x), torch.from_numpy(carry_y)

    return ChunkWindowDataset()


def make_loader(kind: str, path: str, batch: int = 256, workers: int = 2, seed: int = 0,
                window: int = 8, images: str = "images", labels: str = "labels",
                driver: str | None = None):
    """The DataLoader of reference `kind` (one of LOADERS) over `path` (opened by h5py's file
    `driver`, default sec2)."""
    _, _, torch = _imports()
    if kind == "chunked":
        dataset = make_chunked_dataset(path, images, labels, batch, window, seed, driver)
        return torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=workers,
                                           pin_memory=False)
    dataset = make_random_dataset(path, images, labels, RDCC if kind == "random_rdcc" else None,
                                  driver)
    return torch.utils.data.DataLoader(dataset, batch_size=batch, shuffle=True,
                                       num_workers=workers, pin_memory=False,
                                       generator=torch.Generator().manual_seed(seed))


def measure(loader, epochs: int, max_seconds: float | None) -> dict:
    """Consume the loader's batches for `epochs` epochs (or until max_seconds of measuring)."""
    start = time.perf_counter()
    first = None  # when the first batch arrived
    images = measured = pixel_bytes = batches = 0
    sink = 0  # touches every batch, as h5feed bench does; Python keeps the reads anyway
    stopped_early = False
    for epoch in range(epochs):
        if hasattr(loader.dataset, "set_epoch"):
            loader.dataset.set_epoch(epoch)
        for x, y in loader:
            sink += int(x.view(-1)[0]) + int(y[0])
            images += len(x)
            batches += 1
            if first is None:
                first = time.perf_counter()
            else:
                measured += len(x)
                pixel_bytes += x.numel()
            if max_seconds is not None and first is not None and time.perf_counter() - first > max_seconds:
                stopped_early = True
                break
        if stopped_early:
            break
    end = time.perf_counter()
    steady = end - first if first is not None else 0.0
    return {
        "images": images,
        "batches": batches,
        "measured_images": measured,
        "seconds": round(end - start, 4),
        "startup_seconds": round((first or end) - start, 4),
        "images_per_s": round(measured / steady, 2) if steady > 0 else 0.0,
        "mb_per_s": round(pixel_bytes / 1e6 / steady, 2) if steady > 0 else 0.0,
        "complete": not stopped_early,
        "peak_rss_mb": round(peak_rss_mib(), 1),
    }


def peak_rss_mib() -> float:
    """This process's peak resident memory (workers not included). VmHWM, not ru_maxrss:
    Linux keeps ru_maxrss across fork and execve, so it would report the parent's peak."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Read an HDF5 image file with a PyTorch DataLoader over h5py, the way users "
                    "do today, and report images/s: the baselines h5feed's reader is compared "
                    "against (bench/README.md).")
    parser.add_argument("--loader", choices=LOADERS, required=True,
                        help="random: per-sample reads; random_rdcc: the same with a 1 GiB "
                             "chunk cache; chunked: whole-chunk reads shuffled in windows")
    parser.add_argument("--file", required=True, help="HDF5 file with a 4-D uint8 image dataset")
    parser.add_argument("--batch", type=positive_int, default=256, help="batch size (default 256)")
    parser.add_argument("--workers", type=int, default=2, help="DataLoader workers (default 2)")
    parser.add_argument("--epochs", type=positive_int, default=1, help="epochs (default 1)")
    parser.add_argument("--window", type=positive_int, default=8,
                        help="chunked: chunks shuffled together (default 8, as chunks:8)")
    parser.add_argument("--seed", type=int, default=0, help="shuffle seed (default 0)")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="stop after this many seconds of measuring (slow loaders on big "
                             "files); the rate covers what was read")
    parser.add_argument("--images", default="images", help="image dataset (default images)")
    parser.add_argument("--labels", default="labels", help="label dataset (default labels)")
    parser.add_argument("--plugin-dir", default=None,
                        help="folder with h5feed's zstd HDF5 plugin (default: $HDF5_PLUGIN_PATH, "
                             "else build*/plugins of this checkout)")
    parser.add_argument("--driver", choices=["ros3"], default=None,
                        help="h5py's file driver: ros3 reads an http(s):// URL through HDF5's "
                             "read-only S3 driver (default: a local file)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.workers < 0:
        parser.error("--workers must be >= 0")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        if args.driver is None and not os.path.isfile(args.file):
            raise LoaderError(f"{args.file} does not exist or is not a file")
        set_plugin_path(args.plugin_dir)
        try:
            _imports()
        except ImportError as error:
            raise LoaderError(f"{error}: run with Debian's /usr/bin/python3 (python3-h5py, "
                              "python3-numpy, python3-torch)") from None
        loader = make_loader(args.loader, args.file, args.batch, args.workers, args.seed,
                             args.window, args.images, args.labels, args.driver)
        report = measure(loader, args.epochs, args.max_seconds)
    except (LoaderError, OSError, KeyError) as error:
        print(f"reference_loaders: error: {error}", file=sys.stderr)
        return 1
    report = {"loader": args.loader, "file": args.file, "batch": args.batch,
              "workers": args.workers, "epochs": args.epochs, **report}
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{args.loader}: {report['images_per_s']:.0f} images/s, {report['mb_per_s']:.1f} MB/s "
              f"({report['measured_images']} images after the first batch in "
              f"{report['seconds'] - report['startup_seconds']:.2f} s; start-up "
              f"{report['startup_seconds']:.2f} s{'' if report['complete'] else '; stopped early'})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
