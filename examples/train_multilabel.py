#!/usr/bin/python3
"""A multi-label CNN trained on a file that h5feed.write made from a PyTorch dataset.

    /usr/bin/python3 examples/train_multilabel.py --steps 100
    /usr/bin/python3 examples/train_multilabel.py --images 20000 --workers 8 --epochs 3

The dataset is a plain torch.utils.data.Dataset whose samples are dicts, as a CelebA-like
data set's would be: a PIL image, a class label (the background's tint), 6 binary attributes
(which marks the image shows: each a coloured bar at its own place), and a caption naming
them. h5feed.write runs its __getitem__ in --workers processes and writes every value: the
image and label as convert_imagefolder would, the attributes as a uint8 (6,) field, the
caption as a text field (docs/python.md, "Writing any dataset"). Training reads the images,
the labels and the attributes through h5feed.Loader(..., fields=["attrs"], as_dict=True), the
attributes a (B, 6) uint8 tensor beside each batch. The model has two heads: the class
(cross-entropy) and the attributes (a binary cross-entropy per attribute). Trains on the GPU when torch sees one, else on the CPU. Needs `import h5feed`: run
from an installed prefix or with PYTHONPATH=build/python.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import h5py
import numpy as np
import torch
from PIL import Image
from torch import nn

import h5feed

ATTRIBUTES = ("red_top", "green_bottom", "blue_left", "yellow_right", "white_centre",
              "black_corner")
TINTS = ("warm", "cool", "grey")


class MarkedImages(torch.utils.data.Dataset):
    """32 x 32 images over a tinted noisy background (the class), each attribute present with
    probability one half and drawn as a coloured bar at its own place. Every sample is made
    from its index alone, so the dataset needs no files and any worker makes the same one."""

    def __init__(self, count: int, seed: int):
        self.count, self.seed = count, seed

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int) -> dict:
        rng = np.random.default_rng([self.seed, i])
        label = int(rng.integers(len(TINTS)))
        tint = np.array([(150, 100, 80), (80, 100, 150), (110, 110, 110)][label])
        pixels = tint + rng.normal(0, 25, (32, 32, 3))
        attrs = rng.integers(0, 2, len(ATTRIBUTES)).astype(np.uint8)
        marks = [((slice(2, 7), slice(6, 26)), (230, 30, 30)),
                 ((slice(25, 30), slice(6, 26)), (30, 220, 30)),
                 ((slice(6, 26), slice(2, 7)), (30, 30, 230)),
                 ((slice(6, 26), slice(25, 30)), (230, 230, 30)),
                 ((slice(13, 19), slice(13, 19)), (250, 250, 250)),
                 ((slice(0, 5), slice(0, 5)), (0, 0, 0))]
        for present, (place, colour) in zip(attrs, marks):
            if present:
                pixels[place] = colour
        image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
        caption = ", ".join(name for name, on in zip(ATTRIBUTES, attrs) if on) or "plain"
        return {"image": image, "label": label, "attrs": attrs, "caption": caption}


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(4), nn.Flatten())
        self.classes = nn.Linear(64 * 16, len(TINTS))
        self.attributes = nn.Linear(64 * 16, len(ATTRIBUTES))

    def forward(self, images: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.body(images)
        return self.classes(features), self.attributes(features)


def write(path: Path, dataset, workers: int, threads: int | None) -> None:
    """The dataset written to `path` (once)."""
    if not path.exists():
        report = h5feed.write(dataset, path, size=32, workers=workers, threads=threads,
                              progress=False)
        print(f"wrote {report['images']} images to {path} in {report['seconds']:.1f} s "
              f"({workers} worker processes)")
    # The fields are plain HDF5 datasets too (docs/format.md, "Fields").
    with h5py.File(path) as f:
        print(f"{path.name}: fields {list(f.attrs['fields'])}, row 0's caption: "
              f"{f['caption'].asstr()[0]!r}")


def evaluate(model: nn.Module, loader: h5feed.Loader,
             device: torch.device) -> tuple[float, float]:
    """(class accuracy, attribute accuracy: the share of (image, attribute) pairs right)."""
    model.eval()
    right_classes = right_attributes = total = 0
    with torch.no_grad():
        for batch in loader:
            classes, attributes = model(batch["images"].to(device))
            labels, targets = batch["labels"].to(device), batch["attrs"].to(device)
            right_classes += int((classes.argmax(1) == labels).sum())
            right_attributes += int(((attributes > 0) == targets.bool()).sum())
            total += labels.shape[0]
    model.train()
    return right_classes / total, right_attributes / (total * len(ATTRIBUTES))


def at_least_one(text: str) -> int:
    """An argparse type: a whole number of at least 1 (an epoch count, a batch size)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-train-multilabel"),
                        help="the written files go here")
    parser.add_argument("--images", type=int, default=4000, help="training images")
    parser.add_argument("--epochs", type=at_least_one, default=2)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    parser.add_argument("--batch-size", type=at_least_one, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
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
    write(train_h5, MarkedImages(args.images, args.seed), args.workers, args.threads)
    write(test_h5, MarkedImages(args.images // 5, args.seed + 1), args.workers, args.threads)

    # Each batch: {"images", "labels", "attrs"}; the attributes (B, 6) uint8, on the images'
    # device (a CUDA tensor with device="cuda", where .to(device) below is then no copy).
    train = h5feed.Loader(train_h5, args.batch_size, sampler="chunks:8", seed=args.seed,
                          device=device, threads=args.threads, drop_last=True,
                          fields=["attrs"], as_dict=True)
    test = h5feed.Loader(test_h5, 200, sampler="sequential", device=device,
                         threads=args.threads, fields=["attrs"], as_dict=True)

    model = TwoHeads().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    class_loss, attribute_loss = nn.CrossEntropyLoss(), nn.BCEWithLogitsLoss()
    step, started = 0, time.perf_counter()
    first_loss = last_loss = None
    for epoch in range(args.epochs):
        train.set_epoch(epoch)
        for epoch_step, batch in enumerate(train, 1):
            classes, attributes = model(batch["images"].to(device, non_blocking=True))
            targets = batch["attrs"].to(device, non_blocking=True).float()
            loss = class_loss(classes, batch["labels"].to(device)) + \
                attribute_loss(attributes, targets)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
            last_loss = float(loss)
            first_loss = last_loss if first_loss is None else first_loss
            if step % 10 == 0:
                print(f"epoch {epoch} step {epoch_step}/{len(train)}: loss {last_loss:.3f}",
                      flush=True)
            if step == args.steps:
                break
        if step == args.steps:
            break
    seconds = time.perf_counter() - started
    class_accuracy, attribute_accuracy = evaluate(model, test, device)
    print(f"final: steps {step}, first loss {first_loss:.3f}, last loss {last_loss:.3f}, "
          f"test class accuracy {class_accuracy:.3f}, test attribute accuracy "
          f"{attribute_accuracy:.3f}, {step * args.batch_size / seconds:.0f} images/s training "
          f"on {device}")


if __name__ == "__main__":
    main()
