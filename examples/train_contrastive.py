#!/usr/bin/python3
"""Self-supervised training with two views of every image (SimCLR), the views made by h5feed.

    /usr/bin/python3 examples/train_contrastive.py --data quickstart/photos --epochs 2
    /usr/bin/python3 examples/train_contrastive.py --steps 20     # photos generated

h5feed.Loader(views=[...]) makes several views of each sample from the one copy it read:
here two random resized crops (scale 0.2 to 1) with flips, each sample's two crops drawn
independently, keyed by (seed, epoch, row, view), so a run repeats exactly. Each batch is
then ((view_a, view_b), labels): two float32 N x 3 x crop x crop tensors whose sample i is the
same image. A ResNet-18 with a 2-layer projection head learns to match the two crops of each
image against the other images of the batch (the NT-Xent loss of SimCLR, Chen et al. 2020);
the labels are not used. For DINO-style multi-crop, add a spec with count=6 and
scale=(0.05, 0.4) at 96 px beside two global ones (docs/python.md, "Views").

The data are an ImageFolder (--data), converted once to --workdir at --store px; without
--data, photos are generated with tests/data/make_image_folder.py. Needs `import h5feed`
(PYTHONPATH=build/python); uses the GPU when torch sees one (--device).
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import time
from pathlib import Path

import torch
import torchvision
from torch import nn
from torch.nn import functional as F

import h5feed

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
REPO = Path(__file__).resolve().parent.parent


def nt_xent(a: torch.Tensor, b: torch.Tensor, temperature: float) -> torch.Tensor:
    """SimCLR's loss: each embedding's positive is the other view of its image, its negatives
    the 2N - 2 views of the other images."""
    z = F.normalize(torch.cat([a, b]), dim=1)
    similarity = z @ z.t() / temperature
    similarity.fill_diagonal_(float("-inf"))  # a view is not its own positive
    n = a.shape[0]
    positives = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    return F.cross_entropy(similarity, positives)


def main() -> None:
    # --help shows each default beside its option.
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--data", type=Path, help="ImageFolder (default: generate photos)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-train-contrastive"))
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many (0: all)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--store", type=int, default=128, help="stored size (px)")
    parser.add_argument("--crop", type=int, default=96, help="size of each view (px)")
    parser.add_argument("--temperature", type=float, default=0.5)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--threads", type=int, default=None, help="loader threads (all cores)")
    parser.add_argument("--generated-images", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    device = torch.device(args.device)

    args.workdir.mkdir(parents=True, exist_ok=True)
    data = args.data
    if data is None:
        data = args.workdir / f"photos-{args.generated_images}"
        if not data.exists():
            subprocess.run([sys.executable, REPO / "tests" / "data" / "make_image_folder.py",
                            data, "--images", str(args.generated_images), "--min-size", "80",
                            "--max-size", "320"], check=True, stdout=subprocess.DEVNULL)
    # Named by its source: a run on another folder (--data, or other generated photos) converts
    # its own file rather than train on that of an earlier run unnoticed.
    tag = hashlib.sha1(str(data.resolve()).encode()).hexdigest()[:10]
    stored = args.workdir / f"images-{args.store}-{tag}.h5"
    if not stored.exists():
        h5feed.convert_imagefolder(data, stored, size=args.store, resize="crop",
                                   threads=args.threads)

    # Two views of every image, each its own crop and flip; labels come once per sample.
    view = h5feed.Augment(random_resized_crop=args.crop, scale=(0.2, 1.0), random_flip=True)
    loader = h5feed.Loader(stored, args.batch_size, seed=args.seed, drop_last=True,
                           device=device, mean=MEAN, std=STD, threads=args.threads,
                           views=[view, view])

    backbone = torchvision.models.resnet18(num_classes=512)
    model = nn.Sequential(backbone, nn.ReLU(), nn.Linear(512, 128)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-6)
    step, started, losses = 0, time.perf_counter(), []
    for epoch in range(args.epochs):
        loader.set_epoch(epoch)
        for (view_a, view_b), _ in loader:
            loss = nt_xent(model(view_a), model(view_b), args.temperature)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
            losses.append(float(loss))
            if step % 10 == 0:
                print(f"epoch {epoch} step {step}: loss {losses[-1]:.3f}", flush=True)
            if step == args.steps:
                break
        if step == args.steps:
            break
    seconds = time.perf_counter() - started
    chance = float(torch.log(torch.tensor(2.0 * args.batch_size - 1)))  # all views alike
    print(f"final: steps {step}, first loss {losses[0]:.3f}, last loss "
          f"{sum(losses[-5:]) / len(losses[-5:]):.3f} (chance {chance:.3f}), "
          f"{step * args.batch_size / seconds:.0f} images/s training on {device}")


if __name__ == "__main__":
    main()
