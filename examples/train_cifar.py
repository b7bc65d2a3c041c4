#!/usr/bin/python3
"""A small CNN trained on CIFAR-10 with h5feed.Loader in place of torch's DataLoader.

    /usr/bin/python3 examples/train_cifar.py --data cifar-10-batches-bin --epochs 10
    /usr/bin/python3 examples/train_cifar.py --steps 50        # CIFAR-shaped data generated

With --data, the real CIFAR-10 binaries (https://www.cs.toronto.edu/~kriz/cifar.html, the
"binary version") are converted once with h5feed.convert_cifar. Without it, CIFAR-shaped
binaries are generated first (10 classes, each a colour and a stripe direction under noise), so
the example runs anywhere in seconds. It trains on the GPU when torch sees one (the loader then
delivers batches on the device: --device), else on the CPU. Needs `import h5feed`: run from an
installed prefix or with PYTHONPATH=build/python.

What replaces the DataLoader is two lines:
    loader = h5feed.Loader(train_h5, batch_size, device=device, mean=..., std=...)
    loader.set_epoch(epoch); for images, labels in loader: ...
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

import h5feed

CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR_STD = (0.2470, 0.2435, 0.2616)


def generate_cifar_binaries(folder: Path, train_images: int, test_images: int, seed: int):
    """CIFAR-10's binary layout (data_batch_1..5.bin, test_batch.bin, batches.meta.txt): records
    of 1 label byte and 3072 planar pixel bytes, with images a small CNN can learn to tell apart."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    colours = rng.integers(40, 216, (10, 3))
    ramp = np.linspace(-50, 50, 32)

    def records(count):
        labels = rng.integers(0, 10, count)
        stripes = np.where((labels % 2 == 0)[:, None, None], ramp[None, :, None],
                           ramp[None, None, :])
        pixels = colours[labels][:, :, None, None] + stripes[:, None] + rng.normal(0, 30, (count, 3, 32, 32))
        planes = np.clip(pixels, 0, 255).astype(np.uint8).reshape(count, 3072)
        return np.concatenate([labels.astype(np.uint8)[:, None], planes], axis=1).tobytes()

    for i in range(1, 6):
        (folder / f"data_batch_{i}.bin").write_bytes(records(train_images // 5))
    (folder / "test_batch.bin").write_bytes(records(test_images))
    (folder / "batches.meta.txt").write_text("\n".join(f"class{c}" for c in range(10)) + "\n")


def small_cnn() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10))


def evaluate(model: nn.Module, loader: h5feed.Loader, device: torch.device) -> float:
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for images, labels in loader:
            predicted = model(images.to(device)).argmax(1)
            correct += int((predicted == labels.to(device)).sum())
            total += labels.shape[0]
    model.train()
    return correct / total


def main() -> None:
    # --help shows each default beside its option.
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--data", type=Path, help="CIFAR-10 binaries (default: generate)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/h5feed-train-cifar"),
                        help="converted files (and generated binaries) go here")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--threads", type=int, default=None, help="loader threads (all cores)")
    parser.add_argument("--generated-images", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    device = torch.device(args.device)

    args.workdir.mkdir(parents=True, exist_ok=True)
    source = args.data
    if source is None:
        source = args.workdir / f"generated-cifar-{args.generated_images}-seed{args.seed}"
        if not (source / "test_batch.bin").exists():
            generate_cifar_binaries(source, args.generated_images, args.generated_images // 5,
                                    args.seed)
    # Named by their source: a run on other binaries (--data, or other generated ones) converts
    # its own files rather than train on those of an earlier run unnoticed.
    tag = hashlib.sha1(str(source.resolve()).encode()).hexdigest()[:10]
    train_h5, test_h5 = args.workdir / f"train-{tag}.h5", args.workdir / f"test-{tag}.h5"
    for split, out in (("train", train_h5), ("test", test_h5)):
        if not out.exists():
            report = h5feed.convert_cifar(source, out, split=split, threads=args.threads)
            print(f"converted {report['images']} {split} images to {out}")

    # The DataLoader(H5Dataset, num_workers, pin_memory) of a typical script becomes this.
    train = h5feed.Loader(train_h5, args.batch_size, sampler="chunks:8", seed=args.seed,
                          device=device, mean=CIFAR_MEAN, std=CIFAR_STD, threads=args.threads,
                          drop_last=True)
    test = h5feed.Loader(test_h5, 200, sampler="sequential", device=device, mean=CIFAR_MEAN,
                         std=CIFAR_STD, threads=args.threads)

    model = small_cnn().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    loss_fn = nn.CrossEntropyLoss()
    step, started = 0, time.perf_counter()
    first_loss = last_loss = None
    for epoch in range(args.epochs):
        train.set_epoch(epoch)
        for epoch_step, (images, labels) in enumerate(train, 1):
            images, labels = images.to(device, non_blocking=True), labels.to(device)
            loss = loss_fn(model(images), labels)
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
    accuracy = evaluate(model, test, device)
    print(f"final: steps {step}, first loss {first_loss:.3f}, last loss {last_loss:.3f}, "
          f"test accuracy {accuracy:.3f}, {step * args.batch_size / seconds:.0f} images/s "
          f"training on {device}")


if __name__ == "__main__":
    main()
