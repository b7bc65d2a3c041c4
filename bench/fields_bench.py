#!/usr/bin/python3
"""What delivering a field costs the reader: `h5feed bench` on a CIFAR-shaped file with a
(40,) uint8 field, reading the images alone and the images plus the field (`--fields attrs`),
in the same rounds (issue 38's target: the field costs at most 3% of the rate); and what
streaming a field with the image chunks costs beside holding it, there and on CelebA-shaped
files with a 4 KiB embedding per image: one of one image size (the field chunked with the
images) and one of images at their own size (`--augment rrc=224`; the field in chunks of about
1 MiB of rows).

The file (generated in --workdir when absent): loader_bench.py's CIFAR-shaped images (seeded
smooth colour fields plus noise, 32x32x3) and labels, written by bench/fields_file with the
library's Writer, with an array field `attrs` of 40 uint8 per row (CelebA's attributes), once
uncompressed and once zstd:3.

Per round and file it runs, alternating the order, `h5feed bench FILE --sampler chunks:8
--batch 256 --threads T --epochs E --json --no-ceilings` without the field (A), with
`--fields attrs` (B), with the field streamed with the image chunks instead of held,
`--fields attrs --stream-fields` (S), and without it again (A2): the per-round ratios B/A say
what the field costs, S/B what streaming it costs beside holding it, A2/A what the machine's
noise alone gives. E (--epochs, default 20) makes each run last
long enough to measure: two epochs of an uncompressed CIFAR-shaped file take under 0.1 s.
The report has the median of each and their range.

With --cold, each run reads from the disk: `--cold-each-epoch` drops the file from the page
cache before every epoch (--cold-epochs of them a run, default 2), on the CelebA-shaped and
own-size files only (the CIFAR-shaped ones read cold in a few hundredths of a second). S/A is
then what reading the streamed field's chunks from the disk beside the images' costs.

Each round also streams the field from a copy of the file without its chunk tables
(`/field_chunk_index`, made beside it with h5py: the field then read through HDF5 and not
ahead, as before the tables existed), U: S/U is what the tables give, in the same rounds.

From the repository root, after building (`cmake --build build`):

    /usr/bin/python3 bench/fields_bench.py --h5feed build/tools/h5feed \\
        --fields-file build/bench/fields_file --workdir /tmp/h5feed-fields-bench
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bench_support import (BenchError, cpu_model, executable, positive_int, publish, revision,
                           run_checked, run_main)
import loader_bench

BENCH_DIR = Path(__file__).resolve().parent
FIELD = "attrs"
EMBEDDING = "embedding"  # the CelebA-shaped files' field: 1024 float32 (4 KiB) per image
EMBEDDING_SIZE = 1024
GENERATOR_VERSION = 2  # bump when the file's making changes (2: fields' chunk tables)


# Writes a file of images at their own size with h5feed.write: argv NPY OUT COMPRESSION. Row i
# is the generated image i cropped to its own size, with a 4 KiB float32 embedding.
OWN_SIZE_WRITER = """
import sys
import numpy as np
import h5feed

images = np.load(sys.argv[1], mmap_mode="r")

class OwnSize:
    def __len__(self):
        return len(images)

    def __getitem__(self, i):
        h, w = 150 + i * 7 % 68, 130 + i * 13 % 48
        embedding = np.random.default_rng(i).standard_normal(1024, dtype=np.float32)
        return {"image": np.ascontiguousarray(images[i, :h, :w]), "label": i % 10,
                "embedding": embedding}

h5feed.write(OwnSize(), sys.argv[2], max_side=256, compression=sys.argv[3], workers=0,
             overwrite=True, progress=False)
"""


@dataclass
class Case:
    name: str
    path: Path
    field_name: str
    epochs: int
    extra: list[str] = field(default_factory=list)  # more `h5feed bench` arguments
    untabled: Path | None = None  # the copy without chunk tables
    rates: dict[str, list[float]] = field(
        default_factory=lambda: {"a": [], "b": [], "s": [], "u": [], "a2": []})

    def ratios(self, over: str, under: str = "a") -> list[float]:
        return [x / a for x, a in zip(self.rates[over], self.rates[under])]


def ensure_pair(args: argparse.Namespace, shape: "loader_bench.Shape", base: Path,
                write) -> dict[str, Path]:
    """The pair of files `base`-none.h5 and `base`-zstd3.h5, made unless already there from the
    same settings: generated images of `shape` (loader_bench's generator) and labels in
    .npy files, which `write(npy, labels_npy, paths)` turns into both files."""
    marker = base.with_suffix(".json")
    settings = {"version": GENERATOR_VERSION, "images": shape.images, "seed": args.seed,
                "loader_bench": loader_bench.GENERATOR_VERSION}
    paths = {compression: Path(f"{base}-{compression.replace(':', '')}.h5")
             for compression in ("none", "zstd:3")}
    fresh = marker.is_file() and json.loads(marker.read_text()) == settings and all(
        p.is_file() for p in paths.values())
    if not fresh:
        marker.unlink(missing_ok=True)
        npy, labels_npy = base.with_suffix(".npy"), Path(f"{base}-labels.npy")
        print(f"generating {shape.images} {shape.height}x{shape.width}x3 images in {npy} ...",
              flush=True)
        loader_bench.generate_images(npy, labels_npy, shape, args.seed)
        write(npy, labels_npy, paths)
        npy.unlink()
        labels_npy.unlink()
        marker.write_text(json.dumps(settings))
    return paths


def ensure_files(args: argparse.Namespace) -> list[Case]:
    """The CIFAR-shaped pair with the (40,) uint8 field, written by bench/fields_file."""
    def write(npy: Path, labels_npy: Path, paths: dict[str, Path]) -> None:
        import numpy as np
        raw_images, raw_labels = npy.with_suffix(".images"), npy.with_suffix(".labels")
        np.load(npy, mmap_mode="r").tofile(raw_images)
        np.load(labels_npy).astype("<i8").tofile(raw_labels)
        for compression, path in paths.items():
            run_checked([args.fields_file, str(path), "--images", str(raw_images), "--labels",
                         str(raw_labels), "--count", str(args.images), "--shape", "32x32x3",
                         "--compression", compression, "--field", FIELD], args.timeout)
        raw_images.unlink()
        raw_labels.unlink()

    shape = loader_bench.Shape("cifar", "CIFAR-shaped", args.images, 32, 32)
    paths = ensure_pair(args, shape, args.workdir / f"cifar-fields-{args.images}", write)
    return [Case(f"CIFAR-shaped {compression}", path, FIELD, args.epochs)
            for compression, path in paths.items()]


def ensure_embedding_files(args: argparse.Namespace) -> list[Case]:
    """The CelebA-shaped pair with a 4 KiB float32 embedding per image, written by `h5feed
    convert npy --field`."""
    def write(npy: Path, labels_npy: Path, paths: dict[str, Path]) -> None:
        import numpy as np
        embedding = npy.with_name(f"{npy.stem}-{EMBEDDING}.npy")
        rng = np.random.default_rng(args.seed + 1)
        np.save(embedding, rng.standard_normal((args.celeba_images, EMBEDDING_SIZE),
                                               dtype=np.float32))
        for compression, path in paths.items():
            run_checked([args.h5feed, "convert", "npy", str(npy), str(labels_npy), str(path),
                         "--compression", compression, "--field", f"{EMBEDDING}={embedding}",
                         "--force", "--quiet"], args.timeout)
        embedding.unlink()

    shape = loader_bench.Shape("celeba", "CelebA-shaped", args.celeba_images, 218, 178)
    paths = ensure_pair(args, shape, args.workdir / f"celeba-embedding-{args.celeba_images}",
                        write)
    return [Case(f"CelebA-shaped {compression}, (1024,) float32", path, EMBEDDING,
                 args.celeba_epochs) for compression, path in paths.items()]


def ensure_own_size_files(args: argparse.Namespace) -> list[Case]:
    """The pair of files of images at their own size (CelebA-shaped images cropped to 150-217
    x 130-177) with the 4 KiB embedding, written by h5feed.write (the build's module): their
    fields are chunked by about 1 MiB of rows, not with the images."""
    def write(npy: Path, labels_npy: Path, paths: dict[str, Path]) -> None:
        env = dict(os.environ, PYTHONPATH=str(Path(args.python_module).resolve()))
        for compression, path in paths.items():
            run_checked([sys.executable, "-c", OWN_SIZE_WRITER, str(npy), str(path), compression],
                        args.timeout, env)

    shape = loader_bench.Shape("celeba", "CelebA-shaped", args.celeba_images, 218, 178)
    paths = ensure_pair(args, shape, args.workdir / f"own-size-embedding-{args.celeba_images}",
                        write)
    return [Case(f"own size {compression}, (1024,) float32", path, EMBEDDING, args.celeba_epochs,
                 ["--augment", "rrc=224"]) for compression, path in paths.items()]


def ensure_untabled(case: Case) -> None:
    """case.untabled: a copy of the file without /field_chunk_index, made unless newer than it."""
    import h5py
    case.untabled = case.path.with_name(f"{case.path.stem}-untabled.h5")
    if case.untabled.is_file() and case.untabled.stat().st_mtime > case.path.stat().st_mtime:
        return
    print(f"copying {case.path} without its fields' chunk tables ...", flush=True)
    partial = case.untabled.with_suffix(".partial")
    shutil.copyfile(case.path, partial)
    with h5py.File(partial, "a") as f:
        del f["field_chunk_index"]
    partial.rename(case.untabled)


def rate(args: argparse.Namespace, case: Case, key: str) -> float:
    """images/s of run `key`: a (images alone), b (with the field), s (streamed), u (streamed
    from the copy without chunk tables), a2."""
    path = case.untabled if key == "u" else case.path
    argv = [args.h5feed, "bench", str(path), "--sampler", "chunks:8", "--batch", "256",
            "--threads", str(args.threads), "--epochs", str(case.epochs), "--json",
            "--no-ceilings"] + (["--cold-each-epoch"] if args.cold else [])
    with_field = key in ("b", "s", "u")
    if with_field:
        argv += ["--fields", case.field_name]
    if key in ("s", "u"):
        argv += ["--stream-fields"]
    argv += case.extra
    report = loader_bench.run_json(argv, args.timeout)
    fields = [case.field_name] if with_field else []
    if report["fields"] != fields or report["stream_fields"] != (key in ("s", "u")):
        raise BenchError(f"h5feed bench read fields {report['fields']}: {' '.join(argv)}")
    if args.cold and not report.get("cold_took_effect"):
        raise BenchError(f"the page cache kept {path} (tmpfs?): {' '.join(argv)}")
    return float(report["images_per_s"])


def run_rounds(args: argparse.Namespace, cases: list[Case]) -> None:
    for round_index in range(args.rounds):
        # Alternate the order, so neither variant always runs first (or right after the other).
        order = (["a", "b", "s", "u", "a2"] if round_index % 2 == 0
                 else ["u", "s", "b", "a2", "a"])
        for case in cases:
            for key in order:
                case.rates[key].append(rate(args, case, key))
        line = ", ".join(f"{c.name} {statistics.median(c.ratios('b')):.3f} (streamed "
                         f"{statistics.median(c.ratios('s')):.3f}, without tables "
                         f"{statistics.median(c.ratios('u')):.3f})" for c in cases)
        print(f"round {round_index + 1}/{args.rounds}, median with/without the field so far: "
              f"{line}", flush=True)


def report(args: argparse.Namespace, cases: list[Case], load: tuple[float, float]) -> str:
    lines = [
        "# Images plus a field against the images alone, the field held or streamed",
        "",
        f"Measured {datetime.date.today()} on {cpu_model()}, {os.cpu_count()} cores (load "
        f"average {load[0]:.1f} before, {load[1]:.1f} after); revision {revision()}.",
        f"CIFAR-shaped: {args.images} images with a (40,) uint8 field `attrs`, {args.epochs} "
        f"epochs a run; CelebA-shaped: {args.celeba_images} images with a (1024,) float32 "
        f"field `embedding` (4 KiB a row), {args.celeba_epochs} epochs a run, and the same "
        "images cropped to their own sizes (150-217 x 130-177, with `--augment rrc=224`); "
        f"{args.threads} threads, " + (
            f"cold: the file dropped from the page cache before each of {args.cold_epochs} "
            "epochs a run (`--cold-each-epoch`), CelebA-shaped and own-size files only, "
            if args.cold else "page cache warm, ") +
        f"{args.rounds} rounds, each running the images alone (A), with `--fields NAME` (B), "
        "with the field streamed with the image chunks (S, `--stream-fields`) and alone again "
        "(A2), the order alternating; the ratios are per round. Target (the CIFAR-shaped files' "
        "(40,) uint8 field): B/A at least 0.97.",
        "",
        "| file | A images/s (median) | B images/s (median) | B/A median | B/A range "
        "| S/A median | S/B median | S/B range | A2/A median | A2/A range | target |",
        "| --- | ---: | ---: | ---: | --- | ---: | ---: | --- | ---: | --- | --- |",
    ]
    for c in cases:
        ab, aa, sa, sb = c.ratios("b"), c.ratios("a2"), c.ratios("s"), c.ratios("s", "b")
        # The target is the CIFAR-shaped file's (40,) uint8 field; a 4 KiB embedding is not.
        met = ("-" if c.field_name != FIELD
               else "met" if statistics.median(ab) >= 0.97 else "not met")
        lines.append(
            f"| {c.name} | {statistics.median(c.rates['a']):,.0f} | "
            f"{statistics.median(c.rates['b']):,.0f} | {statistics.median(ab):.3f} | "
            f"{min(ab):.3f}-{max(ab):.3f} | {statistics.median(sa):.3f} | "
            f"{statistics.median(sb):.3f} | {min(sb):.3f}-{max(sb):.3f} | "
            f"{statistics.median(aa):.3f} | {min(aa):.3f}-{max(aa):.3f} | {met} |")
    lines += [
        "",
        "The field streamed from the file (S) against the same from its copy without the "
        "fields' chunk tables (U: read through HDF5, not ahead), in the same rounds:",
        "",
        "| file | S images/s (median) | U images/s (median) | S/U median | S/U range "
        "| S/A median | U/A median | U/A range |",
        "| --- | ---: | ---: | ---: | --- | ---: | ---: | --- |"]
    for c in cases:
        su, sa, ua = c.ratios("s", "u"), c.ratios("s"), c.ratios("u")
        lines.append(
            f"| {c.name} | {statistics.median(c.rates['s']):,.0f} | "
            f"{statistics.median(c.rates['u']):,.0f} | {statistics.median(su):.3f} | "
            f"{min(su):.3f}-{max(su):.3f} | {statistics.median(sa):.3f} | "
            f"{statistics.median(ua):.3f} | {min(ua):.3f}-{max(ua):.3f} |")
    lines += ["", "Reproduce from the repository root after building:", "", "```sh",
              " ".join(["/usr/bin/python3 bench/fields_bench.py"] + sys.argv[1:]), "```", ""]
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--h5feed", default="build/tools/h5feed",
                        help="h5feed binary (default %(default)s)")
    parser.add_argument("--fields-file", default="build/bench/fields_file",
                        help="bench/fields_file binary (default %(default)s)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-fields-bench"),
                        help="generated data (default %(default)s)")
    parser.add_argument("--images", type=positive_int, default=50000, help="default 50000")
    parser.add_argument("--rounds", type=positive_int, default=5, help="default 5")
    parser.add_argument("--epochs", type=positive_int, default=20, help="per run (default 20)")
    parser.add_argument("--python-module", default="build/python",
                        help="the build's Python module folder, for h5feed.write (default "
                             "%(default)s)")
    parser.add_argument("--celeba-images", type=positive_int, default=8000,
                        help="images of the CelebA-shaped files (default 8000)")
    parser.add_argument("--celeba-epochs", type=positive_int, default=5,
                        help="epochs per run on them (default 5)")
    parser.add_argument("--threads", type=positive_int, default=2, help="default 2")
    parser.add_argument("--cold", action="store_true",
                        help="read from the disk: the file dropped before every epoch")
    parser.add_argument("--cold-epochs", type=positive_int, default=2,
                        help="epochs per run with --cold (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--timeout", type=float, default=900,
                        help="seconds allowed per command (default 900)")
    parser.add_argument("--output", type=Path, default=BENCH_DIR / "results" / "fields.md",
                        help="report file (default %(default)s)")
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> int:
    hint = "build it first (cmake --build build)"
    args.h5feed = executable(args.h5feed, "h5feed", hint)
    args.fields_file = executable(args.fields_file, "fields_file", hint)
    args.workdir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()[0]
    cases = ensure_files(args) + ensure_embedding_files(args) + ensure_own_size_files(args)
    if args.cold:
        cases = [c for c in cases if c.field_name == EMBEDDING]
        for case in cases:
            case.epochs = args.cold_epochs
    for case in cases:
        ensure_untabled(case)
    for case in cases:
        loader_bench.warm_page_cache(case.path)
    run_rounds(args, cases)
    publish(report(args, cases, (load_before, os.getloadavg()[0])), args.output)
    return 0


def main(argv: list[str]) -> int:
    return run_main("fields_bench", parse_args, run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
