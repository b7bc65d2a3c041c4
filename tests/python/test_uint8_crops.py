"""uint8 crops for a trainer's own GPU transforms (issue 42): with augment and dtype=None (or
dtype=torch.uint8) a Loader delivers the crops as uint8, not normalized, NCHW or NHWC, on the
host, for files of images at their own size (JPEG) and of one size alike; they are the float
path's crops before normalization, pixel for pixel."""
import numpy as np
import pytest
import torch
from PIL import Image

import h5feed

SIZES = [(60, 80), (80, 60), (70, 70), (54, 96), (90, 120)]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("uint8_photos")
    rng = np.random.default_rng(42)
    for i in range(30):
        height, width = SIZES[i % len(SIZES)]
        y, x = np.mgrid[0:height, 0:width]
        image = np.stack([(x * 3 + c * 40) % 256 for c in range(3)], axis=-1) + \
            rng.integers(0, 20, (height, width, 3))
        (root / f"class{i % 2}").mkdir(exist_ok=True)
        Image.fromarray(np.clip(image, 0, 255).astype(np.uint8)).save(
            root / f"class{i % 2}" / f"{i:03d}.png")
    return root


@pytest.fixture(scope="module", params=["own_size_jpeg", "fixed_size"])
def path(folder, tmp_path_factory, request):
    out = tmp_path_factory.mktemp("uint8") / "photos.h5"
    if request.param == "own_size_jpeg":
        h5feed.convert_imagefolder(folder, out, max_side=96, encoding="jpeg:90")
    else:
        h5feed.convert_imagefolder(folder, out, size=(64, 64))
    return out


def epoch(path, **arguments):
    loader = h5feed.Loader(path, batch_size=8, seed=5, threads=2, with_indices=True,
                           augment=h5feed.Augment(random_resized_crop=48, random_flip=True),
                           **arguments)
    images, indices = [], []
    for batch in loader:
        images.append(batch[0].clone())
        indices.append(batch[2])
    return torch.cat(images), torch.cat(indices)


@pytest.mark.parametrize("memory_format", [torch.contiguous_format, torch.channels_last])
def test_uint8_crops_are_the_float_crops_before_normalization(path, memory_format):
    crops, rows = epoch(path, dtype=None, memory_format=memory_format)
    floats, float_rows = epoch(path, dtype=torch.float32, mean=(0, 0, 0), std=(1, 1, 1),
                               memory_format=memory_format)
    assert torch.equal(rows, float_rows)
    assert crops.dtype == torch.uint8 and crops.device.type == "cpu"
    assert crops.shape == (30, 3, 48, 48)
    assert crops.is_contiguous(memory_format=memory_format)
    # (x / 255 - 0) / 1 in float32, scaled back: the uint8 pixel it was made of.
    assert torch.equal(crops, torch.round(floats * 255).to(torch.uint8))
    assert crops.float().std() > 10  # crops of pictures, not of zeros


def test_dtype_uint8_asks_for_uint8_views_too(path):
    crops, _ = epoch(path, dtype=None)
    explicit, _ = epoch(path, dtype=torch.uint8)
    assert torch.equal(crops, explicit)


def test_uint8_views_are_refused_for_the_gpu_stage_with_what_to_do(path):
    with pytest.raises(h5feed.InvalidArgumentError, match=r"non_blocking=True"):
        h5feed.Loader(path, batch_size=8, augment=h5feed.Augment(random_resized_crop=48),
                      dtype=torch.uint8, device="cuda:0")


@pytest.mark.parametrize("crop", [(61, 61), (59, 62), (64, 63), (57, 60)])
def test_a_center_crop_of_the_stored_image_is_torchvisions(folder, tmp_path, crop):
    # CenterCrop rounds the offset (64 - 61) / 2 = 1.5 to 2 (Python's round); h5feed rounded it
    # down to 1, so the crop started a pixel above and left of torchvision's.
    torchvision_functional = pytest.importorskip("torchvision.transforms.functional")
    import h5py
    out = tmp_path / "photos.h5"
    h5feed.convert_imagefolder(folder, out, size=(64, 64))
    loader = h5feed.Loader(out, batch_size=30, dtype=None, with_indices=True,
                           augment=h5feed.Augment(center_crop=crop))
    images, _, rows = next(iter(loader))
    with h5py.File(out) as f:
        stored = torch.from_numpy(f["images"][:]).permute(0, 3, 1, 2)
    assert torch.equal(images, torchvision_functional.center_crop(stored[rows], list(crop)))
