#!/usr/bin/python3
"""Images at their own size (issue 26, "Speed and size"): a folder of real photos
(bench/real_photos.py) converted four ways, and RandomResizedCrop(224) + flip + normalize read
from each, as ratios measured in one run.

Files (page cache warm), all from the same photos:
  fixed     `--size 256` (the fixed-size layout of format version 1, centre-cropped squares)
  fixed-384x512  `--size 384x512 --resize stretch`: a fixed-size file with about as many pixels
            per image as the own-size files (1.3x their mean at a 512 cap)
  raw       each image at its own size, longer side capped at --max-side (512), zstd:3
  raw-256   the same capped at 256 px, the side of `fixed`: each image holds at most the
            pixels of fixed's square (0.75x them for 4:3), none of them cropped away
  jpeg      the same as raw, `--encoding jpeg:90` (chunks uncompressed)

Size: the bytes of `jpeg` against `raw` (target <= 0.2x at a 512 px cap).

Rates, best of --repeats interleaved rounds, each run a fresh process with an untimed first
epoch, then --epochs timed epochs back to back (images/s; default 3: one epoch of the faster
files is a fraction of a second, too short to time on a shared machine):
  fixed, fixed-384x512, raw, raw-256, jpeg   h5feed.Loader(FILE, B, threads=T,
                     augment=Augment(random_resized_crop=224, random_flip=True)), float32
                     N x 3 x 224 x 224 with ImageNet's mean and std
  jpeg-full          the same on `jpeg` with jpeg_region_decode=False: every JPEG decoded whole
                     first, as FFCV does (target: jpeg >= 1.3x it)
  dataloader         DataLoader(B, shuffle=True, num_workers=T) whose Dataset reads each image's
                     JPEG bytes from the `jpeg` file with h5py and applies PIL decode +
                     torchvision's RandomResizedCrop(224), RandomHorizontalFlip, ToTensor,
                     Normalize (target: jpeg >= 3x it)
Targets: raw >= 0.8x fixed (of the file with as many pixels; of the 256 px one, at either cap). The JPEG ceiling is T x TurboJPEG's single-thread full-decode rate
on the file's own JPEGs (`build/bench/jpeg_region_costs` on them, its TurboJPEG figure).

    /usr/bin/python3 bench/own_size_bench.py --build build --workdir /tmp/h5feed-own-size
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import shlex
import sys
import time
from pathlib import Path

from bench_support import (cpu_model, executable, positive_int, publish, revision, run_checked,
                           run_main)

BENCH_DIR = Path(__file__).resolve().parent
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
SIZE = 224
VARIANTS = ("fixed", "fixed-384x512", "raw", "raw-256", "jpeg", "jpeg-full", "dataloader")
FILES = ("fixed", "fixed-384x512", "raw", "raw-256", "jpeg")


def timed(batches) -> dict:
    """Images/s of `batches`; the clock runs from the first request to the last batch."""
    images, sink = 0, 0.0
    start = finished = time.perf_counter()
    for images_tensor, labels in batches:
        sink += float(images_tensor[0, 0, 0, 0])
        images += labels.shape[0]
        finished = time.perf_counter()
    return {"images": images, "images_per_s": images / (finished - start)}


def run_h5feed(args) -> dict:
    import h5feed
    loader = h5feed.Loader(args.run_file, args.batch, threads=args.threads, mean=MEAN, std=STD,
                           augment=h5feed.Augment(random_resized_crop=SIZE, random_flip=True),
                           jpeg_region_decode=args.run != "jpeg-full")
    loader.set_epoch(0)
    for _ in loader:  # untimed: threads start, the cache fills
        pass

    def epochs():
        for epoch in range(1, args.epochs + 1):
            loader.set_epoch(epoch)
            yield from loader
    return timed(epochs())


def run_dataloader(args) -> dict:
    import h5py
    import torch
    import torchvision.transforms as T
    from PIL import Image
    from torch.utils.data import DataLoader, Dataset

    class Jpegs(Dataset):
        def __init__(self, path, transform):
            self.path, self.transform, self.file = path, transform, None
            with h5py.File(path, "r") as f:
                self.labels = f["labels"][:]
                self.offsets, self.sizes = f["image_offsets"][:], f["image_bytes"][:]

        def __len__(self):
            return len(self.labels)

        def __getitem__(self, i):
            if self.file is None:  # opened in each worker, never in the parent
                self.file = h5py.File(self.path, "r")
            start = int(self.offsets[i])
            stored = self.file["images"][start:start + int(self.sizes[i])]
            image = Image.open(io.BytesIO(stored.tobytes())).convert("RGB")
            return self.transform(image), int(self.labels[i])

    torch.set_num_threads(1)
    transform = T.Compose([T.RandomResizedCrop(SIZE), T.RandomHorizontalFlip(), T.ToTensor(),
                           T.Normalize(MEAN, STD)])
    loader = DataLoader(Jpegs(args.run_file, transform), batch_size=args.batch, shuffle=True,
                        num_workers=args.threads, persistent_workers=True)
    for _ in loader:  # untimed: workers start and open the file
        pass

    def epochs():
        for _ in range(args.epochs):
            yield from loader
    return timed(epochs())


def mean_pixels(path: Path) -> float:
    """Pixels per stored image: of its own size, or of the fixed size."""
    import h5py
    with h5py.File(path, "r") as f:
        if "image_shapes" in f:
            shapes = f["image_shapes"][:]
            return float((shapes[:, 0].astype("f8") * shapes[:, 1]).mean())
        return float(f["images"].shape[1] * f["images"].shape[2])


def convert(h5feed: str, photos: Path, out: Path, *options: str) -> Path:
    if not out.exists():
        run_checked([h5feed, "convert", "imagefolder", str(photos), str(out), "--quiet",
                     *options], timeout=3600)
    return out


def jpeg_ceiling(tools, jpeg_file: Path, workdir: Path, threads: int) -> float:
    """T x TurboJPEG's single-thread whole-image decode rate on the file's own JPEGs."""
    import h5py
    folder = workdir / "stored-jpegs"
    if not folder.exists():
        folder.mkdir()
        with h5py.File(jpeg_file, "r") as f:
            offsets, sizes = f["image_offsets"][:], f["image_bytes"][:]
            for i in range(min(len(sizes), 400)):
                start = int(offsets[i])
                (folder / f"{i:05d}.jpg").write_bytes(
                    f["images"][start:start + int(sizes[i])].tobytes())
    done = run_checked([tools["jpeg_region_costs"], str(folder), "--rounds", "3", "--json"],
                       timeout=600)
    return threads * float(json.loads(done.stdout)["turbojpeg_per_s"])


def run(args: argparse.Namespace) -> int:
    if args.run:
        print(json.dumps(run_dataloader(args) if args.run == "dataloader" else run_h5feed(args)))
        return 0
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    build = Path(args.build).resolve()
    hint = f"build it first: cmake --build {args.build}"
    tools = {"h5feed": executable(str(build / "tools" / "h5feed"), "h5feed", hint),
             "jpeg_region_costs": executable(str(build / "bench" / "jpeg_region_costs"),
                                             "jpeg_region_costs", hint)}
    env = dict(os.environ, PYTHONPATH=str(build / "python"), HDF5_PLUGIN_PATH=str(build / "plugins"))
    args.workdir.mkdir(parents=True, exist_ok=True)
    photos = args.workdir / f"photos-{args.images}"
    if not photos.exists():
        sys.path.insert(0, str(BENCH_DIR))
        from real_photos import make_real_photos
        make_real_photos(photos, args.images, classes=10, seed=0)
    cap = str(args.max_side)
    files = {"fixed": convert(tools["h5feed"], photos, args.workdir / "fixed256.h5", "--size", "256"),
             "fixed-384x512": convert(tools["h5feed"], photos, args.workdir / "fixed384x512.h5",
                                      "--size", "384x512", "--resize", "stretch"),
             "raw": convert(tools["h5feed"], photos, args.workdir / f"raw{cap}.h5", "--max-side", cap),
             "raw-256": convert(tools["h5feed"], photos, args.workdir / "raw256.h5",
                                "--max-side", "256"),
             "jpeg": convert(tools["h5feed"], photos, args.workdir / f"jpeg90-{cap}.h5",
                             "--max-side", cap, "--encoding", "jpeg:90")}
    files["jpeg-full"] = files["dataloader"] = files["jpeg"]
    sizes = {name: (files[name].stat().st_size, mean_pixels(files[name])) for name in FILES}
    for path in set(files.values()):
        path.read_bytes()  # into the page cache
    ceiling = jpeg_ceiling(tools, files["jpeg"], args.workdir, args.threads)
    rates = {v: [] for v in VARIANTS}
    for round_index in range(args.repeats):
        order = VARIANTS[round_index % len(VARIANTS):] + VARIANTS[:round_index % len(VARIANTS)]
        for variant in order:
            done = run_checked([sys.executable, __file__, "--run", variant, "--run-file",
                                str(files[variant]), "--batch", str(args.batch), "--threads",
                                str(args.threads), "--epochs", str(args.epochs)],
                               timeout=args.timeout, env=env)
            rates[variant].append(json.loads(done.stdout.strip().splitlines()[-1])["images_per_s"])
        print(f"round {round_index + 1}: " + ", ".join(f"{v} {rates[v][-1]:,.0f}" for v in VARIANTS),
              flush=True)
    publish(report(args, sizes, rates, ceiling, started, (load_before, os.getloadavg()[0])),
            args.output)
    return 0


def report(args, sizes, rates, ceiling, started, load) -> str:
    best = {v: max(r) for v, r in rates.items()}
    raw_bytes, raw_pixels = sizes["raw"]
    labels = {"fixed": "fixed 256x256, zstd:3", "fixed-384x512": "fixed 384x512 (stretched), zstd:3",
              "raw": f"own size, raw, zstd:3, cap {args.max_side}",
              "raw-256": "own size, raw, zstd:3, cap 256", "jpeg": f"own size, jpeg:90, cap {args.max_side}"}
    lines = [
        "# Images at their own size: size and RandomResizedCrop(224) rates", "",
        f"Measured {datetime.date.today().isoformat()} on {cpu_model()}, {os.cpu_count()} cores "
        f"(load average {load[0]:.1f} before, {load[1]:.1f} after); revision {revision()}. "
        f"{args.images:,} real photos (bench/real_photos.py, longer side 200-1000 px); own-size "
        f"files capped at {args.max_side} px; batch {args.batch}; {args.threads} threads "
        f"(h5feed) and {args.threads} workers (DataLoader); best of {args.repeats} interleaved "
        f"rounds, each run a fresh process with an untimed first epoch, then {args.epochs} timed; page cache warm.", "",
        "| file | MiB | of raw | pixels per image | of raw |", "| --- | ---: | ---: | ---: | ---: |"]
    for name in FILES:
        size, pixels = sizes[name]
        of_raw = f"{size / raw_bytes:.3f}"
        lines.append(f"| {labels[name]} | {size / 2**20:,.1f} | "
                     f"{f'**{of_raw}** (target <= 0.2)' if name == 'jpeg' else of_raw} | "
                     f"{pixels:,.0f} | {pixels / raw_pixels:.2f} |")
    lines += ["", "| read with RRC 224 + flip + normalize | images/s (best) | rounds | ratio |", "| --- | ---: | --- | --- |"]
    ratios = {"fixed": "reference",
              "fixed-384x512": "reference",
              "raw": (f"{best['raw'] / best['fixed-384x512']:.2f}x fixed-384x512, "
                      f"{best['raw'] / best['fixed']:.2f}x fixed (target >= 0.8)"),
              "raw-256": f"{best['raw-256'] / best['fixed']:.2f}x fixed (target >= 0.8)",
              "jpeg": (f"{best['jpeg'] / best['jpeg-full']:.2f}x jpeg-full (target >= 1.3), "
                       f"{best['jpeg'] / best['dataloader']:.1f}x dataloader (target >= 3), "
                       f"{best['jpeg'] / ceiling:.2f} of the JPEG ceiling ({ceiling:,.0f} images/s)"),
              "jpeg-full": f"{best['jpeg-full'] / ceiling:.2f} of the JPEG ceiling",
              "dataloader": "reference"}
    for v in VARIANTS:
        lines.append(f"| {v} | {best[v]:,.0f} | {', '.join(f'{r:,.0f}' for r in rates[v])} | "
                     f"{ratios[v]} |")
    command = "/usr/bin/python3 bench/own_size_bench.py " + shlex.join(sys.argv[1:])
    lines += ["", f"Total time {time.perf_counter() - started:.0f} s. Reproduce from the "
              "repository root after building (the photos need `apt-get install "
              "lomiri-wallpapers-16.04 mate-backgrounds`):", "", "```sh", command, "```", ""]
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Own-size files: size and RRC read rates "
                                                 "against fixed-size files and a DataLoader.")
    parser.add_argument("--build", default="build")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-own-size"))
    parser.add_argument("--images", type=positive_int, default=2000)
    parser.add_argument("--max-side", type=positive_int, default=512)
    # 32: an epoch of 2,000 images is then 63 batches. The loader starts an epoch's first batch
    # when the trainer asks for the epoch (set_epoch), so each epoch begins with one batch's
    # latency; with 16 batches of 128 that is a sixth of what is timed, not what a trainer on a
    # real data set sees.
    parser.add_argument("--batch", type=positive_int, default=32)
    parser.add_argument("--threads", type=positive_int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=positive_int, default=3)
    parser.add_argument("--epochs", type=positive_int, default=3)
    parser.add_argument("--timeout", type=float, default=1200)
    parser.add_argument("--output", type=Path,
                        help="default: bench/results/own_size.md at a 512 px cap, "
                             "own_size_capN.md at another")
    parser.add_argument("--run", choices=VARIANTS, help=argparse.SUPPRESS)
    parser.add_argument("--run-file", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.output is None:
        name = "own_size.md" if args.max_side == 512 else f"own_size_cap{args.max_side}.md"
        args.output = BENCH_DIR / "results" / name
    return args


if __name__ == "__main__":
    sys.exit(run_main("own_size_bench", parse_args, run, sys.argv[1:]))
