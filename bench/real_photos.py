#!/usr/bin/python3
"""Make an ImageFolder tree of JPEG files cut from real photographs, at varied sizes and aspects.

What: OUT_DIR/class_XXX/img_NNNNNN.jpg, N images over K class folders (image i goes to class
i mod K), each a random crop of one of 26 real photographs that Debian ships as wallpapers,
downscaled (PIL's reduce, then LANCZOS) and saved as JPEG quality 95. Each crop's aspect ratio
is drawn from the mix of a photo dataset (mostly 4:3 and 3:4, some 3:2, 2:3, 16:9 and 1:1) and
its longer side uniformly from [--min-side, --max-side]; no crop is ever upscaled.

Why: synthetic noise or shapes cost the wrong amount to decode and compress; benchmarks and
tests of images stored at their own size need real photos of real aspect ratios.

Needs the Debian packages lomiri-wallpapers-16.04 (15 photos, 15.7 MB installed) and
mate-backgrounds (11 nature photos used, 46 MB installed): `apt-get install
lomiri-wallpapers-16.04 mate-backgrounds`. Licences: CC-BY(-SA) 4.0 and GPL-2+, see
/usr/share/doc/<package>/copyright.

Determinism: image i is a pure function of (--seed, i) and the photos: any N gives the same
first images, and the same command gives the same files.

    /usr/bin/python3 bench/real_photos.py /tmp/photos --images 2000 --classes 10 --max-side 512

Importable: `from real_photos import make_real_photos`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

import numpy as np
from PIL import Image

PACKAGES = ("lomiri-wallpapers-16.04", "mate-backgrounds")
INSTALL_HINT = "apt-get install " + " ".join(PACKAGES)

_LOMIRI = "/usr/share/backgrounds/"
_MATE = "/usr/share/backgrounds/mate/nature/"
# (package, path) of every photo used, in a fixed order (the photo index is drawn from it).
# mate-backgrounds' nature/Aqua.jpg is left out: it is an abstract gradient, not a photo.
SOURCES = tuple(("lomiri-wallpapers-16.04", _LOMIRI + name) for name in (
    "Bridge_by_Sander_Klootwijk.jpg", "Dragonfly_by_Bolly.jpg", "Picture_0B_by_freespace.jpg",
    "Picture_1A_by_freespace.jpg", "Wine_by_Jakkub_Mede.jpg", "aitzgorri_by_Aitzol_Berasategi.jpg",
    "analogpattern_by_Peter_Nerlich.jpg", "free_by_Peter_Nerlich.jpg",
    "friends_by_Aitzol_Berasategi.jpg", "greentock_by_Peter_Nerlich.jpg",
    "life_by_Aitzol_Berasategi.jpg", "picosdeeuropa_by_Aitzol_Berasategi.jpg",
    "seeding_by_Clements_Engelhardt.jpg", "sunset_by_Aitzol_Berasategi.jpg",
    "umang_by_Abhishek_Mudgal.jpg")) + tuple(("mate-backgrounds", _MATE + name) for name in (
    "Blinds.jpg", "Dune.jpg", "FreshFlower.jpg", "Garden.jpg", "GreenMeadow.jpg", "LadyBird.jpg",
    "RainDrops.jpg", "Storm.jpg", "TwoWings.jpg", "Wood.jpg", "YellowFlower.jpg"))

# (width, height) ratio -> share, roughly a phone/DSLR photo collection: mostly 4:3 landscape and
# 3:4 portrait, then 3:2 / 2:3 (DSLR), 16:9 (video frames, panoramas) and 1:1 (social media).
ASPECTS = {(4, 3): 0.40, (3, 4): 0.25, (3, 2): 0.10, (2, 3): 0.05, (16, 9): 0.10, (1, 1): 0.10}
# A crop covers this share (uniform) of the largest crop of its aspect that fits the photo.
CROP_AREA = (0.1, 1.0)
QUALITY = 95


class RealPhotosMissing(RuntimeError):
    """The photos are not on this machine; the message names the Debian packages to install."""


def find_sources(sources=None) -> list[str]:
    """Paths of the source photos, or RealPhotosMissing naming the packages that lack."""
    if sources is not None:
        entries = [("(given)", str(path)) for path in sources]
    else:
        entries = list(SOURCES)
    if not entries:
        raise RealPhotosMissing("no source photos given")
    missing = [(package, path) for package, path in entries if not os.path.isfile(path)]
    if missing and sources is not None:
        raise RealPhotosMissing(f"source photo not found: {missing[0][1]}")
    if missing:
        packages = sorted({package for package, _ in missing})
        raise RealPhotosMissing(
            f"{len(missing)} of the {len(entries)} real photos are missing (first: {missing[0][1]}); "
            f"install the Debian package(s) that ship them: apt-get install {' '.join(packages)}")
    return [path for _, path in entries]


def plan_image(seed: int, index: int, photo_sizes: list[tuple[int, int]],
               min_side: int, max_side: int) -> tuple[int, tuple[int, int, int, int], tuple[int, int]]:
    """Image `index`: (photo, crop box in the photo, output (width, height)). Pure of its inputs."""
    rng = np.random.default_rng([seed, index])
    photo = int(rng.integers(len(photo_sizes)))
    ratios = list(ASPECTS)
    aw, ah = ratios[int(rng.choice(len(ratios), p=np.array(list(ASPECTS.values()))))]
    longer = int(rng.integers(min_side, max_side + 1))
    width, height = (longer, max(1, round(longer * ah / aw))) if aw >= ah else \
        (max(1, round(longer * aw / ah)), longer)
    pw, ph = photo_sizes[photo]
    # The largest crop of this aspect in the photo; a crop is a random share of its area.
    full_w = min(pw, ph * aw / ah)
    full_h = full_w * ah / aw
    scale = np.sqrt(rng.uniform(*CROP_AREA))
    crop_w, crop_h = full_w * scale, full_h * scale
    if crop_w < width or crop_h < height:  # never upscale: grow the crop, else shrink the output
        grow = min(max(width / crop_w, height / crop_h), full_w / crop_w)
        crop_w, crop_h = crop_w * grow, crop_h * grow
        shrink = min(1.0, crop_w / width, crop_h / height)
        width, height = max(1, int(width * shrink)), max(1, int(height * shrink))
    left = rng.uniform(0, pw - crop_w)
    top = rng.uniform(0, ph - crop_h)
    box = (int(left), int(top), min(pw, int(round(left + crop_w))), min(ph, int(round(top + crop_h))))
    return photo, box, (width, height)


def make_real_photos(out_dir, images: int, classes: int = 10, seed: int = 0, min_side: int = 200,
                     max_side: int = 1000, quality: int = QUALITY, sources=None) -> list[dict]:
    """Write `images` JPEG crops of real photos under out_dir/class_XXX/; return one dict per
    image (path relative to out_dir, label, width, height), in index order. Raises
    RealPhotosMissing (naming the Debian packages) when the photos are not installed."""
    if images < 1 or classes < 1 or not 1 <= min_side <= max_side:
        raise ValueError("need images >= 1, classes >= 1 and 1 <= min_side <= max_side")
    paths = find_sources(sources)
    photo_sizes = []
    for path in paths:
        with Image.open(path) as photo:
            photo_sizes.append(photo.size)
    plans = [plan_image(seed, i, photo_sizes, min_side, max_side) for i in range(images)]
    by_photo = defaultdict(list)
    for index, plan in enumerate(plans):
        by_photo[plan[0]].append(index)
    for label in range(classes):
        os.makedirs(os.path.join(out_dir, f"class_{label:03d}"), exist_ok=True)
    written = [None] * images
    for photo_index in sorted(by_photo):  # decode each photo once, hold one at a time
        with Image.open(paths[photo_index]) as opened:
            photo = opened.convert("RGB")
        for index in by_photo[photo_index]:
            _, box, size = plans[index]
            image = photo.crop(box).resize(size, Image.LANCZOS, reducing_gap=3.0)
            relative = os.path.join(f"class_{index % classes:03d}", f"img_{index:06d}.jpg")
            image.save(os.path.join(out_dir, relative), "JPEG", quality=quality)
            written[index] = {"path": relative, "label": index % classes,
                              "width": size[0], "height": size[1]}
    return written


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description="Make OUT_DIR/class_XXX/img_N.jpg: N JPEG crops of real photos at varied "
                    "sizes and aspect ratios (needs: " + INSTALL_HINT + ").")
    parser.add_argument("out_dir", metavar="OUT_DIR", help="folder to create (must be empty or absent)")
    parser.add_argument("--images", type=positive_int, default=1000, help="number of images (default 1000)")
    parser.add_argument("--classes", type=positive_int, default=10, help="class folders (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--min-side", type=positive_int, default=None,
                        help="smallest longer side in px (default 200, or --max-side if lower)")
    parser.add_argument("--max-side", type=positive_int, default=1000,
                        help="largest longer side in px (default 1000)")
    parser.add_argument("--quality", type=positive_int, default=QUALITY, help="JPEG quality (default 95)")
    args = parser.parse_args(argv)
    if args.min_side is None:
        args.min_side = min(200, args.max_side)
    if args.min_side > args.max_side:
        parser.error(f"--min-side {args.min_side} is above --max-side {args.max_side}")
    if os.path.isdir(args.out_dir) and os.listdir(args.out_dir):
        parser.error(f"{args.out_dir} is not empty")
    try:
        written = make_real_photos(args.out_dir, args.images, args.classes, args.seed,
                                   args.min_side, args.max_side, args.quality)
    except RealPhotosMissing as error:
        print(f"real_photos.py: {error}", file=sys.stderr)
        return 2
    total = sum(os.path.getsize(os.path.join(args.out_dir, w["path"])) for w in written)
    print(f"wrote {len(written)} images in {args.classes} classes to {args.out_dir} "
          f"({total / 1e6:.1f} MB of JPEG)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
