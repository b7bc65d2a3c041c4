#!/usr/bin/python3
"""torchvision's answers for tests/lib/transform/*_test.cpp (run with Debian's /usr/bin/python3,
which has torch 1.13 and torchvision 0.14).

  resize CASES OUT_DIR
      CASES: one case per line, "photo H W top left h w out_h out_w antialias" (a resized crop
      of the box) or "shorter H W S crop_h crop_w antialias" (Resize(S), CenterCrop). For case k
      writes OUT_DIR/k.image (the H x W x 3 uint8 photo, rendered as tests/data/
      make_image_folder.py renders its photos, seeded by k) and OUT_DIR/k.expected (torchvision's
      uint8 result, out_h x out_w x 3).
  get-params DRAWS H W SCALE_MIN SCALE_MAX RATIO_MIN RATIO_MAX OURS
      Draws DRAWS boxes with RandomResizedCrop.get_params and compares the area fraction and
      the log aspect ratio with those of the boxes in OURS (float64 top, left, h, w: h5feed's
      draws) by a two-sample Kolmogorov-Smirnov test, and the fallback share (boxes equal to
      the clamped central crop, counted the same way on both sides) by a two-proportion z
      test. Exits 1 when a p-value is below 0.01.
"""

import math
import os
import sys

import numpy as np
import torch
import torchvision.transforms as T
import torchvision.transforms.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "data"))
import make_image_folder  # noqa: E402  (its photo renderer)


def render_photo(seed: int, height: int, width: int) -> np.ndarray:
    """A real-looking photo of exactly height x width (rendered at that size)."""
    spec = make_image_folder.Spec(out_dir="", classes=10, min_size=1, max_size=1,
                                  formats=("png",), weights=(1.0,), gray_share=0.0, seed=seed)
    original = make_image_folder.draw_size
    make_image_folder.draw_size = lambda rng, lo, hi: (width, height)
    try:
        image = make_image_folder.render(np.random.default_rng([seed, 1]), spec, seed % 10)
    finally:
        make_image_folder.draw_size = original
    return np.array(image, dtype=np.uint8)  # a writable copy, as torch.from_numpy wants


def resize(cases_path: str, out_dir: str) -> int:
    with open(cases_path) as cases:
        for k, line in enumerate(cases):
            fields = line.split()
            kind, numbers = fields[0], [int(f) for f in fields[1:]]
            height, width = numbers[0], numbers[1]
            pixels = render_photo(k, height, width)
            tensor = torch.from_numpy(pixels).permute(2, 0, 1).contiguous()
            if kind == "photo":
                top, left, h, w, out_h, out_w, antialias = numbers[2:]
                out = F.resized_crop(tensor, top, left, h, w, [out_h, out_w],
                                     antialias=bool(antialias))
            else:
                shorter, crop_h, crop_w, antialias = numbers[2:]
                out = F.resize(tensor, [shorter], antialias=bool(antialias))
                out = F.center_crop(out, [crop_h, crop_w])
            pixels.tofile(os.path.join(out_dir, f"{k}.image"))
            out.permute(1, 2, 0).contiguous().numpy().tofile(os.path.join(out_dir, f"{k}.expected"))
    return 0


def ks_p_value(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov-Smirnov p-value, asymptotic (Numerical Recipes' probks)."""
    a, b = np.sort(a), np.sort(b)
    values = np.concatenate([a, b])
    distance = np.max(np.abs(np.searchsorted(a, values, side="right") / len(a) -
                             np.searchsorted(b, values, side="right") / len(b)))
    n = math.sqrt(len(a) * len(b) / (len(a) + len(b)))
    lam = (n + 0.12 + 0.11 / n) * distance
    if lam < 1e-3:
        return 1.0
    total = sum(2 * (-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))
    return min(1.0, max(0.0, total))


def get_params(draws: int, height: int, width: int, scale_min: float, scale_max: float,
               ratio_min: float, ratio_max: float, ours_path: str) -> int:
    torch.manual_seed(0)
    image = torch.empty(3, height, width, dtype=torch.uint8)
    scale, ratio = [scale_min, scale_max], [ratio_min, ratio_max]
    in_ratio = width / height
    if in_ratio < ratio_min:
        fallback = (round(width / ratio_min), width)
    elif in_ratio > ratio_max:
        fallback = (height, round(height * ratio_max))
    else:
        fallback = (height, width)
    fallback_box = ((height - fallback[0]) // 2, (width - fallback[1]) // 2) + fallback
    theirs = np.array([T.RandomResizedCrop.get_params(image, scale, ratio) for _ in range(draws)],
                      dtype=np.float64)
    ours = np.fromfile(ours_path, dtype=np.float64).reshape(-1, 4)

    def measures(boxes):  # area fraction, log aspect ratio, is the fallback box
        return (boxes[:, 2] * boxes[:, 3] / (height * width), np.log(boxes[:, 3] / boxes[:, 2]),
                np.all(boxes == np.array(fallback_box, dtype=np.float64), axis=1))

    ours, theirs = measures(ours), measures(theirs)
    status = 0
    for name, column in (("area fraction", 0), ("log aspect ratio", 1)):
        p = ks_p_value(ours[column], theirs[column])
        print(f"{name}: KS p = {p:.4f} (h5feed mean {ours[column].mean():.5f}, "
              f"torchvision {theirs[column].mean():.5f})")
        status |= p <= 0.01
    # The fallback share: two proportions, pooled z test (normal approximation).
    our_share, their_share = ours[2].mean(), theirs[2].mean()
    pooled = (ours[2].sum() + theirs[2].sum()) / (len(ours[2]) + len(theirs[2]))
    spread = math.sqrt(max(pooled * (1 - pooled), 1e-12) * (1 / len(ours[2]) + 1 / draws))
    p = math.erfc(abs(our_share - their_share) / spread / math.sqrt(2))
    print(f"fallback share: h5feed {our_share:.5f}, torchvision {their_share:.5f}, p = {p:.4f}")
    status |= p <= 0.01
    return int(status)


def main(argv: list[str]) -> int:
    if argv[1] == "resize":
        return resize(argv[2], argv[3])
    if argv[1] == "get-params":
        draws, height, width = int(argv[2]), int(argv[3]), int(argv[4])
        return get_params(draws, height, width, *map(float, argv[5:9]), argv[9])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
