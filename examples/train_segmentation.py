#!/usr/bin/python3
"""A tiny segmentation network trained on a file of images and masks that h5feed.write made.

    /usr/bin/python3 examples/train_segmentation.py --epochs 3
    /usr/bin/python3 examples/train_segmentation.py --images 5000 --epochs 10 --workers 8

The data set is synthetic: 64 x 64 images of a noisy background with one to three shapes in
random colours, each a disc or a square, and a mask of the same size whose pixels say what
covers them (0 background, 1 disc, 2 square; a palette PIL image, as Pascal VOC's masks are).
h5feed.write stores each mask beside its image (the field `mask`, docs/python.md, "Writing
any dataset"). Training reads them through h5feed.Loader(..., fields=["mask"]) with a random
resized crop and flip: each mask is cropped, resized by nearest neighbour and flipped with its
image (docs/augment.md). After training the mean IoU over the classes on a test file is printed
beside that of the best constant prediction (everything background). Trains on the GPU when
torch sees one, else on the CPU (the loader's masks are host tensors, moved with .to()). Needs
`import h5feed`: run from an installed prefix or with PYTHONPATH=build/python.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from torch import nn

import h5feed

CLASSES = ("background", "disc", "square")
SIZE = 64
PALETTE = [0, 0, 0, 200, 40, 40, 40, 200, 40] + [0] * (3 * 253)


class Shapes(torch.utils.data.Dataset):
    """Images of discs and squares and their masks, each sample made from its index alone (no
    files; every worker makes the same one)."""

    def __init__(self, count: int, seed: int):
        self.count, self.seed = count, seed

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int) -> dict:
        rng = np.random.default_rng([self.seed, i])
        pixels = rng.normal(110, 30, (SIZE, SIZE, 3))
        mask = np.zeros((SIZE, SIZE), np.uint8)
        y, x = np.mgrid[0:SIZE, 0:SIZE]
        for _ in range(int(rng.integers(1, 4))):
            kind = int(rng.integers(1, 3))
            radius = int(rng.integers(7, 15))
            cy, cx = (int(c) for c in rng.integers(radius, SIZE - radius, 2))
            if kind == 1:
                inside = (y - cy) ** 2 + (x - cx) ** 2 <= radius ** 2
            else:
                inside = (abs(y - cy) <= radius * 0.85) & (abs(x - cx) <= radius * 0.85)
            pixels[inside] = rng.integers(0, 256, 3)
            mask[inside] = kind
        image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
        palette_mask = Image.fromarray(mask, "P")
        palette_mask.putpalette(PALETTE)
        return {"image": image, "mask": palette_mask}


def block(inputs: int, outputs: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(inputs, outputs, 3, padding=1), nn.BatchNorm2d(outputs),
                         nn.ReLU())


class TinyNet(nn.Module):
    """Two downsamplings, two upsamplings, a skip: enough to see a shape's outline."""

    def __init__(self):
        super().__init__()
        self.down1, self.down2 = block(3, 24), nn.Sequential(nn.MaxPool2d(2), block(24, 48))
        self.middle = nn.Sequential(nn.MaxPool2d(2), block(48, 64), block(64, 64))
        self.up2 = block(64 + 48, 48)
        self.up1 = block(48 + 24, 24)
        self.head = nn.Conv2d(24, len(CLASSES), 1)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        first = self.down1(images)
        second = self.down2(first)
        middle = nn.functional.interpolate(self.middle(second), scale_factor=2)
        up = nn.functional.interpolate(self.up2(torch.cat([middle, second], 1)), scale_factor=2)
        return self.head(self.up1(torch.cat([up, first], 1)))


def write(path: Path, dataset, workers: int) -> None:
    if not path.exists():
        report = h5feed.write(dataset, path, size=SIZE, workers=workers, progress=False)
        print(f"wrote {report['images']} images with masks to {path} in "
              f"{report['seconds']:.1f} s")


def mean_iou(confusion: torch.Tensor) -> float:
    """The mean over the classes of true positives / (true + false positives + false
    negatives), from a confusion matrix (rows: truth, columns: prediction)."""
    true = confusion.diag().double()
    union = confusion.sum(0).double() + confusion.sum(1).double() - true
    return float((true / union.clamp(min=1)).mean())


def evaluate(model: nn.Module, loader: h5feed.Loader, device: torch.device) -> tuple:
    """(the model's mean IoU, the constant background prediction's) on `loader`'s batches."""
    model.eval()
    confusion = torch.zeros(len(CLASSES), len(CLASSES), dtype=torch.int64)
    constant = torch.zeros_like(confusion)
    with torch.no_grad():
        for batch in loader:
            truth = batch["mask"].long().flatten()
            predicted = model(batch["images"].to(device)).argmax(1).cpu().flatten()
            confusion += torch.bincount(truth * len(CLASSES) + predicted,
                                        minlength=len(CLASSES) ** 2).view_as(confusion)
            constant[:, 0] += torch.bincount(truth, minlength=len(CLASSES))
    model.train()
    return mean_iou(confusion), mean_iou(constant)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-train-segmentation"),
                        help="the written files go here")
    parser.add_argument("--images", type=int, default=600, help="training images")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.003)
    parser.add_argument("--workers", type=int, default=2, help="h5feed.write's processes")
    parser.add_argument("--threads", type=int, default=None, help="native threads (all cores)")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    args.workdir.mkdir(parents=True, exist_ok=True)

    # Named by what they hold: a run with another --images or --seed writes its own files
    # rather than train on those of an earlier run unnoticed.
    tag = f"{args.images}-seed{args.seed}"
    train_h5, test_h5 = args.workdir / f"train-{tag}.h5", args.workdir / f"test-{tag}.h5"
    write(train_h5, Shapes(args.images, args.seed), args.workers)
    write(test_h5, Shapes(max(args.images // 4, 50), args.seed + 1), args.workers)

    # Each batch: {"images": (B, 3, 64, 64), "labels": None, "mask": (B, 64, 64) uint8}, the
    # mask cropped, resized and flipped with its image.
    augment = h5feed.Augment(random_resized_crop=SIZE, scale=(0.5, 1.0), random_flip=True)
    train = h5feed.Loader(train_h5, args.batch_size, seed=args.seed, threads=args.threads,
                          drop_last=True, fields=["mask"], as_dict=True, augment=augment)
    test = h5feed.Loader(test_h5, 100, sampler="sequential", threads=args.threads,
                         fields=["mask"], as_dict=True)

    model = TinyNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_of = nn.CrossEntropyLoss()
    step, started, loss = 0, time.perf_counter(), None
    for epoch in range(args.epochs):
        train.set_epoch(epoch)
        for batch in train:
            logits = model(batch["images"].to(device, non_blocking=True))
            loss = loss_of(logits, batch["mask"].to(device).long())
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
        print(f"epoch {epoch}: {step} steps, loss {float(loss):.3f}", flush=True)
    seconds = time.perf_counter() - started
    model_iou, constant_iou = evaluate(model, test, device)
    print(f"final: steps {step}, test mean IoU {model_iou:.3f}, constant prediction's "
          f"{constant_iou:.3f}, {step * args.batch_size / seconds:.0f} images/s training on "
          f"{device}")


if __name__ == "__main__":
    main()
