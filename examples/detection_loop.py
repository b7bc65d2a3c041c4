#!/usr/bin/python3
"""A detection data loop: boxes that follow the crops, fed to torchvision's Faster R-CNN.

    /usr/bin/python3 examples/detection_loop.py --steps 20
    /usr/bin/python3 examples/detection_loop.py --file coco.h5 --steps 1000

Without --file the data set is synthetic: 128 x 128 images of a noisy background with one to
three rectangles, each filled with the colour of its class (0 red, 1 green, 2 blue) and boxed
exactly, written with h5feed.write (the fields `boxes` and `box_labels`, docs/python.md,
"Writing any dataset"). With --file, any h5feed file holding boxes, such as one that
`h5feed convert coco` wrote; its classes are counted from the file's /box_classes table (which
`convert coco` writes), or given with --classes (a file h5feed.write made has no table).

The loop reads h5feed.Loader(..., fields=["boxes"], boxes_as_list=True) with a random resized
crop and flip, so each image's boxes are shifted, scaled, clipped and mirrored with it (a box
the crop leaves under a pixel is dropped with its label), and hands torchvision.models.detection
what it takes: a list of C x H x W float images in 0..1 (mean=0, std=1: the model normalizes
them itself) and a list of {"boxes": (K, 4) float32 xyxy, "labels": (K,) int64} targets, the
labels one more than the file's (which are 0 to C - 1, as `convert coco` maps COCO's
categories): torchvision's detectors keep class 0 for the background. On the
synthetic data it also checks what the model is told: the pixel at the centre of every
delivered box has its class's colour (it could not if the boxes missed the crops). Trains on
the GPU when torch sees one (the loader's images go there with .to()). Needs `import h5feed`:
run from an installed prefix or with PYTHONPATH=build/python.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import torch
import torchvision
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead

import h5py

import h5feed

SIZE = 128
COLOURS = {0: (230, 30, 30), 1: (30, 230, 30), 2: (30, 30, 230)}  # class -> fill


class Rectangles(torch.utils.data.Dataset):
    """Images of up to three coloured rectangles, one per column third so that none overlaps,
    with their boxes and classes; each sample made from its index alone."""

    def __init__(self, count: int, seed: int):
        self.count, self.seed = count, seed

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int) -> dict:
        rng = np.random.default_rng([self.seed, i])
        pixels = rng.normal(60, 20, (SIZE, SIZE, 3))
        boxes, labels = [], []
        third = SIZE // 3
        for column in rng.permutation(3)[:int(rng.integers(1, 4))]:
            label = int(rng.integers(0, 3))
            width, height = (int(s) for s in rng.integers(14, third - 2, 2) * (1, 2))
            x1 = column * third + int(rng.integers(1, third - width))
            y1 = int(rng.integers(1, SIZE - height))
            pixels[y1:y1 + height, x1:x1 + width] = COLOURS[label]
            boxes.append((x1, y1, x1 + width, y1 + height))
            labels.append(label)
        image = np.clip(pixels, 0, 255).astype(np.uint8)
        return {"image": image, "boxes": np.array(boxes, np.float32),
                "box_labels": np.array(labels, np.int64)}


def boxes_on_their_shapes(images: list, targets: list) -> tuple:
    """(boxes whose centre pixel has their class's colour, boxes) in a delivered batch."""
    agreeing = total = 0
    for image, target in zip(images, targets):
        for box, label in zip(target["boxes"].tolist(), target["labels"].tolist()):
            x = min(int((box[0] + box[2]) / 2), image.shape[2] - 1)
            y = min(int((box[1] + box[3]) / 2), image.shape[1] - 1)
            pixel = (image[:, y, x] * 255).round()
            label -= 1  # the file's class: the targets' labels are one more
            agreeing += bool(torch.all((pixel - torch.tensor(COLOURS[label])).abs() <= 1))
            total += 1
    return agreeing, total


def classes_of(path: Path) -> int:
    """The box classes of `path`: its /box_classes table's length (docs/format.md)."""
    with h5py.File(path, "r") as f:
        if "box_classes" not in f:
            raise SystemExit(f"{path} has no /box_classes table (`h5feed convert coco` writes "
                             f"one): give --classes, the number of classes its box labels "
                             f"count (labels 0 to classes - 1)")
        return len(f["box_classes"])


def check_labels(batch: dict, classes: int, step: int) -> None:
    """Stops, naming the row, at a box label the model has no class for: torchvision would
    fail later with "Target N is out of bounds" deep in its loss."""
    for row, labels in zip(batch["indices"].tolist(), batch["box_labels"]):
        if labels.numel() and not 0 <= int(labels.min()) <= int(labels.max()) < classes:
            raise SystemExit(f"step {step}: row {row}'s box labels {labels.tolist()} are not "
                             f"all in 0..{classes - 1}: give --classes, the number of classes "
                             f"the file's box labels count")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--file", type=Path, help="an h5feed file with boxes (default: write "
                        "the synthetic rectangles to --workdir)")
    parser.add_argument("--classes", type=int, default=None,
                        help="classes of --file's boxes (default: its /box_classes table's)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-detection-loop"))
    parser.add_argument("--images", type=int, default=200, help="synthetic images to write")
    parser.add_argument("--steps", type=int, default=20, help="training steps")
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--crop", type=int, default=SIZE, help="the random resized crop's side")
    parser.add_argument("--box-head", type=int, default=128,
                        help="the box head's width (torchvision's is 1024, whose two layers "
                        "take most of a step on a CPU)")
    parser.add_argument("--threads", type=int, default=None, help="native threads (all cores)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    device = torch.device(args.device)

    path, synthetic = args.file, args.file is None
    if synthetic:
        args.workdir.mkdir(parents=True, exist_ok=True)
        # Named by what it holds: another --images or --seed writes its own file.
        path = args.workdir / f"rectangles-{args.images}-seed{args.seed}.h5"
        if not path.exists():
            report = h5feed.write(Rectangles(args.images, args.seed), path, size=SIZE,
                                  workers=2, progress=False)
            print(f"wrote {report['images']} images with boxes to {path}")
    classes = args.classes if args.classes is not None else (
        len(COLOURS) if synthetic else classes_of(path))

    # Each batch: {"images": (B, 3, crop, crop) float32 in 0..1, "labels": ..., "boxes": B
    # tensors (K_i, 4), "boxes_count": (B,), "box_labels": B tensors (K_i,), "indices": (B,)}.
    augment = h5feed.Augment(random_resized_crop=args.crop, scale=(0.3, 1.0), random_flip=True)
    loader = h5feed.Loader(path, args.batch_size, seed=args.seed, threads=args.threads,
                           drop_last=True, dtype=torch.float32, mean=0.0, std=1.0,
                           fields=["boxes"], boxes_as_list=True, as_dict=True, augment=augment,
                           with_indices=True)

    # The synthetic images hold at most three objects: far fewer proposals and sampled boxes
    # than torchvision's defaults (made for COCO) do, at a fraction of a step's time.
    few_objects = dict(rpn_pre_nms_top_n_train=300, rpn_post_nms_top_n_train=100,
                       box_batch_size_per_image=64) if synthetic else {}
    model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
        weights=None, weights_backbone=None, num_classes=classes + 1,
        min_size=args.crop, max_size=args.crop, **few_objects)
    heads = model.roi_heads
    heads.box_head = TwoMLPHead(heads.box_head.fc6.in_features, args.box_head)
    heads.box_predictor = FastRCNNPredictor(args.box_head, classes + 1)
    model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    model.train()
    step, epoch, agreeing, checked, started = 0, 0, 0, 0, time.perf_counter()
    first_loss = last_loss = None
    while step < args.steps:
        loader.set_epoch(epoch)
        for batch in loader:
            check_labels(batch, classes, step)
            images = list(batch["images"].to(device, non_blocking=True))
            targets = [{"boxes": boxes.to(device), "labels": labels.to(device) + 1}
                       for boxes, labels in zip(batch["boxes"], batch["box_labels"])]
            if synthetic:
                counted = boxes_on_their_shapes([image.cpu() for image in images], targets)
                agreeing, checked = agreeing + counted[0], checked + counted[1]
            losses = model(images, targets)
            loss = sum(losses.values())
            if not math.isfinite(float(loss)):
                raise SystemExit(f"step {step}: the loss is {float(loss)} ({losses})")
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            first_loss = float(loss) if first_loss is None else first_loss
            last_loss, step = float(loss), step + 1
            if step % 10 == 0:
                print(f"step {step}: loss {last_loss:.3f}", flush=True)
            if step == args.steps:
                break
        epoch += 1
    seconds = time.perf_counter() - started
    print(f"final: steps {step}, first loss {first_loss:.3f}, last loss {last_loss:.3f}, "
          f"{step * args.batch_size / seconds:.1f} images/s on {device}")
    if synthetic:
        print(f"boxes on their shapes: {agreeing} of {checked}")


if __name__ == "__main__":
    main()
