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


def geometry_steps(words: list[str]):
    """The geometry of a case line as (steps, flip, fill): steps are ("crop", top, left, h, w),
    ("resize", h, w) and ("pad", left, top, right, bottom), in order."""
    kind, n = words[0], [int(w) for w in words[1:]]
    if kind == "crop":
        top, left, h, w, out_h, out_w, flip, fill = n
        steps = [("crop", top, left, h, w), ("resize", out_h, out_w)]
    elif kind == "resize":
        resized_h, resized_w, top, left, out_h, out_w, flip, fill = n
        steps = [("resize", resized_h, resized_w), ("crop", top, left, out_h, out_w)]
    elif kind == "window":
        top, left, out_h, out_w, padding, oy, ox, flip, fill = n
        steps = [("crop", top, left, out_h, out_w), ("pad", padding, padding, padding, padding),
                 ("crop", oy, ox, out_h, out_w)]
    else:  # placed
        top, left, h, w, to_top, to_left, to_h, to_w, out_h, out_w, flip, fill = n
        steps = [("crop", top, left, h, w), ("resize", to_h, to_w),
                 ("pad", to_left, to_top, out_w - to_left - to_w, out_h - to_top - to_h)]
    return steps, bool(flip), fill


def mask(cases_path: str, out_dir: str) -> int:
    nearest = T.InterpolationMode.NEAREST
    with open(cases_path) as cases:
        for k, line in enumerate(cases):
            words = line.split()
            height, width, size = int(words[0]), int(words[1]), int(words[2])
            stored = np.fromfile(os.path.join(out_dir, f"{k}.mask"),
                                 dtype=np.uint8 if size == 1 else np.uint16)
            out = torch.from_numpy(stored.reshape(1, height, width).astype(
                np.uint8 if size == 1 else np.int32))
            steps, flip, fill = geometry_steps(words[3:])
            for step in steps:
                if step[0] == "crop":
                    out = F.crop(out, *step[1:])
                elif step[0] == "resize":
                    out = F.resize(out, list(step[1:]), interpolation=nearest)
                else:
                    out = F.pad(out, list(step[1:]), fill=fill)
            if flip:
                out = F.hflip(out)
            out.numpy().astype(stored.dtype).tofile(os.path.join(out_dir, f"{k}.expected"))
    return 0


# torchvision 0.14 has no transforms.v2: its bounding-box kernels (torchvision/transforms/v2/
# functional/_geometry.py and _meta.py, 0.16-0.20) and SanitizeBoundingBoxes (v2/_misc.py),
# each computed as there, in float32 tensors.
def v2_clamp_boxes(boxes, canvas):
    boxes[:, 0::2].clamp_(min=0, max=canvas[1])  # clamp_bounding_boxes, XYXY
    boxes[:, 1::2].clamp_(min=0, max=canvas[0])
    return boxes, canvas


def v2_crop_boxes(boxes, top, left, height, width):
    boxes = boxes - torch.tensor([left, top, left, top], dtype=boxes.dtype)
    return v2_clamp_boxes(boxes, (height, width))


def v2_resize_boxes(boxes, canvas, height, width):
    if (height, width) == canvas:
        return boxes, canvas
    ratios = torch.tensor([width / canvas[1], height / canvas[0]] * 2)
    return boxes.mul(ratios).to(boxes.dtype), (height, width)


def v2_pad_boxes(boxes, canvas, left, top, right, bottom):
    boxes = boxes + torch.tensor([left, top, left, top], dtype=boxes.dtype)
    return v2_clamp_boxes(boxes, (canvas[0] + top + bottom, canvas[1] + left + right))


def v2_hflip_boxes(boxes, canvas):
    boxes = boxes.clone()
    boxes[:, [2, 0]] = boxes[:, [0, 2]].sub_(canvas[1]).neg_()
    return boxes


def v2_sanitize(boxes, canvas, min_size=1.0, min_area=1.0):
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    valid = (ws >= min_size) & (hs >= min_size) & (boxes >= 0).all(dim=-1) & (ws * hs >= min_area)
    valid &= (boxes[:, 0] <= canvas[1]) & (boxes[:, 2] <= canvas[1])
    valid &= (boxes[:, 1] <= canvas[0]) & (boxes[:, 3] <= canvas[0])
    return valid


def boxes(cases_path: str, out_dir: str) -> int:
    with open(cases_path) as cases:
        for k, line in enumerate(cases):
            words = line.split()
            height, width = int(words[0]), int(words[1])
            out = torch.from_numpy(np.fromfile(os.path.join(out_dir, f"{k}.boxes"),
                                               dtype=np.float32).reshape(-1, 4))
            canvas = (height, width)
            steps, flip, _ = geometry_steps(words[3:])
            for step in steps:
                if step[0] == "crop":
                    out, canvas = v2_crop_boxes(out, *step[1:])
                elif step[0] == "resize":
                    out, canvas = v2_resize_boxes(out, canvas, *step[1:])
                else:
                    out, canvas = v2_pad_boxes(out, canvas, *step[1:])
            if flip:
                out = v2_hflip_boxes(out, canvas)
            # ClampBoundingBoxes before SanitizeBoundingBoxes, as torchvision's detection recipe
            # (references/detection/presets.py) has them: resize multiplies by a float32 ratio,
            # which can take an edge on the crop's border to 224.00002, and Sanitize alone would
            # drop that box as outside the image.
            out, canvas = v2_clamp_boxes(out, canvas)
            valid = v2_sanitize(out, canvas)
            out[valid].numpy().tofile(os.path.join(out_dir, f"{k}.expected"))
            torch.nonzero(valid).flatten().to(torch.int32).numpy().tofile(
                os.path.join(out_dir, f"{k}.kept"))
    return 0


def main(argv: list[str]) -> int:
    if argv[1] == "resize":
        return resize(argv[2], argv[3])
    if argv[1] in ("mask", "boxes"):
        return (mask if argv[1] == "mask" else boxes)(argv[2], argv[3])
    if argv[1] == "get-params":
        draws, height, width = int(argv[2]), int(argv[3]), int(argv[4])
        return get_params(draws, height, width, *map(float, argv[5:9]), argv[9])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
